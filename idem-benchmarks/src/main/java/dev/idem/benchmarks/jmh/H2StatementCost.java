package dev.idem.benchmarks.jmh;

import dev.idem.testing.TestDatabase;
import java.lang.management.ManagementFactory;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * A diagnostic on embedded H2, where the calling thread's CPU time is the whole cost of a call: CPU time and
 * allocation per call of idem TRANSACTIONAL storing a result, of its floor (2c), and of idem's own statements on
 * {@code idem_record} sent by hand without idem's code (its claim, the business write, its completion), also with the
 * claim as a plain {@code INSERT} and without the completion; and the same for the default void path against its
 * floor (2f), its completion by hand with the three outcome columns bound as NULL and with the state alone. Against
 * idem they tell what idem's Java costs; against the floor, what idem's statements cost H2. Variants run in blocks, one after the other, round after round, on one
 * thread. Run alone like {@link PairedBenchmark}; system properties {@code cost.rounds} (14, the first 4 unmeasured)
 * and {@code cost.callsPerBlock} (15000).
 */
public final class H2StatementCost {

  private static final String SCOPE = "bench.orders.byhand";
  private static final String FINGERPRINT = "3b0e8f2d1c4a5b6978e0f1d2c3b4a59687f0e1d2c3b4a5968778695a4b3c2d1e";
  /** idem's claim on H2 ({@code SqlDialect.H2Dialect.claimSql}): nothing inserted, no exception, for a recorded key. */
  private static final String CLAIM = "INSERT INTO idem_record (scope, idem_key, state, fingerprint, created_at,"
      + " expires_at) SELECT ?1, ?2, ?3, ?4, ?5, ?6 WHERE NOT EXISTS (SELECT 1 FROM idem_record WHERE scope = ?1"
      + " AND idem_key = ?2)";
  /** The same row by a plain INSERT, which fails with a duplicate-key exception for a recorded key. */
  private static final String PLAIN_CLAIM = "INSERT INTO idem_record (scope, idem_key, state, fingerprint, created_at,"
      + " expires_at) VALUES (?, ?, ?, ?, ?, ?)";
  private static final String COMPLETE = "UPDATE idem_record SET state = 'COMPLETED', result = ?, error_type = ?,"
      + " result_shape = ? WHERE scope = ? AND idem_key = ? AND state = 'PENDING'";
  /** A void command's completion as idem sent it up to 2026-12-03: the three outcome columns bound as NULL. */
  private static final String COMPLETE_VOID_ALL = "UPDATE idem_record SET state = 'COMPLETED', result = ?,"
      + " error_type = ?, result_shape = ? WHERE scope = ? AND idem_key = ? AND state = 'PENDING'";
  /** The same completion writing the state alone: the claim left the outcome columns NULL. */
  private static final String COMPLETE_VOID_STATE = "UPDATE idem_record SET state = 'COMPLETED'"
      + " WHERE scope = ? AND idem_key = ? AND state = 'PENDING'";
  private static final int WARM_UP_ROUNDS = 4;

  private enum Variant {
    IDEM("idem TRANSACTIONAL, stores a result"),
    FLOOR("(2c) floor"),
    BY_HAND("idem's statements by hand"),
    BY_HAND_PLAIN_CLAIM("the same, claim by plain INSERT"),
    BY_HAND_NO_COMPLETION("the same, no completion UPDATE"),
    VOID_IDEM("idem TRANSACTIONAL, void"),
    VOID_FLOOR("(2f) floor of the void path"),
    VOID_BY_HAND_ALL("void by hand, completion binds 3 NULLs"),
    VOID_BY_HAND_STATE("void by hand, completion sets state");

    final String label;

    Variant(String label) {
      this.label = label;
    }
  }

  private H2StatementCost() {}

  public static void main(String[] args) throws Exception {
    int rounds = Integer.getInteger("cost.rounds", 14);
    int callsPerBlock = Integer.getInteger("cost.callsPerBlock", 15_000);
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long thread = Thread.currentThread().getId();
    Variant[] variants = Variant.values();
    long[] cpuNanos = new long[variants.length];
    long[] bytes = new long[variants.length];
    long[] calls = new long[variants.length];
    try (BenchDatabase bench = BenchDatabase.open(TestDatabase.H2)) {
      Operations operations = new Operations(bench.database(), bench.dataSource());
      operations.createSchema();
      long counter = 0;
      for (int round = 0; round < rounds; round++) {
        for (Variant variant : variants) {
          long cpuBefore = threads.getCurrentThreadCpuTime();
          long bytesBefore = threads.getThreadAllocatedBytes(thread);
          for (int i = 0; i < callsPerBlock; i++) {
            call(operations, bench.dataSource(), variant, counter++);
          }
          if (round >= WARM_UP_ROUNDS) {
            cpuNanos[variant.ordinal()] += threads.getCurrentThreadCpuTime() - cpuBefore;
            bytes[variant.ordinal()] += threads.getThreadAllocatedBytes(thread) - bytesBefore;
            calls[variant.ordinal()] += callsPerBlock;
          }
        }
      }
    }
    for (Variant variant : variants) {
      int v = variant.ordinal();
      System.out.printf(java.util.Locale.ROOT, "%-34s %7.2f us cpu/call %8.0f B/call%n", variant.label,
          cpuNanos[v] / 1e3 / calls[v], (double) bytes[v] / calls[v]);
    }
  }

  private static void call(Operations operations, DataSource pool, Variant variant, long n) throws SQLException {
    switch (variant) {
      case IDEM -> operations.call(Operation.IDEM_TRANSACTIONAL, 0, n);
      case FLOOR -> operations.call(Operation.HAND_WRITTEN_COMPLETED_AFTER, 0, n);
      case VOID_IDEM -> operations.call(Operation.IDEM_TRANSACTIONAL_VOID, 0, n);
      case VOID_FLOOR -> operations.call(Operation.HAND_WRITTEN_GUARDED_VOID, 0, n);
      default -> idemStatementsByHand(pool, variant, Operations.freshKey(0, n),
          Operations.order(Operations.freshOrderId(0, n)));
    }
  }

  private static void idemStatementsByHand(DataSource pool, Variant variant, String key, BenchOrders.PlaceOrder order)
      throws SQLException {
    OwnTransaction.run(pool, connection -> {
      long now = System.currentTimeMillis();
      try (PreparedStatement claim =
          connection.prepareStatement(variant == Variant.BY_HAND_PLAIN_CLAIM ? PLAIN_CLAIM : CLAIM)) {
        claim.setString(1, SCOPE);
        claim.setString(2, key);
        claim.setString(3, "PENDING");
        claim.setString(4, FINGERPRINT);
        claim.setLong(5, now);
        claim.setLong(6, now + 86_400_000L);
        if (claim.executeUpdate() != 1) {
          throw new IllegalStateException("duplicate " + key);
        }
      }
      OrderRows.insert(connection, order);
      if (variant == Variant.BY_HAND_NO_COMPLETION) {
        return;
      }
      if (variant == Variant.VOID_BY_HAND_ALL || variant == Variant.VOID_BY_HAND_STATE) {
        boolean all = variant == Variant.VOID_BY_HAND_ALL;
        try (PreparedStatement complete = connection.prepareStatement(all ? COMPLETE_VOID_ALL : COMPLETE_VOID_STATE)) {
          int i = 1;
          if (all) {
            complete.setString(i++, null);
            complete.setString(i++, null);
            complete.setString(i++, null);
          }
          complete.setString(i++, SCOPE);
          complete.setString(i, key);
          if (complete.executeUpdate() != 1) {
            throw new IllegalStateException("nothing to complete for " + key);
          }
        }
        return;
      }
      try (PreparedStatement complete = connection.prepareStatement(COMPLETE)) {
        complete.setString(1, "{\"orderId\":" + order.orderId() + ",\"totalCents\":" + order.totalCents() + "}");
        complete.setString(2, null);
        complete.setString(3, "c6f1e2d3a4b5c6d7");
        complete.setString(4, SCOPE);
        complete.setString(5, key);
        if (complete.executeUpdate() != 1) {
          throw new IllegalStateException("nothing to complete for " + key);
        }
      }
    });
  }
}
