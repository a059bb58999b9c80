package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.RecordLayout;
import dev.idem.testing.IsolatedDatabase;
import dev.idem.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** {@code idem partitions}: list, premake and drop the days of a day-partitioned table on PostgreSQL, in process. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresPartitionsCliTest {

  private IsolatedDatabase database;

  @BeforeAll
  void open() {
    database = IsolatedDatabase.open(TestDatabase.POSTGRESQL);
    try (IdemRuntime runtime = IdemRuntime.builder().dataSource(database.dataSource())
        .layout(RecordLayout.DAY_PARTITIONS).build()) {
      runtime.createSchema();
    }
  }

  @AfterAll
  void close() {
    database.close();
  }

  private Cli.Run run(String... args) {
    Map<String, String> environment = new HashMap<>();
    environment.put("IDEM_URL", database.url());
    if (!database.user().isEmpty()) {
      environment.put("IDEM_USER", database.user());
    }
    if (!database.password().isEmpty()) {
      environment.put("IDEM_PASSWORD", database.password());
    }
    return Cli.inProcess(environment, args);
  }

  private static String day(long daysFromToday) {
    return LocalDate.now(ZoneOffset.UTC).plusDays(daysFromToday).format(DateTimeFormatter.BASIC_ISO_DATE);
  }

  @Test
  void listsPremakesAndDropsDays() throws Exception {
    Cli.Run listed = run("partitions");
    assertEquals(0, listed.code(), listed.toString());
    assertTrue(listed.out().contains("idem_record_p" + day(0)), listed.toString());
    assertTrue(listed.out().contains("idem_record_p" + day(7)), listed.toString());

    database.execute("DROP TABLE idem_record_p" + day(7));
    Cli.Run premade = run("partitions", "--premake");
    assertEquals(0, premade.code(), premade.toString());
    assertTrue(premade.out().contains("Created 1 partition: idem_record_p" + day(7)), premade.toString());

    // A day three days ago, holding a record long expired: --drop removes it, and only it.
    String past = "idem_record_p" + day(-3);
    long bucket = LocalDate.now(ZoneOffset.UTC).minusDays(3).toEpochDay();
    database.execute("CREATE TABLE " + past + " PARTITION OF idem_record FOR VALUES FROM (" + bucket + ") TO ("
        + (bucket + 1) + ")", "INSERT INTO idem_record (scope, idem_key, state, fingerprint, created_at, expires_at,"
        + " bucket) VALUES ('S.s', 'k-1', 'COMPLETED', 'f', " + bucket * 86_400_000L + ", "
        + (bucket * 86_400_000L + 1) + ", " + bucket + ")");
    awaitLiveTuples(past, 1); // the count a drop reports is the statistics', which a session reports when idle
    Cli.Run dropped = run("partitions", "--drop", "--json");
    assertEquals(0, dropped.code(), dropped.toString());
    assertTrue(dropped.out().contains("\"droppedRecords\" : 1") || dropped.out().contains("\"droppedRecords\":1"),
        dropped.toString());
    assertTrue(!dropped.out().contains(past), dropped.toString());
    Cli.Run nothingLeft = run("partitions", "--drop");
    assertTrue(nothingLeft.out().contains("the past days holding about 0 records (the database's estimate)"),
        nothingLeft.toString());
  }

  private void awaitLiveTuples(String partition, long rows) throws Exception {
    long deadline = System.nanoTime() + 20_000_000_000L;
    while (true) {
      try (Connection connection = database.dataSource().getConnection();
          Statement statement = connection.createStatement();
          ResultSet rs = statement.executeQuery("SELECT coalesce(max(n_live_tup), -1) FROM pg_stat_user_tables"
              + " WHERE relid = to_regclass('" + partition + "')")) {
        rs.next();
        if (rs.getLong(1) == rows) {
          return;
        }
      }
      assertTrue(System.nanoTime() < deadline, "the statistics of " + partition + " never counted its rows");
      Thread.sleep(100);
    }
  }

  @Test
  void archivingWithoutDroppingIsAUsageError() {
    Cli.Run refused = run("partitions", "--archive-to", "x");
    assertEquals(ExitCodes.USAGE, refused.code(), refused.toString());
    assertTrue(refused.err().contains("--archive-to needs --drop"), refused.toString());
  }
}
