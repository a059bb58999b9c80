package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.RecordLayout;
import dev.idem.testing.IsolatedDatabase;
import dev.idem.testing.TestDatabase;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@code idem partitions}: list, premake and drop the days of a day-partitioned table on MariaDB, in process. The
 * table is made by a runtime whose clock runs four days behind, so that it has past days to drop (a range partition
 * can only be added above the last one).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MariaDbPartitionsCliTest {

  private IsolatedDatabase database;

  @BeforeAll
  void open() {
    database = IsolatedDatabase.open(TestDatabase.MARIADB);
    try (IdemRuntime runtime = IdemRuntime.builder().dataSource(database.dataSource())
        .clock(java.time.Clock.offset(java.time.Clock.systemUTC(), java.time.Duration.ofDays(-4))).databaseTime(false)
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
  void listsPremakesAndDropsDays() {
    Cli.Run premade = run("partitions", "--premake");
    assertEquals(0, premade.code(), premade.toString());
    assertTrue(premade.out().contains("idem_record_p" + day(7)), premade.toString());
    Cli.Run listed = run("partitions");
    assertEquals(0, listed.code(), listed.toString());
    assertTrue(listed.out().contains("idem_record_p" + day(-5)), listed.toString());
    assertTrue(listed.out().contains("idem_record_p" + day(7)), listed.toString());

    // A day three days ago, holding a record long expired: --drop removes it and the other empty past days, not
    // yesterday's.
    String past = "idem_record_p" + day(-3);
    long bucket = LocalDate.now(ZoneOffset.UTC).minusDays(3).toEpochDay();
    database.execute("INSERT INTO idem_record (scope, idem_key, state, fingerprint, created_at, expires_at,"
        + " bucket) VALUES ('S.s', 'k-1', 'COMPLETED', 'f', " + bucket * 86_400_000L + ", "
        + (bucket * 86_400_000L + 1) + ", " + bucket + ")");
    Cli.Run dropped = run("partitions", "--drop", "--json");
    assertEquals(0, dropped.code(), dropped.toString());
    assertTrue(dropped.out().contains("\"droppedRecords\" : 1") || dropped.out().contains("\"droppedRecords\":1"),
        dropped.toString());
    assertTrue(!dropped.out().contains(past), dropped.toString());
    assertTrue(dropped.out().contains("idem_record_p" + day(-1)), dropped.toString());
  }

  @Test
  void archivingWithoutDroppingIsAUsageError() {
    Cli.Run refused = run("partitions", "--archive-to", "x");
    assertEquals(ExitCodes.USAGE, refused.code(), refused.toString());
    assertTrue(refused.err().contains("--archive-to needs --drop"), refused.toString());
  }
}
