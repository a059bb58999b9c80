package dev.idem.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.Mode;
import dev.idem.runtime.IdemAdmin;
import dev.idem.runtime.IdemManifest;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyOutcomeUnknownException;
import dev.idem.runtime.IdempotencyRecord;
import dev.idem.runtime.IdempotencyStats;
import dev.idem.testing.DatabaseContract;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link IdemAdmin}, what operator tools (the CLI) call: stats, release, resolve checked against a manifest, purge
 * with progress, and {@link IdemRuntime#resolve} of a command this runtime has not run (checked against the manifest
 * on the class path, {@code META-INF/idem/dev.idem.runtime.internal.AdminContractTest.Charges.json} in the test
 * resources).
 */
abstract class AdminContractTest extends DatabaseContract {

  record Receipt(String chargeId, long amountCents) {}

  private static final Instant START = Instant.parse("2030-01-01T00:00:00Z");
  private static final String SCOPE = "Admin.charge";
  private static final String SHAPE_HASH = "a1b2c3d4e5f60718";
  /** Receipts with a charge id this long do not fit the application's maxResultSize: OUTCOME_UNKNOWN. */
  private static final String TOO_LONG = "x".repeat(80);

  /** The application's runtime, which runs the command (a small maxResultSize, to leave unknown outcomes). */
  private IdemRuntime application;
  /** An operator tool's runtime on the same table, which has run nothing. */
  private IdemRuntime tool;
  private IdemAdmin admin;

  @Override
  protected void prepare() {
    application = IdemRuntime.builder().dataSource(counting).clock(clock).databaseTime(false).maxResultSize(60)
        .build();
    application.createSchema();
    tool = IdemRuntime.builder().dataSource(counting).clock(clock).databaseTime(false).resultCache(false).build();
    admin = IdemAdmin.of(tool);
  }

  @BeforeEach
  void clear() {
    database.execute("DELETE FROM idem_record");
    application.clearResultCache();
    clock.set(START);
  }

  private static CommandSpec<Receipt> charge(Duration retention) {
    return CommandSpec.builder(SCOPE, ResultType.of(Receipt.class)).resultShape(SHAPE_HASH).retention(retention)
        .keyParts("orderId").payload("amountCents").mode(Mode.CLAIM).lease(Duration.ofSeconds(30)).build();
  }

  private Receipt charge(String orderId, String chargeId, AtomicInteger calls) {
    return IdemEngine.of(application).execute(charge(Duration.ofDays(1)), new Object[] {orderId},
        new Object[] {100L}, () -> {
          calls.incrementAndGet();
          return new Receipt(chargeId, 100);
        });
  }

  private void unknown(String orderId) {
    assertThrows(IdempotencyOutcomeUnknownException.class, () -> charge(orderId, TOO_LONG, new AtomicInteger()));
  }

  private static IdemManifest.Command command() {
    return IdemManifest.onClassPath(AdminContractTest.class.getClassLoader()).stream()
        .flatMap(manifest -> manifest.command(SCOPE).stream()).findFirst().orElseThrow();
  }

  @Test
  void statsCountsPerScopeAndStateAndListsUnknownOutcomesAndEndedLeases() throws Exception {
    charge("c-1", "ch_1", new AtomicInteger());
    clock.advance(Duration.ofSeconds(10));
    unknown("u-1");
    unknown("u-2");
    // A claim whose owner hangs: its lease ends while the body runs; stats (another thread) lists it.
    IdempotencyStats[] during = new IdempotencyStats[1];
    IdemEngine.of(application).execute(charge(Duration.ofDays(1)), new Object[] {"hung"}, new Object[] {100L}, () -> {
      clock.advance(Duration.ofSeconds(31));
      during[0] = CompletableFuture.supplyAsync(() -> admin.stats(10)).get();
      return new Receipt("ch_hung", 100);
    });

    IdempotencyStats stats = during[0];
    assertEquals(4, stats.total());
    assertEquals(START, stats.oldest());
    assertEquals(START.plusSeconds(10), stats.newest());
    assertEquals(List.of("COMPLETED", "IN_PROGRESS", "OUTCOME_UNKNOWN"),
        stats.groups().stream().map(IdempotencyStats.Group::state).toList());
    IdempotencyStats.Group unknown = stats.groups().get(2);
    assertEquals(SCOPE, unknown.scope());
    assertEquals(2, unknown.count());
    assertEquals(0, unknown.expired());
    assertEquals(List.of("u-1", "u-2"), stats.outcomeUnknown().stream().map(IdempotencyStats.Key::key).toList());
    assertTrue(stats.outcomeUnknown().get(0).problem().contains("60"), stats.outcomeUnknown().get(0)::problem);
    assertEquals(1, stats.expiredLeases().size());
    assertEquals("hung", stats.expiredLeases().get(0).key());
    assertEquals(START.plusSeconds(10 + 30), stats.expiredLeases().get(0).leaseUntil());
    assertFalse(stats.truncated());

    IdempotencyStats cut = admin.stats(1);
    assertEquals(List.of("u-1"), cut.outcomeUnknown().stream().map(IdempotencyStats.Key::key).toList());
    assertTrue(cut.truncated());
    assertEquals(4, cut.total(), "counts are complete whatever the limit");
  }

  @Test
  void releaseDeletesOnlyARecordWhoseOutcomeIsUnknown() {
    AtomicInteger calls = new AtomicInteger();
    charge("c-1", "ch_1", calls);
    unknown("u-1");

    assertFalse(admin.release(SCOPE, "c-1"), "a completed record stays");
    assertEquals(IdempotencyRecord.State.COMPLETED, tool.inspect(SCOPE, "c-1").orElseThrow().state());
    assertTrue(admin.release(SCOPE, "u-1"));
    assertTrue(tool.inspect(SCOPE, "u-1").isEmpty());
    assertFalse(admin.release(SCOPE, "u-1"));
    assertEquals(new Receipt("ch_u1", 100), charge("u-1", "ch_u1", calls), "released: the body runs again");
  }

  @Test
  void resolveChecksTheResultAgainstTheManifestAndStoresItsShape() {
    unknown("u-1");
    IdemManifest.Command command = command();

    IllegalArgumentException typo = assertThrows(IllegalArgumentException.class,
        () -> admin.resolve(SCOPE, "u-1", "{\"chargeID\":\"ch_9\",\"amountCents\":100}", command));
    assertTrue(typo.getMessage().contains("result.chargeID is not a property of"), typo::getMessage);
    assertEquals(IdempotencyRecord.State.OUTCOME_UNKNOWN, tool.inspect(SCOPE, "u-1").orElseThrow().state());

    assertTrue(admin.resolve(SCOPE, "u-1", "{\"chargeId\":\"ch_9\",\"amountCents\":100}", command));
    IdemAdmin.StoredRecord stored = admin.read(SCOPE, "u-1").orElseThrow();
    assertEquals(IdempotencyRecord.State.COMPLETED, stored.record().state());
    assertEquals(SHAPE_HASH, stored.resultShape());
    assertEquals("{\"chargeId\":\"ch_9\",\"amountCents\":100}", stored.storedJson());
    assertEquals(64, stored.fingerprint().length());

    AtomicInteger calls = new AtomicInteger();
    assertEquals(new Receipt("ch_9", 100), charge("u-1", "never", calls), "the application replays it");
    assertEquals(0, calls.get());
    assertFalse(admin.resolve(SCOPE, "u-1", "{\"chargeId\":\"ch_9\",\"amountCents\":100}", command),
        "only an unknown outcome is resolved");
  }

  @Test
  void runtimeResolveOfACommandNotRunHereChecksTheManifestOnTheClassPath() {
    unknown("u-1");

    IllegalArgumentException missing = assertThrows(IllegalArgumentException.class,
        () -> tool.resolve(SCOPE, "u-1", "{\"chargeId\":\"ch_9\"}"));
    assertTrue(missing.getMessage().contains("result.amountCents is missing"), missing::getMessage);
    IllegalArgumentException unknownScope = assertThrows(IllegalArgumentException.class,
        () -> tool.resolve("Nobody.knows", "u-1", "1"));
    assertTrue(unknownScope.getMessage().contains("No command with the scope Nobody.knows"),
        unknownScope::getMessage);
    assertEquals(IdempotencyRecord.State.OUTCOME_UNKNOWN, tool.inspect(SCOPE, "u-1").orElseThrow().state());

    assertTrue(tool.resolve(SCOPE, "u-1", "{\"chargeId\":\"ch_9\",\"amountCents\":100}"));
    assertEquals(SHAPE_HASH, admin.read(SCOPE, "u-1").orElseThrow().resultShape());
    assertEquals(new Receipt("ch_9", 100), charge("u-1", "never", new AtomicInteger()));
  }

  @Test
  void purgeTellsEachBatch() {
    for (int i = 0; i < 5; i++) {
      IdemEngine.of(application).execute(charge(Duration.ofMinutes(1)), new Object[] {"p-" + i},
          new Object[] {100L}, () -> new Receipt("ch", 100));
    }
    charge("kept", "ch", new AtomicInteger());
    clock.advance(Duration.ofMinutes(2));
    List<Long> batches = new CopyOnWriteArrayList<>();

    assertEquals(5, admin.purgeExpired(2, batches::add));

    assertEquals(5, batches.stream().mapToLong(Long::longValue).sum(), batches::toString);
    assertTrue(batches.size() >= 3 && batches.stream().allMatch(rows -> rows <= 2), batches::toString);
    assertEquals(1, admin.stats(10).total());
    assertNull(admin.read(SCOPE, "p-0").orElse(null));
  }
}
