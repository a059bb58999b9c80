package dev.idem.integration.migrations;

import dev.idem.testing.TestDatabase;
import java.util.List;

class MariaDbFlywayMigrationTest extends FlywayMigrationContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }

  @Override
  protected int idemMigrations() {
    return 5;
  }

  @Override
  protected List<String> lockMigrations() {
    return List.of("V3__idem_lock.sql", "V5__idem_lock_release.sql");
  }
}
