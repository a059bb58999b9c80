package dev.idem.integration.windows;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyInProgressException;
import dev.idem.testing.DatabaseContract;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
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
 * Keys derived from the caller's identity and the payload within a window ({@code window}, {@code identity}), on a
 * real database: the window is held by the first call's record's expiry, not a clock bucket. Subclasses pick the
 * database.
 */
abstract class WindowedKeysContractTest extends DatabaseContract {

  private final AtomicInteger executions = new AtomicInteger();
  private IdemRuntime runtime;
  private CartClicks clicks;
  private final ExecutorService callers = Executors.newFixedThreadPool(8);

  @Override
  protected void prepare() {
    runtime = IdemRuntime.builder().dataSource(counting).clock(clock).databaseTime(false).resultCache(false)
        .build();
    runtime.createSchema();
    clicks = new CartClicks_Idempotent(new CartClicks() {
      @Override
      public String addToCart(String userId, String sku, int quantity) {
        return userId + ":" + sku + "x" + quantity + "#" + executions.incrementAndGet();
      }

      @Override
      public String submitForm(UUID sessionId, List<String> fields) {
        return sessionId + ":" + fields + "#" + executions.incrementAndGet();
      }
    }, runtime);
  }

  @BeforeEach
  void clean() {
    database.execute("DELETE FROM idem_record");
    executions.set(0);
  }

  @AfterAll
  void stopCallers() {
    callers.shutdownNow();
  }

  @Test
  void twoClicksAcrossASecondAndAMinuteBoundaryAreOneAction() {
    // 100 ms apart, across the boundary of every clock bucket a 5 s window could have (:05, the minute, the hour).
    clock.set(Instant.parse("2031-05-01T10:59:59.950Z"));
    String first = clicks.addToCart("u-1", "espresso", 2);
    clock.set(Instant.parse("2031-05-01T11:00:00.050Z"));
    assertEquals(first, clicks.addToCart("u-1", "espresso", 2));
    assertEquals(1, executions.get());
  }

  @Test
  void theWindowRunsFromTheFirstClickAndThenTheSameClickIsANewAction() {
    clock.set(Instant.parse("2031-05-01T10:00:00Z"));
    String first = clicks.addToCart("u-1", "espresso", 2);
    clock.set(Instant.parse("2031-05-01T10:00:04.999Z"));
    assertEquals(first, clicks.addToCart("u-1", "espresso", 2));
    clock.set(Instant.parse("2031-05-01T10:00:05.001Z"));
    String later = clicks.addToCart("u-1", "espresso", 2);
    assertNotEquals(first, later);
    assertEquals(2, executions.get());
  }

  @Test
  void anotherCallerOrAnotherPayloadIsAnotherAction() {
    clock.set(Instant.parse("2031-05-01T10:00:00Z"));
    clicks.addToCart("u-1", "espresso", 2);
    clicks.addToCart("u-2", "espresso", 2);
    clicks.addToCart("u-1", "espresso", 3);
    clicks.addToCart("u-1", "filter", 2);
    assertEquals(4, executions.get());
    clicks.addToCart("u-1", "espresso", 2);
    clicks.addToCart("u-2", "espresso", 2);
    assertEquals(4, executions.get());
  }

  @Test
  void concurrentDoubleSubmitsOfAClaimCommandRunOnce() throws Exception {
    clock.set(Instant.parse("2031-05-01T10:00:00Z"));
    for (int round = 0; round < 5; round++) {
      UUID session = UUID.randomUUID();
      executions.set(0);
      CountDownLatch go = new CountDownLatch(1);
      List<Future<String>> submits = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        submits.add(callers.submit(() -> {
          go.await();
          try {
            return clicks.submitForm(session, List.of("name=Ada", "items=3"));
          } catch (IdempotencyInProgressException e) {
            return null; // a duplicate told the first is in flight
          }
        }));
      }
      go.countDown();
      String result = null;
      for (Future<String> submit : submits) {
        String got = submit.get(30, TimeUnit.SECONDS);
        if (got != null) {
          if (result == null) {
            result = got;
          }
          assertEquals(result, got);
        }
      }
      assertEquals(1, executions.get(), "round " + round);
      assertEquals(result, clicks.submitForm(session, List.of("name=Ada", "items=3")));
    }
  }

  @Test
  void theRecordExpiresWithTheWindow() throws Exception {
    clock.set(Instant.parse("2031-05-01T10:00:00Z"));
    clicks.submitForm(UUID.randomUUID(), List.of("a"));
    try (var connection = database.dataSource().getConnection();
         var statement = connection.createStatement();
         var rows = statement.executeQuery("SELECT idem_key, expires_at FROM idem_record")) {
      rows.next();
      assertEquals(36 + 1 + 32, rows.getString(1).length(), "identity | 128 bits of the payload's hash");
      assertEquals(Instant.parse("2031-05-01T10:00:00Z").plus(Duration.ofMinutes(1)).toEpochMilli(),
          rows.getLong(2));
    }
  }
}
