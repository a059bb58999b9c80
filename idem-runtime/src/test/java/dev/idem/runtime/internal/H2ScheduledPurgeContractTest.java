package dev.idem.runtime.internal;

import dev.idem.testing.TestDatabase;

class H2ScheduledPurgeContractTest extends ScheduledPurgeContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.H2;
  }
}
