package dev.idem.examples.payments;

import dev.idem.testing.TestDatabase;

class H2JettyPaymentsApiTest extends PaymentsApiContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.H2;
  }

  @Override
  protected PaymentsServer.Kind kind() {
    return PaymentsServer.Kind.JETTY;
  }
}
