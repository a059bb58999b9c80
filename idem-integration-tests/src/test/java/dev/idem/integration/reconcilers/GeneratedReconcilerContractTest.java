package dev.idem.integration.reconcilers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyOutcomeUnknownException;
import dev.idem.runtime.Reconciliation;
import dev.idem.testing.DatabaseContract;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code @Reconciles} through the generated class on every database: a retry that meets a parked key calls the
 * delegate's reconciler with the retry's arguments and resolves the key (the result replays) or releases it (the
 * command runs); two retries at once ask the bank once and get the same result.
 */
@Timeout(60)
abstract class GeneratedReconcilerContractTest extends DatabaseContract {

  /** The bank: what it paid out, what the reconciler was asked; the delegate fails after paying when told to. */
  static class Bank implements Payouts {
    final Map<String, Long> paid = new ConcurrentHashMap<>();
    final List<String> asked = new CopyOnWriteArrayList<>();
    final AtomicInteger notified = new AtomicInteger();
    volatile boolean failAfterPaying;
    volatile CountDownLatch asking;

    @Override
    public String payOut(String payoutId, long amountCents) {
      paid.merge(payoutId, amountCents, Long::sum);
      if (failAfterPaying) {
        throw new IllegalStateException("the bank's answer could not be read");
      }
      return "paid " + payoutId + " " + amountCents;
    }

    @Override
    public Reconciliation<String> reconcilePayOut(String payoutId, long amountCents) {
      asked.add(payoutId + " " + amountCents);
      if (asking != null) {
        asking.countDown();
        try {
          Thread.sleep(400); // a slow bank: the other retry waits meanwhile
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      Long amount = paid.get(payoutId);
      return amount == null ? Reconciliation.didNotHappen()
          : Reconciliation.happened("paid " + payoutId + " " + amount + " (reconciled)");
    }

    @Override
    public void notifyPayee(String payoutId) {
      notified.incrementAndGet();
      throw new IllegalStateException("the mail server hung up after DATA");
    }

    @Override
    public Reconciliation<Void> reconcileNotifyPayee(String payoutId) {
      return Reconciliation.happened(null);
    }
  }

  private final Bank bank = new Bank();
  private Payouts payouts;

  @Override
  protected void prepare() {
    IdemRuntime runtime = IdemRuntime.builder().dataSource(database.dataSource()).build();
    runtime.createSchema();
    payouts = new Payouts_Idempotent(bank, runtime);
  }

  @BeforeEach
  void clean() {
    database.execute("DELETE FROM idem_record");
    bank.paid.clear();
    bank.asked.clear();
    bank.failAfterPaying = false;
    bank.asking = null;
  }

  private void park(String payoutId) {
    bank.failAfterPaying = true;
    assertThrows(IllegalStateException.class, () -> payouts.payOut(payoutId, 500));
    bank.failAfterPaying = false;
  }

  @Test
  void aRetryOfAParkedPayoutIsReconciledWithItsArgumentsAndReplaysTheBanksAnswer() {
    park("p-1");
    assertEquals("paid p-1 500 (reconciled)", payouts.payOut("p-1", 500));
    assertEquals("paid p-1 500 (reconciled)", payouts.payOut("p-1", 500), "recorded");
    assertEquals(List.of("p-1 500"), bank.asked, "asked once, with the parked call's arguments");
    assertEquals(Map.of("p-1", 500L), bank.paid, "paid once");
  }

  @Test
  void aPayoutTheBankNeverMadeRunsAgain() {
    park("p-2");
    bank.paid.remove("p-2"); // the bank says: nothing went out
    assertEquals("paid p-2 500", payouts.payOut("p-2", 500));
    assertEquals(List.of("p-2 500"), bank.asked);
  }

  @Test
  void aDifferentPayloadUnderTheParkedKeyIsNotReconciled() {
    park("p-3");
    assertThrows(dev.idem.runtime.IdempotencyKeyReusedException.class, () -> payouts.payOut("p-3", 999));
    assertEquals(List.of(), bank.asked, "the fingerprint decides before any reconciler is asked");
  }

  @Test
  void aVoidCommandIsResolvedWithoutAResult() {
    assertThrows(IllegalStateException.class, () -> payouts.notifyPayee("n-1"));
    payouts.notifyPayee("n-1"); // reconciled: happened
    payouts.notifyPayee("n-1"); // replayed
    assertEquals(1, bank.notified.get());
  }

  @Test
  void twoRetriesAtOnceAskTheBankOnceAndGetTheSameResult() throws Exception {
    park("p-4");
    bank.asking = new CountDownLatch(1);
    ExecutorService threads = Executors.newFixedThreadPool(2);
    try {
      Future<String> first = threads.submit(() -> payouts.payOut("p-4", 500));
      assertTrue(bank.asking.await(10, TimeUnit.SECONDS));
      Future<String> second = threads.submit(() -> payouts.payOut("p-4", 500));
      assertEquals("paid p-4 500 (reconciled)", first.get(20, TimeUnit.SECONDS));
      assertEquals("paid p-4 500 (reconciled)", second.get(20, TimeUnit.SECONDS));
    } finally {
      threads.shutdownNow();
    }
    assertEquals(List.of("p-4 500"), bank.asked, "one query to the bank");
  }

  @Test
  void withoutAnAnswerTheKeyStaysParked() {
    park("p-5");
    bank.asking = null;
    Bank silent = new Bank() {
      @Override
      public Reconciliation<String> reconcilePayOut(String payoutId, long amountCents) {
        return Reconciliation.stillUnknown("the bank's report comes at midnight");
      }
    };
    try (IdemRuntime otherRuntime = IdemRuntime.builder().dataSource(database.dataSource()).build()) {
      Payouts other = new Payouts_Idempotent(silent, otherRuntime);
      IdempotencyOutcomeUnknownException unknown = assertThrows(IdempotencyOutcomeUnknownException.class,
          () -> other.payOut("p-5", 500));
      assertTrue(unknown.getMessage().contains("the bank's report comes at midnight"), unknown.getMessage());
    }
    assertEquals("paid p-5 500 (reconciled)", payouts.payOut("p-5", 500), "a later retry asks again");
  }
}
