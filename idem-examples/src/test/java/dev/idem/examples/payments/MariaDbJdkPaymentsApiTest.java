package dev.idem.examples.payments;

import dev.idem.testsupport.TestDatabase;

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
