package dev.idem.testing;

class PostgresFaultProxyTest extends FaultProxyContract {
  @Override
  TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
