package dev.idem.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.runtime.Dialect;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.RecordLayout;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/** Where {@link RecordLayout#DAY_PARTITIONS} may be chosen: the builder refuses it before anything runs. */
class RecordLayoutChoiceTest {

  private static IdemRuntime.Builder builder(Dialect dialect) {
    JdbcDataSource dataSource = new JdbcDataSource(); // never connected to: the dialect is given
    dataSource.setURL("jdbc:h2:mem:unused");
    return IdemRuntime.builder().dataSource(dataSource).dialect(dialect);
  }

  @Test
  void h2KeepsOneTable() {
    IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
        () -> builder(Dialect.H2).layout(RecordLayout.DAY_PARTITIONS).build());
    assertEquals("H2 keeps idem's records in one table: RecordLayout.DAY_PARTITIONS needs PostgreSQL or MariaDB;"
        + " build this runtime with RecordLayout.ONE_TABLE", refused.getMessage());
  }

  @Test
  void theSwitchFromOneTableNeedsDayPartitionsAndAnotherTableOnEitherDatabase() {
    for (Dialect dialect : new Dialect[] {Dialect.POSTGRESQL, Dialect.MARIADB}) {
      IllegalArgumentException sameTable = assertThrows(IllegalArgumentException.class,
          () -> builder(dialect).layout(RecordLayout.DAY_PARTITIONS).switchingFrom("idem_record").build());
      assertEquals("switchingFrom names the one-table record table, which must differ from this runtime's"
          + " day-partitioned tableName 'idem_record'", sameTable.getMessage());
      IllegalArgumentException oneTable = assertThrows(IllegalArgumentException.class,
          () -> builder(dialect).switchingFrom("idem_old").build());
      assertEquals("switchingFrom needs RecordLayout.DAY_PARTITIONS", oneTable.getMessage());
    }
  }

  @Test
  void anArchiveSchemaNeedsDayPartitionsAndAPlainName() {
    assertThrows(IllegalArgumentException.class, () -> builder(Dialect.POSTGRESQL).archivePartitionsTo("x").build());
    assertThrows(IllegalArgumentException.class, () -> builder(Dialect.POSTGRESQL).archivePartitionsTo("a;b"));
  }

  @Test
  void oneTableIsTheDefaultAndHasNoPartitions() {
    try (IdemRuntime runtime = builder(Dialect.H2).build()) {
      IllegalStateException refused = assertThrows(IllegalStateException.class, runtime::partitions);
      assertTrue(refused.getMessage().contains("RecordLayout.ONE_TABLE"), refused.getMessage());
    }
  }
}
