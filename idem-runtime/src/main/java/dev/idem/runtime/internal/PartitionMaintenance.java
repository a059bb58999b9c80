package dev.idem.runtime.internal;

import dev.idem.runtime.IdempotencyStoreException;
import dev.idem.runtime.RecordPartition;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDate;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * The day partitions of a {@link dev.idem.runtime.RecordLayout#DAY_PARTITIONS} table (PostgreSQL), kept by idem
 * itself, without an extension: creates the coming days ahead of time and drops (or archives) past days once every
 * record in them is past its archive horizon. Runs in auto-commit mode on a connection of its own, under a session
 * advisory lock per table, so that the maintenance of two nodes never interleaves (the other node skips its run);
 * every DDL statement waits for table locks at most {@link #LOCK_TIMEOUT} and is retried.
 *
 * <p>Creating a day: {@code CREATE TABLE … (LIKE idem_record)} then {@code ATTACH PARTITION}, which takes only a
 * SHARE UPDATE EXCLUSIVE lock on the parent and so never waits for claims in flight nor blocks them (a
 * {@code CREATE TABLE … PARTITION OF} would take ACCESS EXCLUSIVE). Dropping a day: {@code DETACH PARTITION …
 * CONCURRENTLY}, which waits for the transactions that might still read the day without blocking new ones, then
 * {@code DROP TABLE} of the detached table, which nobody reads any more. A detach interrupted half way (the
 * partition is then "detach pending") is finished with {@code DETACH PARTITION … FINALIZE} on the next run.
 *
 * <p>MariaDB: the table is partitioned {@code BY RANGE COLUMNS}, each day {@code VALUES LESS THAN} the next day, no
 * MAXVALUE partition. Creating a day: {@code ALTER TABLE … ADD PARTITION} above the last one (a range partition can
 * only be added at the top, so premake adds the days after the last existing one). Dropping a day: {@code ALTER
 * TABLE … DROP PARTITION}; archiving it: {@code ALTER TABLE … CONVERT PARTITION … TO TABLE archive.day} (MariaDB
 * 10.7 and later; older servers get a clear error). Each DDL runs under {@code SET STATEMENT lock_wait_timeout = 2
 * FOR}, retried when the metadata lock wait times out (a long transaction reads the table); two nodes: a named lock
 * ({@code GET_LOCK(…, 0)}) per table, the node that does not get it skips its run.
 *
 * <p>Three tables are kept this way: the record table (by {@code bucket}; a day goes once its records are past their
 * archive horizon), the transition log (by {@code applied_at}; a day goes {@code keepTransitionLogFor} after it
 * ended) and the outbox (by {@code created_at}; a day goes once it holds only SENT rows past their expiry, and a day
 * still holding a PENDING or PARKED row is kept and reported).
 *
 * <p>A day is removed without reading its rows: the number of records it held, which the listener and the purge
 * report, is the database's estimate from its statistics ({@link #estimatedRecords}), not a {@code count(*)}. The
 * outbox's days are the exception: their check reads every row for its state anyway, and counts them in that read.
 */
final class PartitionMaintenance {

  /** How long one DDL statement waits for a lock before it fails (and is retried). */
  static final String LOCK_TIMEOUT = "2s";
  private static final int ATTEMPTS = 5;
  /** The SQLState of lock_not_available: a lock_timeout expired. */
  private static final String LOCK_NOT_AVAILABLE = "55P03";
  /** MariaDB's lock wait timeout (also of a metadata lock: lock_wait_timeout). */
  private static final int ER_LOCK_WAIT_TIMEOUT = 1205;
  /** MariaDB: seconds one DDL statement waits for the table's metadata lock. */
  static final int MARIADB_LOCK_WAIT_SECONDS = 2;
  private static final Pattern MARIADB_VERSION = Pattern.compile("(\\d+)\\.(\\d+)\\.\\d+-MariaDB");
  private static final DateTimeFormatter DAY = DateTimeFormatter.BASIC_ISO_DATE;
  private static final System.Logger LOG = System.getLogger(dev.idem.runtime.IdemRuntime.class.getName());

  /** What one maintenance run did. */
  record Result(List<String> created, long droppedRecords) {}

  private final DataSource dataSource;
  /** MariaDB (else PostgreSQL). */
  private final boolean mariaDb;
  private final String table;
  private final DatabaseClock clock;
  private final SafeListener listener;
  private final int daysAhead;
  private final String archiveSchema;
  private final Pattern partitionName;
  /**
   * What one day is in the partition column: 1 for the record table's {@code bucket} (days), a day's milliseconds
   * for the transition log's {@code applied_at}.
   */
  private final long dayUnit;
  /**
   * How long the transition log keeps a day after it ended, or null: the record table, whose days go by their
   * records' expiry instead.
   */
  private final Long logKeepMillis;
  /**
   * The outbox (partitioned by {@code created_at}): a past day goes once every row in it is SENT and past its
   * {@code expires_at}; a day that still holds a PENDING or PARKED row is kept and reported, never dropped.
   */
  private final boolean outbox;

  private PartitionMaintenance(DataSource dataSource, boolean mariaDb, String table, DatabaseClock clock,
      SafeListener listener, int daysAhead, String archiveSchema, long dayUnit, Long logKeepMillis, boolean outbox) {
    this.dataSource = dataSource;
    this.mariaDb = mariaDb;
    this.table = table;
    this.clock = clock;
    this.listener = listener;
    this.daysAhead = daysAhead;
    this.archiveSchema = archiveSchema;
    this.partitionName = Pattern.compile(Pattern.quote(table) + "_p(\\d{8})");
    this.dayUnit = dayUnit;
    this.logKeepMillis = logKeepMillis;
    this.outbox = outbox;
  }

  /** The record table's days: partitioned by {@code bucket}, a day dropped once all its records are past horizon. */
  static PartitionMaintenance ofRecords(DataSource dataSource, SqlDialect dialect, String table, DatabaseClock clock,
      SafeListener listener, int daysAhead, String archiveSchema) {
    return new PartitionMaintenance(dataSource, isMariaDb(dialect), table, clock, listener, daysAhead,
        archiveSchema, 1, null, false);
  }

  /**
   * The transition log's days: partitioned by {@code applied_at}, a day dropped {@code keepMillis} after it ended
   * ({@code Long.MAX_VALUE}: never).
   */
  static PartitionMaintenance ofTransitionLog(DataSource dataSource, SqlDialect dialect, DatabaseClock clock,
      SafeListener listener, int daysAhead, String archiveSchema, long keepMillis) {
    return new PartitionMaintenance(dataSource, isMariaDb(dialect), SqlDialect.TRANSITION_LOG_TABLE, clock,
        listener, daysAhead, archiveSchema, SqlDialect.DAY_MILLIS, keepMillis, false);
  }

  /**
   * The outbox's days: partitioned by {@code created_at}, a day dropped (or archived) once it holds only SENT rows
   * past their {@code expires_at} (the relay's keepSentFor). A day holding a PENDING or PARKED row stays, with a
   * warning, until a relay sent it or an operator requeued (and a relay sent) or deleted it.
   */
  static PartitionMaintenance ofOutbox(DataSource dataSource, SqlDialect dialect, DatabaseClock clock,
      SafeListener listener, int daysAhead, String archiveSchema) {
    return new PartitionMaintenance(dataSource, isMariaDb(dialect), SqlDialect.OUTBOX_TABLE, clock, listener,
        daysAhead, archiveSchema, SqlDialect.DAY_MILLIS, null, true);
  }

  /** Whether the table is partitioned: an outbox a one-table runtime created earlier is not, and is purged by rows. */
  boolean isPartitioned() {
    try (Connection connection = dataSource.getConnection()) {
      return partitioned(connection);
    } catch (SQLException e) {
      throw new IdempotencyStoreException("Reading whether " + table + " is partitioned failed", e);
    }
  }

  private static boolean isMariaDb(SqlDialect dialect) {
    return dialect.dialect() == dev.idem.runtime.Dialect.MARIADB;
  }

  /** The partition name of a day: the table's name, {@code _p} and the day as {@code yyyyMMdd}. */
  String partitionOf(int bucket) {
    return table + "_p" + LocalDate.ofEpochDay(bucket).format(DAY);
  }

  /** The partitions attached to the table, oldest first. */
  List<RecordPartition> partitions() {
    try (Connection connection = dataSource.getConnection()) {
      List<RecordPartition> partitions = new ArrayList<>();
      for (int bucket : attachedBuckets(connection)) {
        LocalDate day = LocalDate.ofEpochDay(bucket);
        partitions.add(new RecordPartition(partitionOf(bucket), day, Instant.ofEpochMilli(bucket * SqlDialect.DAY_MILLIS),
            Instant.ofEpochMilli((bucket + 1L) * SqlDialect.DAY_MILLIS)));
      }
      return partitions;
    } catch (SQLException e) {
      throw new IdempotencyStoreException("Listing the partitions of " + table + " failed", e);
    }
  }

  /**
   * Creates the partitions of yesterday, today (database time) and the next {@code daysAhead} days that do not exist
   * yet.
   *
   * @return the partitions created, or null if another node's maintenance holds the table's lock
   */
  List<String> premake() {
    return underMaintenanceLock(connection -> premake(connection, clock.millis(connection)));
  }

  /**
   * Drops (or archives) every past day whose records are all past their archive horizon, and creates the coming
   * days.
   *
   * @param keepAfterDedupWindowMillis how long records stay after their dedup window
   * @return how many records the dropped or archived days held, as the database's statistics estimate it (see
   *     {@link #estimatedRecords}); 0 if another node maintains the table now
   */
  long maintain(long keepAfterDedupWindowMillis) {
    Result result = underMaintenanceLock(connection -> {
      long now = clock.millis(connection);
      List<String> created = premake(connection, now);
      return new Result(created, dropPast(connection, now, now - keepAfterDedupWindowMillis));
    });
    return result == null ? 0 : result.droppedRecords();
  }

  private interface Work<T> {
    T run(Connection connection) throws SQLException;
  }

  private <T> T underMaintenanceLock(Work<T> work) {
    try (Connection connection = dataSource.getConnection()) {
      if (!connection.getAutoCommit()) {
        connection.setAutoCommit(true); // DETACH … CONCURRENTLY cannot run inside a transaction block
      }
      if (mariaDb) {
        return underNamedLock(connection, work);
      }
      long lockKey = maintenanceLockKey(connection);
      if (!tryLock(connection, lockKey)) {
        return null; // another node maintains the table right now; its run does the same work
      }
      try (Statement statement = connection.createStatement()) {
        statement.execute("SET lock_timeout = '" + LOCK_TIMEOUT + "'");
        return work.run(connection);
      } finally {
        if (!Quietly.closed(connection)) {
          try (Statement statement = connection.createStatement()) {
            statement.execute("RESET lock_timeout");
          }
          unlock(connection, lockKey);
        }
      }
    } catch (SQLException e) {
      IdempotencyStoreException failure =
          new IdempotencyStoreException("Maintaining the day partitions of " + table + " failed", e);
      listener.partitionMaintenanceFailed(table, failure);
      throw failure;
    }
  }

  /** MariaDB: the maintenance of this table under a named lock, taken without waiting; null if another node has it. */
  private <T> T underNamedLock(Connection connection, Work<T> work) throws SQLException {
    String name = "SHA2(CONCAT_WS(CHAR(31), DATABASE(), ?), 256)";
    String text = "idem partition maintenance\u001f" + table;
    try (PreparedStatement lock = connection.prepareStatement("SELECT GET_LOCK(" + name + ", 0)")) {
      lock.setString(1, text);
      try (ResultSet rs = lock.executeQuery()) {
        rs.next();
        if (rs.getInt(1) != 1) {
          return null; // another node maintains the table right now; its run does the same work
        }
      }
    }
    try {
      return work.run(connection);
    } finally {
      if (!Quietly.closed(connection)) {
        try (PreparedStatement unlock = connection.prepareStatement("SELECT RELEASE_LOCK(" + name + ")")) {
          unlock.setString(1, text);
          unlock.executeQuery().close();
        }
      }
    }
  }

  private long maintenanceLockKey(Connection connection) throws SQLException {
    try (PreparedStatement hash = connection.prepareStatement("SELECT hashtextextended(?, 0)")) {
      hash.setString(1, "idem partition maintenance\u001f" + table);
      try (ResultSet rs = hash.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  private static boolean tryLock(Connection connection, long key) throws SQLException {
    try (PreparedStatement lock = connection.prepareStatement("SELECT pg_try_advisory_lock(?)")) {
      lock.setLong(1, key);
      try (ResultSet rs = lock.executeQuery()) {
        rs.next();
        return rs.getBoolean(1);
      }
    }
  }

  private static void unlock(Connection connection, long key) throws SQLException {
    try (PreparedStatement unlock = connection.prepareStatement("SELECT pg_advisory_unlock(?)")) {
      unlock.setLong(1, key);
      unlock.executeQuery().close();
    }
  }

  /** Whether the table is partitioned (a transition log created by a one-table runtime is not, and is left be). */
  private boolean partitioned(Connection connection) throws SQLException {
    if (mariaDb) {
      return !childTables(connection, false).isEmpty();
    }
    try (PreparedStatement kind = connection.prepareStatement("SELECT relkind FROM pg_class WHERE relname = ?"
        + " AND relnamespace = to_regnamespace(current_schema())::oid")) {
      kind.setString(1, table);
      try (ResultSet rs = kind.executeQuery()) {
        return rs.next() && "p".equals(rs.getString(1));
      }
    }
  }

  private List<String> premake(Connection connection, long now) throws SQLException {
    if (!partitioned(connection)) {
      return List.of();
    }
    List<Integer> attached = attachedBuckets(connection);
    List<String> created = new ArrayList<>();
    int today = SqlDialect.dayBucket(now);
    if (mariaDb) {
      // A range partition is added above the last one only; the days below it are there, or covered by it.
      int from = Math.max(today - 1, attached.isEmpty() ? Integer.MIN_VALUE : attached.get(attached.size() - 1) + 1);
      for (int bucket = from; bucket <= today + daysAhead; bucket++) {
        String partition = partitionOf(bucket);
        ddl(connection, "ALTER TABLE " + table + " ADD PARTITION (PARTITION " + partition + " VALUES LESS THAN ("
            + (bucket + 1) * dayUnit + "))");
        created.add(partition);
        listener.partitionCreated(table, partition);
      }
      return created;
    }
    // From yesterday: a key that carries its time may have been made before midnight, and a runtime's first day
    // must take it too.
    for (int bucket = today - 1; bucket <= today + daysAhead; bucket++) {
      if (attached.contains(bucket)) {
        continue;
      }
      String partition = partitionOf(bucket);
      ddl(connection, "CREATE TABLE IF NOT EXISTS " + partition + " (LIKE " + table
          + " INCLUDING DEFAULTS INCLUDING CONSTRAINTS)");
      ddl(connection, "ALTER TABLE " + table + " ATTACH PARTITION " + partition + " FOR VALUES FROM ("
          + bucket * dayUnit + ") TO (" + (bucket + 1) * dayUnit + ")");
      created.add(partition);
      listener.partitionCreated(table, partition);
    }
    return created;
  }

  /** Buckets of the attached partitions named as idem names them (others are left alone), ascending. */
  private List<Integer> attachedBuckets(Connection connection) throws SQLException {
    List<Integer> buckets = new ArrayList<>();
    for (String name : childTables(connection, false)) {
      Matcher day = partitionName.matcher(name);
      if (day.matches()) {
        buckets.add(Math.toIntExact(LocalDate.parse(day.group(1), DAY).toEpochDay()));
      }
    }
    buckets.sort(null);
    return buckets;
  }

  /** The partitions of the table in the current schema; {@code detachPending}: only those half detached. */
  private List<String> childTables(Connection connection, boolean detachPending) throws SQLException {
    if (mariaDb) {
      List<String> names = new ArrayList<>();
      if (detachPending) {
        return names; // DROP PARTITION is one statement: nothing is ever half done
      }
      try (PreparedStatement partitions = connection.prepareStatement("SELECT PARTITION_NAME FROM"
          + " information_schema.PARTITIONS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?"
          + " AND PARTITION_NAME IS NOT NULL ORDER BY PARTITION_ORDINAL_POSITION")) {
        partitions.setString(1, table);
        try (ResultSet rs = partitions.executeQuery()) {
          while (rs.next()) {
            names.add(rs.getString(1));
          }
        }
      }
      return names;
    }
    try (PreparedStatement children = connection.prepareStatement("SELECT c.relname FROM pg_inherits i"
        + " JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent"
        + " WHERE p.relname = ? AND p.relnamespace = to_regnamespace(current_schema())::oid"
        + (detachPending ? " AND i.inhdetachpending" : "") + " ORDER BY c.relname")) {
      children.setString(1, table);
      List<String> names = new ArrayList<>();
      try (ResultSet rs = children.executeQuery()) {
        while (rs.next()) {
          names.add(rs.getString(1));
        }
      }
      return names;
    }
  }

  /**
   * Drops or archives past days: a day before today whose latest expiry is at or before {@code horizonNow} (now
   * minus the time records stay after their dedup window), so that no record inside its dedup window or archive
   * horizon ever goes (the check reads each day's expiry index, one row).
   */
  private long dropPast(Connection connection, long now, long horizonNow) throws SQLException {
    if (!partitioned(connection)) {
      return 0;
    }
    long removed = 0;
    for (String pending : childTables(connection, true)) {
      // A run before this one detached the day (its past-horizon check passed) but was cut off half way.
      ddl(connection, "ALTER TABLE " + table + " DETACH PARTITION " + pending + " FINALIZE");
      Matcher day = partitionName.matcher(pending);
      long outboxRows = outbox && day.matches() ? outboxSentRows(connection, pending, now) : 0;
      if (outboxRows < 0) {
        long bucket = LocalDate.parse(day.group(1), DAY).toEpochDay();
        ddl(connection, "ALTER TABLE " + table + " ATTACH PARTITION " + pending + " FOR VALUES FROM ("
            + bucket * dayUnit + ") TO (" + (bucket + 1) * dayUnit + ")");
        continue;
      }
      removed += remove(connection, pending, outbox ? outboxRows : estimatedRecords(connection, pending));
    }
    int today = SqlDialect.dayBucket(now);
    for (int bucket : attachedBuckets(connection)) {
      if (bucket >= today - 1) {
        break; // yesterday stays, as premake makes it (see there)
      }
      String partition = partitionOf(bucket);
      long outboxRows = 0;
      if (outbox) {
        outboxRows = outboxSentRows(connection, partition, now);
        if (outboxRows < 0) {
          continue;
        }
      } else if (logKeepMillis != null) {
        if ((bucket + 1L) * SqlDialect.DAY_MILLIS > now - logKeepMillis) {
          break; // the log keeps this day and the later ones
        }
      } else {
        try (Statement statement = connection.createStatement();
            ResultSet rs = statement.executeQuery("SELECT max(expires_at) FROM " + rows(partition))) {
          rs.next();
          long latestExpiry = rs.getLong(1);
          if (!rs.wasNull() && latestExpiry > horizonNow) {
            continue; // some record is still inside its window or horizon
          }
        }
      }
      if (mariaDb) {
        long records = outbox ? outboxRows : estimatedRecords(connection, partition);
        removed += removeMariaDb(connection, partition, records);
        continue;
      }
      long records = outbox ? 0 : estimatedRecords(connection, partition);
      // No claim writes a past day, and no claim's probe needs a day whose records all expired: detaching waits
      // only for transactions that began before it, without blocking new ones.
      ddl(connection, "ALTER TABLE " + table + " DETACH PARTITION " + partition + " CONCURRENTLY");
      if (outbox && (records = outboxSentRows(connection, partition, now)) < 0) {
        // A row committed after the check by a transaction older than the day (the detach waited for it): the
        // detached day goes back whole, nothing in it is lost.
        ddl(connection, "ALTER TABLE " + table + " ATTACH PARTITION " + partition + " FOR VALUES FROM ("
            + bucket * dayUnit + ") TO (" + (bucket + 1) * dayUnit + ")");
        continue;
      }
      removed += remove(connection, partition, records);
    }
    return removed;
  }

  /**
   * Whether an outbox day may go: every row SENT and past its expiry; if so, its rows, counted by the same read
   * (the check reads the whole day anyway, for its states), else -1. A day that holds PENDING or PARKED rows is
   * reported (they are never dropped: a relay sends the PENDING ones; a PARKED one waits for an operator's requeue
   * or delete), and its day is checked again at the next run.
   */
  private long outboxSentRows(Connection connection, String partition, long now) throws SQLException {
    try (Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery("SELECT SUM(CASE WHEN state = '" + SqlDialect.OUTBOX_PENDING
            + "' THEN 1 ELSE 0 END), SUM(CASE WHEN state = '" + SqlDialect.OUTBOX_PARKED + "' THEN 1 ELSE 0 END),"
            + " MAX(expires_at), COUNT(*) FROM " + rows(partition))) {
      rs.next();
      long pending = rs.getLong(1);
      long parked = rs.getLong(2);
      long latestExpiry = rs.getLong(3);
      boolean noExpiry = rs.wasNull();
      if (pending > 0 || parked > 0) {
        LOG.log(System.Logger.Level.WARNING, "The outbox day " + partition + " is past but holds " + pending
            + " PENDING and " + parked + " PARKED events; it is kept until they are sent (a running relay sends the"
            + " PENDING ones; requeue the PARKED ones with IdemAdmin.requeueOutboxEvent, or delete them)");
        return -1;
      }
      return noExpiry || latestExpiry <= now ? rs.getLong(4) : -1;
    }
  }

  /** The rows of one partition in a FROM clause: PostgreSQL's partition is a table, MariaDB's is named. */
  private String rows(String partition) {
    return mariaDb ? table + " PARTITION (" + partition + ")" : partition;
  }

  /**
   * MariaDB: drops a day ({@code DROP PARTITION}), or moves it to a table of its own in the archive database
   * ({@code CONVERT PARTITION … TO TABLE}, MariaDB 10.7 and later); returns how many records it held, as the
   * statistics estimate it ({@link #estimatedRecords}).
   */
  private long removeMariaDb(Connection connection, String partition, long records) throws SQLException {
    if (archiveSchema != null) {
      String version = connection.getMetaData().getDatabaseProductVersion();
      if (!convertsPartitionsToTables(version)) {
        throw new SQLException("Archiving the day partition " + partition + " needs ALTER TABLE … CONVERT"
            + " PARTITION … TO TABLE, which MariaDB has from 10.7 on; this server is " + version + ": upgrade it, or"
            + " build the runtime without archivePartitionsTo (past days are then dropped)", "0A000");
      }
      ddl(connection, "CREATE DATABASE IF NOT EXISTS " + archiveSchema);
      ddl(connection, "ALTER TABLE " + table + " CONVERT PARTITION " + partition + " TO TABLE " + archiveSchema + "."
          + partition);
      listener.partitionArchived(table, archiveSchema + "." + partition, records);
    } else {
      ddl(connection, "ALTER TABLE " + table + " DROP PARTITION " + partition);
      listener.partitionDropped(table, partition, records);
    }
    return records;
  }

  /** Whether a MariaDB server of this version string has {@code CONVERT PARTITION … TO TABLE} (10.7 and later). */
  static boolean convertsPartitionsToTables(String version) {
    Matcher mariaDbVersion = MARIADB_VERSION.matcher(version == null ? "" : version);
    return mariaDbVersion.find() && Integer.parseInt(mariaDbVersion.group(1)) * 100
        + Integer.parseInt(mariaDbVersion.group(2)) >= 1007;
  }

  /**
   * How many records a day holds, from the database's statistics, without reading the day: an exact {@code count(*)}
   * would read the whole partition (about 22 GB at 60 M records a day) only to report it, minutes of cold I/O per
   * day dropped. An estimate, which the listener's and the metrics' record counts say they are:
   *
   * <ul>
   *   <li>PostgreSQL: the larger of {@code pg_stat_user_tables.n_live_tup} (kept by every insert and delete, reported
   *       by a session within seconds of its writes, back at 0 after a crash or a statistics reset) and
   *       {@code pg_class.reltuples} (the last VACUUM's or ANALYZE's estimate, -1 before the first): each errs low
   *       when stale, and records are seldom deleted from a day ({@code n_live_tup} can also run a little high, when an
   *       ANALYZE counted rows whose sessions had not reported them yet).
   *   <li>MariaDB: {@code information_schema.PARTITIONS.TABLE_ROWS}, InnoDB's row count of the partition, kept in
   *       memory by inserts and deletes and replaced by a sampled estimate when InnoDB recalculates its statistics.
   * </ul>
   *
   * Both are read from the catalog and statistics, never from the partition's pages.
   */
  private long estimatedRecords(Connection connection, String partition) throws SQLException {
    String sql = mariaDb ? "SELECT COALESCE(MAX(TABLE_ROWS), 0) FROM information_schema.PARTITIONS"
        + " WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND PARTITION_NAME = ?"
        : "SELECT GREATEST(COALESCE(s.n_live_tup, 0), c.reltuples::bigint, 0) FROM pg_class c"
            + " LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid WHERE c.oid = to_regclass(?)";
    try (PreparedStatement estimate = connection.prepareStatement(sql)) {
      if (mariaDb) {
        estimate.setString(1, table);
        estimate.setString(2, partition);
      } else {
        estimate.setString(1, partition);
      }
      try (ResultSet rs = estimate.executeQuery()) {
        return rs.next() ? rs.getLong(1) : 0;
      }
    }
  }

  /**
   * Drops, or moves to the archive schema, a detached day.
   *
   * @param records the day's records, as the statistics estimated them (the outbox: as its check counted them)
   * @return {@code records}
   */
  private long remove(Connection connection, String partition, long records) throws SQLException {
    if (archiveSchema != null) {
      ddl(connection, "CREATE SCHEMA IF NOT EXISTS " + archiveSchema);
      ddl(connection, "ALTER TABLE " + partition + " SET SCHEMA " + archiveSchema);
      listener.partitionArchived(table, archiveSchema + "." + partition, records);
    } else {
      ddl(connection, "DROP TABLE " + partition);
      listener.partitionDropped(table, partition, records);
    }
    return records;
  }

  /** One DDL statement, retried when its lock_timeout expired (a long transaction held the table). */
  private void ddl(Connection connection, String sql) throws SQLException {
    String statementSql = mariaDb ? "SET STATEMENT lock_wait_timeout = " + MARIADB_LOCK_WAIT_SECONDS + " FOR " + sql
        : sql;
    for (int attempt = 1; ; attempt++) {
      try (Statement statement = connection.createStatement()) {
        statement.execute(statementSql);
        return;
      } catch (SQLException e) {
        boolean lockTimeout = mariaDb ? e.getErrorCode() == ER_LOCK_WAIT_TIMEOUT
            : LOCK_NOT_AVAILABLE.equals(e.getSQLState());
        if (attempt >= ATTEMPTS || !lockTimeout) {
          throw e;
        }
        Retries.pauseBeforeRetry(attempt);
      }
    }
  }
}
