package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;

class MariaDbClaimCrashTest extends DatabaseServerClaimCrashTest {
  @Override
  TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
