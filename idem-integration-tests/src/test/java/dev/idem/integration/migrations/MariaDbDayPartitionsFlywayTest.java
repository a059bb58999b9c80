package dev.idem.integration.migrations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.RecordLayout;
import dev.idem.testing.DatabaseContract;
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
    assertEquals(4, migration.migrationsExecuted);
    assertEquals(statements(resource("dev/idem/runtime/schema/mariadb-day-partitions.sql")),
        statements(resource("dev/idem/runtime/flyway/mariadb-day-partitions/V1__idem_record_day_partitions.sql")));
    assertEquals(statements(resource("dev/idem/runtime/schema/transition-log-mariadb-day-partitions.sql")),
        statements(resource("dev/idem/runtime/flyway/mariadb-day-partitions/V2__idem_transition_log.sql")));
    // The single-flight lock table does not depend on the record table's layout: the same DDL as on one table.
    assertEquals(statements(resource("dev/idem/runtime/schema/lock-mariadb.sql")),
        statements(resource("dev/idem/runtime/flyway/mariadb-day-partitions/V3__idem_lock.sql")));
    // The outbox is one table on either layout.
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

  private long count(String sql) {
    try (java.sql.Connection connection = database.dataSource().getConnection();
        java.sql.Statement statement = connection.createStatement();
        java.sql.ResultSet rs = statement.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
