package dev.idem.runtime.internal;

import dev.idem.testing.IsolatedDatabase;
import dev.idem.testing.TestDatabase;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/** The crash test against a database server both JVMs reach: an isolated PostgreSQL schema or MariaDB database. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class DatabaseServerClaimCrashTest extends ClaimCrashTest {

  private IsolatedDatabase database;

  abstract TestDatabase database();

  @BeforeAll
  void open() {
    database = IsolatedDatabase.open(database());
  }

  @AfterAll
  void close() {
    if (database != null) {
      database.close();
    }
  }

  @Override
  String url() {
    return database.url();
  }

  @Override
  String user() {
    return database.user();
  }

  @Override
  String password() {
    return database.password();
  }

  @Override
  DataSource dataSource() {
    return database.dataSource();
  }
}
