package dev.idem.examples.payments;

import dev.idem.testing.TestDatabase;

class PostgresJdkPaymentsApiTest extends PaymentsApiContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }

  @Override
  protected PaymentsServer.Kind kind() {
    return PaymentsServer.Kind.JDK;
  }
}
