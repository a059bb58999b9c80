package dev.idem.integration.joined;

import dev.idem.testing.TestDatabase;

class PostgresJoinedGeneratedCodeTest extends JoinedGeneratedCodeContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
