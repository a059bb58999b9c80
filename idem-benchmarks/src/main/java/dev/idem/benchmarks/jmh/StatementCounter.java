package dev.idem.benchmarks.jmh;

import dev.idem.testing.TestDatabase;
import dev.idem.testing.CountingDataSource;
import dev.idem.testing.CountingDataSource.Counts;
import java.sql.SQLException;
import java.util.EnumMap;
import java.util.Map;

/**
 * Runs every operation a few times through a {@link CountingDataSource} on a fresh database and reports what one
 * operation asks of JDBC. Runs before the timed benchmarks, in the main JVM.
 */
public final class StatementCounter {

  /** What one operation issues, averaged over {@link #CALLS} calls (whole numbers unless an operation varies). */
  public record PerCall(double connections, double statements, double controlStatements,
      double autoCommitStatements, double commits, double rollbacks, double savepoints, double autoCommitChanges) {

    static PerCall of(Counts counts, long controlStatements, int calls) {
      return new PerCall((double) counts.connections() / calls, (double) counts.statements() / calls,
          (double) controlStatements / calls, (double) counts.autoCommitStatements() / calls,
          (double) counts.commits() / calls, (double) counts.rollbacks() / calls,
          (double) counts.savepoints() / calls, (double) counts.autoCommitChanges() / calls);
    }

    /**
     * The statements that read or write data: without START TRANSACTION, COMMIT, ROLLBACK and savepoint
     * statements, which stand in for the driver calls ({@code setAutoCommit}, {@code commit()}) counted apart.
     */
    public double dataStatements() {
      return statements - controlStatements;
    }
  }

  /** Whether a statement only opens or ends a transaction or a savepoint (the driver's calls, sent as SQL). */
  static boolean isTransactionControl(String sql) {
    String head = sql.strip().toUpperCase(java.util.Locale.ROOT);
    return head.startsWith("START TRANSACTION") || head.startsWith("BEGIN") || head.equals("COMMIT")
        || head.equals("ROLLBACK") || head.startsWith("SAVEPOINT ") || head.startsWith("ROLLBACK TO ")
        || head.startsWith("RELEASE SAVEPOINT ");
  }

  private static long controlStatementsSince(CountingDataSource counting, int executedBefore) {
    java.util.List<String> executed = counting.executedSql();
    return executed.subList(executedBefore, executed.size()).stream()
        .filter(StatementCounter::isTransactionControl).count();
  }

  /** Enough for a command to settle on reading or claiming first (it switches within about a dozen calls). */
  private static final int WARM_UP_CALLS = 20;
  private static final int CALLS = 20;

  private StatementCounter() {}

  public static Map<Operation, PerCall> count(TestDatabase database) throws SQLException {
    try (BenchDatabase benchDatabase = BenchDatabase.open(database)) {
      Operations setup = new Operations(database, benchDatabase.dataSource());
      setup.createSchema();
      setup.completeReplayKeys();
      setup.createInvoices(0);
      CountingDataSource counting = new CountingDataSource(benchDatabase.dataSource());
      Operations operations = new Operations(database, counting);
      Map<Operation, PerCall> perCall = new EnumMap<>(Operation.class);
      for (Operation operation : Operation.values()) {
        if (operation == Operation.DB_LIMIT) {
          Counts before = null;
          int executedBefore = 0;
          try (Operations.ThinWriter writer = operations.thinWriter()) {
            for (int i = 0; i < WARM_UP_CALLS + CALLS; i++) {
              if (i == WARM_UP_CALLS) {
                before = counting.counts();
                executedBefore = counting.executedSql().size();
              }
              writer.write(Operations.order(Operations.freshOrderId(operation.ordinal(), i)));
            }
            perCall.put(operation, PerCall.of(counting.counts().minus(before),
                controlStatementsSince(counting, executedBefore), CALLS));
          }
          continue;
        }
        // Each operation counts from 0 with its own "thread index": fresh ids, and transitions start from OPEN.
        Counts before = null;
        int executedBefore = 0;
        for (int i = 0; i < WARM_UP_CALLS + CALLS; i++) {
          if (i == WARM_UP_CALLS) {
            before = counting.counts();
            executedBefore = counting.executedSql().size();
          }
          run(operations, operation, operation.ordinal(), i);
        }
        perCall.put(operation, PerCall.of(counting.counts().minus(before),
            controlStatementsSince(counting, executedBefore), CALLS));
      }
      return perCall;
    }
  }

  private static void run(Operations operations, Operation operation, int t, long i) throws SQLException {
    if (operation == Operation.DB_LIMIT) {
      throw new AssertionError("counted with its held connection");
    }
    boolean replay = operation == Operation.IDEM_REPLAY || operation == Operation.IDEM_REPLAY_CACHED
        || operation == Operation.IDEM_REPLAY_CLAIM_FIRST || operation == Operation.HAND_WRITTEN_REPLAY;
    boolean transition = operation == Operation.TRANSITION_APPLIED || operation == Operation.TRANSITION_REPEATED;
    // Replays go round the warm-up calls' keys, so that the cached replay finds them in its cache; replays and
    // transitions use thread index 0's keys and invoices, first executions a key space of their own.
    long n = replay ? i % WARM_UP_CALLS : i;
    operations.call(operation, replay || transition ? 0 : t, n);
  }
}
