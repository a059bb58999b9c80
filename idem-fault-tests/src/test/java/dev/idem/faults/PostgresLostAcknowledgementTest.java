package dev.idem.faults;

import dev.idem.testing.TestDatabase;

class PostgresLostAcknowledgementTest extends LostAcknowledgementContract {
  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
