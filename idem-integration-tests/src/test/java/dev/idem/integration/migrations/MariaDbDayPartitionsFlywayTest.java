package dev.idem.integration.migrations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.runtime.IdemAdmin;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.RecordLayout;
import dev.idem.testing.DatabaseContract;
import dev.idem.testing.IsolatedDatabase;
import dev.idem.testing.TestDatabase;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;
import org.junit.jupiter.api.Test;

/**
 * The day-partitioned layout's Flyway location ({@code classpath:dev/idem/runtime/flyway/mariadb-day-partitions})
 * runs the statements of {@code schema/mariadb-day-partitions.sql}; a runtime that never calls
 * {@code createSchema()} makes its partitions and runs a command on the migrated table.
 */
class MariaDbDayPartitionsFlywayTest extends DatabaseContract {

  private MigrateResult migration;

  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }

  @Override
  protected void prepare() {
    migration = Flyway.configure().dataSource(database.dataSource())
        .locations("classpath:dev/idem/runtime/flyway/mariadb-day-partitions").table("idem_schema_history")
        .load().migrate();
  }

  @Test
  void theMigrationRunsTheSchemaResourcesStatements() throws IOException {
    assertEquals(5, migration.migrationsExecuted);
    assertEquals(statements(resource("dev/idem/runtime/schema/mariadb-day-partitions.sql")),
        statements(resource("dev/idem/runtime/flyway/mariadb-day-partitions/V1__idem_record_day_partitions.sql")));
    assertEquals(statements(resource("dev/idem/runtime/schema/transition-log-mariadb-day-partitions.sql")),
        statements(resource("dev/idem/runtime/flyway/mariadb-day-partitions/V2__idem_transition_log.sql")));
    // The single-flight lock table does not depend on the record table's layout: the same DDL as on one table.
    assertEquals(statements(resource("dev/idem/runtime/schema/lock-mariadb.sql")),
        statements(resource("dev/idem/runtime/flyway/mariadb-day-partitions/V3__idem_lock.sql")));
    // V4 made the outbox as one table, as on the one-table layout; V5 partitions it by day (see below).
    assertEquals(statements(resource("dev/idem/runtime/schema/outbox-mariadb.sql")),
        statements(resource("dev/idem/runtime/flyway/mariadb-day-partitions/V4__idem_outbox.sql")));
  }

  @Test
  void aRuntimeMakesItsPartitionsAndRunsCommandsOnTheMigratedTable() {
    try (IdemRuntime runtime = IdemRuntime.builder().dataSource(database.dataSource())
        .layout(RecordLayout.DAY_PARTITIONS).build()) {
      assertTrue(runtime.premakePartitions().size() >= 8, "today and the coming week");
      AtomicInteger credits = new AtomicInteger();
      Ledger ledger = new Ledger_Idempotent(new Ledger() {
        @Override
        public String credit(String requestId, long amount) {
          credits.incrementAndGet();
          return "credited " + amount;
        }

        @Override
        public String notifyCustomer(String messageId, String text) {
          throw new AssertionError("not called");
        }
      }, runtime);
      assertEquals("credited 5", ledger.credit("r-1", 5));
      runtime.clearResultCache();
      assertEquals("credited 5", ledger.credit("r-1", 5));
      assertEquals(1, credits.get());
    }
  }

  @Test
  void aLoggedTransitionGoesToTodaysPartitionOfTheLog() {
    database.execute("CREATE TABLE payments (id BIGINT PRIMARY KEY, payment_state VARCHAR(16) NOT NULL,"
        + " row_version BIGINT NOT NULL)", "INSERT INTO payments (id, payment_state, row_version) VALUES (1, 'NEW', 0)");
    try (IdemRuntime runtime = IdemRuntime.builder().dataSource(database.dataSource())
        .layout(RecordLayout.DAY_PARTITIONS).logTransitions(true).build()) {
      runtime.premakePartitions();
      assertEquals(dev.idem.runtime.TransitionResult.APPLIED, new dev.idem.integration.transitions.PaymentFlow_Idempotent(runtime).authorize(1L));
      String today = java.time.LocalDate.now(java.time.ZoneOffset.UTC)
          .format(java.time.format.DateTimeFormatter.BASIC_ISO_DATE);
      assertEquals(1, count("SELECT count(*) FROM idem_transition_log PARTITION (idem_transition_log_p" + today + ") WHERE to_state = 'AUTHORIZED'"));
    }
  }

  private static String resource(String name) throws IOException {
    try (InputStream in = IdemRuntime.class.getResourceAsStream("/" + name)) {
      assertNotNull(in, name);
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static List<String> statements(String script) {
    StringBuilder code = new StringBuilder();
    for (String line : script.split("\n")) {
      int comment = line.indexOf("--");
      code.append(comment >= 0 ? line.substring(0, comment) : line).append(' ');
    }
    List<String> statements = new ArrayList<>();
    for (String statement : code.toString().split(";")) {
      String normalized = statement.strip().replaceAll("\\s+", " ");
      if (!normalized.isEmpty()) {
        statements.add(normalized);
      }
    }
    return statements;
  }

  @Test
  void generatedCodeFilesATimeCarryingKeyUnderItsOwnDay() {
    try (IdemRuntime runtime = IdemRuntime.builder().dataSource(database.dataSource())
        .layout(RecordLayout.DAY_PARTITIONS).build()) {
      runtime.premakePartitions();
      AtomicInteger runs = new AtomicInteger();
      KeyTimedPayments payments = new KeyTimedPayments_Idempotent(
          (paymentId, amount) -> "paid " + amount + " (run " + runs.incrementAndGet() + ")", runtime);
      // A minute before today's midnight: yesterday, inside the two-day window; a claim today files it there.
      long yesterday = Math.floorDiv(System.currentTimeMillis(), 86_400_000L) * 86_400_000L - 60_000L;
      java.util.UUID key = new java.util.UUID((yesterday << 16) | 0x7000L, 0x8000_0000_0000_0001L);
      assertEquals("paid 3 (run 1)", payments.pay(key, 3));
      runtime.clearResultCache();
      assertEquals("paid 3 (run 1)", payments.pay(key, 3));
      assertEquals(Math.floorDiv(yesterday, 86_400_000L), count("SELECT bucket FROM idem_record WHERE idem_key = '"
          + key + "'"), "filed under the day the key carries");
      java.util.UUID stale = new java.util.UUID(((yesterday - 2 * 86_400_000L) << 16) | 0x7000L, 1L);
      assertThrows(dev.idem.runtime.InvalidIdempotencyKeyException.class, () -> payments.pay(stale, 3),
          "older than the two-day retention");
    }
  }

  @Test
  void v5PartitionsAnOutboxThatHoldsRowsByDayAndKeepsEveryRow() {
    try (IsolatedDatabase v4 = IsolatedDatabase.open(database())) {
      Flyway.configure().dataSource(v4.dataSource()).locations(LOCATION).table("idem_schema_history").target("4")
          .load().migrate();
      long now = System.currentTimeMillis();
      insertOutboxRow(v4, now - 3 * DAY, "PENDING");
      insertOutboxRow(v4, now - 10 * DAY, "PARKED");
      insertOutboxRow(v4, now, "SENT");
      assertEquals(1, Flyway.configure().dataSource(v4.dataSource()).locations(LOCATION)
          .table("idem_schema_history").load().migrate().migrationsExecuted, "V5");
      assertEquals(3, count(v4, "SELECT count(*) FROM idem_outbox"), "every row copied");
      assertEquals(2, count(v4, "SELECT count(*) FROM idem_outbox PARTITION (idem_outbox_p" + day(now - DAY)
          + ") WHERE state <> 'SENT'"), "the rows from before today are in yesterday's partition, which holds all below it");
      assertEquals(1, count(v4, "SELECT count(*) FROM idem_outbox PARTITION (idem_outbox_p" + day(now) + ")"));
      for (int ahead = 0; ahead <= 7; ahead++) {
        assertTrue(partitionExists(v4, "idem_outbox_p" + day(now + ahead * DAY)), "today and the coming week: " + ahead);
      }
      try (IdemRuntime runtime = IdemRuntime.builder().dataSource(v4.dataSource())
          .layout(RecordLayout.DAY_PARTITIONS).build()) {
        runtime.premakePartitions();
        IdemAdmin admin = IdemAdmin.of(runtime);
        assertEquals(1, admin.parkedOutboxEvents(10).size(), "the parked row, readable by the operator calls");
      }
    }
  }

  private static final long DAY = 86_400_000L;
  private static final String LOCATION = "classpath:dev/idem/runtime/flyway/mariadb-day-partitions";

  private static String day(long millis) {
    return java.time.LocalDate.ofEpochDay(Math.floorDiv(millis, DAY)).format(java.time.format.DateTimeFormatter.BASIC_ISO_DATE);
  }

  private static void insertOutboxRow(IsolatedDatabase on, long createdAt, String state) {
    on.execute("INSERT INTO idem_outbox (id, destination, partition_key, key_hash, event_type, headers, payload,"
        + " created_at, state, attempts, next_attempt_at) VALUES ('" + java.util.UUID.randomUUID() + "', 'orders',"
        + " NULL, 0, 'OrderCreated', NULL, '{}', " + createdAt + ", '" + state + "', 0, " + createdAt + ")");
  }

  private static long count(IsolatedDatabase on, String sql) {
    return on.queryLong(sql);
  }

  private static boolean partitionExists(IsolatedDatabase on, String partition) {
    return count(on, "SELECT count(*) FROM information_schema.PARTITIONS WHERE TABLE_SCHEMA = DATABASE()"
        + " AND TABLE_NAME = 'idem_outbox' AND PARTITION_NAME = '" + partition + "'") == 1;
  }

  private long count(String sql) {
    return database.queryLong(sql);
  }
}
