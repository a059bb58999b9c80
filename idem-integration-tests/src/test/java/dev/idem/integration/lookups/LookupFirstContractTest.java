package dev.idem.integration.lookups;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.integration.lookups.Deliveries.Receipt;
import dev.idem.integration.lookups.Deliveries.Refused;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyInProgressException;
import dev.idem.runtime.IdempotencyKeyReusedException;
import dev.idem.runtime.IdempotencyStoreException;
import dev.idem.testing.CountingDataSource.Counts;
import dev.idem.testing.DatabaseContract;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code @IdempotentCommand(lookupFirst = true)} on a real database: a retry of a completed key is answered by one
 * read in auto-commit mode, with no transaction; everything else reaches the claim, which decides as without the
 * read. Subclasses pick the database.
 */
abstract class LookupFirstContractTest extends DatabaseContract {

  private final AtomicInteger executions = new AtomicInteger();
  /** Holds {@code forward}'s body until released, for the in-flight case. */
  private volatile CountDownLatch forwardEntered = new CountDownLatch(0);
  private volatile CountDownLatch releaseForward = new CountDownLatch(0);
  private IdemRuntime runtime;
  private Deliveries deliveries;
  private final ExecutorService callers = Executors.newFixedThreadPool(8);

  @Override
  protected void prepare() {
    runtime = IdemRuntime.builder().dataSource(counting).clock(clock).databaseTime(false).resultCache(false)
        .build();
    runtime.createSchema();
    deliveries = new Deliveries_Idempotent(new Deliveries() {
      @Override
      public Receipt receive(String deliveryId, String body) {
        int execution = executions.incrementAndGet();
        if (body.startsWith("refuse")) {
          throw new Refused(body);
        }
        return new Receipt(deliveryId, body, execution);
      }

      @Override
      public Receipt forward(String deliveryId, String body) {
        forwardEntered.countDown();
        try {
          releaseForward.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        return new Receipt(deliveryId, body, executions.incrementAndGet());
      }

      @Override
      public void acknowledge(String deliveryId) {
        executions.incrementAndGet();
      }
    }, runtime);
  }

  @BeforeEach
  void clean() {
    database.execute("DELETE FROM idem_record");
    executions.set(0);
    clock.set(Instant.parse("2031-05-01T10:00:00Z"));
  }

  @AfterAll
  void stopCallers() {
    callers.shutdownNow();
  }

  @Test
  void aRetryOfACompletedKeyIsOneReadInAutoCommitWithoutATransaction() {
    Receipt first = deliveries.receive("d-1", "paid");
    counting.reset();
    Receipt retried = deliveries.receive("d-1", "paid");
    Counts retry = counting.counts();

    assertEquals(first, retried);
    assertEquals(1, executions.get());
    assertEquals(new Counts(1, 1, 1, 0, 0, 0, 0), retry,
        "one connection, one statement in auto-commit, no commit, no rollback, no transaction");
    assertTrue(counting.executedSql().get(0).toUpperCase(Locale.ROOT).startsWith("SELECT"),
        counting.executedSql().toString());
    assertTrue(!counting.executedSql().get(0).toUpperCase(Locale.ROOT).contains(" LOCK IN SHARE MODE")
        && !counting.executedSql().get(0).toUpperCase(Locale.ROOT).contains(" FOR SHARE"),
        "a read that never waits for a competitor's uncommitted claim: " + counting.executedSql());
  }

  @Test
  void aFirstExecutionReadsThenClaimsAsWithoutTheRead() {
    counting.reset();
    deliveries.receive("d-2", "paid");

    List<String> sql = Calls.idemStatements(counting.executedSql());
    assertTrue(sql.get(0).startsWith("SELECT"), sql.toString());
    assertTrue(sql.get(1).contains("INSERT"), "the claim follows the read: " + sql);
    assertEquals(1, executions.get());
  }

  @Test
  void voidAndClaimCommandsReplayFromTheReadToo() {
    deliveries.acknowledge("d-3");
    Receipt forwarded = deliveries.forward("d-4", "to-erp");
    counting.reset();

    deliveries.acknowledge("d-3");
    assertEquals(forwarded, deliveries.forward("d-4", "to-erp"));

    assertEquals(2, executions.get());
    assertEquals(new Counts(2, 2, 2, 0, 0, 0, 0), counting.counts());
  }

  @Test
  void aStoredBusinessFailureIsRethrownFromTheRead() {
    Refused first = assertThrows(Refused.class, () -> deliveries.receive("d-5", "refuse: over limit"));
    counting.reset();
    Refused replayed = assertThrows(Refused.class, () -> deliveries.receive("d-5", "refuse: over limit"));

    assertEquals(first.reason(), replayed.reason());
    assertEquals(1, executions.get());
    assertEquals(1, counting.statementsExecuted());
  }

  @Test
  void theSameKeyWithAnotherPayloadIsRefusedAndChangesNothing() {
    Receipt first = deliveries.receive("d-6", "paid");

    assertThrows(IdempotencyKeyReusedException.class, () -> deliveries.receive("d-6", "refunded"));

    assertEquals(1, executions.get());
    assertEquals(first, deliveries.receive("d-6", "paid"), "the first record stands");
  }

  @Test
  void anExpiredKeyRunsAnew() {
    Receipt first = deliveries.receive("d-7", "paid");
    clock.advance(Duration.ofHours(1).plusMillis(1));

    Receipt again = deliveries.receive("d-7", "refunded");

    assertEquals(2, executions.get());
    assertEquals(new Receipt("d-7", "refunded", 2), again);
    assertEquals(first.execution() + 1, again.execution());
  }

  @Test
  void aKeyInFlightGoesToTheClaimWhichTurnsTheDuplicateAway() throws Exception {
    forwardEntered = new CountDownLatch(1);
    releaseForward = new CountDownLatch(1);
    Future<Receipt> owner = callers.submit(() -> deliveries.forward("d-8", "to-erp"));
    try {
      assertTrue(forwardEntered.await(30, TimeUnit.SECONDS));
      assertThrows(IdempotencyInProgressException.class, () -> deliveries.forward("d-8", "to-erp"));
    } finally {
      releaseForward.countDown();
    }
    Receipt receipt = owner.get(30, TimeUnit.SECONDS);
    assertEquals(receipt, deliveries.forward("d-8", "to-erp"));
    assertEquals(1, executions.get());
  }

  @Test
  void concurrentFirstCallsOfOneKeyRunOnceAndAllGetTheResult() throws Exception {
    for (int round = 0; round < 5; round++) {
      String key = "race-" + round;
      executions.set(0);
      Set<Receipt> results = Calls.raced(callers, 8, i -> () -> deliveries.receive(key, "paid"));
      assertEquals(1, executions.get(), "round " + round);
      assertEquals(Set.of(new Receipt(key, "paid", 1)), results);
    }
  }

  @Test
  void aReadThatFailsLeavesTheCallToTheClaimWhichReportsTheFault() {
    IdemRuntime withoutTable = IdemRuntime.builder().dataSource(counting).clock(clock).databaseTime(false)
        .resultCache(false).tableName("lookup_missing_record").build();
    Deliveries onMissingTable = new Deliveries_Idempotent(new Deliveries() {
      @Override
      public Receipt receive(String deliveryId, String body) {
        return new Receipt(deliveryId, body, executions.incrementAndGet());
      }

      @Override
      public Receipt forward(String deliveryId, String body) {
        throw new AssertionError("not called");
      }

      @Override
      public void acknowledge(String deliveryId) {
        throw new AssertionError("not called");
      }
    }, withoutTable);
    counting.reset();

    IdempotencyStoreException failure =
        assertThrows(IdempotencyStoreException.class, () -> onMissingTable.receive("d-10", "paid"));

    assertTrue(failure.getMessage().contains("lookup_missing_record does not exist"), failure.getMessage());
    assertTrue(failure.getMessage().contains("createSchema()"), failure.getMessage());
    assertEquals(0, executions.get());
    assertEquals(2, counting.connectionsObtained(), "the failed read's connection, then the claim's transaction's");
    withoutTable.close();
  }

  @Test
  void insideATransactionTheClaimComesFirst() {
    deliveries.receive("d-9", "paid");
    counting.reset();

    Receipt replayed = runtime.inTransaction(connection -> deliveries.receive("d-9", "paid"));

    assertEquals(1, executions.get());
    assertEquals("d-9", replayed.deliveryId());
    List<String> sql = Calls.idemStatements(counting.executedSql());
    assertTrue(sql.get(0).contains("INSERT"), "no read before the claim: " + sql);
    assertEquals(1, counting.connectionsObtained(), "the transaction's connection alone");
  }

}
