package dev.idem.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.idem.Mode;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyKeyReusedException;
import dev.idem.testing.DatabaseContract;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The dedup window apart from the archive horizon ({@link IdemRuntime.Builder#keepAfterDedupWindow}): a record past
 * its window never replays nor refuses, however long it is still kept; the purge keeps it until its horizon. Runs
 * against every database through the concrete subclasses.
 */
abstract class ArchiveHorizonContractTest extends DatabaseContract {

  private static final Instant START = Instant.parse("2030-01-01T00:00:00Z");
  private static final Duration WINDOW = Duration.ofDays(1);
  private static final Duration KEPT_AFTER = Duration.ofDays(14);

  private static final CommandSpec<String> PAY = CommandSpec.builder("Payments.pay", ResultType.of(String.class))
      .retention(WINDOW).keyParts("id").payload("amount").build();
  private static final CommandSpec<String> CHARGE = CommandSpec.builder("Gateway.charge", ResultType.of(String.class))
      .mode(Mode.CLAIM).lease(Duration.ofSeconds(30)).retention(WINDOW).keyParts("id").payload("amount").build();
  private static final CommandSpec<Void> ON_BATCH = CommandSpec.builder("Consumers.onBatch", ResultType.VOID)
      .retention(WINDOW).keyParts("batch", "group").payload("batch").build();

  private IdemRuntime runtime;

  @Override
  protected void prepare() {
    runtime = IdemRuntime.builder().dataSource(database.dataSource()).clock(clock).databaseTime(false)
        .keepAfterDedupWindow(KEPT_AFTER).build();
    runtime.createSchema();
  }

  @BeforeEach
  void clear() {
    database.execute("DELETE FROM idem_record");
    runtime.clearResultCache();
    clock.set(START);
  }

  private String pay(String id, long amount, AtomicInteger runs) {
    return IdemEngine.of(runtime).execute(PAY, new Object[] {id}, new Object[] {amount},
        () -> "paid " + amount + " (run " + runs.incrementAndGet() + ")");
  }

  private String charge(String id, long amount, AtomicInteger runs) {
    return IdemEngine.of(runtime).execute(CHARGE, new Object[] {id}, new Object[] {amount},
        () -> "charged " + amount + " (run " + runs.incrementAndGet() + ")");
  }

  private int consume(List<String> messageIds, AtomicInteger runs) {
    return IdemEngine.of(runtime).executeBatch(ON_BATCH, messageIds, id -> new Object[] {id, "billing"},
        id -> new Object[] {id}, firstSeen -> {
          runs.addAndGet(firstSeen.size());
          return firstSeen.size();
        });
  }

  private long records() throws SQLException {
    try (Connection connection = database.dataSource().getConnection();
        PreparedStatement count = connection.prepareStatement("SELECT COUNT(*) FROM idem_record");
        ResultSet rs = count.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  @Test
  void insideTheWindowAKeyReplaysAndRefusesAnotherPayload() {
    AtomicInteger runs = new AtomicInteger();
    assertEquals("paid 10 (run 1)", pay("p-1", 10, runs));
    clock.advance(WINDOW.minusMillis(1));
    assertEquals("paid 10 (run 1)", pay("p-1", 10, runs));
    assertThrows(IdempotencyKeyReusedException.class, () -> pay("p-1", 20, runs));
    assertEquals(1, runs.get());
  }

  @Test
  void pastTheWindowAKeptRecordNeitherReplaysNorRefuses() throws SQLException {
    AtomicInteger runs = new AtomicInteger();
    pay("p-2", 10, runs);
    pay("p-3", 10, runs);
    clock.advance(WINDOW.plusDays(3)); // past the window, well inside the horizon
    assertEquals(0, runtime.purgeExpired(100), "kept for audit until the horizon");
    assertEquals(2, records());

    assertEquals("paid 10 (run 3)", pay("p-2", 10, runs), "the same payload runs anew, no replay");
    assertEquals("paid 20 (run 4)", pay("p-3", 20, runs), "another payload runs anew, no refusal");
    assertEquals("paid 20 (run 4)", pay("p-3", 20, runs), "and the new record dedups for a new window");
    assertThrows(IdempotencyKeyReusedException.class, () -> pay("p-3", 30, runs));
    assertEquals(4, runs.get());
  }

  @Test
  void pastTheWindowAKeptClaimRecordRunsAnew() {
    AtomicInteger runs = new AtomicInteger();
    assertEquals("charged 10 (run 1)", charge("c-1", 10, runs));
    assertEquals("charged 10 (run 1)", charge("c-1", 10, runs));
    clock.advance(WINDOW.plusDays(1));
    assertEquals(0, runtime.purgeExpired(100));
    assertEquals("charged 50 (run 2)", charge("c-1", 50, runs));
    assertEquals("charged 10 (run 3)", charge("c-2", 10, runs));
  }

  @Test
  void pastTheWindowAKeptConsumeRecordLetsTheRedeliveryRun() {
    AtomicInteger runs = new AtomicInteger();
    assertEquals(2, consume(List.of("m-1", "m-2"), runs));
    assertEquals(0, consume(List.of("m-1", "m-2"), runs), "redelivered inside the window: skipped");
    clock.advance(WINDOW.plusHours(1));
    assertEquals(0, runtime.purgeExpired(100));
    assertEquals(3, consume(List.of("m-1", "m-2", "m-3"), runs), "redelivered past the window: runs again");
    assertEquals(5, runs.get());
  }

  @Test
  void thePurgeDeletesARecordOnlyOnceItsHorizonHasPassed() throws SQLException {
    AtomicInteger runs = new AtomicInteger();
    pay("p-4", 10, runs);
    clock.advance(Duration.ofDays(1));
    pay("p-5", 10, runs);
    clock.advance(WINDOW.plus(KEPT_AFTER).minusDays(1).minusMillis(1)); // p-4's horizon minus 1 ms
    assertEquals(0, runtime.purgeExpired(100));
    clock.advance(Duration.ofMillis(1)); // p-4's horizon: purged; p-5 is a day younger
    assertEquals(1, runtime.purgeExpired(100));
    assertEquals(1, records());
    clock.advance(Duration.ofDays(1));
    assertEquals(1, runtime.purgeExpired(100));
    assertEquals(0, records());
  }

  @Test
  void theHorizonIsNeverShorterThanTheWindow() {
    IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
        () -> IdemRuntime.builder().keepAfterDedupWindow(Duration.ofSeconds(-1)));
    assertEquals(true, refused.getMessage().contains("never purged inside its dedup window"), refused.getMessage());
  }
}
