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
  public record PerCall(double connections, double statements, double autoCommitStatements, double commits,
      double rollbacks, double savepoints, double autoCommitChanges) {

    static PerCall of(Counts counts, int calls) {
      return new PerCall((double) counts.connections() / calls, (double) counts.statements() / calls,
          (double) counts.autoCommitStatements() / calls, (double) counts.commits() / calls,
          (double) counts.rollbacks() / calls, (double) counts.savepoints() / calls,
          (double) counts.autoCommitChanges() / calls);
    }
  }

  private static final int WARM_UP_CALLS = 3;
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
          try (Operations.ThinWriter writer = operations.thinWriter()) {
            for (int i = 0; i < WARM_UP_CALLS + CALLS; i++) {
              if (i == WARM_UP_CALLS) {
                before = counting.counts();
              }
              writer.write(Operations.order(Operations.freshOrderId(operation.ordinal(), i)));
            }
            perCall.put(operation, PerCall.of(counting.counts().minus(before), CALLS));
          }
          continue;
        }
        // Each operation counts from 0 with its own "thread index": fresh ids, and transitions start from OPEN.
        Counts before = null;
        for (int i = 0; i < WARM_UP_CALLS + CALLS; i++) {
          if (i == WARM_UP_CALLS) {
            before = counting.counts();
          }
          run(operations, operation, operation.ordinal(), i);
        }
        perCall.put(operation, PerCall.of(counting.counts().minus(before), CALLS));
      }
      return perCall;
    }
  }

  private static void run(Operations operations, Operation operation, int t, long i) throws SQLException {
    // Replays go round the warm-up calls' keys, so that the cached replay finds them in its cache.
    long n = operation == Operation.IDEM_REPLAY || operation == Operation.IDEM_REPLAY_CACHED ? i % WARM_UP_CALLS : i;
    switch (operation) {
      case PLAIN -> operations.plain(Operations.order(Operations.freshOrderId(t, n)));
      case HAND_WRITTEN -> operations.handWritten(Operations.freshKey(t, n),
          Operations.order(Operations.freshOrderId(t, n)));
      case HAND_WRITTEN_IDEM_SHAPED -> operations.handWrittenIdemShaped(Operations.freshKey(t, n),
          Operations.order(Operations.freshOrderId(t, n)));
      case IDEM_TRANSACTIONAL -> operations.idemTransactional(Operations.freshKey(t, n),
          Operations.order(Operations.freshOrderId(t, n)));
      case IDEM_TRANSACTIONAL_VOID -> operations.idemTransactionalVoid(Operations.freshKey(t, n),
          Operations.order(Operations.freshOrderId(t, n)));
      case IDEM_TRANSACTIONAL_VOID_PROMISED -> operations.idemTransactionalVoidPromised(Operations.freshKey(t, n),
          Operations.order(Operations.freshOrderId(t, n)));
      case HAND_WRITTEN_COMPLETED_AFTER -> operations.handWrittenCompletedAfter(Operations.freshKey(t, n),
          Operations.order(Operations.freshOrderId(t, n)));
      case HAND_WRITTEN_CLAIM_FIRST -> operations.handWrittenClaimFirst(Operations.freshKey(t, n),
          Operations.order(Operations.freshOrderId(t, n)));
      case IDEM_CLAIM -> operations.idemClaim(Operations.freshKey(t, n),
          Operations.order(Operations.freshOrderId(t, n)));
      case IDEM_REPLAY -> operations.idemReplay(Operations.replayKey(0, n),
          Operations.order(Operations.replayOrderId(0, n)));
      case IDEM_REPLAY_CACHED -> operations.idemReplayCached(Operations.replayKey(0, n),
          Operations.order(Operations.replayOrderId(0, n)));
      case TRANSITION_APPLIED -> operations.transitionApplied(0, n);
      case TRANSITION_REPEATED -> operations.transitionRepeated(0);
      case DB_LIMIT -> throw new AssertionError("counted with its held connection");
    }
  }
}
