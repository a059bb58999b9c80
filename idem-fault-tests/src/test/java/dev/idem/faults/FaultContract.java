package dev.idem.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.runtime.IdemRuntime;
import dev.idem.testing.DatabaseContract;
import dev.idem.testing.FaultProxy;
import dev.idem.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * The base of the proxied suites: an isolated database, a {@link FaultProxy} in front of its server, a HikariCP
 * pool through the proxy, and the generated {@code Ledger_Idempotent} on a runtime over that pool. Assertions read
 * the tables directly, past the proxy.
 */
abstract class FaultContract extends DatabaseContract {

  /** Scopes of the generated commands (the interface's name and the method's). */
  static final String POST = "dev.idem.faults.Ledger.post";
  static final String CHARGE = "dev.idem.faults.Ledger.charge";
  static final String CHARGE_WITHIN_STORM = "dev.idem.faults.Ledger.chargeWithinStorm";
  static final String CHARGE_PARKED = "dev.idem.faults.Ledger.chargeParked";
  static final String CHARGE_BRIEFLY = "dev.idem.faults.Ledger.chargeBriefly";

  protected FaultProxy proxy;
  protected HikariDataSource pool;
  protected IdemRuntime runtime;
  protected RecordingLedger delegate;
  protected Ledger ledger;

  /** The proxied pool's size. */
  protected int poolSize() {
    return 4;
  }

  @Override
  protected void prepare() {
    proxy = FaultProxy.inFrontOf(database.url(), poolSize() + 8);
    pool = boundedPool(database.database(), proxy.route(database.url()), database.user(), database.password(),
        poolSize());
    runtime = IdemRuntime.builder().dataSource(pool).build();
    runtime.createSchema();
    database.execute("CREATE TABLE business (idem_key VARCHAR(255) NOT NULL, amount BIGINT NOT NULL,"
        + " execution INT NOT NULL)");
    delegate = new RecordingLedger(runtime);
    ledger = new Ledger_Idempotent(delegate, runtime);
  }

  /**
   * A pool whose every wait is bounded, so that a fault can fail a call but never hang it: connection timeout, a
   * socket timeout in the driver. On PostgreSQL {@code prepareThreshold=0} keeps every statement's text in its
   * Parse message (pgjdbc otherwise switches to named server statements after five executions), so that the proxy
   * can find a statement by its text.
   */
  static HikariDataSource boundedPool(TestDatabase database, String url, String user, String password, int size) {
    HikariConfig config = new HikariConfig();
    String separator = url.contains("?") ? "&" : "?";
    config.setJdbcUrl(url + separator + (database == TestDatabase.POSTGRESQL
        ? "prepareThreshold=0&socketTimeout=15&connectTimeout=5"
        : "socketTimeout=15000&connectTimeout=5000"));
    config.setUsername(user);
    config.setPassword(password);
    config.setMaximumPoolSize(size);
    config.setMinimumIdle(0);
    config.setConnectionTimeout(3_000);
    config.setValidationTimeout(1_000);
    config.setPoolName("idem-faults-" + database.name().toLowerCase(Locale.ROOT));
    return new HikariDataSource(config);
  }

  @BeforeEach
  final void healAndClear() {
    proxy.heal();
    proxy.resetCounters();
    database.execute("DELETE FROM idem_record", "DELETE FROM business");
    runtime.clearResultCache();
    delegate.reset();
  }

  @AfterAll
  final void closeProxyAndPool() {
    if (pool != null) {
      pool.close();
    }
    if (proxy != null) {
      proxy.close();
    }
  }

  // ------------------------------------------------------------------------------------------------
  // What the tables hold, read past the proxy.

  /** @return business rows of {@code key} */
  int businessRows(String key) {
    return Tables.businessRows(database.dataSource(), key);
  }

  /** @return the record's state, or null if there is none */
  String state(String scope, String key) {
    return Tables.state(database.dataSource(), scope, key);
  }

  /** Asserts what a key holds after its faults settled: one business row and one COMPLETED record for it. */
  void assertExactlyOnce(String scope, String key) {
    assertEquals(1, businessRows(key), "business rows of " + key);
    assertEquals("COMPLETED", state(scope, key), "record of " + key);
  }

  /** Reads the tables directly. */
  static final class Tables {
    private Tables() {}

    static int businessRows(DataSource direct, String key) {
      try (Connection connection = direct.getConnection();
           PreparedStatement count = connection.prepareStatement("SELECT COUNT(*) FROM business WHERE idem_key = ?")) {
        count.setString(1, key);
        try (ResultSet rows = count.executeQuery()) {
          rows.next();
          return rows.getInt(1);
        }
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
    }

    static String state(DataSource direct, String scope, String key) {
      try (Connection connection = direct.getConnection();
           PreparedStatement select =
               connection.prepareStatement("SELECT state FROM idem_record WHERE scope = ? AND idem_key = ?")) {
        select.setString(1, scope);
        select.setString(2, key);
        try (ResultSet rows = select.executeQuery()) {
          return rows.next() ? rows.getString(1) : null;
        }
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
    }

    /** @return key -> business rows of that key */
    static Map<String, Integer> businessRowsByKey(DataSource direct) {
      return countBy(direct, "SELECT idem_key, COUNT(*) FROM business GROUP BY idem_key");
    }

    /** @return key -> the execution number of its business row (the last one, should there be more) */
    static Map<String, Integer> businessExecutionByKey(DataSource direct) {
      return countBy(direct, "SELECT idem_key, MAX(execution) FROM business GROUP BY idem_key");
    }

    /** @return key -> state of the records of {@code scope} */
    static Map<String, String> statesByKey(DataSource direct, String scope) {
      Map<String, String> states = new HashMap<>();
      try (Connection connection = direct.getConnection();
           PreparedStatement select =
               connection.prepareStatement("SELECT idem_key, state FROM idem_record WHERE scope = ?")) {
        select.setString(1, scope);
        try (ResultSet rows = select.executeQuery()) {
          while (rows.next()) {
            states.put(rows.getString(1), rows.getString(2));
          }
        }
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
      return states;
    }

    /** @return key -> the stored result's JSON */
    static Map<String, String> resultsByKey(DataSource direct, String scope) {
      Map<String, String> results = new HashMap<>();
      try (Connection connection = direct.getConnection();
           PreparedStatement select =
               connection.prepareStatement("SELECT idem_key, result FROM idem_record WHERE scope = ?")) {
        select.setString(1, scope);
        try (ResultSet rows = select.executeQuery()) {
          while (rows.next()) {
            results.put(rows.getString(1), rows.getString(2));
          }
        }
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
      return results;
    }

    /** @return records of {@code scope} IN_PROGRESS whose lease ended before {@code nowMillis} */
    static int inProgressPastLease(DataSource direct, String scope, long nowMillis) {
      try (Connection connection = direct.getConnection();
           PreparedStatement count = connection.prepareStatement("SELECT COUNT(*) FROM idem_record"
               + " WHERE scope = ? AND state = 'IN_PROGRESS' AND lease_until < ?")) {
        count.setString(1, scope);
        count.setLong(2, nowMillis);
        try (ResultSet rows = count.executeQuery()) {
          rows.next();
          return rows.getInt(1);
        }
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
    }

    private static Map<String, Integer> countBy(DataSource direct, String sql) {
      Map<String, Integer> counts = new HashMap<>();
      try (Connection connection = direct.getConnection();
           PreparedStatement select = connection.prepareStatement(sql);
           ResultSet rows = select.executeQuery()) {
        while (rows.next()) {
          counts.put(rows.getString(1), rows.getInt(2));
        }
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
      return counts;
    }
  }
}
