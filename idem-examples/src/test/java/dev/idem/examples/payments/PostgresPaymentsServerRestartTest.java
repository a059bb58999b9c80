package dev.idem.examples.payments;

import dev.idem.testing.TestDatabase;
import java.util.List;

/** On PostgreSQL, in the test class's isolated database. */
class PostgresPaymentsServerRestartTest extends PaymentsServerRestartTest {

  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }

  @Override
  protected List<String> jdbcProperties() {
    return List.of("-Djdbc.url=" + database.url(), "-Djdbc.user=" + database.user(),
        "-Djdbc.password=" + (database.password() == null ? "" : database.password()));
  }
}
