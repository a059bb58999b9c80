package dev.idem.benchmarks.retention;

import dev.idem.runtime.RecordLayout;
import dev.idem.testing.IsolatedDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * MariaDB (InnoDB): the primary key is the clustered index, so the fill inserts in primary-key order (each
 * statement a run of ascending keys from MariaDB's Sequence engine, {@code seq_<first>_to_<last>}), with idem's
 * table and indexes as created: InnoDB appends to the index instead of splitting pages at random places. Sizes come
 * from {@code information_schema.PARTITIONS} after {@code ANALYZE TABLE}.
 *
 * <p>The InnoDB buffer pool is the server's unless the run asks for another size ({@code
 * idem.bench.retention.mariadbBufferPool}): then it is set with {@code SET GLOBAL} for the run, said so in the
 * report, and restored on {@link #close()} (and by a shutdown hook if the run is cut short).
 */
final class MariaDbRecordTables extends RecordTables {

  private static final Pattern SIZE = Pattern.compile("(\\d+)([KMG]?)");
  private static final long RESIZE_WAIT_MILLIS = 300_000;

  /** The server's buffer pool before the run; restored if {@link #requestedPool} changed it. */
  private final long serverPool;
  /** The buffer pool the run asked for, in bytes; 0: the server's. */
  private final long requestedPool;
  private final Thread restoreOnExit;
  private boolean restored;

  MariaDbRecordTables(IsolatedDatabase database, String bufferPool) throws SQLException {
    super(database);
    this.serverPool = bufferPool();
    this.requestedPool = bufferPool.isBlank() ? 0 : bytes(bufferPool);
    if (requestedPool == 0 || requestedPool == serverPool) {
      this.restoreOnExit = null;
      return;
    }
    this.restoreOnExit = new Thread(this::restoreQuietly, "restore-innodb-buffer-pool");
    Runtime.getRuntime().addShutdownHook(restoreOnExit);
    System.out.printf("Setting innodb_buffer_pool_size to %s for this run (the server's: %s; restored at the end)%n",
        mb(requestedPool), mb(serverPool));
    resize(requestedPool);
  }

  /** A size as MariaDB writes it ({@code 8G}, {@code 512M}, bytes). */
  static long bytes(String size) {
    Matcher matcher = SIZE.matcher(size.strip().toUpperCase(Locale.ROOT));
    if (!matcher.matches()) {
      throw new IllegalArgumentException("idem.bench.retention.mariadbBufferPool must be a size such as 8G, 512M or"
          + " a number of bytes, got '" + size + "'");
    }
    long number = Long.parseLong(matcher.group(1));
    return switch (matcher.group(2)) {
      case "K" -> number << 10;
      case "M" -> number << 20;
      case "G" -> number << 30;
      default -> number;
    };
  }

  private static String mb(long bytes) {
    return String.format(Locale.ROOT, "%,d MB", bytes >> 20);
  }

  private long bufferPool() throws SQLException {
    return Long.parseLong(query("SELECT @@GLOBAL.innodb_buffer_pool_size").get(0)[0]);
  }

  /**
   * Sets the buffer pool's size and waits until InnoDB has resized it: it does so in the background, reporting its
   * progress in Innodb_buffer_pool_resize_status (empty again, or "Completed …", when done; MariaDB 10.11 clears
   * it), and the pool's pages then add up to the size, give or take InnoDB's own rounding.
   */
  private void resize(long bytes) throws SQLException {
    execute("SET GLOBAL innodb_buffer_pool_size = " + bytes);
    long deadline = System.currentTimeMillis() + RESIZE_WAIT_MILLIS;
    while (true) {
      String status = resizeStatus();
      String[] pool = query("SELECT (SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME"
          + " = 'INNODB_BUFFER_POOL_PAGES_TOTAL'), @@GLOBAL.innodb_page_size").get(0);
      long poolBytes = Long.parseLong(pool[0]) * Long.parseLong(pool[1]);
      boolean idle = status.isEmpty() || status.startsWith("Completed");
      if (idle && Math.abs(poolBytes - bytes) < bytes / 10) {
        return;
      }
      if (System.currentTimeMillis() > deadline) {
        throw new IllegalStateException("InnoDB did not resize its buffer pool to " + mb(bytes) + " within "
            + RESIZE_WAIT_MILLIS / 1000 + " s (status: '" + status + "'); its pages now add up to " + mb(poolBytes));
      }
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new SQLException("Interrupted while InnoDB resized its buffer pool", e);
      }
    }
  }

  private String resizeStatus() throws SQLException {
    return query("SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_resize_status'").stream().map(row -> row[1])
        .findFirst().orElse("");
  }

  @Override
  String settings() throws SQLException {
    String[] row = query("SELECT @@GLOBAL.innodb_buffer_pool_size, @@GLOBAL.innodb_flush_method,"
        + " @@GLOBAL.innodb_flush_log_at_trx_commit").get(0);
    long pool = Long.parseLong(row[0]);
    String poolNote = requestedPool == 0 ? " (the server's own setting)"
        : " (set with SET GLOBAL for this run at idem.bench.retention.mariadbBufferPool; the server's " + mb(serverPool)
            + " restored afterwards)";
    return "innodb_buffer_pool_size " + mb(pool) + poolNote + ", innodb_flush_method " + row[1]
        + " (no operating-system cache: what the pool does not hold is read from disk),"
        + " innodb_flush_log_at_trx_commit " + row[2] + ".";
  }

  @Override
  String fillMethod() {
    return "`INSERT … SELECT … FROM seq_<first>_to_<last>` (the Sequence engine) on 2 connections in primary-key"
        + " order, into idem's table with its indexes, then `ANALYZE TABLE`";
  }

  /** Nothing to take away: the fill keeps idem's indexes and inserts in the clustered index's order. */
  @Override
  FillFinish prepareFill(String table) {
    return () -> {};
  }

  /**
   * One statement of ascending keys: record {@code n} of day {@code d} and place {@code j} comes at position
   * {@code j * 15 + d} (the keys' order, see {@link RecordFill}). The Sequence engine yields its rows in order.
   */
  @Override
  void insert(Connection connection, String table, RecordLayout layout, RecordFill fill, long first, long last)
      throws SQLException {
    boolean days = layout == RecordLayout.DAY_PARTITIONS;
    // Spread keys ascend by (j, day): record n sits at position j * 15 + d; time keys (UUIDv7s of c) by n itself.
    String key = fill.timeKeys()
        ? "CONCAT(LPAD(LOWER(HEX(c)), 12, '0'), '7', SUBSTR(MD5(n), 1, 3), '8', SUBSTR(MD5(n), 4, 15))"
        : "CONCAT(LPAD(LOWER(HEX(j * ?)), 15, '0'), LOWER(HEX(d)), SUBSTR(MD5(n), 1, 16))";
    String positions = fill.timeKeys()
        ? "SELECT seq AS n, seq DIV ? AS d, seq MOD ? AS j"
        : "SELECT seq MOD " + RecordFill.DAYS + " * ? + seq DIV " + RecordFill.DAYS + " AS n, seq MOD "
            + RecordFill.DAYS + " AS d, seq DIV " + RecordFill.DAYS + " AS j";
    String sql = "INSERT INTO " + table + " " + RecordFill.columns(layout) + " SELECT '" + fill.scope() + "',"
        + " CONCAT(CONCAT_WS('-', SUBSTR(h, 1, 8), SUBSTR(h, 9, 4), SUBSTR(h, 13, 4), SUBSTR(h, 17, 4),"
        + " SUBSTR(h, 21, 12)), '|" + RecordFill.GROUP + "'), 'COMPLETED', SHA2(n, 256),"
        + " CONCAT('{\"paymentId\":\"p-', n, '\",\"amountCents\":', n MOD 100000, '}'), 'R1', c, c + ?"
        + (days ? ", ? + d" : "")
        + " FROM (SELECT n, d, c, " + key + " AS h FROM (SELECT n, d, j, ? + d * " + RecordFill.DAY_MILLIS
        + " + CAST(FLOOR(j * ?) AS SIGNED) AS c FROM (" + positions + " FROM seq_" + first + "_to_" + last + ") s) t) g";
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
      if (fill.timeKeys()) {
        statement.setLong(p, fill.perDay());
      }
      statement.executeUpdate();
    }
  }

  @Override
  void analyze(String table) throws SQLException {
    query("ANALYZE TABLE " + table);
  }

  /**
   * After {@code ANALYZE TABLE}: InnoDB's data_length is the clustered index (the rows, ordered by the primary key),
   * index_length the secondary indexes, data_free the free extents inside the table's files; summed over the
   * partitions (one row for a table without).
   */
  @Override
  Sizes sizes(String table) throws SQLException {
    analyze(table);
    String[] row = query("SELECT COALESCE(SUM(DATA_LENGTH), 0), COALESCE(SUM(INDEX_LENGTH), 0),"
        + " COALESCE(SUM(DATA_FREE), 0) FROM information_schema.PARTITIONS WHERE TABLE_SCHEMA = DATABASE()"
        + " AND TABLE_NAME = ?", table).get(0);
    return new Sizes(Long.parseLong(row[0]), Long.parseLong(row[1]), Long.parseLong(row[2]));
  }

  @Override
  String dataLabel() {
    return "clustered primary key (the rows)";
  }

  @Override
  String indexLabel() {
    return "secondary index (expiry)";
  }

  @Override
  String removalLabel(RecordLayout layout) {
    return layout == RecordLayout.DAY_PARTITIONS ? "DROP PARTITION" : "bounded DELETEs of 1,000";
  }

  /**
   * InnoDB has no dead-tuple count: deleted rows are delete-marked, then purged in the background into free space
   * inside their pages, which only that table's later inserts reuse; whole free extents show as data_free.
   */
  @Override
  String leftoverLabel() {
    return "free space inside the table's files after removal (`data_free`), MB";
  }

  @Override
  boolean hasFreeSpace() {
    return true;
  }

  @Override
  double leftover(String table) throws SQLException {
    return sizes(table).freeBytes() / 1e6;
  }

  @Override
  public void close() throws SQLException {
    if (restoreOnExit == null || restored) {
      return;
    }
    resize(serverPool);
    restored = true;
    System.out.printf("innodb_buffer_pool_size restored to %s%n", mb(bufferPool()));
    try {
      Runtime.getRuntime().removeShutdownHook(restoreOnExit);
    } catch (IllegalStateException shuttingDown) {
      // The hook runs or ran already; restoring twice is harmless.
    }
  }

  private void restoreQuietly() {
    if (restored) {
      return;
    }
    try {
      execute("SET GLOBAL innodb_buffer_pool_size = " + serverPool);
      System.err.println("innodb_buffer_pool_size set back to " + mb(serverPool) + " as the run ended early");
    } catch (SQLException | RuntimeException e) {
      System.err.println("*** Could not restore the MariaDB server's buffer pool: run SET GLOBAL"
          + " innodb_buffer_pool_size = " + serverPool + " (" + e.getMessage() + ") ***");
    }
  }
}
