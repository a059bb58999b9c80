package dev.idem.runtime.internal;

import dev.idem.testsupport.TestDatabase;

class MariaDbClaimCrashTest extends DatabaseServerClaimCrashTest {
  @Override
  TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
