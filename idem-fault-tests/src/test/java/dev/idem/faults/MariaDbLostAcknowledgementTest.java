package dev.idem.faults;

import dev.idem.testing.TestDatabase;

class MariaDbLostAcknowledgementTest extends LostAcknowledgementContract {
  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
