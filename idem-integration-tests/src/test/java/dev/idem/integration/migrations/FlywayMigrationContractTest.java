package dev.idem.integration.migrations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.integration.transitions.PaymentFlow;
import dev.idem.integration.transitions.PaymentFlow_Idempotent;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyStoreException;
import dev.idem.runtime.TransitionResult;
import dev.idem.testing.DatabaseContract;
import dev.idem.testing.IsolatedDatabase;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.output.MigrateResult;
import org.junit.jupiter.api.Test;

/**
 * idem's Flyway migrations ({@code classpath:dev/idem/runtime/flyway/<dialect>}) applied by real Flyway with a
 * history table of their own, then a runtime that never calls {@code createSchema()} runs a transactional command, a
 * {@code CLAIM} command and a logged transition on the migrated schema. The subclasses pick the database.
 */
abstract class FlywayMigrationContractTest extends DatabaseContract {

  private MigrateResult firstMigration;

  @Override
  protected void prepare() {
    firstMigration = flyway().migrate();
    database.execute("CREATE TABLE ledger (request_id VARCHAR(64) PRIMARY KEY, amount BIGINT NOT NULL)",
        "CREATE TABLE payments (id BIGINT PRIMARY KEY, payment_state VARCHAR(16) NOT NULL,"
            + " row_version BIGINT NOT NULL)");
  }

  private String dialectDirectory() {
    return database().name().toLowerCase(Locale.ROOT);
  }

  /** As the README tells users: idem's own location, and a history table apart from the application's. */
  private Flyway flyway() {
    return Flyway.configure()
        .dataSource(database.dataSource())
        .locations("classpath:dev/idem/runtime/flyway/" + dialectDirectory())
        .table("idem_schema_history")
        .load();
  }

  private long count(String sql) {
    try (Connection connection = database.dataSource().getConnection();
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String resource(String name) throws IOException {
    try (InputStream in = IdemRuntime.class.getResourceAsStream("/" + name)) {
      assertNotNull(in, name);
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void theMigrationsRunTheSchemaResourcesStatements() throws IOException {
    // One source of truth: createSchema() runs schema/<dialect>.sql, Flyway runs these; their statements must be the
    // same (comments may differ). Released migrations never change (Flyway checks their checksums): a schema change
    // goes into the resource AND a new V<n> migration with its ALTER; then compare the schema that V1..Vn build with
    // the resource's instead of comparing V1's text.
    String dialect = dialectDirectory();
    assertEquals(statements(resource("dev/idem/runtime/schema/" + dialect + ".sql")),
        statements(resource("dev/idem/runtime/flyway/" + dialect + "/V1__idem_record.sql")));
    assertEquals(statements(resource("dev/idem/runtime/schema/transition-log-" + dialect + ".sql")),
        statements(resource("dev/idem/runtime/flyway/" + dialect + "/V2__idem_transition_log.sql")));
    assertEquals(statements(resource("dev/idem/runtime/schema/lock-" + dialect + ".sql")),
        statements(resource("dev/idem/runtime/flyway/" + dialect + "/V3__idem_lock.sql")));
    assertEquals(statements(resource("dev/idem/runtime/schema/outbox-" + dialect + ".sql")),
        statements(resource("dev/idem/runtime/flyway/" + dialect + "/V4__idem_outbox.sql")));
  }

  /** The script's statements without comments, whitespace collapsed (idem's DDL has no '--' or ';' in literals). */
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
    assertTrue(statements.size() >= 1, script);
    return statements;
  }

  @Test
  void flywayAppliesEveryMigrationOnceAndValidatesThem() {
    assertEquals(4, firstMigration.migrationsExecuted);
    assertEquals("4", firstMigration.targetSchemaVersion);
    assertEquals(0, flyway().migrate().migrationsExecuted, "a second run finds nothing to do");
    flyway().validate();
    assertEquals(4, flyway().info().applied().length, "all recorded in idem's own history table");
  }

  @Test
  void aRuntimeWithoutCreateSchemaRunsCommandsClaimsAndTheTransitionLog() throws SQLException {
    IdemRuntime runtime = IdemRuntime.builder().dataSource(database.dataSource()).logTransitions(true).build();
    AtomicInteger credits = new AtomicInteger();
    AtomicInteger notifications = new AtomicInteger();
    Ledger ledger = new Ledger_Idempotent(new Ledger() {
      @Override
      public String credit(String requestId, long amount) {
        credits.incrementAndGet();
        try (PreparedStatement insert = runtime.currentConnection()
            .prepareStatement("INSERT INTO ledger (request_id, amount) VALUES (?, ?)")) {
          insert.setString(1, requestId);
          insert.setLong(2, amount);
          insert.executeUpdate();
        } catch (SQLException e) {
          throw new IllegalStateException(e);
        }
        return "credited " + amount;
      }

      @Override
      public String notifyCustomer(String messageId, String text) {
        notifications.incrementAndGet();
        return "sent " + text;
      }
    }, runtime);

    assertEquals("credited 5", ledger.credit("r-1", 5));
    assertEquals("credited 5", ledger.credit("r-1", 5));
    assertEquals(1, credits.get());
    assertEquals(1, count("SELECT COUNT(*) FROM ledger"));
    runtime.clearResultCache();
    assertEquals("credited 5", ledger.credit("r-1", 5), "replayed from the migrated table");

    assertEquals("sent hi", ledger.notifyCustomer("m-1", "hi"));
    runtime.clearResultCache();
    assertEquals("sent hi", ledger.notifyCustomer("m-1", "hi"));
    assertEquals(1, notifications.get());
    assertEquals(2, count("SELECT COUNT(*) FROM idem_record WHERE state = 'COMPLETED'"));

    database.execute("INSERT INTO payments (id, payment_state, row_version) VALUES (1, 'NEW', 0)");
    PaymentFlow payments = new PaymentFlow_Idempotent(runtime);
    assertEquals(TransitionResult.APPLIED, payments.authorize(1L));
    assertEquals(1, count("SELECT COUNT(*) FROM idem_transition_log WHERE entity_id = '1' AND to_state = 'AUTHORIZED'"));
  }

  @Test
  void aSchemaThatCreateSchemaMadeIsBaselinedNotRecreated() {
    // Adopting Flyway on a database where createSchema() already ran (README, "Upgrading").
    try (IsolatedDatabase existing = IsolatedDatabase.open(database())) {
      IdemRuntime runtime = IdemRuntime.builder().dataSource(existing.dataSource()).build();
      runtime.createSchema();
      Flyway adopting = Flyway.configure().dataSource(existing.dataSource())
          .locations("classpath:dev/idem/runtime/flyway/" + dialectDirectory()).table("idem_schema_history")
          .baselineOnMigrate(true).baselineVersion("2").load();
      // The documented baseline for tables an idem before the lock table made; V3 finds idem_lock there and
      // creates nothing (CREATE TABLE IF NOT EXISTS), and creates it where an older createSchema() did not.
      assertEquals(2, adopting.migrate().migrationsExecuted, "V3 and V4 (the outbox)");
      assertEquals("4", adopting.info().current().getVersion().getVersion());
      adopting.validate();
    }
  }

  /** Flyway on idem's migrations in a database of its own, with idem's history table and the given baseline. */
  private Flyway flywayOn(IsolatedDatabase target, boolean baselineOnMigrate, String baselineVersion) {
    var configuration = Flyway.configure().dataSource(target.dataSource())
        .locations("classpath:dev/idem/runtime/flyway/" + dialectDirectory()).table("idem_schema_history");
    if (baselineOnMigrate) {
      configuration.baselineOnMigrate(true).baselineVersion(baselineVersion);
    }
    return configuration.load();
  }

  @Test
  void aDatabaseThatHoldsTheApplicationsTablesIsMigratedWithBaselineVersionZero() {
    // Adding idem to an application whose tables exist (README, "Migrations"): idem's history table is new, so
    // Flyway sees a non-empty schema without history and refuses it; baselineOnMigrate with Flyway's default
    // baseline version 1 would record V1 as done and never create idem_record; version 0 applies V1, V2 and V3.
    String applicationTable = "CREATE TABLE customers (id BIGINT PRIMARY KEY)";
    try (IsolatedDatabase plain = IsolatedDatabase.open(database())) {
      plain.execute(applicationTable);
      FlywayException refused = assertThrows(FlywayException.class, () -> flywayOn(plain, false, null).migrate());
      assertTrue(refused.getMessage().contains("non-empty schema"), refused.getMessage());
    }
    try (IsolatedDatabase defaultBaseline = IsolatedDatabase.open(database())) {
      defaultBaseline.execute(applicationTable);
      assertEquals(3, flywayOn(defaultBaseline, true, "1").migrate().migrationsExecuted, "only V2, V3 and V4 ran");
      IdemRuntime runtime = IdemRuntime.builder().dataSource(defaultBaseline.dataSource()).build();
      assertThrows(IdempotencyStoreException.class, () -> ledgerOn(runtime).credit("r-1", 1), "no idem_record");
    }
    try (IsolatedDatabase adopting = IsolatedDatabase.open(database())) {
      adopting.execute(applicationTable);
      Flyway flyway = flywayOn(adopting, true, "0");
      assertEquals(4, flyway.migrate().migrationsExecuted);
      assertEquals("4", flyway.info().current().getVersion().getVersion());
      flyway.validate();
      IdemRuntime runtime = IdemRuntime.builder().dataSource(adopting.dataSource()).build();
      Ledger ledger = ledgerOn(runtime);
      assertEquals("credited 1", ledger.credit("r-1", 1));
      runtime.clearResultCache();
      assertEquals("credited 1", ledger.credit("r-1", 1), "replayed from the migrated table");
    }
  }

  /** The application's own Flyway: its migrations, Flyway's default history table. */
  private static Flyway applicationsFlywayOn(IsolatedDatabase target) {
    return Flyway.configure().dataSource(target.dataSource())
        .locations("classpath:dev/idem/integration/migrations/application").load();
  }

  @Test
  void onAFreshDatabaseTheApplicationsMigrationsRunFirstThenIdemsWithBaselineVersionZero() {
    // The order the README gives: the application's Flyway, then idem's. The other way round, the application's
    // Flyway finds idem's tables in a schema without its history table and refuses it.
    try (IsolatedDatabase idemFirst = IsolatedDatabase.open(database())) {
      assertEquals(4, flywayOn(idemFirst, true, "0").migrate().migrationsExecuted);
      FlywayException refused =
          assertThrows(FlywayException.class, () -> applicationsFlywayOn(idemFirst).migrate());
      assertTrue(refused.getMessage().contains("non-empty schema"), refused.getMessage());
    }
    try (IsolatedDatabase fresh = IsolatedDatabase.open(database())) {
      for (int deploy = 1; deploy <= 2; deploy++) {
        int expected = deploy == 1 ? 1 : 0;
        assertEquals(expected, applicationsFlywayOn(fresh).migrate().migrationsExecuted,
            "application, deploy " + deploy);
        Flyway idems = flywayOn(fresh, true, "0");
        assertEquals(deploy == 1 ? 4 : 0, idems.migrate().migrationsExecuted, "idem, deploy " + deploy);
        assertEquals("4", idems.info().current().getVersion().getVersion());
        idems.validate();
        applicationsFlywayOn(fresh).validate();
      }
      fresh.execute("INSERT INTO app_customers (id, name) VALUES (1, 'ada')");
      IdemRuntime runtime = IdemRuntime.builder().dataSource(fresh.dataSource()).build();
      Ledger ledger = ledgerOn(runtime);
      assertEquals("credited 1", ledger.credit("r-1", 1));
      runtime.clearResultCache();
      assertEquals("credited 1", ledger.credit("r-1", 1), "replayed from the migrated table");
    }
  }

  private static Ledger ledgerOn(IdemRuntime runtime) {
    return new Ledger_Idempotent(new Ledger() {
      private final AtomicInteger credits = new AtomicInteger();

      @Override
      public String credit(String requestId, long amount) {
        if (credits.incrementAndGet() > 1) {
          throw new AssertionError("credit ran twice for " + requestId);
        }
        return "credited " + amount;
      }

      @Override
      public String notifyCustomer(String messageId, String text) {
        return "sent " + text;
      }
    }, runtime);
  }

  @Test
  void withoutTheMigrationsARuntimeFailsClearly() {
    // The control: the tables above exist only because Flyway created them.
    IdemRuntime elsewhere = IdemRuntime.builder().dataSource(database.dataSource()).tableName("not_migrated")
        .build();
    Ledger ledger = new Ledger_Idempotent(new Ledger() {
      @Override
      public String credit(String requestId, long amount) {
        return "never";
      }

      @Override
      public String notifyCustomer(String messageId, String text) {
        return "never";
      }
    }, elsewhere);
    assertThrows(IdempotencyStoreException.class, () -> ledger.credit("r-2", 1));
  }
}
