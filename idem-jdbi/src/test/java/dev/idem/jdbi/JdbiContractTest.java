package dev.idem.jdbi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.runtime.IdemRuntime;
import dev.idem.testing.DatabaseContract;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A generated service whose delegate writes through JDBI, called inside the application's
 * {@code jdbi.inTransaction(..)}: idem's record joins that transaction through {@link JdbiTransactionBinding}. The
 * subclasses pick the database.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
abstract class JdbiContractTest extends DatabaseContract {

  private static final int THREADS = 32;
  private static final int KEYS = 100;

  private Jdbi jdbi;
  private IdemRuntime runtime;
  private JdbiPayments delegate;
  private Payments payments;

  @Override
  protected void prepare() {
    jdbi = Jdbi.create(counting);
    runtime = IdemRuntime.builder().dataSource(counting).clock(clock).databaseTime(false)
        .joinTransactions(JdbiTransactionBinding.of(jdbi)).build();
    runtime.createSchema();
    database.execute(
        // No unique key on request_id: a second application would show as a second row, not as an error.
        "CREATE TABLE payments (request_id VARCHAR(64) NOT NULL, account VARCHAR(16) NOT NULL, amount BIGINT NOT NULL)",
        "CREATE TABLE accounts (id VARCHAR(16) NOT NULL PRIMARY KEY, balance BIGINT NOT NULL)",
        "CREATE TABLE audit (what VARCHAR(64) NOT NULL)");
    delegate = new JdbiPayments(jdbi);
    payments = new Payments_Idempotent(delegate, runtime);
  }

  @BeforeEach
  void clear() {
    database.execute("DELETE FROM idem_outbox", "DELETE FROM idem_record", "DELETE FROM payments", "DELETE FROM accounts", "DELETE FROM audit",
        "INSERT INTO accounts (id, balance) VALUES ('a', 0)");
    runtime.clearResultCache();
    delegate.executions.set(0);
    counting.reset();
  }

  private long count(String sql) {
    return jdbi.withHandle(handle -> handle.createQuery(sql).mapTo(Long.class).one());
  }

  /** An outbox event written inside jdbi.inTransaction commits with the handle's writes, or rolls back with them. */
  @Test
  void anOutboxEventJoinsTheJdbiTransaction() {
    PaymentEvents events = new PaymentEvents_Outbox(runtime);
    String messageId = jdbi.<String, RuntimeException>inTransaction(handle -> {
      handle.execute("INSERT INTO audit (what) VALUES ('paid r-1')");
      return events.paymentMade(new PaymentEvents.PaymentMade("r-1", 100));
    });
    assertThrows(IllegalStateException.class, () -> jdbi.useTransaction(handle -> {
      handle.execute("INSERT INTO audit (what) VALUES ('paid r-2')");
      events.paymentMade(new PaymentEvents.PaymentMade("r-2", 200));
      throw new IllegalStateException("rolled back after the event was written");
    }));
    assertEquals(1, count("SELECT COUNT(*) FROM audit"));
    assertEquals(List.of(messageId), jdbi.withHandle(handle -> handle.createQuery(
        "SELECT id FROM idem_outbox WHERE partition_key = 'r-1'").mapTo(String.class).list()));
    assertEquals(1, count("SELECT COUNT(*) FROM idem_outbox"));
  }

  @Test
  void theRecordCommitsWithTheJdbiTransaction() {
    AtomicBoolean afterCommit = new AtomicBoolean();
    long balance = jdbi.<Long, RuntimeException>inTransaction(handle -> {
      long paid = payments.pay("r-1", "a", 100);
      handle.execute("INSERT INTO audit (what) VALUES ('paid r-1')");
      runtime.afterCommit(() -> afterCommit.set(true));
      assertFalse(afterCommit.get());
      assertEquals(0, countElsewhere("SELECT COUNT(*) FROM idem_record"), "invisible until JDBI commits");
      return paid;
    });
    assertEquals(100, balance);
    assertTrue(afterCommit.get(), "runtime.afterCommit ran once JDBI committed");
    assertEquals(1, count("SELECT COUNT(*) FROM payments"));
    assertEquals(1, count("SELECT COUNT(*) FROM audit"));
    assertEquals(1, count("SELECT COUNT(*) FROM idem_record"));
  }

  /** On a connection of its own, outside the JDBI transaction in progress on this thread. */
  private long countElsewhere(String sql) {
    try (var handle = Jdbi.open(database.dataSource())) {
      return handle.createQuery(sql).mapTo(Long.class).one();
    }
  }

  @Test
  void aRollbackUndoesTheRecordAndTheDelegatesWrites() {
    IllegalStateException abort = new IllegalStateException("abort");
    assertSame(abort, assertThrows(IllegalStateException.class, () -> jdbi.useTransaction(handle -> {
      payments.pay("r-2", "a", 100);
      handle.execute("INSERT INTO audit (what) VALUES ('paid r-2')");
      throw abort;
    })));
    assertEquals(0, count("SELECT COUNT(*) FROM payments"));
    assertEquals(0, count("SELECT COUNT(*) FROM audit"));
    assertEquals(0, count("SELECT COUNT(*) FROM idem_record"));
    assertEquals(0, count("SELECT balance FROM accounts WHERE id = 'a'"));
    assertEquals(100L, (long) jdbi.<Long, RuntimeException>inTransaction(handle -> payments.pay("r-2", "a", 100)),
        "the retry runs the body");
    assertEquals(2, delegate.executions.get());
  }

  @Test
  void aRetryAfterTheCommitReplaysWithoutTheDelegate() {
    assertEquals(100L, (long) jdbi.<Long, RuntimeException>inTransaction(handle -> payments.pay("r-3", "a", 100)));
    counting.reset();
    assertEquals(100L, (long) jdbi.<Long, RuntimeException>inTransaction(handle -> payments.pay("r-3", "a", 100)));
    assertEquals(100L, payments.pay("r-3", "a", 100), "outside a JDBI transaction too");
    assertEquals(1, delegate.executions.get());
    assertEquals(1, counting.connectionsObtained(), "the JDBI transaction's only: replays came from the cache");
    assertEquals(100, count("SELECT balance FROM accounts WHERE id = 'a'"));
  }

  @Test
  void aDelegateUpdatingARowTheJdbiTransactionLockedDoesNotDeadlock() {
    // The application's transaction updates the account first and holds its row lock; the delegate updates it too.
    assertEquals(101L, (long) jdbi.<Long, RuntimeException>inTransaction(handle -> {
      handle.execute("UPDATE accounts SET balance = balance + 1 WHERE id = 'a'");
      return payments.pay("r-4", "a", 100);
    }));
    assertEquals(101, count("SELECT balance FROM accounts WHERE id = 'a'"));
  }

  /**
   * The delegate as the README advises outside {@code jdbi.inTransaction}: it writes through
   * {@code runtime.currentConnection()}, the joined handle's connection when there is one.
   */
  private Payments writingThroughTheRuntime(AtomicInteger executions) {
    return new Payments_Idempotent((requestId, account, amountCents) -> {
      executions.incrementAndGet();
      try (PreparedStatement insert = runtime.currentConnection().prepareStatement(
          "INSERT INTO payments (request_id, account, amount) VALUES (?, ?, ?)")) {
        insert.setString(1, requestId);
        insert.setString(2, account);
        insert.setLong(3, amountCents);
        insert.executeUpdate();
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
      return amountCents;
    }, runtime);
  }

  @Test
  void aTransactionOnAHandleFromJdbiOpenIsJoinedToo() {
    AtomicInteger executions = new AtomicInteger();
    Payments direct = writingThroughTheRuntime(executions);
    IllegalStateException abort = new IllegalStateException("abort");
    try (Handle handle = jdbi.open()) {
      assertSame(abort, assertThrows(IllegalStateException.class, () -> handle.useTransaction(tx -> {
        direct.pay("o-1", "a", 100);
        tx.execute("INSERT INTO audit (what) VALUES ('paid o-1')");
        throw abort;
      })));
    }
    assertEquals(0, count("SELECT COUNT(*) FROM payments"), "the delegate's write rolled back with the handle");
    assertEquals(0, count("SELECT COUNT(*) FROM idem_record"), "and so did the record: a retry runs again");
    try (Handle handle = jdbi.open()) {
      handle.useTransaction(tx -> {
        direct.pay("o-1", "a", 100);
        tx.execute("INSERT INTO audit (what) VALUES ('paid o-1')");
        assertEquals(0, countElsewhere("SELECT COUNT(*) FROM idem_record"), "invisible until the handle commits");
      });
      // begin / rollback / commit by hand, on the same handle.
      handle.begin();
      direct.pay("o-2", "a", 5);
      handle.rollback();
      assertEquals(0, count("SELECT COUNT(*) FROM idem_record WHERE idem_key = 'o-2'"));
      handle.begin();
      direct.pay("o-2", "a", 5);
      handle.commit();
    }
    assertEquals(4, executions.get(), "each rolled back call ran again");
    assertEquals(2, count("SELECT COUNT(*) FROM payments"));
    assertEquals(1, count("SELECT COUNT(*) FROM audit"));
    assertEquals(2, count("SELECT COUNT(*) FROM idem_record"));
    // With the handles' transactions over, a call on this thread begins idem's own transaction again.
    assertEquals(7L, direct.pay("o-3", "a", 7));
    assertEquals(1, countElsewhere("SELECT COUNT(*) FROM idem_record WHERE idem_key = 'o-3'"));
    assertEquals(100L, direct.pay("o-1", "a", 100), "replayed");
    assertEquals(5, executions.get());
  }

  @Test
  void aSecondBindingOfTheSameJdbiWrapsItsTransactionHandlerOnce() {
    var handler = jdbi.getTransactionHandler();
    JdbiTransactionBinding.of(jdbi);
    assertSame(handler, jdbi.getTransactionHandler());
  }

  @Test
  void concurrentDuplicatesApplyOncePerKey() throws Exception {
    // An account per key: callers of one key contend on idem's record (the point), not all of them on one hot row,
    // which the database may time out on (a transient failure that only the application could retry: idem never
    // retries inside the application's transaction).
    database.execute("DELETE FROM accounts");
    jdbi.useTransaction(handle -> {
      for (int k = 0; k < KEYS; k++) {
        handle.execute("INSERT INTO accounts (id, balance) VALUES (?, 0)", "acct-" + k);
      }
    });
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try {
      List<Future<?>> workers = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        long seed = t;
        workers.add(pool.submit(() -> {
          List<Integer> keys = new ArrayList<>();
          for (int k = 0; k < KEYS; k++) {
            keys.add(k);
          }
          Collections.shuffle(keys, new Random(seed));
          for (int k : keys) {
            jdbi.useTransaction(handle -> {
              payments.pay("key-" + k, "acct-" + k, 1);
              handle.execute("INSERT INTO audit (what) VALUES (?)", "call key-" + k);
            });
          }
          return null;
        }));
      }
      for (Future<?> worker : workers) {
        worker.get(50, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertEquals(KEYS, count("SELECT COUNT(*) FROM payments"), "one business row per key");
    assertEquals(KEYS, count("SELECT COUNT(DISTINCT request_id) FROM payments"));
    assertEquals(KEYS, count("SELECT COUNT(*) FROM idem_record"), "one record per key");
    assertEquals(KEYS, count("SELECT SUM(balance) FROM accounts"));
    assertEquals(0, count("SELECT COUNT(*) FROM accounts WHERE balance <> 1"), "each account credited once");
    assertEquals(KEYS, delegate.executions.get());
    assertEquals((long) THREADS * KEYS, count("SELECT COUNT(*) FROM audit"), "every caller's own write committed");
  }
}
