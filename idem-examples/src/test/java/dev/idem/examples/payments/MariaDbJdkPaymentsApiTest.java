package dev.idem.examples.payments;

import dev.idem.testing.TestDatabase;

class MariaDbJdkPaymentsApiTest extends PaymentsApiContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }

  @Override
  protected PaymentsServer.Kind kind() {
    return PaymentsServer.Kind.JDK;
  }
}
