package dev.idem.runtime;

import dev.idem.testsupport.TestDatabase;

class PostgresClaimCrashTest extends DatabaseServerClaimCrashTest {
  @Override
  TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
