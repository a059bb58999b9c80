package dev.idem.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.runtime.IdemRuntime;
import dev.idem.testing.CountingDataSource;
import dev.idem.testing.DatabaseContract;
import dev.idem.testing.TestDatabase;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * On H2 a TRANSACTIONAL claim of a new key is a plain INSERT, without the NOT EXISTS probe that spares a recorded key
 * the duplicate-key exception ({@code SqlDialect.H2Dialect.unguardedClaimSql}): the probe was the costliest part of a
 * first execution's claim. A recorded key met by the plain INSERT still replays (the 23505 is classified by SQLState
 * and undoes only that statement, so a caller's transaction the call joined goes on), and the next
 * {@link RecordStatements#GUARDED_CLAIMS} claims probe, so that a run of recorded keys pays the exception once.
 */
@Timeout(30)
class H2TransactionalClaimTest extends DatabaseContract {

  record Receipt(String paymentId, long amountCents) {}

  private static final CommandSpec<Receipt> PAY = CommandSpec.<Receipt>transactional("Claims.pay",
      ResultType.of(Receipt.class), "shape-1", 86_400_000L, new String[] {"requestId"}, new String[] {"amount"},
      "test.Claims#pay");

  private IdemRuntime runtime;
  private CountingDataSource counted;

  @Override
  protected TestDatabase database() {
    return TestDatabase.H2;
  }

  @Override
  protected void prepare() {
    counted = new CountingDataSource(database.dataSource());
    database.execute("CREATE TABLE payments (id VARCHAR(64) NOT NULL PRIMARY KEY)");
  }

  @BeforeEach
  void clear() {
    // A runtime per test: which claim comes next is its state.
    runtime = IdemRuntime.builder()
        .dataSource(counted)
        .clock(clock).databaseTime(false)
        // Every retry here must reach the claim: no cache answers it, and no read comes first.
        .resultCache(false)
        .adaptiveLookupFirst(false)
        .build();
    runtime.createSchema();
    database.execute("DELETE FROM idem_record", "DELETE FROM payments");
    clock.set(Instant.parse("2030-01-01T00:00:00Z"));
    counted.reset();
  }

  private Receipt pay(String requestId, long amount, AtomicInteger calls) {
    return IdemEngine.of(runtime).<Receipt>execute(PAY, new Object[] {requestId}, new Object[] {amount}, () -> {
      calls.incrementAndGet();
      insertPayment("p-" + requestId);
      return new Receipt("p-" + requestId, amount);
    });
  }

  private void insertPayment(String id) throws SQLException {
    try (PreparedStatement insert = runtime.currentConnection()
        .prepareStatement("INSERT INTO payments (id) VALUES (?)")) {
      insert.setString(1, id);
      insert.executeUpdate();
    }
  }

  private long count(String sql) {
    return database.queryLong(sql);
  }

  /** The claims this call sent, in order: true for the probing (NOT EXISTS) form. */
  private List<Boolean> claimsOf(Runnable call) {
    counted.reset();
    call.run();
    return counted.executedSql().stream()
        .filter(sql -> sql != null && sql.startsWith("INSERT INTO idem_record"))
        .map(sql -> sql.contains("NOT EXISTS"))
        .toList();
  }

  @Test
  void aNewKeyIsClaimedByAPlainInsert() {
    AtomicInteger calls = new AtomicInteger();
    assertEquals(List.of(false), claimsOf(() -> pay("k1", 5, calls)));
    assertEquals(1, calls.get());
    assertEquals(1, count("SELECT COUNT(*) FROM idem_record WHERE idem_key = 'k1' AND state = 'COMPLETED'"));
  }

  @Test
  void aRecordedKeyMetByThePlainInsertReplaysAndTheNextClaimsProbe() {
    AtomicInteger calls = new AtomicInteger();
    Receipt first = pay("k1", 5, calls);

    // The retry's plain INSERT fails on the committed record: a replay, not an error and not a second run.
    assertEquals(List.of(false), claimsOf(() -> assertEquals(first, pay("k1", 5, calls))));
    assertEquals(1, calls.get());

    // A run of recorded keys now probes: no exception per call.
    for (int i = 0; i < RecordStatements.GUARDED_CLAIMS - 1; i++) {
      assertEquals(List.of(true), claimsOf(() -> assertEquals(first, pay("k1", 5, calls))));
    }
    assertEquals(1, calls.get());
    // Each recorded key met re-arms the probe, so the run goes on probing; a new key is claimed by the probe too.
    assertEquals(List.of(true), claimsOf(() -> pay("k2", 6, calls)));
    for (int i = 0; i < RecordStatements.GUARDED_CLAIMS - 1; i++) {
      String key = "new-" + i;
      assertEquals(List.of(true), claimsOf(() -> pay(key, 7, calls)), "probe " + i);
    }
    // Sixteen claims after the last recorded key, new keys are claimed by the plain INSERT again.
    assertEquals(List.of(false), claimsOf(() -> pay("k3", 8, calls)));
    assertEquals(2 + RecordStatements.GUARDED_CLAIMS, calls.get());
    assertEquals(2 + RecordStatements.GUARDED_CLAIMS, count("SELECT COUNT(*) FROM payments"));
  }

  @Test
  void aRecordedKeyMetInsideTheCallersTransactionLeavesThatTransactionUsable() {
    AtomicInteger calls = new AtomicInteger();
    Receipt first = pay("k1", 5, calls);
    counted.reset();

    Receipt replayed = runtime.inTransaction(connection -> {
      insertPayment("before");
      Receipt again = pay("k1", 5, calls); // joins: its plain INSERT fails with 23505 in this transaction
      insertPayment("after");
      return again;
    });

    assertEquals(first, replayed);
    assertEquals(1, calls.get());
    assertTrue(counted.executedSql().stream()
        .anyMatch(sql -> sql.startsWith("INSERT INTO idem_record") && !sql.contains("EXISTS")),
        "the joined call claimed with the plain INSERT: " + counted.executedSql());
    // Both of the caller's writes committed around the failed claim.
    assertEquals(3, count("SELECT COUNT(*) FROM payments"));
    assertEquals(1, count("SELECT COUNT(*) FROM payments WHERE id = 'after'"));
  }

  @Test
  void onlyH2HasAClaimWithoutTheProbe() {
    String plain = SqlDialect.of(dev.idem.runtime.Dialect.H2).unguardedClaimSql("idem_record");
    assertFalse(plain.contains("EXISTS"), plain);
    for (dev.idem.runtime.Dialect other : List.of(dev.idem.runtime.Dialect.POSTGRESQL,
        dev.idem.runtime.Dialect.MARIADB)) {
      assertEquals(null, SqlDialect.of(other).unguardedClaimSql("idem_record"), other.name());
    }
  }
}
