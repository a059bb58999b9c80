package dev.idem.benchmarks.retention;

import dev.idem.runtime.RecordLayout;
import dev.idem.testing.IsolatedDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * PostgreSQL: the fill goes into the heap without indexes, in the order of first executions (as a table's heap fills
 * over time), and the indexes are then built again from their own definitions in the catalog, so that the table is
 * idem's to the letter (checked: every index and constraint of the partition tree, its name aside, is as before).
 */
final class PostgresRecordTables extends RecordTables {

  /**
   * Every index and constraint of the table and its partitions, the names of indexes and constraints left out
   * (those PostgreSQL gives a partition's index may differ after a rebuild), with whether each index is valid.
   */
  private static final String STRUCTURE = "WITH tree AS (SELECT relid FROM pg_partition_tree(?::regclass)"
      + " UNION SELECT ?::regclass)"
      + " SELECT t.relid::regclass::text || ': ' || regexp_replace(pg_get_indexdef(i.indexrelid),"
      + " '^CREATE (UNIQUE )?INDEX \\S+ ON', 'CREATE \\1INDEX ON')"
      + " || CASE WHEN i.indisvalid THEN '' ELSE ' (INVALID)' END FROM tree t JOIN pg_index i ON i.indrelid = t.relid"
      + " UNION ALL SELECT t.relid::regclass::text || ': CONSTRAINT ' || pg_get_constraintdef(k.oid)"
      + " FROM tree t JOIN pg_constraint k ON k.conrelid = t.relid ORDER BY 1";

  PostgresRecordTables(IsolatedDatabase database) {
    super(database);
  }

  @Override
  String settings() throws SQLException {
    List<String[]> rows = query("SELECT current_setting('shared_buffers'), current_setting('autovacuum')");
    return "shared_buffers " + rows.get(0)[0] + " (the operating system's page cache holds the rest),"
        + " autovacuum " + rows.get(0)[1] + ".";
  }

  @Override
  String fillMethod() {
    return "`INSERT … SELECT … FROM generate_series` on 2 connections into the table without its indexes, in the"
        + " order of first executions (a heap fills in time order), then its primary key and expiry index built again"
        + " from their definitions in the catalog (`pg_get_constraintdef`, `pg_get_indexdef`; the structure is"
        + " compared with idem's DDL afterwards), then `VACUUM ANALYZE`";
  }

  /**
   * Drops the table's indexes and the constraints they back, on the partitioned parent (which drops its partitions'
   * too); the finish builds them again from the definitions read here, in a session with {@code
   * maintenance_work_mem} of 1 GB (it only speeds the sort), and fails if the table's structure differs from before.
   */
  @Override
  FillFinish prepareFill(String table) throws SQLException {
    List<String> before = structure(table);
    List<String[]> constraints = query("SELECT quote_ident(conname), pg_get_constraintdef(oid) FROM pg_constraint"
        + " WHERE conrelid = ?::regclass AND contype IN ('p', 'u', 'x') ORDER BY conname", table);
    List<String[]> indexes = query("SELECT quote_ident(c.relname), pg_get_indexdef(i.indexrelid) FROM pg_index i"
        + " JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = ?::regclass AND NOT EXISTS (SELECT 1 FROM"
        + " pg_constraint k WHERE k.conrelid = i.indrelid AND k.conindid = i.indexrelid) ORDER BY c.relname", table);
    for (String[] constraint : constraints) {
      execute("ALTER TABLE " + table + " DROP CONSTRAINT " + constraint[0]);
    }
    for (String[] index : indexes) {
      execute("DROP INDEX " + index[0]);
    }
    return () -> {
      try (Connection connection = database.dataSource().getConnection();
          Statement statement = connection.createStatement()) {
        statement.execute("SET maintenance_work_mem = '1GB'");
        try {
          for (String[] constraint : constraints) {
            statement.execute("ALTER TABLE " + table + " ADD CONSTRAINT " + constraint[0] + " " + constraint[1]);
          }
          for (String[] index : indexes) {
            // A partitioned table's index reads "ON ONLY table", which would leave its partitions without it.
            statement.execute(index[1].replace(" ON ONLY ", " ON "));
          }
        } finally {
          statement.execute("RESET maintenance_work_mem");
        }
      }
      List<String> after = structure(table);
      if (!after.equals(before)) {
        throw new IllegalStateException("The indexes rebuilt after the fill must be idem's as created, but " + table
            + " had " + before + " and now has " + after);
      }
    };
  }

  private List<String> structure(String table) throws SQLException {
    List<String> lines = new ArrayList<>();
    for (String[] row : query(STRUCTURE, table, table)) {
      lines.add(row[0]);
    }
    return lines;
  }

  @Override
  void insert(Connection connection, String table, RecordLayout layout, RecordFill fill, long first, long last)
      throws SQLException {
    boolean days = layout == RecordLayout.DAY_PARTITIONS;
    // Spread keys: j's place in the key space, the day, an MD5; time keys: a UUIDv7 of c (see RecordFill).
    String key = fill.timeKeys()
        ? "lpad(to_hex(c), 12, '0') || '7' || substr(md5(n::text), 1, 3) || '8' || substr(md5(n::text), 4, 15)"
        : "lpad(to_hex(j * ?::bigint), 15, '0') || to_hex(d) || substr(md5(n::text), 1, 16)";
    String sql = "INSERT INTO " + table + " " + RecordFill.columns(layout) + " SELECT '" + fill.scope() + "',"
        + " substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-' || substr(h, 13, 4) || '-' || substr(h, 17, 4) || '-'"
        + " || substr(h, 21, 12) || '|" + RecordFill.GROUP + "', 'COMPLETED', encode(sha256(n::text::bytea), 'hex'),"
        + " '{\"paymentId\":\"p-' || n || '\",\"amountCents\":' || (n % 100000) || '}', 'R1', c, c + ?::bigint"
        + (days ? ", ?::int + d::int" : "")
        + " FROM (SELECT n, d, c, " + key + " AS h FROM (SELECT n, d, j, ?::bigint + d * " + RecordFill.DAY_MILLIS
        + " + floor(j * ?::float8)::bigint AS c"
        + " FROM (SELECT n, n / ?::bigint AS d, n % ?::bigint AS j FROM generate_series(?::bigint, ?::bigint) AS n) s"
        + ") t) g";
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      int p = 1;
      statement.setLong(p++, fill.windowMillis());
      if (days) {
        statement.setInt(p++, fill.firstBucket());
      }
      if (!fill.timeKeys()) {
        statement.setLong(p++, fill.keyStep());
      }
      statement.setLong(p++, fill.firstDayMillis());
      statement.setDouble(p++, fill.spacingMillis());
      statement.setLong(p++, fill.perDay());
      statement.setLong(p++, fill.perDay());
      statement.setLong(p++, first);
      statement.setLong(p, last);
      statement.executeUpdate();
    }
  }

  /** Autovacuum is off on the benchmark machine: this is the vacuum and analyze a maintained table would have had. */
  @Override
  void analyze(String table) throws SQLException {
    execute("VACUUM ANALYZE " + table);
  }

  @Override
  Sizes sizes(String table) throws SQLException {
    String[] row = query("SELECT coalesce(sum(pg_table_size(relid)), 0), coalesce(sum(pg_indexes_size(relid)), 0)"
        + " FROM (SELECT relid FROM pg_partition_tree(?::regclass) UNION SELECT ?::regclass) t", table, table).get(0);
    return new Sizes(Long.parseLong(row[0]), Long.parseLong(row[1]), 0);
  }

  @Override
  String dataLabel() {
    return "heap";
  }

  @Override
  String indexLabel() {
    return "indexes (primary key, expiry)";
  }

  @Override
  String removalLabel(RecordLayout layout) {
    return layout == RecordLayout.DAY_PARTITIONS ? "DETACH … CONCURRENTLY + DROP TABLE" : "bounded DELETEs of 1,000";
  }

  @Override
  String leftoverLabel() {
    return "dead tuples after removal (`n_dead_tup`)";
  }

  /**
   * The table's dead tuples, read after 11 s: a backend reports its statistics when it has been idle for up to 10 s
   * (PostgreSQL 15's PGSTAT_IDLE_INTERVAL), and the purge's connections have just finished.
   */
  @Override
  double leftover(String table) throws SQLException {
    try {
      Thread.sleep(11_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SQLException("Interrupted while waiting for the purge's statistics", e);
    }
    String[] row = query("SELECT coalesce(sum(n_dead_tup), 0) FROM pg_stat_user_tables s JOIN (SELECT relid FROM"
        + " pg_partition_tree(?::regclass) UNION SELECT ?::regclass) t ON t.relid = s.relid", table, table).get(0);
    return Double.parseDouble(row[0]);
  }
}
