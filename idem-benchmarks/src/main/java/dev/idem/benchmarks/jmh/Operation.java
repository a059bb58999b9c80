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
  IDEM_TRANSACTIONAL_LOOKUP_FIRST("idemTransactionalLookupFirst",
      "(3c) idem TRANSACTIONAL, first execution, stores a result, lookupFirst"),
  IDEM_CLAIM("idemClaim", "(4) idem CLAIM, first execution, stores a result"),
  HAND_WRITTEN_COMPLETED_AFTER("handWrittenCompletedAfter",
      "(2c) floor of a stored result: hand-written, the key claimed first in the idem_record-shaped table, the"
          + " response written by an UPDATE after the business write, one commit"),
  HAND_WRITTEN_GUARDED_VOID("handWrittenGuardedVoid",
      "(2f) floor of the default void path: hand-written, the key claimed PENDING first in the idem_record-shaped"
          + " table, the business write, the key completed by an UPDATE of its state, one commit, no response"),
  HAND_WRITTEN_READ_FIRST("handWrittenReadFirst",
      "(2e) floor of a read-first stored result: hand-written, one SELECT of the key in auto-commit, then (2c) on a"
          + " miss"),
  HAND_WRITTEN_CLAIM_FIRST("handWrittenClaimFirst",
      "(4b) floor of CLAIM: hand-written, the key committed first in the idem_record-shaped table with an owner"
          + " token and a lease, then work + completion fenced by the owner token + commit"),
  IDEM_REPLAY("idemReplay",
      "(5) idem replay of a completed key, no cache (the default: reads first while most calls are retries)"),
  IDEM_REPLAY_CLAIM_FIRST("idemReplayClaimFirst",
      "(5d) idem replay of a completed key, no cache, adaptiveLookupFirst(false): the claim first, then the read"),
  HAND_WRITTEN_REPLAY("handWrittenReplay",
      "(5b) floor of a replay: hand-written, one SELECT of idem's record in auto-commit, the payload's fingerprint"
          + " checked, the stored JSON read into the result"),
  IDEM_REPLAY_LOOKUP_FIRST("idemReplayLookupFirst", "(5c) idem replay of a completed key, no cache, lookupFirst"),
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

  /**
   * The same-guarantee floor of an idem path: hand-written JDBC that gives the caller what idem guarantees on this
   * path (a key row shaped like idem_record, so with a fingerprint and an expiry; the claim before the work where idem
   * claims first; the response stored where idem stores one), the least any implementation keeping those guarantees
   * pays. Issue #26's targets judge each idem path against it (not against the plain hand-written pattern, which
   * stores no fingerprint, no result and claims nothing before the work).
   *
   * @param database the database's display name ({@code TestDatabase.displayName()}): the default void path keeps
   *     the implicit-commit guard only where DDL commits a transaction early (H2, MariaDB, MySQL), so its floor
   *     depends on it
   * @return the floor, or null if this is not a judged idem path
   */
  public Operation floor(String database) {
    if (this == IDEM_TRANSACTIONAL_VOID && "PostgreSQL".equals(database)) {
      // Nothing commits a PostgreSQL transaction implicitly: the default void path writes its key COMPLETED with
      // the work, one statement, and its floor is the key row written with the business write.
      return HAND_WRITTEN_IDEM_SHAPED;
    }
    return switch (this) {
      // No result, with the implicit-commit guard (the default on H2 and MariaDB, whose DDL commits early): the key
      // claimed PENDING before the work and completed after it, one commit. On PostgreSQL, where nothing commits
      // implicitly, the default writes the key COMPLETED with the work and its floor is that: (2b).
      case IDEM_TRANSACTIONAL_VOID -> HAND_WRITTEN_GUARDED_VOID;
      // No result, the guard given up (bodiesNeverCommitImplicitly): the key row written with the business write.
      case IDEM_TRANSACTIONAL_VOID_PROMISED -> HAND_WRITTEN_IDEM_SHAPED;
      // A stored result: the key claimed before the work (a concurrent duplicate waits on it), the response after.
      case IDEM_TRANSACTIONAL -> HAND_WRITTEN_COMPLETED_AFTER;
      // The claim committed before the work, then work and response in a second commit.
      case IDEM_CLAIM -> HAND_WRITTEN_CLAIM_FIRST;
      // Read first: the read in auto-commit, then on a miss the floor of a stored result.
      case IDEM_TRANSACTIONAL_LOOKUP_FIRST -> HAND_WRITTEN_READ_FIRST;
      // A read of the stored response by key, the payload's fingerprint checked.
      // (5d), told to claim first whatever its traffic, pays the claim and the commit on top: information.
      case IDEM_REPLAY, IDEM_REPLAY_LOOKUP_FIRST -> HAND_WRITTEN_REPLAY;
      default -> null;
    };
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
