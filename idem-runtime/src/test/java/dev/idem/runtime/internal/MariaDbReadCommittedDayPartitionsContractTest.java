package dev.idem.runtime.internal;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;

/**
 * {@link MariaDbDayPartitionsContractTest} with the runtimes' connections at READ COMMITTED, where a locking read
 * takes no gap locks: two probes of a key that is nowhere then both find nothing, and only the claim's named lock
 * ({@code GET_LOCK}) keeps the two sides of midnight from each inserting a record of their own (at REPEATABLE READ
 * the probes' gap locks make such claims deadlock instead, and one is retried).
 */
class MariaDbReadCommittedDayPartitionsContractTest extends MariaDbDayPartitionsContractTest {
  private HikariDataSource readCommitted;

  @Override
  protected synchronized DataSource runtimeDataSource() {
    if (readCommitted == null) {
      HikariConfig config = new HikariConfig();
      config.setJdbcUrl(database.url());
      config.setUsername(database.user());
      config.setPassword(database.password());
      config.setMaximumPoolSize(20);
      config.setMinimumIdle(1);
      config.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
      readCommitted = new HikariDataSource(config);
    }
    return readCommitted;
  }

  @AfterAll
  void closeReadCommittedPool() {
    if (readCommitted != null) {
      readCommitted.close();
    }
  }
}
