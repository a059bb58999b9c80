package dev.idem.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** MariaDB archives a day by CONVERT PARTITION … TO TABLE from 10.7 on; older servers and MySQL are refused. */
class PartitionArchiveSupportTest {

  @Test
  void convertPartitionIsMariaDb107AndLater() {
    assertTrue(PartitionMaintenance.convertsPartitionsToTables("10.11.19-MariaDB-0+deb12u1"));
    assertTrue(PartitionMaintenance.convertsPartitionsToTables("10.7.1-MariaDB"));
    assertTrue(PartitionMaintenance.convertsPartitionsToTables("5.5.5-11.4.2-MariaDB-log"));
    assertFalse(PartitionMaintenance.convertsPartitionsToTables("10.6.18-MariaDB"));
    assertFalse(PartitionMaintenance.convertsPartitionsToTables("8.0.36"), "MySQL");
    assertFalse(PartitionMaintenance.convertsPartitionsToTables(null));
  }
}
