package dev.idem.benchmarks.jmh;

/** The benchmarked operations in report order; {@link #method} is the {@link IdemBenchmarks} method. */
public enum Operation {
  DB_LIMIT("dbLimit", "database limit: held connection, prepared INSERT + commit"),
  PLAIN("plain", "(1) plain INSERT in its own transaction (pooled)"),
  HAND_WRITTEN("handWritten", "(2) hand-written unique-key pattern"),
  HAND_WRITTEN_IDEM_SHAPED("handWrittenIdemShaped",
      "(2b) control: the same hand-written code, key table shaped like idem_record"),
  HAND_WRITTEN_STATEMENT_TRANSACTION("handWrittenStatementTransaction",
      "(2d) control: the same hand-written code, its transaction opened as idem opens its own (START TRANSACTION"
          + " on MariaDB; elsewhere the same as (2))"),
  IDEM_TRANSACTIONAL("idemTransactional", "(3) idem TRANSACTIONAL, first execution, stores a result"),
  IDEM_TRANSACTIONAL_VOID("idemTransactionalVoid", "(3) idem TRANSACTIONAL, first execution, void"),
  IDEM_TRANSACTIONAL_VOID_PROMISED("idemTransactionalVoidPromised",
      "(3b) idem TRANSACTIONAL, first execution, void, opt-in bodiesNeverCommitImplicitly"),
  IDEM_CLAIM("idemClaim", "(4) idem CLAIM, first execution, stores a result"),
  HAND_WRITTEN_COMPLETED_AFTER("handWrittenCompletedAfter",
      "(2c) floor of a stored result: hand-written, the key claimed first, the response written by an UPDATE after"
          + " the business write, one commit"),
  HAND_WRITTEN_CLAIM_FIRST("handWrittenClaimFirst",
      "(4b) floor of CLAIM: hand-written, the key committed before the work, then work + completion + commit"),
  IDEM_REPLAY("idemReplay", "(5) idem replay of a completed key, no cache"),
  IDEM_REPLAY_CACHED("idemReplayCached", "(5) idem replay of a completed key, local cache"),
  TRANSITION_APPLIED("transitionApplied", "(6) idem state transition applied"),
  TRANSITION_REPEATED("transitionRepeated", "(6) idem state transition repeated");

  private final String method;
  private final String label;

  Operation(String method, String label) {
    this.method = method;
    this.label = label;
  }

  public String method() {
    return method;
  }

  public String label() {
    return label;
  }

  /** @return the operation whose benchmark method ends {@code benchmarkName}, or null */
  public static Operation ofBenchmark(String benchmarkName) {
    String method = benchmarkName.substring(benchmarkName.lastIndexOf('.') + 1);
    for (Operation operation : values()) {
      if (operation.method.equals(method)) {
        return operation;
      }
    }
    return null;
  }
}
