package dev.idem.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyStoreException;
import dev.idem.runtime.OutboxMessage;
import dev.idem.runtime.OutboxRelay;
import dev.idem.runtime.OutboxRelayOptions;
import dev.idem.runtime.PublishOutcome;
import dev.idem.runtime.RecordLayout;
import dev.idem.testing.DatabaseContract;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The outbox of a {@link RecordLayout#DAY_PARTITIONS} runtime: idem_outbox partitioned by the day of created_at,
 * made ahead with the records' days; the relay claims, publishes and marks across the partitions; a past day that
 * holds only SENT rows past their expiry goes whole, and a day that holds a PENDING or PARKED row is kept until the
 * row is sent; a write whose day has no partition fails naming the fix and writes nothing.
 *
 * <p>Rows carry the database's time (created_at), so the runtime here keeps the real time; its clock is set back
 * only to premake the past days the tests fill with rows written "days ago".
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
abstract class OutboxDayPartitionsContractTest extends DatabaseContract {

  private static final OutboxEventSpec ORDER_CREATED = OutboxEventSpec.of("orders", "OrderCreated", "Orders.created");
  private static final DateTimeFormatter DAY = DateTimeFormatter.BASIC_ISO_DATE;

  /** The payload of the test's events. */
  public record OrderCreated(String orderId, long amount) {}

  private IdemRuntime runtime;
  private IdemEngine engine;

  /** A count query: 1 when the day partition of idem_outbox named {@code partition} exists. */
  protected abstract String partitionExistsSql(String partition);

  /** The rows of one partition of idem_outbox in a FROM clause. */
  protected abstract String partitionRows(String partition);

  /** The statements that leave today without a partition (the later days, if the layout must, go too). */
  protected abstract List<String> removeTodaysPartitionSql(List<String> todayAndLater);

  @Override
  protected void prepare() {
    runtime = IdemRuntime.builder().dataSource(database.dataSource()).clock(clock).databaseTime(false)
        .layout(RecordLayout.DAY_PARTITIONS).build();
    engine = IdemEngine.of(runtime);
  }

  /** A fresh partitioned outbox with days from six days ago to the coming week. */
  @BeforeEach
  void freshOutbox() {
    database.execute("DROP TABLE IF EXISTS idem_outbox");
    clock.set(Instant.now().minus(Duration.ofDays(5)));
    runtime.createSchema(); // premakes from (now - 6 days) on
    clock.set(Instant.now());
    runtime.premakePartitions();
  }

  private static LocalDate today() {
    return LocalDate.now(ZoneOffset.UTC);
  }

  private static String partitionOf(LocalDate day) {
    return "idem_outbox_p" + day.format(DAY);
  }

  private String write(String orderId) {
    return runtime.inTransaction(connection -> engine.writeOutboxEvent(ORDER_CREATED, orderId, Map.of(),
        new OrderCreated(orderId, 42)));
  }

  @Test
  void theOutboxIsPartitionedByDayAndTheRelayPublishesAndMarksAcrossItsPartitions() throws Exception {
    for (int day = -6; day <= 7; day++) {
      assertEquals(1, count(partitionExistsSql(partitionOf(today().plusDays(day)))), "day " + day);
    }
    // A backlog over several days: rows written days ago (still PENDING) and today's, through the generated path.
    String old = insertRow(today().minusDays(3), "PENDING", null);
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 250; i++) {
      ids.add(write("o-" + i));
    }
    ids.add(old);
    assertEquals(250, count("SELECT count(*) FROM " + partitionRows(partitionOf(today()))), "today's partition");
    Set<String> published = ConcurrentHashMap.newKeySet();
    try (OutboxRelay relay = runtime.startOutboxRelay(messages -> {
      List<PublishOutcome> outcomes = new ArrayList<>();
      for (OutboxMessage message : messages) {
        published.add(message.messageId());
        outcomes.add(PublishOutcome.sent());
      }
      return outcomes;
    }, OutboxRelayOptions.defaults().withBatchSize(40).withPollInterval(Duration.ofMillis(20)))) {
      awaitTrue(() -> count("SELECT count(*) FROM idem_outbox WHERE state = 'SENT'") == 251, "all 251 marked SENT");
    }
    assertEquals(Set.copyOf(ids), published);
    assertEquals(1, count("SELECT count(*) FROM " + partitionRows(partitionOf(today().minusDays(3)))
        + " WHERE state = 'SENT'"), "the old row stays in its own day, now SENT");
  }

  @Test
  void aPastDayHoldingOnlySentRowsGoesAndADayHoldingAPendingOrParkedRowIsKeptUntilItIsSent() throws Exception {
    long now = System.currentTimeMillis();
    LocalDate sentOnly = today().minusDays(4);
    LocalDate withPending = today().minusDays(3);
    LocalDate withParked = today().minusDays(2);
    LocalDate notYetExpired = today().minusDays(5);
    insertRow(sentOnly, "SENT", now - 1000);
    insertRow(sentOnly, "SENT", now - 1000);
    insertRow(withPending, "SENT", now - 1000);
    String pending = insertRow(withPending, "PENDING", null);
    insertRow(withParked, "SENT", now - 1000);
    String parked = insertRow(withParked, "PARKED", null);
    insertRow(notYetExpired, "SENT", now + Duration.ofDays(1).toMillis());

    clock.set(Instant.now()); // the maintenance's now (the runtime's clock): past the rows' expiry
    assertEquals(2, engine.purgeSentOutboxEvents(1000), "the sent-only day's two rows went with their day");
    assertEquals(0, count(partitionExistsSql(partitionOf(sentOnly))), "the day of only sent, expired rows is gone");
    assertEquals(0, count(partitionExistsSql(partitionOf(today().minusDays(6)))), "an empty past day goes too");
    assertEquals(1, count(partitionExistsSql(partitionOf(withPending))), "a day holding a PENDING row stays");
    assertEquals(1, count(partitionExistsSql(partitionOf(withParked))), "a day holding a PARKED row stays");
    assertEquals(1, count(partitionExistsSql(partitionOf(notYetExpired))), "a day inside keepSentFor stays");
    assertEquals(1, count("SELECT count(*) FROM idem_outbox WHERE id = '" + pending + "' AND state = 'PENDING'"));
    assertEquals(1, count("SELECT count(*) FROM idem_outbox WHERE id = '" + parked + "' AND state = 'PARKED'"));
    assertEquals(1, count(partitionExistsSql(partitionOf(today().minusDays(1)))), "yesterday always stays");

    // An operator requeues the parked row; a relay (keeping sent rows for no time) sends both; the days go.
    assertTrue(engine.requeueOutboxEvent(parked));
    try (OutboxRelay relay = runtime.startOutboxRelay(messages -> messages.stream().map(m -> PublishOutcome.sent())
        .toList(), OutboxRelayOptions.defaults().withKeepSentFor(Duration.ZERO).withPurgeEvery(null)
        .withPollInterval(Duration.ofMillis(20)))) {
      awaitTrue(() -> count("SELECT count(*) FROM idem_outbox WHERE state <> 'SENT'") == 0, "both sent");
    }
    Thread.sleep(5);
    clock.set(Instant.now()); // the maintenance's now (the runtime's clock): past the expiry of the rows just marked
    assertEquals(4, engine.purgeSentOutboxEvents(1000), "the two days' four rows");
    assertEquals(0, count(partitionExistsSql(partitionOf(withPending))));
    assertEquals(0, count(partitionExistsSql(partitionOf(withParked))));
    assertEquals(1, count(partitionExistsSql(partitionOf(notYetExpired))), "still inside keepSentFor");
    assertEquals(1, count("SELECT count(*) FROM idem_outbox"));
  }

  @Test
  void aWriteWhoseDayHasNoPartitionFailsNamingTheFixAndWritesNothing() {
    List<String> todayAndLater = new ArrayList<>();
    for (int day = 0; day <= 7; day++) {
      todayAndLater.add(partitionOf(today().plusDays(day)));
    }
    database.execute(removeTodaysPartitionSql(todayAndLater).toArray(String[]::new));
    IdempotencyStoreException refused = assertThrows(IdempotencyStoreException.class, () -> write("o-1"));
    assertTrue(refused.getMessage().contains("no day partition for today"), refused.getMessage());
    assertTrue(refused.getMessage().contains("premakePartitions()"), refused.getMessage());
    assertTrue(refused.getCause() instanceof SQLException, String.valueOf(refused.getCause()));
    assertEquals(0, count("SELECT count(*) FROM idem_outbox"));
    runtime.premakePartitions();
    write("o-1");
    assertEquals(1, count("SELECT count(*) FROM " + partitionRows(partitionOf(today()))));
  }

  /** A row as a relay would have left it, written at noon of {@code day}; its id. */
  private String insertRow(LocalDate day, String state, Long expiresAt) throws SQLException {
    String id = UUID.randomUUID().toString();
    long createdAt = day.atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli() + Duration.ofHours(12).toMillis();
    try (Connection connection = database.dataSource().getConnection();
        PreparedStatement insert = connection.prepareStatement("INSERT INTO idem_outbox (id, destination,"
            + " partition_key, key_hash, event_type, headers, payload, created_at, state, attempts, next_attempt_at,"
            + " sent_at, expires_at) VALUES (?, 'orders', NULL, 0, 'OrderCreated', NULL, '{}', ?, ?, 0, ?, ?, ?)")) {
      insert.setString(1, id);
      insert.setLong(2, createdAt);
      insert.setString(3, state);
      insert.setLong(4, createdAt);
      if (expiresAt == null) {
        insert.setNull(5, java.sql.Types.BIGINT);
        insert.setNull(6, java.sql.Types.BIGINT);
      } else {
        insert.setLong(5, createdAt);
        insert.setLong(6, expiresAt);
      }
      insert.executeUpdate();
    }
    return id;
  }

  private long count(String sql) {
    try (Connection connection = database.dataSource().getConnection();
        PreparedStatement query = connection.prepareStatement(sql);
        ResultSet rs = query.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting until " + what);
      }
      Thread.sleep(20);
    }
  }
}
