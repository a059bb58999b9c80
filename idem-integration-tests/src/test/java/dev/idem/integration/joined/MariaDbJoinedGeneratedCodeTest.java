package dev.idem.integration.joined;

import dev.idem.testing.TestDatabase;

class MariaDbJoinedGeneratedCodeTest extends JoinedGeneratedCodeContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
