package dev.idem.runtime.internal;

import java.sql.BatchUpdateException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Claims many keys at once and reads back the records of those it could not claim. Each claim inserts rows that are
 * already COMPLETED (nobody sees them before the commit, which also commits the batch's work) and reports exactly
 * which keys this transaction inserted; a key recorded by someone else, committed or not, is never reported. Keys
 * arrive sorted, so that competing batches lock common keys in the same order.
 *
 * <p>The three shapes here only bind parameters and read results: which shape a database uses, and the SQL text
 * with its reasons, are in {@link SqlDialect#batchStatements} and {@link SqlDialect#batchClaimSql}.
 */
abstract class BatchStatements {

  /** Rows per statement where a statement's text grows with the rows (placeholders are limited to 65,535). */
  static final int ROWS_PER_STATEMENT = 1000;

  final SqlDialect dialect;
  final String table;

  private BatchStatements(SqlDialect dialect, String table) {
    this.dialect = dialect;
    this.table = table;
  }

  /**
   * What one claim found out.
   *
   * @param inserted the keys this transaction inserted
   * @param recorded where the claim's statement also read them (PostgreSQL), the records it could see of the keys
   *     it did not insert, a missing key being one whose competing claim committed after the statement began; null
   *     where the records must be {@linkplain #read read} separately
   */
  record Claimed(Set<String> inserted, Map<String, StoredRecord> recorded) {}

  /**
   * Inserts a record for each of {@code keys}, waiting for competing uncommitted claims of the same keys.
   *
   * @param keys distinct keys, sorted
   * @param fingerprints parallel to {@code keys}
   */
  abstract Claimed claim(Connection connection, CommandSpec<?> spec, List<String> keys, List<String> fingerprints,
                         long now, long expiresAt) throws SQLException;

  /** The latest committed records of the given keys; absent keys are missing from the map. */
  Map<String, StoredRecord> read(Connection connection, String scope, List<String> keys) throws SQLException {
    Map<String, StoredRecord> records = new HashMap<>(keys.size() * 2);
    for (int from = 0; from < keys.size(); from += ROWS_PER_STATEMENT) {
      List<String> chunk = keys.subList(from, Math.min(keys.size(), from + ROWS_PER_STATEMENT));
      try (PreparedStatement select = connection.prepareStatement(dialect.batchSelectSql(table, chunk.size()))) {
        select.setString(1, scope);
        for (int i = 0; i < chunk.size(); i++) {
          select.setString(i + 2, chunk.get(i));
        }
        collect(select, records);
      }
    }
    return records;
  }

  static void collect(PreparedStatement select, Map<String, StoredRecord> records) throws SQLException {
    try (ResultSet rows = select.executeQuery()) {
      while (rows.next()) {
        records.put(rows.getString(1), new StoredRecord(rows.getString(2), rows.getString(3), rows.getLong(4)));
      }
    }
  }

  /**
   * Runs an {@code INSERT … RETURNING idem_key} and adds the first column of every returned row to
   * {@code inserted}.
   *
   * <p>Through {@code execute()}, not {@code executeQuery()}: MySQL Connector/J refuses {@code executeQuery()} for
   * a statement that starts with INSERT before sending it, although a MariaDB server answers this one with rows.
   * Whatever the driver, the rows it returns must account for every row inserted: a driver that reported inserted
   * rows without them would let the batch take keys it claimed for duplicates, and skip their messages.
   */
  static void collectKeys(PreparedStatement claim, Set<String> inserted) throws SQLException {
    int before = inserted.size();
    int returned = 0;
    if (claim.execute()) {
      try (ResultSet rows = claim.getResultSet()) {
        while (rows.next()) {
          inserted.add(rows.getString(1));
          returned++;
        }
      }
    } else {
      int count = claim.getUpdateCount();
      if (count > 0) {
        throw new SQLException("The batch claim inserted " + count + " rows but the driver returned no RETURNING"
            + " rows, so the inserted keys are unknown; nothing of the batch is kept", "XX000");
      }
    }
    if (inserted.size() - before != returned) {
      throw new SQLException("The batch claim returned " + returned + " keys of which "
          + (inserted.size() - before) + " are distinct; nothing of the batch is kept", "XX000");
    }
  }

  /** What a batch needs to know about a record it could not claim. */
  record StoredRecord(String state, String fingerprint, long expiresAt) {}

  /**
   * One statement for the whole batch, which also reads the records of the keys it could not claim; the keys and
   * fingerprints travel as two arrays (PostgreSQL).
   */
  static final class ArrayBound extends BatchStatements {
    private final String claimSql;
    private final String readSql;

    ArrayBound(SqlDialect dialect, String table) {
      super(dialect, table);
      this.claimSql = dialect.batchClaimSql(table, 0);
      this.readSql = dialect.batchSelectSql(table, 0);
    }

    @Override
    Claimed claim(Connection connection, CommandSpec<?> spec, List<String> keys, List<String> fingerprints, long now,
                  long expiresAt) throws SQLException {
      String scope = spec.scope();
      try (PreparedStatement claim = connection.prepareStatement(claimSql)) {
        claim.setString(1, arrayLiteral(keys));
        claim.setString(2, arrayLiteral(fingerprints));
        claim.setString(3, scope);
        claim.setLong(4, now);
        claim.setLong(5, expiresAt);
        claim.setString(6, scope);
        Set<String> inserted = new HashSet<>(keys.size() * 2);
        Map<String, StoredRecord> recorded = new HashMap<>();
        try (ResultSet rows = claim.executeQuery()) {
          while (rows.next()) {
            String state = rows.getString(2);
            if (state == null) { // state is NOT NULL in the table: a row of the claim's RETURNING
              inserted.add(rows.getString(1));
            } else {
              recorded.put(rows.getString(1), new StoredRecord(state, rows.getString(3), rows.getLong(4)));
            }
          }
        }
        return new Claimed(inserted, recorded);
      }
    }

    /**
     * The text form of a varchar array, {@code {"k1","k2"}}, which the statement casts with {@code ?::varchar[]}:
     * built here, copying each element whole unless it needs escaping, where pgjdbc's {@code createArrayOf}
     * escapes character by character and took a sixth of the batch path's CPU time. Every element is quoted, with
     * {@code "} and {@code \} escaped, so that commas, braces, spaces and the word NULL in a key stay text.
     */
    static String arrayLiteral(List<String> elements) {
      int length = 2;
      for (String element : elements) {
        length += element.length() + 3;
      }
      StringBuilder literal = new StringBuilder(length).append('{');
      for (int i = 0; i < elements.size(); i++) {
        String element = elements.get(i);
        if (i > 0) {
          literal.append(',');
        }
        literal.append('"');
        if (element.indexOf('"') < 0 && element.indexOf('\\') < 0) {
          literal.append(element); // the usual case: copied whole
        } else {
          for (int c = 0; c < element.length(); c++) {
            char ch = element.charAt(c);
            if (ch == '"' || ch == '\\') {
              literal.append('\\');
            }
            literal.append(ch);
          }
        }
        literal.append('"');
      }
      return literal.append('}').toString();
    }

    @Override
    Map<String, StoredRecord> read(Connection connection, String scope, List<String> keys) throws SQLException {
      Map<String, StoredRecord> records = new HashMap<>(keys.size() * 2);
      try (PreparedStatement select = connection.prepareStatement(readSql)) {
        select.setString(1, scope);
        select.setString(2, arrayLiteral(keys));
        collect(select, records);
      }
      return records;
    }
  }

  /** Multi-row statements of up to {@link #ROWS_PER_STATEMENT} rows with RETURNING (MariaDB). */
  /**
   * {@link ArrayBound} on a {@link dev.idem.runtime.RecordLayout#DAY_PARTITIONS} table: the batch's per-key advisory
   * locks and its one claiming statement travel in one round trip (see {@link SqlDialect#batchClaimSql}).
   */
  static final class DayPartitionedArrayBound extends BatchStatements {
    private final String table;
    private final String claimSql;

    /** The batch claim of keys that carry their time: one statement, no lock (see {@link #claimByKeyTime}). */
    private final String keyTimeClaimSql;

    DayPartitionedArrayBound(SqlDialect dialect, String table) {
      super(dialect, table);
      this.table = table;
      this.claimSql = dialect.batchClaimSql(table, 0);
      this.keyTimeClaimSql = dialect.keyTimeBatchClaimSql(table);
    }

    /**
     * Keys that carry their time, each filed under its own day: the primary key alone makes each unique, so the
     * batch keeps the one statement of {@link ArrayBound} with a third array, the keys' days, and takes no lock.
     */
    private Claimed claimByKeyTime(Connection connection, CommandSpec<?> spec, List<String> keys,
        List<String> fingerprints, long now, long expiresAt) throws SQLException {
      StringBuilder buckets = new StringBuilder(keys.size() * 6).append('{');
      for (int i = 0; i < keys.size(); i++) {
        buckets.append(i == 0 ? "" : ",").append(SqlDialect.dayBucket(KeyTimes.embeddedMillis(spec, keys.get(i), now)));
      }
      buckets.append('}');
      try (PreparedStatement claim = connection.prepareStatement(keyTimeClaimSql)) {
        claim.setString(1, ArrayBound.arrayLiteral(keys));
        claim.setString(2, ArrayBound.arrayLiteral(fingerprints));
        claim.setString(3, buckets.toString());
        claim.setString(4, spec.scope());
        claim.setLong(5, now);
        claim.setLong(6, expiresAt);
        Set<String> inserted = new HashSet<>(keys.size() * 2);
        Map<String, StoredRecord> recorded = new HashMap<>();
        try (ResultSet rows = claim.executeQuery()) {
          while (rows.next()) {
            String state = rows.getString(2);
            if (state == null) { // state is NOT NULL in the table: a row of the claim's RETURNING
              inserted.add(rows.getString(1));
            } else {
              recorded.put(rows.getString(1), new StoredRecord(state, rows.getString(3), rows.getLong(4)));
            }
          }
        } catch (SQLException e) {
          throw SqlDialect.explainMissingPartition(e);
        }
        return new Claimed(inserted, recorded);
      }
    }

    @Override
    Claimed claim(Connection connection, CommandSpec<?> spec, List<String> keys, List<String> fingerprints, long now,
                  long expiresAt) throws SQLException {
      if (spec.keyTime() != dev.idem.KeyTime.NONE) {
        return claimByKeyTime(connection, spec, keys, fingerprints, now, expiresAt);
      }
      String scope = spec.scope();
      try (PreparedStatement claim = connection.prepareStatement(claimSql)) {
        String keyArray = ArrayBound.arrayLiteral(keys);
        claim.setString(1, table + '\u001f' + scope + '\u001f');
        claim.setString(2, keyArray);
        claim.setString(3, keyArray);
        claim.setString(4, ArrayBound.arrayLiteral(fingerprints));
        claim.setString(5, scope);
        claim.setLong(6, now);
        claim.setLong(7, expiresAt);
        claim.setInt(8, SqlDialect.dayBucket(now));
        // A consumed message's dedup window is the batch command's retention: its records expire that long after.
        claim.setInt(9, SqlDialect.dayBucket(now - (expiresAt - now)));
        Set<String> inserted = new HashSet<>(keys.size() * 2);
        Map<String, StoredRecord> recorded = new HashMap<>();
        try {
          claim.execute(); // the locks' row
          if (!claim.getMoreResults()) {
            throw new SQLException("The batch claim returned no rows", "XX000");
          }
          try (ResultSet rows = claim.getResultSet()) {
            while (rows.next()) {
              String state = rows.getString(2);
              if (state == null) { // state is NOT NULL in the table: a row of the claim's RETURNING
                inserted.add(rows.getString(1));
              } else {
                recorded.put(rows.getString(1), new StoredRecord(state, rows.getString(3), rows.getLong(4)));
              }
            }
          }
        } catch (SQLException e) {
          throw SqlDialect.explainMissingPartition(e);
        }
        return new Claimed(inserted, recorded);
      }
    }
  }

  static final class RowBound extends BatchStatements {

    /** A claim's text for a number of rows. */
    private record ClaimText(int rows, String sql) {}

    /**
     * The text of the last claim's size: consumers send batches of one size, and the text of 100 rows (3 KB, built
     * in a growing StringBuilder) was made again for every batch. Racy on purpose: a thread that misses builds it.
     */
    private volatile ClaimText lastClaim = new ClaimText(0, "");

    RowBound(SqlDialect dialect, String table) {
      super(dialect, table);
    }

    private String claimSql(int rows) {
      ClaimText last = lastClaim;
      if (last.rows() != rows) {
        last = new ClaimText(rows, dialect.batchClaimSql(table, rows));
        lastClaim = last;
      }
      return last.sql();
    }

    @Override
    Claimed claim(Connection connection, CommandSpec<?> spec, List<String> keys, List<String> fingerprints, long now,
                  long expiresAt) throws SQLException {
      String scope = spec.scope();
      Set<String> inserted = new HashSet<>(keys.size() * 2);
      for (int from = 0; from < keys.size(); from += ROWS_PER_STATEMENT) {
        int to = Math.min(keys.size(), from + ROWS_PER_STATEMENT);
        try (PreparedStatement claim = connection.prepareStatement(claimSql(to - from))) {
          int parameter = 1;
          for (int i = from; i < to; i++) {
            claim.setString(parameter++, scope);
            claim.setString(parameter++, keys.get(i));
            claim.setString(parameter++, fingerprints.get(i));
            claim.setLong(parameter++, now);
            claim.setLong(parameter++, expiresAt);
          }
          collectKeys(claim, inserted);
        }
      }
      return new Claimed(inserted, null);
    }
  }

  /**
   * A JDBC batch of single-row inserts whose per-row update counts say which rows this transaction inserted (H2).
   * A row fails with a duplicate key (23505) once a competing claim has committed (the database waits for it
   * first); any other failure is rethrown.
   */
  static final class JdbcBatched extends BatchStatements {
    private static final String DUPLICATE_KEY = "23505";
    private final String claimSql;

    JdbcBatched(SqlDialect dialect, String table) {
      super(dialect, table);
      this.claimSql = dialect.batchClaimSql(table, 1);
    }

    @Override
    Claimed claim(Connection connection, CommandSpec<?> spec, List<String> keys, List<String> fingerprints, long now,
                  long expiresAt) throws SQLException {
      String scope = spec.scope();
      int[] counts;
      try (PreparedStatement claim = connection.prepareStatement(claimSql)) {
        for (int i = 0; i < keys.size(); i++) {
          claim.setString(1, scope);
          claim.setString(2, keys.get(i));
          claim.setString(3, fingerprints.get(i));
          claim.setLong(4, now);
          claim.setLong(5, expiresAt);
          claim.addBatch();
        }
        try {
          counts = claim.executeBatch();
        } catch (BatchUpdateException e) {
          if (!onlyDuplicateKeys(e)) {
            throw e;
          }
          counts = e.getUpdateCounts();
        }
      }
      if (counts.length != keys.size()) {
        throw new SQLException(dialect + " reported " + counts.length + " update counts for a batch of "
            + keys.size());
      }
      Set<String> inserted = new HashSet<>(keys.size() * 2);
      for (int i = 0; i < counts.length; i++) {
        if (counts[i] == 1) {
          inserted.add(keys.get(i));
        }
      }
      return new Claimed(inserted, null);
    }

    /** Whether every failed row of the batch failed because its key is recorded already. */
    private boolean onlyDuplicateKeys(BatchUpdateException e) {
      SQLException failure = e.getNextException();
      if (failure == null) {
        return false;
      }
      // H2 chains one exception per failed row; each must be a duplicate key, judged on its own SQLState.
      for (; failure != null; failure = failure.getNextException()) {
        if (!DUPLICATE_KEY.equals(failure.getSQLState())) {
          return false;
        }
      }
      return true;
    }
  }

  /**
   * A batch on MariaDB's day partitions: the keys' named locks in their sorted order (one statement), one locking
   * probe of the dedup window's days for all keys, one multi-row insert of the rest into today's partition, the
   * locks released in {@code finally} (see {@link SqlDialect.DayPartitionedMariaDbDialect}). Keys that carry their
   * time take the same path, each filed under its own day: correct, not lock-free (a lock-free multi-row insert
   * would need INSERT IGNORE, which also swallows the refusal of a day without partition). Three statements per
   * chunk of
   * {@link #ROWS_PER_STATEMENT} keys, plus the release. After a switch from one table the probe also reads the old
   * table's live records of the keys, in the same statement.
   */
  static final class DayPartitionedLocked extends BatchStatements {
    private final SqlDialect.DayPartitionedMariaDbDialect days;

    DayPartitionedLocked(SqlDialect.DayPartitionedMariaDbDialect dialect, String table) {
      super(dialect, table);
      this.days = dialect;
    }

    @Override
    Claimed claim(Connection connection, CommandSpec<?> spec, List<String> keys, List<String> fingerprints, long now,
                  long expiresAt) throws SQLException {
      String scope = spec.scope();
      int firstBucket = SqlDialect.dayBucket(now - (expiresAt - now));
      int[] buckets = new int[keys.size()];
      for (int i = 0; i < keys.size(); i++) { // every key's time checked before anything is written
        buckets[i] = SqlDialect.dayBucket(spec.keyTime() == dev.idem.KeyTime.NONE ? now
            : KeyTimes.embeddedMillis(spec, keys.get(i), now));
      }
      Set<String> inserted = new HashSet<>(keys.size() * 2);
      Map<String, StoredRecord> live = new HashMap<>(keys.size() * 2);
      for (int from = 0; from < keys.size(); from += ROWS_PER_STATEMENT) {
        int to = Math.min(keys.size(), from + ROWS_PER_STATEMENT);
        List<String> texts = new ArrayList<>(to - from);
        for (int i = from; i < to; i++) {
          texts.add(SqlDialect.DayPartitionedMariaDbDialect.lockText(table, scope, keys.get(i)));
        }
        SqlDialect.DayPartitionedMariaDbDialect.lock(connection, texts);
        SQLException failure = null;
        try {
          Map<String, StoredRecord> found = new HashMap<>();
          try (PreparedStatement probe = connection.prepareStatement(days.batchProbeSql(table, to - from))) {
            int parameter = 1;
            probe.setString(parameter++, scope);
            for (int i = from; i < to; i++) {
              probe.setString(parameter++, keys.get(i));
            }
            probe.setInt(parameter++, firstBucket);
            probe.setLong(parameter++, now);
            if (days.switchedFrom() != null) { // the table switched from, probed in the same statement
              probe.setString(parameter++, scope);
              for (int i = from; i < to; i++) {
                probe.setString(parameter++, keys.get(i));
              }
              probe.setLong(parameter, now);
            }
            collect(probe, found);
          }
          live.putAll(found);
          List<Integer> rest = new ArrayList<>();
          for (int i = from; i < to; i++) {
            if (!found.containsKey(keys.get(i))) {
              rest.add(i);
            }
          }
          if (!rest.isEmpty()) {
            try (PreparedStatement claim = connection.prepareStatement(dialect.batchClaimSql(table, rest.size()))) {
              int parameter = 1;
              for (int i : rest) {
                claim.setString(parameter++, scope);
                claim.setString(parameter++, keys.get(i));
                claim.setString(parameter++, fingerprints.get(i));
                claim.setLong(parameter++, now);
                claim.setLong(parameter++, expiresAt);
                claim.setInt(parameter++, buckets[i]);
              }
              claim.executeUpdate();
            }
            for (int i : rest) {
              inserted.add(keys.get(i));
            }
          }
        } catch (SQLException e) {
          failure = SqlDialect.explainMissingPartition(e);
          throw failure;
        } finally {
          SqlDialect.DayPartitionedMariaDbDialect.unlock(connection, texts, failure);
        }
      }
      return new Claimed(inserted, live);
    }

    /** As {@link BatchStatements#read}; after a switch the keys are bound a second time, for the old table. */
    @Override
    Map<String, StoredRecord> read(Connection connection, String scope, List<String> keys) throws SQLException {
      if (days.switchedFrom() == null) {
        return super.read(connection, scope, keys);
      }
      Map<String, StoredRecord> records = new HashMap<>(keys.size() * 2);
      for (int from = 0; from < keys.size(); from += ROWS_PER_STATEMENT) {
        List<String> chunk = keys.subList(from, Math.min(keys.size(), from + ROWS_PER_STATEMENT));
        try (PreparedStatement select = connection.prepareStatement(dialect.batchSelectSql(table, chunk.size()))) {
          int parameter = 1;
          for (int side = 0; side < 2; side++) { // the day partitions, then the table switched from
            select.setString(parameter++, scope);
            for (String key : chunk) {
              select.setString(parameter++, key);
            }
          }
          collect(select, records);
        }
      }
      return records;
    }
  }
}
