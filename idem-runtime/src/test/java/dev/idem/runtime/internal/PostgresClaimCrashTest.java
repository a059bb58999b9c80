package dev.idem.runtime.internal;

import dev.idem.testsupport.TestDatabase;

class PostgresClaimCrashTest extends DatabaseServerClaimCrashTest {
  @Override
  TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
