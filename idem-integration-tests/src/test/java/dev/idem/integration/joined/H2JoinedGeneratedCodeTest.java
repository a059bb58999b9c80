package dev.idem.integration.joined;

import dev.idem.testing.TestDatabase;

class H2JoinedGeneratedCodeTest extends JoinedGeneratedCodeContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.H2;
  }
}
