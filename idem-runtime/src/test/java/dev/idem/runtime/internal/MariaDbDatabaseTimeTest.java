package dev.idem.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.idem.runtime.Dialect;
import dev.idem.testing.IsolatedDatabase;
import dev.idem.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The database's time on MariaDB and MySQL is the statement's start in epoch millis whatever the session's time
 * zone: leases, expiry and the outbox's backoff compare it across sessions that may be configured differently. The
 * instants are fixed with the session variable {@code timestamp}; among them the two readings of the hour that
 * Europe's return to winter time repeats (02:30 local on 2026-10-25, once in CEST and once in CET), which the
 * former {@code UNIX_TIMESTAMP(NOW(3))} could not tell apart. Named zones need the server's time zone tables
 * ({@code .ci/run} loads Europe/Berlin's): without them only the fixed offsets run, and under {@code CI=true} the
 * test fails instead.
 */
class MariaDbDatabaseTimeTest {

  private static final List<Instant> INSTANTS = List.of(
      Instant.parse("2026-10-25T00:30:00.250Z"), // 02:30:00.250 CEST
      Instant.parse("2026-10-25T01:30:00.250Z"), // 02:30:00.250 CET, the same local time an hour later
      Instant.parse("2026-03-29T01:30:00.999Z"), // just after the spring gap
      Instant.parse("2026-12-02T13:00:00.001Z"));

  @Test
  void theStatementsTimeIsItsStartInEpochMillisInEverySessionTimeZone() throws SQLException {
    SqlDialect dialect = SqlDialect.of(Dialect.MARIADB);
    try (IsolatedDatabase database = IsolatedDatabase.open(TestDatabase.MARIADB);
         Connection connection = database.dataSource().getConnection();
         Statement statement = connection.createStatement()) {
      List<String> zones = new ArrayList<>(List.of("+00:00", "+05:30", "-08:00", "+13:00"));
      if (knows(statement, "Europe/Berlin")) {
        zones.add("Europe/Berlin");
      } else if ("true".equals(System.getenv("CI"))) {
        fail("The MariaDB server has no time zone tables, so the daylight-saving case cannot run: load them with"
            + " `mariadb-tzinfo-to-sql /usr/share/zoneinfo/Europe/Berlin Europe/Berlin | mariadb -uroot mysql`"
            + " (.ci/run does)");
      }
      try {
        for (String zone : zones) {
          statement.execute("SET time_zone = '" + zone + "'");
          for (Instant instant : INSTANTS) {
            statement.execute("SET timestamp = " + instant.getEpochSecond() + "." + String.format("%06d",
                instant.getNano() / 1000));
            assertEquals(instant.toEpochMilli(), millis(statement, dialect.currentTimeMillisSql()),
                "currentTimeMillisSql at " + instant + " in " + zone);
            assertEquals(instant.toEpochMilli(), millis(statement, "SELECT " + dialect.lockNowMillis()),
                "lockNowMillis at " + instant + " in " + zone);
          }
        }
      } finally {
        statement.execute("SET timestamp = DEFAULT");
        statement.execute("SET time_zone = DEFAULT");
      }
    }
  }

  private static boolean knows(Statement statement, String zone) throws SQLException {
    try (ResultSet row = statement.executeQuery("SELECT CONVERT_TZ('2026-01-01 00:00:00', '+00:00', '" + zone
        + "') IS NOT NULL")) {
      row.next();
      return row.getBoolean(1);
    }
  }

  private static long millis(Statement statement, String sql) throws SQLException {
    try (ResultSet row = statement.executeQuery(sql)) {
      row.next();
      return row.getLong(1);
    }
  }
}
