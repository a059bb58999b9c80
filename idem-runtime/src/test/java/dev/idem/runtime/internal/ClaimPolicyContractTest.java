package dev.idem.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.ExpiredLease;
import dev.idem.InFlight;
import dev.idem.Mode;
import dev.idem.UndeclaredFailure;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyLeaseLostException;
import dev.idem.runtime.IdempotencyListener;
import dev.idem.runtime.IdempotencyOutcomeUnknownException;
import dev.idem.runtime.IdempotencyRecord;
import dev.idem.runtime.Reconciliation;
import dev.idem.testing.DatabaseContract;
import dev.idem.testing.RecordingListener;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The declared CLAIM policies on every database: {@code onExpiredLease = PARK} turns a lease that ended without an
 * outcome into {@code OUTCOME_UNKNOWN} instead of a takeover (at-most-once), {@code onUndeclaredFailure = PARK} parks
 * a key whose body threw an exception replayOn does not list instead of releasing it; a parked key is listed by
 * {@code inspect} and resolvable; the defaults keep taking over and releasing.
 */
@Timeout(60)
abstract class ClaimPolicyContractTest extends DatabaseContract {

  private static final CommandSpec<String> PARKING = spec("Gateway.parking")
      .onExpiredLease(ExpiredLease.PARK).onUndeclaredFailure(UndeclaredFailure.PARK).build();
  private static final CommandSpec<String> TAKING_OVER = spec("Gateway.takingOver").build();

  private static CommandSpec.Builder<String> spec(String scope) {
    return CommandSpec.builder(scope, ResultType.of(String.class)).mode(Mode.CLAIM).lease(Duration.ofSeconds(30))
        .onInFlight(InFlight.FAIL).retention(Duration.ofDays(1)).keyParts("id");
  }

  private final ExecutorService owner = Executors.newSingleThreadExecutor();
  private IdemRuntime runtime;

  @Override
  protected void prepare() {
    runtime = IdemRuntime.builder().dataSource(database.dataSource()).clock(clock).databaseTime(false)
        .listener(RecordingListener.keysOnly(IdempotencyListener.class, events)).build();
    runtime.createSchema();
  }

  @BeforeEach
  void clear() {
    database.execute("DELETE FROM idem_record");
    runtime.clearResultCache();
    clock.set(Instant.parse("2030-01-01T00:00:00Z"));
    events.clear();
  }

  @AfterAll
  void stop() {
    owner.shutdownNow();
  }

  private String call(CommandSpec<String> spec, String id, CommandBody<String> body) {
    return IdemEngine.of(runtime).execute(spec, new Object[] {id}, new Object[0], body);
  }

  @Test
  void anEndedLeaseParksTheKeyInsteadOfRunningTheBodyAgain() throws Exception {
    AtomicInteger charges = new AtomicInteger();
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Future<String> stalled = owner.submit(() -> call(PARKING, "p-1", () -> {
      charges.incrementAndGet(); // the external call
      running.countDown();
      release.await(); // ... and then the owner stalls past its lease
      return "first";
    }));
    assertTrue(running.await(10, TimeUnit.SECONDS));
    clock.advance(Duration.ofSeconds(31));
    IdempotencyOutcomeUnknownException parked = assertThrows(IdempotencyOutcomeUnknownException.class,
        () -> call(PARKING, "p-1", () -> "again:" + charges.incrementAndGet()));
    assertTrue(parked.getMessage().contains("onExpiredLease = PARK"), parked.getMessage());
    assertThrows(IdempotencyOutcomeUnknownException.class, () -> call(PARKING, "p-1", () -> "again"),
        "every retry meets the parked key");
    release.countDown();
    Exception late = assertThrows(Exception.class, stalled::get);
    assertTrue(late.getCause() instanceof IdempotencyLeaseLostException, String.valueOf(late.getCause()));
    assertEquals(1, charges.get(), "the external call ran once");
    IdempotencyRecord record = runtime.inspect("Gateway.parking", "p-1").orElseThrow();
    assertEquals("OUTCOME_UNKNOWN", record.state().toString());
    // The operator asks the gateway, finds the charge, and records its result: retries replay it.
    assertTrue(runtime.resolve("Gateway.parking", "p-1", "\"first\""));
    assertEquals("first", call(PARKING, "p-1", () -> "again"));
    assertEquals(1, charges.get());
  }

  @Test
  void byDefaultAnEndedLeaseIsTakenOver() throws Exception {
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Future<String> stalled = owner.submit(() -> call(TAKING_OVER, "t-1", () -> {
      running.countDown();
      release.await();
      return "first";
    }));
    assertTrue(running.await(10, TimeUnit.SECONDS));
    clock.advance(Duration.ofSeconds(31));
    assertEquals("second", call(TAKING_OVER, "t-1", () -> "second"));
    release.countDown();
    assertThrows(Exception.class, stalled::get);
  }

  @Test
  void anUndeclaredFailureParksTheKeyWhereDeclared() {
    AtomicInteger charges = new AtomicInteger();
    IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> call(PARKING, "u-1", () -> {
      charges.incrementAndGet(); // charged...
      throw new IllegalStateException("the response could not be parsed"); // ...then failed
    }));
    assertEquals("the response could not be parsed", thrown.getMessage(), "the caller sees its own failure");
    IdempotencyOutcomeUnknownException retry = assertThrows(IdempotencyOutcomeUnknownException.class,
        () -> call(PARKING, "u-1", () -> "again:" + charges.incrementAndGet()));
    assertTrue(retry.getMessage().contains("java.lang.IllegalStateException"), retry.getMessage());
    assertEquals(1, charges.get(), "no second charge");
    assertEquals("OUTCOME_UNKNOWN", runtime.inspect("Gateway.parking", "u-1").orElseThrow().state().toString());
    assertTrue(events.contains("outcomeUnknown u-1"), events.toString());
    // The gateway says it never charged: forget the key, and the retry runs.
    assertTrue(runtime.forget("Gateway.parking", "u-1"));
    assertEquals("again:2", call(PARKING, "u-1", () -> "again:" + charges.incrementAndGet()));
  }

  @Test
  void byDefaultAnUndeclaredFailureReleasesTheKey() {
    assertThrows(IllegalStateException.class, () -> call(TAKING_OVER, "r-1", () -> {
      throw new IllegalStateException("refused");
    }));
    assertEquals("ran", call(TAKING_OVER, "r-1", () -> "ran"));
    assertEquals(List.of(), events.stream().filter(e -> e.startsWith("outcomeUnknown")).toList());
  }

  // Reconcilers (@Reconciles; the generated class hands them over as CommandBody.reconciledBy).

  private void park(String id, AtomicInteger charges) {
    assertThrows(IllegalStateException.class, () -> call(PARKING, id, () -> {
      charges.incrementAndGet(); // charged, then the response could not be read
      throw new IllegalStateException("the response could not be parsed");
    }));
    assertEquals("OUTCOME_UNKNOWN", runtime.inspect("Gateway.parking", id).orElseThrow().state().toString());
  }

  @Test
  void aRetryOfAParkedKeyAsksTheReconcilerAndReplaysTheEffectThatHappened() {
    AtomicInteger charges = new AtomicInteger();
    AtomicInteger asked = new AtomicInteger();
    park("h-1", charges);
    CommandBody<String> retry = CommandBody.reconciledBy(() -> "again:" + charges.incrementAndGet(), () -> {
      asked.incrementAndGet();
      return Reconciliation.happened("charged:h-1");
    });
    assertEquals("charged:h-1", call(PARKING, "h-1", retry));
    assertEquals("charged:h-1", call(PARKING, "h-1", retry), "recorded: replayed");
    assertEquals(1, asked.get(), "asked once");
    assertEquals(1, charges.get(), "no second charge");
    IdempotencyRecord record = runtime.inspect("Gateway.parking", "h-1").orElseThrow();
    assertEquals("COMPLETED", record.state().toString());
  }

  @Test
  void anEffectThatDidNotHappenReleasesTheKeyAndTheRetryRunsTheCommand() {
    AtomicInteger charges = new AtomicInteger();
    park("d-1", charges);
    CommandBody<String> retry = CommandBody.reconciledBy(() -> "again:" + charges.incrementAndGet(),
        Reconciliation::didNotHappen);
    assertEquals("again:2", call(PARKING, "d-1", retry));
    assertEquals("again:2", call(PARKING, "d-1", retry), "the new run's result is recorded");
    assertEquals(2, charges.get());
  }

  @Test
  void aReconcilerThatCannotTellOrFailsLeavesTheKeyParked() {
    AtomicInteger charges = new AtomicInteger();
    park("s-1", charges);
    IdempotencyOutcomeUnknownException unknown = assertThrows(IdempotencyOutcomeUnknownException.class,
        () -> call(PARKING, "s-1", CommandBody.reconciledBy(() -> "again",
            () -> Reconciliation.stillUnknown("the gateway's report is not ready"))));
    assertTrue(unknown.getMessage().contains("the gateway's report is not ready"), unknown.getMessage());
    IllegalArgumentException cause = new IllegalArgumentException("gateway down");
    IdempotencyOutcomeUnknownException failed = assertThrows(IdempotencyOutcomeUnknownException.class,
        () -> call(PARKING, "s-1", CommandBody.reconciledBy(() -> "again", () -> {
          throw cause;
        })));
    assertEquals(cause, failed.getCause());
    assertEquals("OUTCOME_UNKNOWN", runtime.inspect("Gateway.parking", "s-1").orElseThrow().state().toString());
    assertEquals(1, charges.get());
    assertEquals("charged", call(PARKING, "s-1", CommandBody.reconciledBy(() -> "again",
        () -> Reconciliation.happened("charged"))), "asked again by the next retry");
  }

  @Test
  void twoRetriesAtOnceAskTheExternalSystemOnceAndGetTheSameResult() throws Exception {
    AtomicInteger charges = new AtomicInteger();
    park("c-1", charges);
    AtomicInteger asked = new AtomicInteger();
    CountDownLatch asking = new CountDownLatch(1);
    CommandBody<String> retry = CommandBody.reconciledBy(() -> "again:" + charges.incrementAndGet(), () -> {
      asked.incrementAndGet();
      asking.countDown();
      Thread.sleep(400); // the other retry meanwhile waits for the record's row lock
      return Reconciliation.happened("charged:c-1");
    });
    ExecutorService second = Executors.newSingleThreadExecutor();
    try {
      Future<String> first = owner.submit(() -> call(PARKING, "c-1", retry));
      assertTrue(asking.await(10, TimeUnit.SECONDS));
      Future<String> other = second.submit(() -> call(PARKING, "c-1", retry));
      assertEquals("charged:c-1", first.get(20, TimeUnit.SECONDS));
      assertEquals("charged:c-1", other.get(20, TimeUnit.SECONDS));
    } finally {
      second.shutdownNow();
    }
    assertEquals(1, asked.get(), "one external query");
    assertEquals(1, charges.get());
  }
}
