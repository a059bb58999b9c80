package dev.idem.di;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.idem.runtime.IdemRuntime;
import dev.idem.testing.DatabaseContract;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Each real container hands out the generated {@code Accounts_Idempotent} for {@code Accounts}, built with the
 * user's implementation as its delegate, and the result is idempotent against a real database. The concrete
 * subclasses pick the database.
 */
abstract class ContainersContractTest extends DatabaseContract {

  private IdemRuntime runtime;

  @Override
  protected void prepare() {
    runtime = IdemRuntime.builder().dataSource(database.dataSource()).build();
    runtime.createSchema();
    database.execute(
        "CREATE TABLE balances (account VARCHAR(64) PRIMARY KEY, cents BIGINT NOT NULL)",
        "CREATE TABLE deposits (request_id VARCHAR(64) NOT NULL, account VARCHAR(64) NOT NULL,"
            + " cents BIGINT NOT NULL)");
  }

  @BeforeEach
  void clean() {
    database.execute("DELETE FROM idem_record", "DELETE FROM deposits", "DELETE FROM balances",
        "INSERT INTO balances (account, cents) VALUES ('ada', 0)");
    runtime.clearResultCache(); // the records were deleted behind the runtime's back
  }

  @ParameterizedTest
  @EnumSource(Wiring.class)
  void containerHandsOutTheGeneratedServiceAroundTheUsersImplementation(Wiring wiring) {
    try (Wiring.Started started = wiring.start(runtime)) {
      Accounts accounts = started.accounts();

      assertInstanceOf(Accounts_Idempotent.class, accounts);
      assertEquals(500, accounts.deposit("r-1", "ada", 500));
      assertEquals(500, accounts.deposit("r-1", "ada", 500), "the retry replays the first balance");
      assertEquals(800, accounts.deposit("r-2", "ada", 300));
      // Forwarded to the user's implementation: had the container made Accounts_Idempotent its own delegate,
      // these calls would never return.
      assertEquals(800, accounts.balance("ada"));
      assertEquals(2, countDeposits(), "the delegate ran once per key");
    }
  }

  @ParameterizedTest
  @EnumSource(Wiring.class)
  void servicesOfSeparateContainersShareTheRecordsOfOneRuntime(Wiring wiring) {
    try (Wiring.Started first = wiring.start(runtime); Wiring.Started second = wiring.start(runtime)) {
      assertEquals(250, first.accounts().deposit("r-3", "ada", 250));
      assertEquals(250, second.accounts().deposit("r-3", "ada", 250), "replayed from the stored record");
      assertEquals(1, countDeposits());
    }
  }

  private long countDeposits() {
    return runtime.inTransaction(connection -> {
      try (var statement = connection.createStatement();
           var rows = statement.executeQuery("SELECT COUNT(*) FROM deposits")) {
        rows.next();
        return rows.getLong(1);
      }
    });
  }
}
