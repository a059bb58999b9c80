package dev.idem.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyListener;
import dev.idem.testing.DatabaseContract;
import dev.idem.testing.RecordingListener;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The built-in scheduled purge ({@link IdemRuntime.Builder#purgeEvery}) and purges running concurrently on one table,
 * as every node of a cluster runs its own. Runs against every database through the concrete subclasses.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
abstract class ScheduledPurgeContractTest extends DatabaseContract {

  private static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");
  private static final int LIVE = 20;

  private IdemRuntime schemaOwner;

  @Override
  protected void prepare() {
    schemaOwner = IdemRuntime.builder().dataSource(database.dataSource()).build();
    schemaOwner.createSchema();
  }

  @BeforeEach
  void clear() {
    database.execute("DELETE FROM idem_record");
    clock.set(NOW);
    events.clear();
  }

  /** Inserts {@code expired} records whose expiry passed and {@link #LIVE} live ones, in one transaction. */
  private void fill(int expired) throws SQLException {
    try (Connection connection = database.dataSource().getConnection()) {
      connection.setAutoCommit(false);
      try (PreparedStatement insert = connection.prepareStatement("INSERT INTO idem_record"
          + " (scope, idem_key, state, fingerprint, created_at, expires_at) VALUES ('S.s', ?, 'COMPLETED', 'f', 0, ?)")) {
        for (int i = 0; i < expired + LIVE; i++) {
          insert.setString(1, "k-" + i);
          // Expiry times spread over the past (or the future, for the live ones), so that batches take turns.
          insert.setLong(2, i < expired ? NOW.toEpochMilli() - 1 - i : NOW.toEpochMilli() + 60_000 + i);
          insert.addBatch();
          if (i % 500 == 499) {
            insert.executeBatch();
          }
        }
        insert.executeBatch();
      }
      connection.commit();
    }
  }

  private long records() {
    try (Connection connection = database.dataSource().getConnection();
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery("SELECT COUNT(*) FROM idem_record")) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void await(BooleanSupplier condition, String what) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    while (!condition.getAsBoolean()) {
      assertTrue(System.nanoTime() < deadline, "timed out waiting until " + what);
      Thread.sleep(50);
    }
  }

  private static boolean purgeThreadAlive() {
    return Thread.getAllStackTraces().keySet().stream()
        .anyMatch(t -> t.isAlive() && t.getName().startsWith("idem-purge-"));
  }

  private IdemRuntime.Builder builder(DataSource dataSource) {
    return IdemRuntime.builder().dataSource(dataSource).dialect(schemaOwner.dialect()).clock(clock).databaseTime(false)
        .listener(RecordingListener.withScope(IdempotencyListener.class, events));
  }

  /** Holds the row of {@code key} locked in an open transaction, as a call in flight (claim, extendLease) does. */
  private Connection lockRow(String key) throws SQLException {
    Connection holder = database.dataSource().getConnection();
    holder.setAutoCommit(false);
    try (PreparedStatement lock = holder.prepareStatement(
        "UPDATE idem_record SET state = state WHERE scope = 'S.s' AND idem_key = ?")) {
      lock.setString(1, key);
      assertEquals(1, lock.executeUpdate());
    }
    return holder;
  }

  @Test
  void aPurgeNeitherWaitsForNorHoldsUpACallInFlight() throws Exception {
    fill(3); // k-0..k-2 expired; k-3 is the first live record in the expiry index
    IdemRuntime runtime = builder(database.dataSource()).build();
    // A call in flight holds the first record past the expired range: a ranged DELETE on MariaDB locked it too
    // and waited for that call (50 s, holding the rows it had deleted).
    try (Connection inFlight = lockRow("k-3")) {
      long started = System.nanoTime();
      assertEquals(3, runtime.purgeExpired(100));
      long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
      assertTrue(tookMillis < 3_000, "the purge waited for the call in flight: " + tookMillis + " ms");
      inFlight.rollback();
    }
    assertEquals(LIVE, records());
    if (database() != dev.idem.testing.TestDatabase.H2) {
      // An expired record that a call holds (taking it over) is skipped, not waited for; the next purge takes it.
      long expired = NOW.toEpochMilli() - 10;
      database.execute("INSERT INTO idem_record (scope, idem_key, state, fingerprint, created_at, expires_at) VALUES"
          + " ('S.s', 'e-0', 'COMPLETED', 'f', 0, " + expired + "), ('S.s', 'e-1', 'COMPLETED', 'f', 0, " + expired
          + "), ('S.s', 'e-2', 'COMPLETED', 'f', 0, " + expired + ")");
      try (Connection inFlight = lockRow("e-0")) {
        long started = System.nanoTime();
        assertEquals(2, runtime.purgeExpired(100));
        assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started) < 3_000);
        inFlight.rollback();
      }
      assertEquals(1, runtime.purgeExpired(100));
    }
    runtime.close();
  }

  @Test
  void theScheduledPurgeDeletesExpiredRecordsUntilClosed() throws Exception {
    fill(300);
    assertFalse(purgeThreadAlive());
    try (IdemRuntime runtime = builder(database.dataSource()).purgeEvery(Duration.ofSeconds(1), 40).build()) {
      assertTrue(purgeThreadAlive(), "started by build()");
      await(() -> events.contains("purged idem_record 300"), "the first run purged every expired record");
      assertEquals(LIVE, records(), "live records stay");
      assertTrue(runtime.purgeExpired(40) == 0);
    }
    await(() -> !purgeThreadAlive(), "close() stopped the purge thread");
    int runs = events.size();
    Thread.sleep(1_200);
    assertEquals(runs, events.size(), "no run after close()");
  }

  @Test
  void aFailedRunIsReportedAndTheScheduleGoesOn() throws Exception {
    fill(50);
    AtomicInteger failuresLeft = new AtomicInteger(1);
    DataSource real = database.dataSource();
    DataSource flaky = (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(),
        new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
          if (method.getName().equals("getConnection") && failuresLeft.getAndDecrement() > 0) {
            throw new SQLTransientConnectionException("pool exhausted (test)");
          }
          try {
            return method.invoke(real, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
    try (IdemRuntime runtime = builder(flaky).purgeEvery(Duration.ofSeconds(1), 1_000).build()) {
      await(() -> events.contains("purged idem_record 50"), "the run after the failed one purged");
      assertTrue(events.get(0).startsWith("purgeFailed idem_record"), events.toString());
      assertTrue(events.get(0).contains("pool exhausted (test)"), events.toString());
      assertEquals(LIVE, records());
      assertTrue(runtime.purgeExpired(10) == 0);
    }
  }

  /** A proxy that forwards every call of {@code target} and hands out proxies of what it returns, as told. */
  private static Object forwarding(Object target, Class<?> type, java.util.function.Function<Object, Object> wrap,
      java.util.function.BiFunction<java.lang.reflect.Method, Object[], Throwable> failure) {
    return Proxy.newProxyInstance(ScheduledPurgeContractTest.class.getClassLoader(), new Class<?>[] {type},
        (proxy, method, args) -> {
          Throwable fail = failure.apply(method, args);
          if (fail != null) {
            throw fail;
          }
          try {
            return wrap.apply(method.invoke(target, args));
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
  }

  @Test
  void aPurgeWhoseConnectionThePoolClosedReportsItsOwnFailure() throws SQLException {
    fill(5);
    // As HikariCP does after a lock timeout: the statement fails with a timeout and the pool closes the connection.
    DataSource real = database.dataSource();
    DataSource evicting = (DataSource) forwarding(real, DataSource.class, connection -> {
      if (!(connection instanceof Connection physical)) {
        return connection;
      }
      return forwarding(physical, Connection.class, statement -> statement instanceof PreparedStatement prepared
          ? forwarding(prepared, PreparedStatement.class, x -> x, (method, args) -> {
            if (method.getName().startsWith("execute")) {
              try {
                physical.close();
              } catch (SQLException e) {
                return e;
              }
              return new java.sql.SQLTimeoutException("lock wait timed out (test)");
            }
            return null;
          })
          : statement, (method, args) -> null);
    }, (method, args) -> null);
    IdemRuntime runtime = builder(evicting).build();
    dev.idem.runtime.IdempotencyStoreException e =
        assertThrows(dev.idem.runtime.IdempotencyStoreException.class, () -> runtime.purgeExpired(100));
    assertTrue(e.getCause() instanceof java.sql.SQLTimeoutException, "the purge's own failure, not a closed"
        + " connection's: " + e.getCause());
    runtime.close();
    assertEquals(5 + LIVE, records());
  }

  @Test
  void purgeEveryRejectsNonsense() {
    assertThrows(IllegalArgumentException.class, () -> IdemRuntime.builder().purgeEvery(Duration.ofMillis(10), 10));
    assertThrows(IllegalArgumentException.class, () -> IdemRuntime.builder().purgeEvery(Duration.ofMinutes(1), 0));
  }

  @Test
  void twoRuntimesPurgingOneTableAtOnceDeleteEachRecordOnceWithoutDeadlock() throws Exception {
    int expired = 4_000;
    fill(expired);
    IdemRuntime first = builder(database.dataSource()).build();
    IdemRuntime second = builder(database.dataSource()).build();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Long>> purges = new ArrayList<>();
      for (IdemRuntime runtime : List.of(first, second, first, second)) {
        purges.add(pool.submit(() -> {
          start.await();
          return runtime.purgeExpired(100);
        }));
      }
      start.countDown();
      long deleted = 0;
      for (Future<Long> purge : purges) {
        deleted += purge.get(20, TimeUnit.SECONDS); // a deadlock that outlived the retries would surface here
      }
      // A purge may stop early when its batch came back short (rows taken by the others): a later run finishes.
      deleted += first.purgeExpired(100);
      assertEquals(expired, deleted, "every expired record counted exactly once across the purgers");
      assertEquals(LIVE, records());
    } finally {
      pool.shutdownNow();
      first.close();
      second.close();
    }
  }
}
