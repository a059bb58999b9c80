package dev.idem.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyStoreException;
import dev.idem.runtime.LockLease;
import dev.idem.runtime.LockProvider;
import dev.idem.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The contract on MariaDB, plus what only MariaDB's locks do: a release is a mark in the MEMORY table
 * idem_lock_release instead of an UPDATE of idem_lock (see {@code SqlDialect.MariaDbDialect}), so these tests check
 * that acquisitions honour the marks, that losing them (a server restart empties a MEMORY table) only delays the
 * next holder, that a full mark table falls back to the UPDATE, and that a missing one is named with its fix.
 */
class MariaDbLockContractTest extends LockContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }

  @Test
  void aReleaseIsAMarkThatLeavesIdemLockAloneAndTheNextAcquisitionTakesTheLockAtOnce() {
    try (IdemRuntime runtime = IdemRuntime.builder().dataSource(database.dataSource()).build()) {
      LockProvider locks = runtime.lockProvider();
      LockLease first = locks.tryAcquire("marked", Duration.ofMinutes(10)).orElseThrow();
      long leaseUntil = number("SELECT lease_until FROM idem_lock WHERE name = 'marked'");
      assertTrue(locks.release(first, Duration.ZERO));
      assertEquals(leaseUntil, number("SELECT lease_until FROM idem_lock WHERE name = 'marked'"),
          "the release wrote nothing to idem_lock (InnoDB: a commit that waits for the redo log's flush)");
      assertEquals(1, number("SELECT COUNT(*) FROM idem_lock_release WHERE name = 'marked' AND owner_token = '"
          + first.ownerToken() + "'"));
      LockLease second = locks.tryAcquire("marked", Duration.ofMinutes(10)).orElseThrow();
      assertTrue(second.fencingToken() > first.fencingToken(), second + " after " + first);
      assertFalse(locks.release(first, Duration.ZERO), "the first holder's mark names a token the row no longer has");
      assertFalse(locks.renew(first, Duration.ofMinutes(1)));
      assertEquals(Optional.empty(), locks.tryAcquire("marked", Duration.ofMinutes(1)), "the old mark frees nothing");
      assertTrue(locks.release(second, Duration.ZERO));
      assertTrue(locks.tryAcquire("marked", Duration.ofMinutes(1)).isPresent());
    }
  }

  @Test
  void marksLostInAServerRestartLeaveTheLeaseToEndAtLockAtMostFor() throws Exception {
    try (IdemRuntime runtime = IdemRuntime.builder().dataSource(database.dataSource()).build()) {
      LockProvider locks = runtime.lockProvider();
      long taken = System.nanoTime();
      LockLease lease = locks.tryAcquire("restarted", Duration.ofMillis(1_500)).orElseThrow();
      assertTrue(locks.release(lease, Duration.ZERO));
      database.execute("DELETE FROM idem_lock_release"); // what a server restart leaves of a MEMORY table
      assertEquals(Optional.empty(), locks.tryAcquire("restarted", Duration.ofMinutes(1)),
          "without its mark the lease holds again: the next run starts later, never twice");
      Optional<LockLease> next = Optional.empty();
      while (next.isEmpty() && System.nanoTime() - taken < 20_000_000_000L) {
        Thread.sleep(50);
        next = locks.tryAcquire("restarted", Duration.ofMinutes(1));
      }
      long waitedMillis = (System.nanoTime() - taken) / 1_000_000;
      assertTrue(next.isPresent(), "free once lockAtMostFor has passed");
      assertTrue(waitedMillis >= 1_500, "taken after " + waitedMillis + " ms of a 1.5 s lease");
      assertTrue(next.get().fencingToken() > lease.fencingToken());
    }
  }

  @Test
  void aFullMarkTableFallsBackToReleasingByUpdate() throws SQLException {
    try (Connection connection = database.dataSource().getConnection();
        Statement statement = connection.createStatement()) {
      // A MEMORY table takes its size limit from the session that (re)builds it: 16 KB holds about 13 marks.
      statement.execute("SET SESSION max_heap_table_size = 16384");
      statement.execute("ALTER TABLE idem_lock_release ENGINE = MEMORY");
      statement.execute("SET SESSION max_heap_table_size = DEFAULT");
    }
    try (IdemRuntime runtime = IdemRuntime.builder().dataSource(database.dataSource()).build()) {
      LockProvider locks = runtime.lockProvider();
      for (int i = 0; i < 40; i++) {
        String name = "full-" + i;
        LockLease lease = locks.tryAcquire(name, Duration.ofMinutes(10)).orElseThrow();
        assertTrue(locks.release(lease, Duration.ZERO), name);
        LockLease next = locks.tryAcquire(name, Duration.ofMinutes(10)).orElseThrow(
            () -> new AssertionError(name + " stayed held after its release"));
        assertTrue(next.fencingToken() > lease.fencingToken());
        assertTrue(locks.release(next, Duration.ofMinutes(5)), name + " with a lockAtLeastFor");
        assertEquals(Optional.empty(), locks.tryAcquire(name, Duration.ofMinutes(1)), "held for lockAtLeastFor");
      }
      assertTrue(number("SELECT COUNT(*) FROM idem_lock_release") < 40, "the table was full: some fell back");
    } finally {
      try (Connection connection = database.dataSource().getConnection();
          Statement statement = connection.createStatement()) {
        statement.execute("DELETE FROM idem_lock_release");
        statement.execute("ALTER TABLE idem_lock_release ENGINE = MEMORY"); // the server's default size again
      }
    }
  }

  @Test
  void aMissingMarkTableIsNamedWithItsFix() {
    try (IdemRuntime runtime = IdemRuntime.builder().dataSource(database.dataSource()).build()) {
      LockLease held = runtime.lockProvider().tryAcquire("unmarked", Duration.ofMinutes(1)).orElseThrow();
      database.execute("DROP TABLE idem_lock_release");
      try {
        IdempotencyStoreException release = assertThrows(IdempotencyStoreException.class,
            () -> runtime.lockProvider().release(held, Duration.ZERO));
        assertTrue(release.getMessage().contains("idem's table idem_lock_release does not exist")
            && release.getMessage().contains("createSchema()")
            && release.getMessage().contains("dev/idem/runtime/schema/lock-mariadb.sql"), release.getMessage());
        IdempotencyStoreException acquire = assertThrows(IdempotencyStoreException.class,
            () -> runtime.lockProvider().tryAcquire("unmarked-too", Duration.ofMinutes(1)));
        assertTrue(acquire.getMessage().contains("idem_lock or idem_lock_release does not exist")
            && acquire.getMessage().contains("dev/idem/runtime/schema/lock-mariadb.sql"), acquire.getMessage());
      } finally {
        runtime.createSchema();
      }
    }
  }

  private long number(String sql) {
    try (Connection connection = database.dataSource().getConnection();
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery(sql)) {
      assertTrue(rs.next(), sql);
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new AssertionError(e);
    }
  }
}
