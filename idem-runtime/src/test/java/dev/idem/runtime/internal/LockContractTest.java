package dev.idem.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.OnBusy;
import dev.idem.runtime.FencedUpdate;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyListener;
import dev.idem.runtime.IdempotencyStoreException;
import dev.idem.runtime.LockLease;
import dev.idem.runtime.LockProvider;
import dev.idem.runtime.LockProviderContract;
import dev.idem.runtime.SingleFlightLockLostException;
import dev.idem.testing.CountingDataSource;
import dev.idem.testing.DatabaseContract;
import dev.idem.testing.FaultProxy;
import dev.idem.testing.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The single-flight lock on every database: the JDBC {@link LockProvider} through {@link LockProviderContract} (one
 * holder, fencing tokens that strictly increase, lockAtMostFor, lockAtLeastFor, release and renewal fenced by the
 * owner token), what only the database provider promises (time from the database whatever the runtimes' clocks say,
 * one statement per acquire and per release) and the runner around it (the watchdog renews, and interrupts the body
 * when the lease is taken or cannot be renewed before it ends; the fenced write on the application's table).
 */
@Timeout(90)
abstract class LockContractTest extends DatabaseContract {

  private IdemRuntime runtime;
  private LockProvider locks;

  @Override
  protected void prepare() {
    runtime = IdemRuntime.builder().dataSource(database.dataSource())
        .listener(new IdempotencyListener() {
          @Override
          public void lockLost(String lockName, long fencingToken) {
            events.add("lockLost " + lockName + " " + fencingToken);
          }
        }).build();
    runtime.createSchema();
    locks = runtime.lockProvider();
    database.execute("CREATE TABLE report (id INT NOT NULL PRIMARY KEY, total INT NOT NULL, fence BIGINT NOT NULL)");
  }

  @BeforeEach
  void clear() {
    database.execute("DELETE FROM idem_lock", "DELETE FROM report");
    events.clear();
  }

  /** The provider's contract, shared with every other {@link LockProvider} (idem-runtime's test jar). */
  @Nested
  class Contract extends LockProviderContract {
    @Override
    protected IdemRuntime newRuntime(IdempotencyListener listener) {
      return IdemRuntime.builder().dataSource(database.dataSource()).listener(listener).build();
    }

    @Override
    protected void takeOver(String name) {
      database.execute("UPDATE idem_lock SET owner_token = 'someone-else', fence = fence + 1 WHERE name = '" + name
          + "'");
    }
  }

  @Test
  void anAcquisitionIsOneStatementAndAReleaseOneOnceTheNameHasItsRow() {
    CountingDataSource counting = new CountingDataSource(database.dataSource());
    try (IdemRuntime counted = IdemRuntime.builder().dataSource(counting).build()) {
      LockProvider provider = counted.lockProvider();
      LockLease first = provider.tryAcquire("counted", Duration.ofMinutes(1)).orElseThrow();
      assertTrue(provider.release(first, Duration.ZERO));
      long previous = first.fencingToken();
      for (int i = 0; i < 3; i++) {
        CountingDataSource.Counts before = counting.counts();
        LockLease lease = provider.tryAcquire("counted", Duration.ofMinutes(1)).orElseThrow();
        CountingDataSource.Counts acquire = counting.counts().minus(before);
        assertTrue(lease.fencingToken() > previous, lease + " after token " + previous);
        previous = lease.fencingToken();
        int expected = database() == TestDatabase.H2 ? 2 : 1;
        assertEquals(expected, acquire.statements(), "acquire: " + counting.executedSql());
        assertEquals(expected, acquire.autoCommitStatements(), "acquire in auto-commit mode");
        assertEquals(1, acquire.connections());
        assertEquals(0, acquire.commits() + acquire.rollbacks() + acquire.autoCommitChanges(), acquire.toString());
        before = counting.counts();
        assertTrue(provider.release(lease, Duration.ZERO));
        CountingDataSource.Counts release = counting.counts().minus(before);
        assertEquals(1, release.statements(), "release");
        assertEquals(1, release.autoCommitStatements(), "release in auto-commit mode");
        assertEquals(0, release.commits() + release.rollbacks() + release.autoCommitChanges(), release.toString());
      }
      assertEquals(previous, lockRow("counted"), "the token the reply reported is the row's");
    }
  }

  @Test
  void aMissingLockTableIsNamedWithTheDdlThatMakesIt() {
    database.execute("DROP TABLE idem_lock");
    try {
      IdempotencyStoreException missing = assertThrows(IdempotencyStoreException.class,
          () -> locks.tryAcquire("job", Duration.ofMinutes(1)));
      String lockDdl = "dev/idem/runtime/schema/lock-" + (database() == TestDatabase.H2 ? "h2"
          : database() == TestDatabase.POSTGRESQL ? "postgresql" : "mariadb") + ".sql";
      assertTrue(missing.getMessage().contains("idem's table idem_lock does not exist")
          && missing.getMessage().contains("createSchema()") && missing.getMessage().contains(lockDdl),
          missing.getMessage());
    } finally {
      runtime.createSchema();
    }
  }

  @Test
  void runtimesWhoseClocksAreTenMinutesApartDecideByTheDatabasesClock() {
    try (IdemRuntime ahead = runtimeWithClock(Duration.ofMinutes(10));
        IdemRuntime behind = runtimeWithClock(Duration.ofMinutes(-10))) {
      LockLease held = behind.lockProvider().tryAcquire("job", Duration.ofSeconds(30)).orElseThrow();
      assertEquals(Optional.empty(), ahead.lockProvider().tryAcquire("job", Duration.ofSeconds(30)),
          "a runtime ten minutes ahead does not think a 30 s lease has ended");
      assertTrue(behind.lockProvider().release(held, Duration.ofSeconds(20)));
      assertEquals(Optional.empty(), ahead.lockProvider().tryAcquire("job", Duration.ofSeconds(30)),
          "nor that lockAtLeastFor has passed");
      assertTrue(ahead.singleFlight("other", Duration.ofSeconds(30), Duration.ZERO, () -> "ran").isPresent());
      assertTrue(behind.singleFlight("other", Duration.ofSeconds(30), Duration.ZERO, () -> "ran").isPresent(),
          "and a runtime ten minutes behind gets a lock released with lockAtLeastFor 0 at once");
    }
  }

  @Test
  void theWatchdogKeepsALongBodysLeaseAndStopsAtRelease() throws Exception {
    AtomicBoolean othersGotIt = new AtomicBoolean();
    Optional<String> result = runtime.singleFlight("long", Duration.ofMillis(1_500), Duration.ZERO, () -> {
      long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(4_000);
      while (System.nanoTime() < end) {
        if (locks.tryAcquire("long", Duration.ofMinutes(1)).isPresent()) {
          othersGotIt.set(true);
        }
        sleep(50);
      }
      return "done";
    });
    assertEquals(Optional.of("done"), result, "a body over two lockAtMostFor long kept its lease");
    assertFalse(othersGotIt.get(), "nobody took the lease while the watchdog renewed it");
    long leaseUntil = leaseUntil("long");
    sleep(1_000);
    assertEquals(leaseUntil, leaseUntil("long"), "no renewal after the release");
    assertTrue(events.isEmpty(), events.toString());
  }

  @Test
  void aWatchdogThatCannotReachTheDatabaseInterruptsTheBodyBeforeTheLeaseEnds() throws Exception {
    assumeTrue(database() != TestDatabase.H2, "H2 runs in-process: no connection to cut");
    try (FaultProxy proxy = FaultProxy.inFrontOf(database.url(), 16);
        HikariDataSource pool = pool(proxy.route(database.url()));
        IdemRuntime cut = IdemRuntime.builder().dataSource(pool).build()) {
      AtomicLong interruptedAt = new AtomicLong();
      CountDownLatch running = new CountDownLatch(1);
      ExecutorService caller = Executors.newSingleThreadExecutor();
      try {
        Future<Boolean> call = caller.submit(() -> cut.runSingleFlight("cut", Duration.ofSeconds(2), Duration.ZERO,
            () -> {
              running.countDown();
              try {
                Thread.sleep(30_000);
              } catch (InterruptedException e) {
                interruptedAt.set(System.nanoTime());
              }
            }));
        assertTrue(running.await(10, TimeUnit.SECONDS));
        proxy.refuseNewConnections(true);
        proxy.cutAll();
        // Another instance on a path that works waits for the lease to end on the database's clock.
        Optional<LockLease> other = Optional.empty();
        while (other.isEmpty()) {
          other = locks.tryAcquire("cut", Duration.ofMinutes(1));
          if (other.isEmpty()) {
            Thread.sleep(10);
          }
        }
        long otherStarted = System.nanoTime();
        SingleFlightLockLostException lost = assertThrows(SingleFlightLockLostException.class, () -> {
          try {
            call.get(30, TimeUnit.SECONDS);
          } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause();
          }
        });
        assertTrue(lost.getMessage().contains("no renewal succeeded"), lost.getMessage());
        assertTrue(interruptedAt.get() != 0, "the body was interrupted");
        assertTrue(interruptedAt.get() < otherStarted, "the body was interrupted "
            + TimeUnit.NANOSECONDS.toMillis(interruptedAt.get() - otherStarted) + " ms after another instance got"
            + " the lock");
      } finally {
        caller.shutdownNow();
        proxy.heal();
      }
    }
  }

  @Test
  void aFencedWriteWithAnEarlierTokenIsRejected() throws SQLException {
    database.execute("INSERT INTO report (id, total, fence) VALUES (1, 0, 0)");
    FencedUpdate update = FencedUpdate.of("report", "fence").set("total", 10).where("id", 1);
    try (Connection connection = database.dataSource().getConnection()) {
      if (!connection.getAutoCommit()) {
        connection.setAutoCommit(true);
      }
      assertTrue(update.execute(connection, 5), "token 5 writes");
      assertTrue(update.set("total", 11).execute(connection, 5), "and may write again");
      assertFalse(FencedUpdate.of("report", "fence").set("total", 99).where("id", 1).execute(connection, 4),
          "a holder with an earlier token, late, is rejected");
      assertTrue(update.set("total", 12).execute(connection, 6));
    }
    assertThrows(IllegalArgumentException.class, () -> FencedUpdate.of("report; DROP TABLE x", "fence"));
    assertThrows(IllegalArgumentException.class, () -> FencedUpdate.of("report", "fence").set("fence", 1));
    assertThrows(IllegalStateException.class, () -> FencedUpdate.of("report", "fence").where("id", 1).sql());
  }

  @Test
  void waitingCallersRunOneAfterAnother() throws Exception {
    SingleFlightSpec waiting = SingleFlightSpec.of("queue", Duration.ofSeconds(30), Duration.ZERO, OnBusy.WAIT,
        Duration.ofSeconds(20));
    IdemEngine engine = IdemEngine.of(runtime);
    AtomicInteger ran = new AtomicInteger();
    AtomicInteger running = new AtomicInteger();
    AtomicInteger overlaps = new AtomicInteger();
    ExecutorService threads = Executors.newFixedThreadPool(4);
    try {
      List<Future<Boolean>> calls = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        calls.add(threads.submit(() -> engine.singleFlight(waiting, Boolean.FALSE, () -> {
          if (running.incrementAndGet() != 1) {
            overlaps.incrementAndGet();
          }
          Thread.sleep(100);
          ran.incrementAndGet();
          running.decrementAndGet();
          return Boolean.TRUE;
        })));
      }
      for (Future<Boolean> call : calls) {
        assertTrue(call.get(), "every waiting caller ran");
      }
    } finally {
      threads.shutdownNow();
    }
    assertEquals(4, ran.get());
    assertEquals(0, overlaps.get());
  }

  private long leaseUntil(String name) {
    try (Connection connection = database.dataSource().getConnection();
        var query = connection.prepareStatement("SELECT lease_until FROM idem_lock WHERE name = ?")) {
      query.setString(1, name);
      try (var rs = query.executeQuery()) {
        assertTrue(rs.next());
        return rs.getLong(1);
      }
    } catch (SQLException e) {
      throw new AssertionError(e);
    }
  }

  private long lockRow(String name) {
    try (Connection connection = database.dataSource().getConnection();
        var query = connection.prepareStatement("SELECT fence FROM idem_lock WHERE name = ?")) {
      query.setString(1, name);
      try (var rs = query.executeQuery()) {
        assertTrue(rs.next());
        return rs.getLong(1);
      }
    } catch (SQLException e) {
      throw new AssertionError(e);
    }
  }

  private IdemRuntime runtimeWithClock(Duration skew) {
    return IdemRuntime.builder().dataSource(database.dataSource()).clock(Clock.offset(Clock.systemUTC(), skew))
        .build();
  }

  private HikariDataSource pool(String url) {
    HikariConfig config = new HikariConfig();
    String separator = url.contains("?") ? "&" : "?";
    config.setJdbcUrl(url + separator + (database() == TestDatabase.POSTGRESQL
        ? "socketTimeout=3&connectTimeout=2" : "socketTimeout=3000&connectTimeout=2000"));
    config.setUsername(database.user());
    config.setPassword(database.password());
    config.setMaximumPoolSize(4);
    config.setMinimumIdle(0);
    config.setConnectionTimeout(1_000);
    config.setValidationTimeout(500);
    config.setPoolName("idem-locks-" + database().name().toLowerCase(Locale.ROOT));
    return new HikariDataSource(config);
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
