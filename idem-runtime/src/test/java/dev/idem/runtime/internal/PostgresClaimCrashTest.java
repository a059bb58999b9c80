package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;

class PostgresClaimCrashTest extends DatabaseServerClaimCrashTest {
  @Override
  TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
