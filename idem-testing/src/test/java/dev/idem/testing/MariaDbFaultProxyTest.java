package dev.idem.testing;

class MariaDbFaultProxyTest extends FaultProxyContract {
  @Override
  TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
