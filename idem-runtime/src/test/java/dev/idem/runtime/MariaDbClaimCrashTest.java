package dev.idem.runtime;

import dev.idem.testsupport.TestDatabase;

class MariaDbClaimCrashTest extends DatabaseServerClaimCrashTest {
  @Override
  TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
