package dev.idem.runtime.internal;

import dev.idem.runtime.Dialect;
import dev.idem.runtime.RecordLayout;

import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Every SQL text idem's runtime runs against {@code idem_record} (and the transition log), per database, and
 * everything else it must know about that database: the DDL resources, how a claim avoids poisoning the
 * transaction, which batch claim fits, and how errors are classified (by SQLState and vendor code only, never by
 * message text). One instance per {@link Dialect}; the user picks the {@link Dialect}, the runtime's internals
 * talk to this.
 *
 * <p>This class family is the runtime's only place for dialect knowledge: executors ({@link RecordStatements},
 * {@link ClaimExecutor}, {@link BatchStatements}, {@link ExpiredRecordPurger}, {@link Transitions}) ask it for
 * their statements once, bind parameters and interpret results. The SQL generated into {@code @StateTransition}
 * methods is the processor's (its SQL renderer); see ARCHITECTURE.md. Each statement's Javadoc lists its
 * parameters in order.
 */
abstract class SqlDialect {

  static final SqlDialect H2 = new H2Dialect();
  static final SqlDialect POSTGRESQL = new PostgresDialect();
  static final SqlDialect MARIADB = new MariaDbDialect();

  /** {@code idem_record.state} of a record whose outcome is stored (a batch's records: claimed with their work). */
  static final String COMPLETED = "COMPLETED";
  /**
   * {@code idem_record.state} of a transactional claim whose command has not finished: it turns {@code COMPLETED}
   * with its outcome in the same transaction, so a committed {@code PENDING} record means the body ended idem's
   * transaction early (an implicit commit: DDL on MariaDB, MySQL or H2), and is broken.
   */
  static final String PENDING = "PENDING";
  /** {@code idem_record.state} of a {@code CLAIM} record whose body runs. */
  static final String IN_PROGRESS = "IN_PROGRESS";
  /**
   * {@code idem_record.state} of a {@code CLAIM} record whose body returned (its external effects happened) but
   * whose outcome could not be recorded; {@code result} then holds idem's {@link OutcomeNote}. Never released, never
   * taken over when its lease ends; it expires by retention, or an operator resolves or forgets it.
   */
  static final String OUTCOME_UNKNOWN = "OUTCOME_UNKNOWN";

  /** The transition log's table; its DDL is {@link #transitionLogSchemaResource()}. */
  static final String TRANSITION_LOG_TABLE = "idem_transition_log";

  private static final String CLAIM_COLUMNS = " (scope, idem_key, state, fingerprint, created_at, expires_at)";
  private static final String CLAIM_VALUES = "(?, ?, ?, ?, ?, ?)";
  private static final String COMPLETED_CLAIM_VALUES = "(?, ?, '" + COMPLETED + "', ?, ?, ?)";
  private static final String LEASE_CLAIM_COLUMNS =
      " (scope, idem_key, state, fingerprint, owner_token, lease_until, created_at, expires_at)"
          + " VALUES (?, ?, '" + IN_PROGRESS + "', ?, ?, ?, ?, ?)";
  /**
   * {@link #LEASE_CLAIM_COLUMNS}' values as a row that is inserted only if the key has no committed record: the NOT
   * EXISTS is a plain read, so a recorded key inserts nothing without waiting for a row lock on its record (an owner
   * extending its lease holds one until its body's transaction commits).
   */
  private static final String LEASE_CLAIM_UNLESS_RECORDED =
      " (scope, idem_key, state, fingerprint, owner_token, lease_until, created_at, expires_at)"
          + " SELECT * FROM (VALUES (?, ?, '" + IN_PROGRESS + "', ?, ?, ?, ?, ?)) AS claim (s, k, st, f, o, l, c, e)"
          + " WHERE NOT EXISTS (SELECT 1 FROM %s WHERE scope = claim.s AND idem_key = claim.k)";
  private static final String BY_KEY = " WHERE scope = ? AND idem_key = ?";
  private static final String FENCED_BY_OWNER = BY_KEY + " AND state = '" + IN_PROGRESS + "' AND owner_token = ?";
  private static final String BATCH_SELECT_COLUMNS = "SELECT idem_key, state, fingerprint, expires_at FROM ";

  private final Dialect dialect;

  private SqlDialect(Dialect dialect) {
    this.dialect = dialect;
  }

  /**
   * The SQL of {@code dialect} for the table laid out as {@code layout}.
   *
   * @param switchedFrom with {@link RecordLayout#DAY_PARTITIONS}: the one-table record table the runtime switched
   *     from, whose live records claims still respect; null for none
   */
  static SqlDialect of(Dialect dialect, RecordLayout layout, String switchedFrom) {
    if (layout == RecordLayout.ONE_TABLE) {
      return of(dialect);
    }
    switch (dialect) {
      case POSTGRESQL:
        return new DayPartitionedPostgresDialect(switchedFrom);
      case MARIADB:
        return new DayPartitionedMariaDbDialect(switchedFrom);
      default:
        throw new IllegalArgumentException(dialect + " keeps idem's records in one table: RecordLayout." + layout
            + " needs PostgreSQL or MariaDB");
    }
  }

  /** The one-table record table this runtime switched from and still probes, or null. */
  String switchedFrom() {
    return null;
  }

  /** The SQL of {@code dialect}, one table. */
  static SqlDialect of(Dialect dialect) {
    switch (dialect) {
      case H2:
        return H2;
      case POSTGRESQL:
        return POSTGRESQL;
      case MARIADB:
        return MARIADB;
      default:
        throw new AssertionError(dialect);
    }
  }

  /** @return the user-facing dialect this SQL is for */
  Dialect dialect() {
    return dialect;
  }

  @Override
  public String toString() {
    return dialect.toString();
  }

  // ------------------------------------------------------------------------------------------------
  // DDL

  /** Classpath resource (relative to {@code dev.idem.runtime}) holding the DDL, with {@code idem_record} as the table name. */
  abstract String schemaResource();

  /** Classpath resource (relative to {@code dev.idem.runtime}) holding the transition log's DDL. */
  String transitionLogSchemaResource() {
    return schemaResource().replace("schema/", "schema/transition-log-");
  }

  /** The layout of the record table this SQL is for. */
  RecordLayout layout() {
    return RecordLayout.ONE_TABLE;
  }

  /** Classpath resource (relative to {@code dev.idem.runtime}) holding the single-flight lock table's DDL. */
  final String lockSchemaResource() {
    // The lock table is the same whatever the record table's layout: postgresql-day-partitions.sql's runtime uses
    // lock-postgresql.sql.
    return schemaResource().replace("schema/", "schema/lock-").replace("-day-partitions", "");
  }

  // ------------------------------------------------------------------------------------------------
  // Single-flight locks (JdbcLockProvider): one row per lock name in idem_lock, never deleted, so that its fencing
  // token keeps increasing. Every time is the database's, taken by the statement itself (lockNowMillis()): no
  // runtime's clock, skewed or not, decides whether a lease has ended.

  /** The single-flight lock table; its DDL is {@link #lockSchemaResource()}. */
  static final String LOCK_TABLE = "idem_lock";

  /**
   * An SQL expression for the database's time in epoch millis, the same wherever it appears in one statement (the
   * statement's own time), so that "the lease has ended" and "the new lease ends at" agree.
   */
  abstract String lockNowMillis();

  /**
   * The acquisition: ONE statement that takes the lock's row over only if its lease has ended, increasing the
   * fencing token in the same statement, and also inserts the name's first row where not
   * {@link #lockAcquireTakesOverOnly()} (H2's MERGE; its parameters: name, owner token, lease millis, locked by).
   * Where {@link #lockAcquireReturnsRow()}, it returns the new {@code fence} exactly when it won; elsewhere the
   * update count, the insert id or {@link #lockReadBackSql()} tells.
   */
  abstract String lockAcquireSql();

  /** Whether {@link #lockAcquireSql()} is a query returning the won lease's token (PostgreSQL's {@code RETURNING}). */
  boolean lockAcquireReturnsRow() {
    return false;
  }

  /**
   * Whether {@link #lockAcquireSql()} is {@link #lockTakeOverSql()}, which takes an existing row only, so that the
   * first acquisition of a name is {@link #lockInsertSql()} (PostgreSQL, MariaDB and MySQL: see their
   * {@code lockAcquireSql}).
   */
  boolean lockAcquireTakesOverOnly() {
    return false;
  }

  /**
   * Whether {@link #lockAcquireSql()} sets the new fencing token as the statement's insert id
   * ({@code LAST_INSERT_ID(expr)}, MariaDB and MySQL), which the driver returns with the update count
   * ({@code getGeneratedKeys()}): no read-back statement.
   */
  boolean lockAcquireReportsFenceAsInsertId() {
    return false;
  }

  /**
   * ONE statement that takes an existing lock row whose lease has ended and increases its fencing token. Parameters:
   * owner token, lease millis, locked by, name. One row: won.
   */
  final String lockTakeOverSql() {
    return "UPDATE " + LOCK_TABLE + " SET fence = fence + 1, owner_token = ?, locked_at = " + lockNowMillis()
        + ", lease_until = " + lockNowMillis() + " + ?, locked_by = ? WHERE name = ? AND lease_until <= "
        + lockNowMillis();
  }

  /**
   * The first acquisition of a name: the row with fencing token 1; a duplicate key (or no row inserted) means
   * another instance created it first (and holds it). Parameters: name, owner token, lease millis, locked by.
   */
  String lockInsertSql() {
    return "INSERT INTO " + LOCK_TABLE + " (name, owner_token, lease_until, fence, locked_at, locked_by) VALUES (?, ?, "
        + lockNowMillis() + " + ?, 1, " + lockNowMillis() + ", ?)";
  }

  /**
   * Reads back what {@link #lockAcquireSql()} did: a row ({@code fence, lease_until}) only if the owner token, unique
   * to that attempt, is in the row, i.e. the attempt won. Parameters: name, owner token.
   */
  final String lockReadBackSql() {
    return "SELECT fence, lease_until FROM " + LOCK_TABLE + " WHERE name = ? AND owner_token = ?";
  }

  /**
   * Renews a lease that is still this owner's and has not ended (an ended lease is lost even if nobody took it yet:
   * another instance could have). Parameters: lease millis, name, owner token. One row: renewed.
   */
  final String lockRenewSql() {
    return "UPDATE " + LOCK_TABLE + " SET lease_until = " + lockNowMillis() + " + ? WHERE name = ? AND owner_token = ?"
        + " AND lease_until > " + lockNowMillis();
  }

  /**
   * Releases, fenced by the owner token and the lease: the lease ends at the acquisition plus lockAtLeastFor, or now
   * if that has passed. Parameters: lockAtLeastFor millis, name, owner token. One row: released; none: the lock was
   * not this owner's any more (taken over, released already, or its lease ended: another instance could have taken
   * it, as a Redis key that expired is gone).
   */
  final String lockReleaseSql() {
    return "UPDATE " + LOCK_TABLE + " SET owner_token = NULL, lease_until = GREATEST(locked_at + ?, "
        + lockNowMillis() + ")" + lockReleaseFrom() + " WHERE name = ? AND owner_token = ? AND lease_until > "
        + lockNowMillis();
  }

  /**
   * Releases with no lockAtLeastFor, as {@link #lockReleaseSql()}: the lease ends now. The token stays in the row:
   * renewals and releases need {@code lease_until > now}, which no later statement sees, and the next acquisition
   * replaces it. Leaving it costs InnoDB less than the other's NULL: the row keeps its size, so both this UPDATE
   * and the next acquisition rewrite the record in place (about 5% of a lock cycle on MariaDB, measured with
   * LockBenchmark). Parameters: name, owner token.
   */
  final String lockReleaseNowSql() {
    return "UPDATE " + LOCK_TABLE + " SET lease_until = " + lockNowMillis() + lockReleaseFrom()
        + " WHERE name = ? AND owner_token = ? AND lease_until > " + lockNowMillis();
  }

  /**
   * A FROM clause for both releases, or empty. A release need not wait for its commit to be durable: one lost in a
   * crash leaves the lease as the acquisition wrote it, ending at lockAtMostFor, the same as a holder killed before
   * its release, so the next run only starts later (never twice), and the fencing token, written by acquisitions
   * alone, never goes back. Renewals and acquisitions stay durable: a lost renewal would end a running holder's
   * lease early, a lost acquisition would hand its fencing token out again.
   */
  String lockReleaseFrom() {
    return "";
  }

  // ------------------------------------------------------------------------------------------------
  // The transactional outbox (OutboxWriter writes, OutboxRelayLoop claims, publishes and marks): one row per event
  // in idem_outbox. Every time is the database's, taken by the statement itself (lockNowMillis()), like the locks':
  // relays on skewed clocks agree on when a claim's lease ends and when a backoff is over.

  /** The outbox table; its DDL is {@link #outboxSchemaResource()}. */
  static final String OUTBOX_TABLE = "idem_outbox";
  /** {@code idem_outbox.state} of an event to publish (claimed or not: a claim is a token and a lease). */
  static final String OUTBOX_PENDING = "PENDING";
  /** {@code idem_outbox.state} of an event the broker confirmed; expires by retention. */
  static final String OUTBOX_SENT = "SENT";
  /** {@code idem_outbox.state} of an event no relay publishes again until an operator requeues it. */
  static final String OUTBOX_PARKED = "PARKED";

  /** Classpath resource (relative to {@code dev.idem.runtime}) holding the outbox table's DDL. */
  final String outboxSchemaResource() {
    // DAY_PARTITIONS: idem_outbox is partitioned by the day of created_at, like the transition log by applied_at.
    return schemaResource().replace("schema/", "schema/outbox-");
  }

  /**
   * Writes one event in the caller's transaction, PENDING and due now. Parameters: id, destination, partition key,
   * event type, headers JSON, payload JSON.
   */
  final String outboxInsertSql() {
    return "INSERT INTO " + OUTBOX_TABLE + " (id, destination, partition_key, key_hash, event_type, headers, payload,"
        + " created_at, state, attempts, next_attempt_at) VALUES (?, ?, ?, ?, ?, ?, ?, " + lockNowMillis() + ", '"
        + OUTBOX_PENDING + "', 0, " + lockNowMillis() + ")";
  }

  /** Ordered relays' key-hash partitions; DDL in {@link #outboxSchemaResource()}. */
  static final String OUTBOX_PARTITION_TABLE = "idem_outbox_partition";
  /** Ordered relays' heartbeats; DDL in {@link #outboxSchemaResource()}. */
  static final String OUTBOX_RELAY_TABLE = "idem_outbox_relay";

  /**
   * An ordered relay's claim read: due PENDING rows of the partitions it owns, in id order, of which no earlier row
   * of the same key is still PENDING and not due (backing off, or claimed by a relay that owned the partition before);
   * rows an earlier row of their key precedes in the result come after it. Locks without skipping: the previous
   * owner's marks are waited for, never skipped past. Parameters: partitions, partitions, each owned partition, the
   * batch size.
   */
  final String outboxOrderedClaimSelectSql(int ownedPartitions) {
    StringBuilder in = new StringBuilder();
    for (int i = 0; i < ownedPartitions; i++) {
      in.append(i == 0 ? "?" : ", ?");
    }
    return "SELECT o.id, o.destination, o.partition_key, o.event_type, o.headers, o.payload, o.created_at, o.attempts, "
        + lockNowMillis() + " AS now_ms, MOD(o.key_hash, ?) AS partition_no FROM " + OUTBOX_TABLE + " o WHERE o.state = '"
        + OUTBOX_PENDING + "' AND o.next_attempt_at <= " + lockNowMillis() + " AND MOD(o.key_hash, ?) IN (" + in
        + ") AND NOT EXISTS (SELECT 1 FROM " + OUTBOX_TABLE + " e WHERE e.partition_key = o.partition_key AND e.state = '"
        + OUTBOX_PENDING + "' AND e.id < o.id AND e.next_attempt_at > " + lockNowMillis() + ") ORDER BY o.id LIMIT ?"
        + " FOR UPDATE";
  }

  /** Creates a partition's row if it has none (a race with another relay fails as a duplicate key). Params: no, no. */
  final String outboxPartitionCreateSql() {
    return "INSERT INTO " + OUTBOX_PARTITION_TABLE + " (partition_no, owner, epoch, lease_until) SELECT ?, NULL, 0, 0"
        + " FROM (SELECT 1 AS one) AS t WHERE NOT EXISTS (SELECT 1 FROM " + OUTBOX_PARTITION_TABLE
        + " WHERE partition_no = ?)";
  }

  /** Renews a relay's heartbeat. Parameters: lease millis, relay id. */
  final String outboxRelayBeatSql() {
    return "UPDATE " + OUTBOX_RELAY_TABLE + " SET lease_until = " + lockNowMillis() + " + ? WHERE relay_id = ?";
  }

  /** A relay's first heartbeat. Parameters: relay id, lease millis. */
  final String outboxRelayJoinSql() {
    return "INSERT INTO " + OUTBOX_RELAY_TABLE + " (relay_id, lease_until) VALUES (?, " + lockNowMillis() + " + ?)";
  }

  /** How many relays are alive (heartbeat lease not ended). */
  final String outboxLiveRelaysSql() {
    return "SELECT COUNT(*) FROM " + OUTBOX_RELAY_TABLE + " WHERE lease_until > " + lockNowMillis();
  }

  /** Forgets relays whose heartbeat ended long ago (an hour). */
  final String outboxDeadRelaysSql() {
    return "DELETE FROM " + OUTBOX_RELAY_TABLE + " WHERE lease_until < " + lockNowMillis() + " - 3600000";
  }

  /** A relay leaving. Parameter: relay id. */
  final String outboxRelayLeaveSql() {
    return "DELETE FROM " + OUTBOX_RELAY_TABLE + " WHERE relay_id = ?";
  }

  /** Renews an owned partition's lease, fenced by owner and epoch. Parameters: lease millis, no, owner, epoch. */
  final String outboxPartitionRenewSql() {
    return "UPDATE " + OUTBOX_PARTITION_TABLE + " SET lease_until = " + lockNowMillis() + " + ? WHERE partition_no = ?"
        + " AND owner = ? AND epoch = ? AND lease_until > " + lockNowMillis();
  }

  /** Gives an owned partition up. Parameters: no, owner, epoch. */
  final String outboxPartitionReleaseSql() {
    return "UPDATE " + OUTBOX_PARTITION_TABLE + " SET owner = NULL, lease_until = 0 WHERE partition_no = ? AND owner = ?"
        + " AND epoch = ?";
  }

  /** The partitions free to take (no owner, or its lease ended). */
  final String outboxFreePartitionsSql() {
    return "SELECT partition_no FROM " + OUTBOX_PARTITION_TABLE + " WHERE partition_no < ? AND (owner IS NULL OR"
        + " lease_until <= " + lockNowMillis() + ") ORDER BY partition_no";
  }

  /** Takes a free partition with a new epoch. Parameters: owner, lease millis, no. One row: taken. */
  final String outboxPartitionTakeSql() {
    return "UPDATE " + OUTBOX_PARTITION_TABLE + " SET owner = ?, epoch = epoch + 1, lease_until = " + lockNowMillis()
        + " + ? WHERE partition_no = ? AND (owner IS NULL OR lease_until <= " + lockNowMillis() + ")";
  }

  /** Reads a partition's owner and epoch; with the lock the mark takes before marking (fences a takeover). */
  final String outboxPartitionReadSql(boolean lock) {
    return "SELECT owner, epoch FROM " + OUTBOX_PARTITION_TABLE + " WHERE partition_no = ?" + (lock ? " FOR UPDATE" : "");
  }

  /**
   * The claim's read: due PENDING rows, oldest due first, locked, skipping rows another relay's claim transaction
   * holds (so relays take disjoint batches and never wait for each other); also the database's time, for the lag.
   * By the claim index (state, next_attempt_at). Parameter: the batch size.
   */
  String outboxClaimSelectSql() {
    return "SELECT id, destination, partition_key, event_type, headers, payload, created_at, attempts, "
        + lockNowMillis() + " AS now_ms FROM " + OUTBOX_TABLE + " WHERE state = '" + OUTBOX_PENDING
        + "' AND next_attempt_at <= " + lockNowMillis() + " ORDER BY next_attempt_at LIMIT ? FOR UPDATE SKIP LOCKED";
  }

  /**
   * Marks a published row sent, fenced by the claim token: a relay whose lease ended and whose rows another relay
   * claimed marks nothing. Parameters: retention millis, id, claim token.
   */
  final String outboxMarkSentSql() {
    return "UPDATE " + OUTBOX_TABLE + " SET state = '" + OUTBOX_SENT + "', sent_at = " + lockNowMillis()
        + ", expires_at = " + lockNowMillis() + " + ?, claim_token = NULL, last_error = NULL WHERE id = ?"
        + " AND claim_token = ?";
  }

  /**
   * Marks a batch of published rows sent in one statement, fenced by the claim token like {@link
   * #outboxMarkSentSql()}: the relay compares the update count with the ids it sent and, when a claim was lost on some
   * of them, rolls back and marks row by row to learn which. The rows' created_at range lets a day-partitioned table
   * read only their days. Parameters: retention millis, claim token, earliest and latest created_at, each id.
   */
  final String outboxMarkSentBatchSql(int rows) {
    return "UPDATE " + OUTBOX_TABLE + " SET state = '" + OUTBOX_SENT + "', sent_at = " + lockNowMillis()
        + ", expires_at = " + lockNowMillis() + " + ?, claim_token = NULL, last_error = NULL WHERE claim_token = ?"
        + " AND created_at BETWEEN ? AND ? AND id IN (" + placeholders(rows) + ")";
  }

  /**
   * The claim's write, in the same short transaction, one statement for the batch (its rows are locked by the
   * claim's read): the rows are this relay's until the lease ends, when they are due again for any relay (a crashed
   * relay's claim thus expires by itself). Parameters: claim token, lease millis, earliest and latest created_at (a
   * day-partitioned table reads only those days), each id.
   */
  final String outboxClaimBatchSql(int rows) {
    return "UPDATE " + OUTBOX_TABLE + " SET claim_token = ?, next_attempt_at = " + lockNowMillis() + " + ? WHERE"
        + " created_at BETWEEN ? AND ? AND id IN (" + placeholders(rows) + ")";
  }

  /** A RETRY outcome: due again after the backoff, fenced. Parameters: backoff millis, reason, id, claim token. */
  final String outboxRetrySql() {
    return "UPDATE " + OUTBOX_TABLE + " SET attempts = attempts + 1, next_attempt_at = " + lockNowMillis()
        + " + ?, claim_token = NULL, last_error = ? WHERE id = ? AND claim_token = ?";
  }

  /** A PARK outcome (or an unreadable row), fenced. Parameters: reason, id, claim token. */
  final String outboxParkSql() {
    return "UPDATE " + OUTBOX_TABLE + " SET state = '" + OUTBOX_PARKED + "', attempts = attempts + 1,"
        + " claim_token = NULL, last_error = ? WHERE id = ? AND claim_token = ?";
  }

  /** A relay stopping mid-batch gives its claim back: due now. Parameters: id, claim token. */
  final String outboxReleaseSql() {
    return "UPDATE " + OUTBOX_TABLE + " SET claim_token = NULL, next_attempt_at = " + lockNowMillis()
        + " WHERE id = ? AND claim_token = ?";
  }

  /** Parked rows for the operator, oldest first (by the claim index's state prefix). Parameter: the limit. */
  final String outboxParkedSql() {
    return "SELECT id, destination, partition_key, event_type, created_at, attempts, last_error FROM " + OUTBOX_TABLE
        + " WHERE state = '" + OUTBOX_PARKED + "' ORDER BY id LIMIT ?";
  }

  /** An operator requeues one parked row: PENDING, due now, attempts from zero. Parameter: id. */
  final String outboxRequeueSql() {
    return "UPDATE " + OUTBOX_TABLE + " SET state = '" + OUTBOX_PENDING + "', attempts = 0, next_attempt_at = "
        + lockNowMillis() + ", claim_token = NULL WHERE id = ? AND state = '" + OUTBOX_PARKED + "'";
  }

  /**
   * Deletes a batch of sent rows past their retention, by the expiry index (only SENT rows have an expiry), never
   * waiting for rows another purge holds. Parameter: the batch size.
   */
  String outboxPurgeSql() {
    return "DELETE FROM " + OUTBOX_TABLE + " WHERE id IN (SELECT id FROM " + OUTBOX_TABLE + " WHERE expires_at <= "
        + lockNowMillis() + " ORDER BY expires_at LIMIT ? FOR UPDATE SKIP LOCKED)";
  }

  /** Counts by state and the oldest due PENDING row's creation, for the lag. */
  final String outboxCountsSql() {
    return "SELECT state, COUNT(*), MIN(created_at), " + lockNowMillis() + " FROM " + OUTBOX_TABLE + " GROUP BY state";
  }

  // ------------------------------------------------------------------------------------------------
  // Transactional mode (RecordStatements): records are inserted PENDING and turn COMPLETED with their outcome, in
  // one transaction; nobody sees them before the commit.

  /**
   * Whether a statement the body runs can commit idem's transaction behind its back (DDL commits implicitly on
   * MariaDB, MySQL and H2). Where it cannot, a void command without {@code replayOn} inserts its claim
   * {@code COMPLETED} right away, saving the completing statement: its outcome, "the body returned", commits with
   * the claim or not at all.
   */
  abstract boolean commitsImplicitly();

  /**
   * Whether idem opens its own transactions with a {@code START TRANSACTION} statement on a connection that stays
   * in auto-commit mode, and ends them with {@code COMMIT} / {@code ROLLBACK} statements (see
   * {@link StatementTransactionConnection}), rather than with {@code setAutoCommit(false)} and
   * {@code setAutoCommit(true)}: where the driver sends each auto-commit switch as a round trip of its own
   * (MariaDB and MySQL Connector/J), that is one round trip fewer per transaction. pgjdbc sends nothing for the
   * switch, and H2 runs in-process.
   */
  boolean opensTransactionsWithStatement() {
    return false;
  }

  /**
   * SQL inserting a new record; parameters: scope, key, state (PENDING, or COMPLETED, see
   * {@link #commitsImplicitly}), fingerprint, created_at, expires_at.
   * Executed by {@link #claim(PreparedStatement)}.
   */
  abstract String claimSql(String table);

  /**
   * A {@link #claimSql} that skips no recorded key but fails on it with a duplicate-key exception (which
   * {@link #claim(PreparedStatement)} turns into "recorded"), for a dialect whose {@link #claimSql} pays a probe on
   * every new key to spare recorded keys that exception; null elsewhere. Same parameters, same waits for a
   * competitor's uncommitted claim, executed the same way. The record statements use it except for a few claims
   * after one met a recorded key (see {@code RecordStatements.GUARDED_CLAIMS}).
   */
  String unguardedClaimSql(String table) {
    return null;
  }

  /**
   * Binds {@link #claimSql}'s parameters.
   *
   * @param table the record table (for the per-key lock of a partitioned layout)
   * @param windowMillis the command's dedup window (a partitioned layout probes the days it spans)
   */
  void bindClaim(PreparedStatement claim, String table, String scope, String key, String state, String fingerprint,
      long now, long expiresAt, long windowMillis) throws SQLException {
    claim.setString(1, scope);
    claim.setString(2, key);
    claim.setString(3, state);
    claim.setString(4, fingerprint);
    claim.setLong(5, now);
    claim.setLong(6, expiresAt);
  }

  /**
   * SQL claiming a key under the day its id carries ({@code keyTime}), without a lock; null where the layout does
   * not file records by day (one table: {@link #claimSql} is already unique on the key). Executed by
   * {@link #claim(PreparedStatement)}; parameters bound by {@link #bindKeyTimeClaim}.
   */
  String keyTimeClaimSql(String table) {
    return null;
  }

  /**
   * The batch claim of keys that carry their time, for a layout that files records by day; null elsewhere.
   * Parameters: the keys' array, the fingerprints' array, the keys' days' array, scope, created_at, expires_at.
   * Columns as {@link #batchClaimSql}.
   */
  String keyTimeBatchClaimSql(String table) {
    return null;
  }

  /** Binds {@link #keyTimeClaimSql}'s parameters; {@code keyMillis} is the time the key carries. */
  void bindKeyTimeClaim(PreparedStatement claim, String scope, String key, String state, String fingerprint,
      long now, long expiresAt, long keyMillis) throws SQLException {
    throw new UnsupportedOperationException(this + " files no record by key time");
  }

  /**
   * Runs a bound claim statement ({@link #claimSql} or {@link #leaseClaimSql}) of one key; a layout whose claims
   * serialize per key in the client (MariaDB's day partitions) takes its lock and probes the other days around it.
   *
   * @param firstBucket the first day the probe covers (the dedup window's; {@link Integer#MIN_VALUE}: every day)
   * @return true if this transaction inserted the row, false if the key is already recorded
   */
  boolean claimKey(java.sql.Connection connection, PreparedStatement claim, String table, String scope, String key,
      long now, int firstBucket) throws SQLException {
    return claim(claim);
  }

  /**
   * Runs a claim statement ({@link #claimSql} or {@link #leaseClaimSql}).
   *
   * @return true if this transaction inserted the row, false if the key is already recorded
   */
  boolean claim(PreparedStatement claim) throws SQLException {
    return claim.executeUpdate() == 1;
  }

  /**
   * SQL reading a record by scope and key, seeing the latest committed version; parameters: scope, key. Columns:
   * state, fingerprint, result, error_type, expires_at, result_shape, created_at.
   */
  String selectSql(String table) {
    return "SELECT state, fingerprint, result, error_type, expires_at, result_shape, created_at FROM " + table
        + BY_KEY;
  }

  /**
   * SQL reading the latest committed record of a key without locking it, for a {@code lookupFirst} command's read
   * before its claim (in auto-commit mode: it must never wait for a competitor's uncommitted claim); the columns and
   * parameters of {@link #selectSql}. The same statement where that one takes no lock.
   */
  String lookupSql(String table) {
    return selectSql(table);
  }

  /**
   * SQL reusing an expired record, guarded by its old expiry so that only one caller wins; parameters:
   * fingerprint, state (PENDING for a command, COMPLETED for a batch), created_at, expires_at, scope, key, the
   * expires_at seen.
   */
  final String takeOverSql(String table) {
    return "UPDATE " + table + " SET fingerprint = ?, state = ?, result = NULL, error_type = NULL,"
        + " result_shape = NULL, owner_token = NULL, lease_until = NULL,"
        + " created_at = ?, expires_at = ? WHERE scope = ? AND idem_key = ? AND expires_at = ?";
  }

  /**
   * SQL completing a PENDING record with its outcome; matches exactly one row unless the record was committed or
   * changed behind the command's back. Parameters: result, error_type, result_shape, scope, key.
   */
  final String storeResultSql(String table) {
    return "UPDATE " + table + " SET state = '" + COMPLETED + "', result = ?, error_type = ?, result_shape = ?"
        + BY_KEY + " AND state = '" + PENDING + "'";
  }

  /**
   * SQL completing a PENDING record like {@link #storeResultSql} and committing the transaction, sent as one
   * statement so that the commit costs no round trip of its own; or null where the dialect cannot send both at once
   * with bound parameters. Only for a transaction idem owns (the caller's is the caller's to commit). Same
   * parameters as {@link #storeResultSql}. If the completion matches no row, the statement fails before the commit
   * (see {@link #isNothingToComplete}), so the body's writes never commit without their outcome.
   */
  String storeResultAndCommitSql(String table) {
    return null;
  }

  /** Whether {@link #storeResultAndCommitSql} failed because the completion matched no PENDING record. */
  boolean isNothingToComplete(SQLException e) {
    return false;
  }

  /**
   * After {@link #storeResultAndCommitSql} failed otherwise: whether its commit was reached (the completion before it
   * succeeded), so that its outcome is the commit's, unknown to the caller; false if the completion failed and the
   * commit was skipped (the transaction is aborted, nothing of it committed). Rolls back whatever is left on the
   * connection when it returns true. Runs only on that failure path.
   */
  boolean commitReached(java.sql.Connection connection) {
    return true;
  }

  // ------------------------------------------------------------------------------------------------
  // CLAIM mode (ClaimExecutor): an IN_PROGRESS record with an owner token and a lease, visible at once.

  /**
   * SQL inserting an in-progress claim unless the key is recorded; parameters: scope, key, fingerprint,
   * owner_token, lease_until, created_at, expires_at. Executed by {@link #claim(PreparedStatement)}.
   */
  abstract String leaseClaimSql(String table);

  /**
   * A {@link #leaseClaimSql} that inserts nothing and throws nothing when the key has a committed record, for a
   * dialect whose {@link #leaseClaimSql} fails with a duplicate-key exception there to spare new keys a probe; null
   * elsewhere. Same parameters, same waits, executed the same way. A CLAIM executor switches to it for a few claims
   * after one met a recorded key (see {@code ClaimExecutor.GUARDED_CLAIMS}).
   */
  String guardedLeaseClaimSql(String table) {
    return null;
  }

  /**
   * Whether {@link #leaseClaimSql} inserts nothing, without waiting, when the key has a committed record, even one
   * whose row lock an owner extending its lease holds: then a CLAIM call inserts first and reads only if that
   * inserted nothing (one statement for a new key). Otherwise it reads first (a second statement for a new key),
   * because the insert would wait for that lock, unless the server connected to has a claim that does not wait
   * ({@link #noWaitLeaseClaimSql}).
   */
  boolean leaseClaimSkipsRecordedKeys() {
    return false;
  }

  /**
   * {@link #leaseClaimSql} made to fail at once with {@link #isLockNotAvailable} rather than wait for a row lock, where
   * the server connected to can (then a CLAIM call inserts first even where {@link #leaseClaimSkipsRecordedKeys} is
   * false, reads when the insert was locked out, and waits only for a competitor's claim that is not committed yet);
   * null where it cannot. {@code server} is the metadata of a connection to it; nothing is sent to it.
   */
  String noWaitLeaseClaimSql(String table, DatabaseMetaData server) throws SQLException {
    return null;
  }

  /**
   * Binds {@link #leaseClaimSql}'s (and {@link #noWaitLeaseClaimSql}'s) parameters.
   *
   * @param table the record table (for the per-key lock of a partitioned layout)
   */
  void bindLeaseClaim(PreparedStatement claim, String table, String scope, String key, String fingerprint,
      String ownerToken, long leaseUntil, long now, long expiresAt) throws SQLException {
    claim.setString(1, scope);
    claim.setString(2, key);
    claim.setString(3, fingerprint);
    claim.setString(4, ownerToken);
    claim.setLong(5, leaseUntil);
    claim.setLong(6, now);
    claim.setLong(7, expiresAt);
  }

  /** {@link #leaseClaimSql} for the dialects that guard it with NOT EXISTS. */
  static String leaseClaimUnlessRecordedSql(String table) {
    return "INSERT INTO " + table + String.format(LEASE_CLAIM_UNLESS_RECORDED, table);
  }

  /**
   * SQL reading a record in auto-commit mode (so it sees the latest committed version everywhere); parameters:
   * scope, key. Columns: state, fingerprint, result, error_type, expires_at, owner_token, lease_until,
   * result_shape, created_at.
   */
  String leaseSelectSql(String table) {
    return "SELECT state, fingerprint, result, error_type, expires_at, owner_token, lease_until, result_shape,"
        + " created_at FROM " + table + BY_KEY;
  }

  /**
   * SQL taking over a claim whose lease ended, guarded by the owner seen and the lease having ended: of several
   * callers, exactly one matches. Parameters: owner_token, lease_until, expires_at, scope, key, the owner seen, now.
   */
  final String takeOverLeaseSql(String table) {
    return "UPDATE " + table + " SET owner_token = ?, lease_until = ?, expires_at = ?" + FENCED_BY_OWNER
        + " AND lease_until < ?";
  }

  /**
   * SQL claiming an expired record, guarded by the expiry seen like {@link #takeOverSql}; parameters: fingerprint,
   * owner_token, lease_until, created_at, expires_at, scope, key, the expires_at seen, now.
   */
  final String takeOverExpiredSql(String table) {
    return "UPDATE " + table + " SET state = '" + IN_PROGRESS + "', fingerprint = ?,"
        + " result = NULL, error_type = NULL, result_shape = NULL, owner_token = ?, lease_until = ?, created_at = ?,"
        + " expires_at = ?"
        + BY_KEY + " AND expires_at = ? AND expires_at <= ?";
  }

  /**
   * SQL completing a claim, fenced by the owner token (matches nothing once the lease was taken over); parameters:
   * result, error_type, result_shape, expires_at, scope, key, owner_token.
   */
  final String completeSql(String table) {
    return "UPDATE " + table + " SET state = '" + COMPLETED + "', result = ?, error_type = ?, result_shape = ?,"
        + " owner_token = NULL, lease_until = NULL, expires_at = ?" + FENCED_BY_OWNER;
  }

  /**
   * SQL completing a claim like {@link #completeSql} and committing the body's transaction in the same round trip
   * (as {@link #storeResultAndCommitSql} does for the transactional mode); or null where the dialect cannot. Same
   * parameters as {@link #completeSql}. If the completion matches no row (the lease was taken over), the statement
   * fails with {@link #isNothingToComplete} before the commit, so the body's writes never commit without their
   * outcome; a failure after the completion is told apart by {@link #commitReached}.
   */
  String completeAndCommitSql(String table) {
    return null;
  }

  /** SQL releasing a claim, fenced by the owner token; parameters: scope, key, owner_token. */
  final String releaseSql(String table) {
    return "DELETE FROM " + table + FENCED_BY_OWNER;
  }

  /** SQL extending a lease, fenced by the owner token; parameters: lease_until, expires_at, scope, key, owner_token. */
  final String extendLeaseSql(String table) {
    return "UPDATE " + table + " SET lease_until = ?, expires_at = ?" + FENCED_BY_OWNER;
  }

  /**
   * SQL turning a claim whose body returned into {@link #OUTCOME_UNKNOWN}, fenced by the owner token (which it
   * keeps, for operators); parameters: the note (JSON), expires_at, scope, key, owner_token.
   */
  final String markOutcomeUnknownSql(String table) {
    return "UPDATE " + table + " SET state = '" + OUTCOME_UNKNOWN + "', result = ?, error_type = NULL,"
        + " result_shape = NULL, lease_until = NULL, expires_at = ?" + FENCED_BY_OWNER;
  }

  /**
   * SQL locking a record without waiting, in auto-commit mode (so the lock ends with the statement): fails with
   * {@link #isLockNotAvailable} while an open transaction (an owner extending its lease) holds it. Parameters:
   * scope, key.
   */
  String lockProbeSql(String table) {
    return "SELECT state FROM " + table + BY_KEY + " FOR UPDATE NOWAIT";
  }

  /**
   * SQL reading a record's state under its row lock, waiting for it (a reconciliation in progress holds it), in the
   * reconciling retry's transaction; parameters: scope, key.
   */
  String reconcileLockSql(String table) {
    return "SELECT state, result FROM " + table + BY_KEY + " FOR UPDATE";
  }

  /** Whether a statement failed because a lock was held and it was told not to wait. */
  abstract boolean isLockNotAvailable(SQLException e);

  // ------------------------------------------------------------------------------------------------
  // Operators (IdemRuntime.inspect / forget / resolve, IdemAdmin): one record by scope and key, and the counts.

  /** SQL deleting one record whatever its state; parameters: scope, key. */
  final String forgetSql(String table) {
    return "DELETE FROM " + table + BY_KEY;
  }

  /**
   * SQL completing an {@link #OUTCOME_UNKNOWN} record with a result an operator supplies, keeping its expiry;
   * parameters: result, result_shape, scope, key.
   */
  final String resolveSql(String table) {
    return "UPDATE " + table + " SET state = '" + COMPLETED + "', result = ?, error_type = NULL,"
        + " result_shape = ?, owner_token = NULL, lease_until = NULL" + BY_KEY
        + " AND state = '" + OUTCOME_UNKNOWN + "'";
  }

  /**
   * SQL deleting one record only while it is {@link #OUTCOME_UNKNOWN} (an operator found that its effect did not
   * happen: the next call runs the command again); parameters: scope, key.
   */
  final String releaseOutcomeUnknownSql(String table) {
    return "DELETE FROM " + table + BY_KEY + " AND state = '" + OUTCOME_UNKNOWN + "'";
  }

  /**
   * SQL counting records per scope and state, with their oldest and newest creation and how many have expired;
   * parameter: now. Columns: scope, state, count, min created_at, max created_at, expired count.
   */
  final String statsSql(String table) {
    return "SELECT scope, state, COUNT(*), MIN(created_at), MAX(created_at),"
        + " SUM(CASE WHEN expires_at <= ? THEN 1 ELSE 0 END) FROM " + table
        + " GROUP BY scope, state ORDER BY scope, state";
  }

  /**
   * SQL listing {@link #IN_PROGRESS} claims whose lease has ended (their owner died or is stuck), oldest lease
   * first; parameter: now. Columns: scope, idem_key, owner_token, lease_until, created_at, result.
   */
  final String expiredLeasesSql(String table) {
    return "SELECT scope, idem_key, owner_token, lease_until, created_at, result FROM " + table
        + " WHERE state = '" + IN_PROGRESS + "' AND lease_until < ? ORDER BY lease_until, scope, idem_key";
  }

  /**
   * SQL listing every {@link #OUTCOME_UNKNOWN} record, oldest first; no parameters. Columns: scope, idem_key,
   * owner_token, lease_until, created_at, result (idem's note).
   */
  final String outcomeUnknownSql(String table) {
    return "SELECT scope, idem_key, owner_token, lease_until, created_at, result FROM " + table
        + " WHERE state = '" + OUTCOME_UNKNOWN + "' ORDER BY created_at, scope, idem_key";
  }

  // ------------------------------------------------------------------------------------------------
  // Time and names

  /**
   * SQL reading the database's current time in epoch millis (one row, one BIGINT column), for
   * {@link DatabaseClock}: the real time, not the transaction's start, where the database offers it.
   */
  abstract String currentTimeMillisSql();

  /** The longest identifier this database accepts without truncating it, in bytes of UTF-8 (names are ASCII). */
  abstract int maxIdentifierLength();

  /**
   * Checks every identifier idem derives from the table name: the table and its expiry index.
   *
   * @throws IllegalArgumentException naming the derived identifier and the limit
   */
  final void checkIdentifiers(String table) {
    for (String identifier : new String[] {table, expiryIndexName(table)}) {
      if (identifier.length() > maxIdentifierLength()) {
        throw new IllegalArgumentException("tableName '" + table + "' is too long for " + dialect + ": idem derives"
            + " the identifier '" + identifier + "' (" + identifier.length() + " characters) from it, and "
            + dialect + " accepts at most " + maxIdentifierLength() + " (it would "
            + (dialect == Dialect.POSTGRESQL ? "silently truncate it" : "reject it") + "); choose a table name of"
            + " at most " + (maxIdentifierLength() - (expiryIndexName(table).length() - table.length()))
            + " characters");
      }
    }
  }

  /** The expiry index's name, as the DDL resources derive it from the table's. */
  static String expiryIndexName(String table) {
    return table + "_expires_idx";
  }

  // ------------------------------------------------------------------------------------------------
  // Batches (BatchStatements)

  /** How this dialect claims a batch of keys: the statement binder that fits its {@link #batchClaimSql}. */
  abstract BatchStatements batchStatements(String table);

  /**
   * SQL inserting COMPLETED records for {@code rows} keys and reporting which it inserted (by RETURNING, or by the
   * update counts of a JDBC batch of single-row statements); the parameters follow the
   * {@link #batchStatements binder}'s shape.
   */
  abstract String batchClaimSql(String table, int rows);

  /**
   * SQL reading the latest committed records of {@code keys} keys; parameters: scope, then the keys (or one array of
   * them). Columns: idem_key, state, fingerprint, expires_at.
   */
  String batchSelectSql(String table, int keys) {
    return BATCH_SELECT_COLUMNS + table + " WHERE scope = ? AND idem_key IN (" + placeholders(keys) + ")";
  }

  // ------------------------------------------------------------------------------------------------
  // Retention and the transition log

  /** SQL deleting at most {@code ?2} records whose {@code expires_at <= ?1}. */
  abstract String purgeSql(String table);

  /**
   * Where a purge batch must pick its rows with a locking read that skips rows other transactions hold, and then
   * delete those by key (in one transaction): that read, whose columns are scope and key, parameters as
   * {@link #purgeSql} (the deletes: {@link #purgeKeySql}); null where {@link #purgeSql} alone does not wait for
   * in-flight rows. {@code server} is the metadata of a connection to the server; nothing is sent to it.
   */
  String purgeSelectSql(String table, DatabaseMetaData server) throws SQLException {
    return null;
  }

  /** SQL deleting one record picked by {@link #purgeSelectSql}; parameters: scope, key, now. */
  final String purgeKeySql(String table) {
    return "DELETE FROM " + table + BY_KEY + " AND expires_at <= ?";
  }

  /**
   * SQL writing one transition log row; parameters: transition_name, entity, entity_id, from_state, to_state,
   * applied_at.
   */
  final String transitionLogInsertSql() {
    return "INSERT INTO " + TRANSITION_LOG_TABLE
        + " (transition_name, entity, entity_id, from_state, to_state, applied_at) VALUES (?, ?, ?, ?, ?, ?)";
  }

  // ------------------------------------------------------------------------------------------------
  // Errors

  /** Whether retrying the whole transaction may succeed (deadlock, serialization, lock timeout). */
  boolean isTransient(SQLException e) {
    for (SQLException s : SqlErrors.chain(e)) {
      String state = s.getSQLState();
      if (state != null && state.startsWith("40")) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether the failure says a table does not exist: SQLState {@code 42P01} (PostgreSQL's undefined_table) or
   * {@code 42S02} (base table or view not found: H2, MariaDB, MySQL); subclasses add their vendor codes.
   */
  boolean isUndefinedTable(SQLException e) {
    for (SQLException s : SqlErrors.chain(e)) {
      if ("42P01".equals(s.getSQLState()) || "42S02".equals(s.getSQLState())) {
        return true;
      }
    }
    return false;
  }

  /**
   * What to do when a statement failed because a table does not exist ({@link #isUndefinedTable}), to end the
   * message of an {@link dev.idem.runtime.IdempotencyStoreException} (whose constructor appends the driver's message
   * after a colon); empty for any other failure.
   *
   * @param e the failure
   * @param table the table idem's statement used (the record table or the transition log), or null where the
   *     statements were the application's or a transition's (the missing table may be the application's own)
   */
  final String missingTableHint(SQLException e, String table) {
    if (!isUndefinedTable(e)) {
      return "";
    }
    String name = schemaResource().substring("schema/".length(), schemaResource().length() - ".sql".length());
    return (table != null
        ? ". idem's table " + table + " does not exist"
            + (table.equals(TRANSITION_LOG_TABLE) || table.equals(LOCK_TABLE) || table.equals(OUTBOX_TABLE)
                || table.equals("idem_record") ? ""
                : " (the shipped DDL names it idem_record: replace that name)")
        : ". If the missing table is idem's (its record table, idem_record by default, or the transition log "
            + TRANSITION_LOG_TABLE + ")")
        + ": create idem's tables once, by calling runtime.createSchema(), or by running the DDL shipped in"
        + " idem-runtime as " + (LOCK_TABLE.equals(table) ? "dev/idem/runtime/" + lockSchemaResource()
            : "dev/idem/runtime/" + schemaResource() + " and dev/idem/runtime/" + transitionLogSchemaResource())
        + ", or by letting Flyway migrate the location"
        + " classpath:dev/idem/runtime/flyway/" + name + ". The database said";
  }

  /** Whether the failure is a unique-constraint violation. */
  boolean isDuplicateKey(SQLException e) {
    for (SQLException s : SqlErrors.chain(e)) {
      if ("23505".equals(s.getSQLState())) {
        return true;
      }
    }
    return false;
  }

  /** Milliseconds of a day bucket of {@link RecordLayout#DAY_PARTITIONS}. */
  static final long DAY_MILLIS = 86_400_000L;

  /** The day bucket (days since 1970-01-01 UTC) of an epoch-millis database time. */
  static int dayBucket(long epochMillis) {
    return Math.toIntExact(Math.floorDiv(epochMillis, DAY_MILLIS));
  }

  /** ER_NO_PARTITION_FOR_GIVEN_VALUE: MariaDB's refusal of a row whose day has no partition. */
  static final int ER_NO_PARTITION_FOR_GIVEN_VALUE = 1526;

  /**
   * A row whose day has no partition fails with 23514 (PostgreSQL) or ER_NO_PARTITION_FOR_GIVEN_VALUE (MariaDB); say
   * which day and how to make it.
   */
  static SQLException explainMissingPartition(SQLException e) {
    if (isMissingPartition(e)) {
      return new SQLException("No partition holds today's records (" + e.getMessage() + "): day partitions are"
          + " created ahead of time by IdemRuntime.premakePartitions(), createSchema() and the scheduled purge"
          + " (Builder.purgeEvery); run premakePartitions() now and keep purgeEvery enabled on some node",
          e.getSQLState(), e.getErrorCode(), e);
    }
    return e;
  }

  /** Whether a write failed because its row's day has no partition (see {@link #explainMissingPartition}). */
  static boolean isMissingPartition(SQLException e) {
    return "23514".equals(e.getSQLState()) || e.getErrorCode() == ER_NO_PARTITION_FOR_GIVEN_VALUE;
  }

  static String placeholders(int count) {
    StringBuilder text = new StringBuilder(count * 3);
    for (int i = 0; i < count; i++) {
      text.append(i == 0 ? "?" : ", ?");
    }
    return text.toString();
  }

  private static class PostgresDialect extends SqlDialect {
    PostgresDialect() {
      super(Dialect.POSTGRESQL);
    }

    @Override
    String schemaResource() {
      return "schema/postgresql.sql";
    }

    @Override
    boolean commitsImplicitly() {
      return false; // DDL is transactional
    }

    /**
     * pgjdbc sends the two statements in one round trip (extended protocol: Parse/Bind/Execute each, one Sync) with
     * the parameters bound; the server runs the COMMIT only if the completion succeeded (after an error it skips to
     * the Sync), and the driver, which follows the server's transaction status, then has nothing left to commit:
     * {@code commit()} sends nothing, and restoring auto-commit neither. The completion is a CTE whose row count
     * divides 1, so that matching no row fails with division by zero (22012) before the COMMIT.
     */
    @Override
    String storeResultAndCommitSql(String table) {
      return andCommit(storeResultSql(table));
    }

    /** As {@link #storeResultAndCommitSql}, for the fenced completion of a CLAIM body's transaction. */
    @Override
    String completeAndCommitSql(String table) {
      return andCommit(completeSql(table));
    }

    /** {@code update}, which must match exactly one row, then COMMIT; matching none fails with 22012 before it. */
    private static String andCommit(String update) {
      return "WITH completed AS (" + update + " RETURNING 1) SELECT 1 / COUNT(*) FROM completed; COMMIT";
    }

    @Override
    boolean isNothingToComplete(SQLException e) {
      return "22012".equals(e.getSQLState());
    }

    /**
     * One probe: in a transaction the failed completion aborted, every statement fails with 25P02 (the COMMIT was
     * skipped); once a COMMIT ran, the connection is out of that transaction and the probe succeeds (in a new one,
     * rolled back here). A probe that fails otherwise (the connection is gone) cannot tell: reached, to be safe.
     */
    @Override
    boolean commitReached(java.sql.Connection connection) {
      try (java.sql.Statement probe = connection.createStatement()) {
        probe.execute("SELECT 1");
      } catch (SQLException e) {
        if ("25P02".equals(e.getSQLState())) {
          return false;
        }
      }
      Quietly.rollback(connection);
      return true;
    }

    @Override
    String claimSql(String table) {
      // ON CONFLICT DO NOTHING waits for a concurrent uncommitted claim of the same key and never
      // raises a duplicate-key error, which would abort the whole PostgreSQL transaction.
      return "INSERT INTO " + table + CLAIM_COLUMNS + " VALUES " + CLAIM_VALUES
          + " ON CONFLICT (scope, idem_key) DO NOTHING";
    }

    @Override
    String leaseClaimSql(String table) {
      // The NOT EXISTS reads the committed record without waiting; ON CONFLICT DO NOTHING still settles a key
      // claimed concurrently (it waits for that uncommitted insert) without aborting anything.
      return leaseClaimUnlessRecordedSql(table) + " ON CONFLICT (scope, idem_key) DO NOTHING";
    }

    @Override
    boolean leaseClaimSkipsRecordedKeys() {
      return true;
    }

    @Override
    BatchStatements batchStatements(String table) {
      return new BatchStatements.ArrayBound(this, table);
    }

    /**
     * One statement for the whole batch, whatever its size: the keys travel as two arrays that {@code unnest} turns
     * into rows, so the statement text never changes (one server-side plan) and there is no placeholder limit.
     * {@code ON CONFLICT DO NOTHING} waits for a competing uncommitted insert of a key, skips it once that commits
     * (or inserts it if that rolls back) and never raises the duplicate-key error that would abort the transaction;
     * {@code RETURNING} lists only the rows this statement inserted, each with a null state. The same statement
     * then reads the records of the keys it did not insert (the anti-join first, so that only those keys are looked
     * up in the index), which saves the separate read's round trip in every batch with a redelivered message. That
     * read sees the statement's snapshot: a competing claim that committed after the statement began is not in it,
     * and its key is claimed again in the next round, which sees it. Parameters: the keys' array, the
     * fingerprints' array, scope, created_at, expires_at, scope; {@code rows} does not change the text. Columns:
     * idem_key, state, fingerprint, expires_at.
     */
    @Override
    String batchClaimSql(String table, int rows) {
      return "WITH m AS (SELECT * FROM unnest(?::varchar[], ?::varchar[]) WITH ORDINALITY AS m(idem_key, fingerprint,"
          + " n)), inserted AS (INSERT INTO " + table + CLAIM_COLUMNS
          + " SELECT ?, m.idem_key, '" + COMPLETED + "', m.fingerprint, ?, ? FROM m ORDER BY m.n"
          // ORDER BY: rows are inserted, and keys locked, in the sorted order of the arrays.
          + " ON CONFLICT (scope, idem_key) DO NOTHING RETURNING idem_key)"
          + " SELECT idem_key, NULL, NULL, NULL::bigint FROM inserted"
          + " UNION ALL SELECT r.idem_key, r.state, r.fingerprint, r.expires_at FROM m JOIN " + table
          + " r ON r.scope = ? AND r.idem_key = m.idem_key"
          + " WHERE NOT EXISTS (SELECT 1 FROM inserted WHERE inserted.idem_key = m.idem_key)";
    }

    /** Parameters: scope, the keys' array; {@code keys} does not change the text. */
    @Override
    String batchSelectSql(String table, int keys) {
      return BATCH_SELECT_COLUMNS + table + " WHERE scope = ? AND idem_key = ANY(?::varchar[])";
    }

    @Override
    boolean isLockNotAvailable(SQLException e) {
      for (SQLException s : SqlErrors.chain(e)) {
        if ("55P03".equals(s.getSQLState())) {
          return true;
        }
      }
      return false;
    }

    @Override
    String currentTimeMillisSql() {
      return "SELECT CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)";
    }

    /** The statement's start: one value however often a statement names it (clock_timestamp() would not be). */
    @Override
    String lockNowMillis() {
      return "CAST(EXTRACT(EPOCH FROM statement_timestamp()) * 1000 AS BIGINT)";
    }

    /**
     * The release's transaction commits without waiting for its WAL to reach the disk ({@code synchronous_commit}
     * off for that transaction alone: {@code set_config}'s third argument, so the pooled connection keeps its
     * setting). Why that is safe: {@link SqlDialect#lockReleaseFrom()}. The release is still visible to every other
     * session at once, and the next acquisition's flush makes it durable.
     */
    @Override
    String lockReleaseFrom() {
      return " FROM (SELECT set_config('synchronous_commit', 'off', true)) AS release_without_flush";
    }

    /**
     * The takeover UPDATE returning the new token, and only where it found no row to take, the INSERT of the
     * name's first lease ({@link #lockInsertSql()}): once the row exists, one statement and one round trip per
     * acquisition. A competitor's concurrent takeover waits for the row lock and then re-evaluates the WHERE on the
     * row as the winner left it (READ COMMITTED), so two attempts never both take the lease. The former single
     * {@code INSERT ... ON CONFLICT DO UPDATE} cost more per cycle: its conflict path locks the row (a WAL record of
     * its own) before updating it; pgbench, 8 clients, the two statements of a lock cycle: 1.04 to 1.18 times the
     * cycles per second with the UPDATE. Parameters as {@link #lockTakeOverSql()}'s.
     */
    @Override
    String lockAcquireSql() {
      return lockTakeOverSql() + " RETURNING fence";
    }

    @Override
    boolean lockAcquireTakesOverOnly() {
      return true;
    }

    @Override
    boolean lockAcquireReturnsRow() {
      return true;
    }

    /** A competitor that created the name's row first leaves nothing inserted, without an error in the server log. */
    @Override
    String lockInsertSql() {
      return super.lockInsertSql() + " ON CONFLICT (name) DO NOTHING";
    }

    @Override
    int maxIdentifierLength() {
      return 63; // NAMEDATALEN - 1
    }

    @Override
    String purgeSql(String table) {
      // PostgreSQL has no DELETE ... LIMIT; the subquery picks a batch of rows, the outer delete finds them by
      // ctid (a Tid Scan). ORDER BY makes the index on expires_at the only cheap plan: without it, when most rows
      // are expired the planner prefers a sequential scan, which must step over every row the earlier batches
      // deleted (dead until vacuumed) again and again, so that each batch gets slower than the one before.
      // FOR UPDATE SKIP LOCKED: purges on several nodes at once take disjoint batches instead of waiting for each
      // other's rows (and deadlocking when they lock them in different orders); a row one skips, another deletes.
      return "DELETE FROM " + table + " WHERE ctid = ANY(ARRAY(SELECT ctid FROM " + table
          + " WHERE expires_at <= ? ORDER BY expires_at LIMIT ? FOR UPDATE SKIP LOCKED))";
    }
  }

  /**
   * PostgreSQL with {@link RecordLayout#DAY_PARTITIONS}: {@code idem_record} is partitioned by range of
   * {@code bucket}, the UTC day (database time) of a record's first execution, and unique on (scope, idem_key,
   * bucket) only, since every unique key of a partitioned table must contain the partition column. Uniqueness of a
   * key across days therefore comes from the claim, not from the index: each claim first takes a transaction-scoped
   * advisory lock on a 64-bit hash of table, scope and key ({@code pg_advisory_xact_lock(hashtextextended(…))}),
   * so that claims of one key run one after the other, and only then, in a statement of its own at READ COMMITTED
   * whose snapshot starts after the lock was granted (and so sees a competitor's committed claim), inserts into
   * today's partition unless one of the dedup window's days holds an unexpired record of the key. Both statements
   * travel in one round trip: pgjdbc sends a multi-statement text as one Parse/Bind/Execute per statement and one
   * Sync, and each statement takes its own snapshot (a lock taken inside the inserting statement itself would come
   * after that statement's snapshot, and miss the competitor's commit). An expired record in today's partition is
   * taken over by {@code ON CONFLICT … DO UPDATE … WHERE expired}; expired records of earlier days stay for audit
   * until their day is dropped. A hash collision of two keys only makes their claims wait for each other.
   */
  private static final class DayPartitionedPostgresDialect extends PostgresDialect {

    /**
     * The one-table record table of before the switch, or null. While its records are inside their dedup window,
     * a claim also refuses to insert where it holds a live record of the key, and reads replay from it; nothing
     * writes it any more (its writers were drained before the switch, see {@link SchemaInstaller}).
     */
    private final String switchedFrom;

    DayPartitionedPostgresDialect(String switchedFrom) {
      this.switchedFrom = switchedFrom;
    }

    @Override
    String switchedFrom() {
      return switchedFrom;
    }

    /** {@code AND NOT EXISTS} a live record of the key in the table switched from, or nothing. */
    private String notLiveBeforeTheSwitch(String scope, String key, String now) {
      return switchedFrom == null ? "" : " AND NOT EXISTS (SELECT 1 FROM " + switchedFrom + " o WHERE o.scope = "
          + scope + " AND o.idem_key = " + key + " AND o.expires_at > " + now + ")";
    }


    /** The advisory lock's text: table, scope and key with a separator no key or scope contains. */
    static String lockText(String table, String scope, String key) {
      return table + '\u001f' + scope + '\u001f' + key;
    }


    @Override
    RecordLayout layout() {
      return RecordLayout.DAY_PARTITIONS;
    }

    @Override
    String schemaResource() {
      return "schema/postgresql-day-partitions.sql";
    }

    @Override
    String transitionLogSchemaResource() {
      return "schema/transition-log-postgresql-day-partitions.sql";
    }

    /**
     * The lock, then the guarded insert. Parameters: the lock text; scope, key, state, fingerprint, created_at,
     * expires_at, bucket; the dedup window's first bucket.
     */
    @Override
    String claimSql(String table) {
      return LOCK_KEY + "; WITH claim AS (SELECT ?::varchar AS scope, ?::varchar AS idem_key, ?::varchar AS state,"
          + " ?::varchar AS fingerprint, ?::bigint AS created_at, ?::bigint AS expires_at, ?::int AS bucket,"
          + " ?::int AS first_bucket)"
          + " INSERT INTO " + table + " AS r (scope, idem_key, state, fingerprint, created_at, expires_at, bucket)"
          + " SELECT scope, idem_key, state, fingerprint, created_at, expires_at, bucket FROM claim"
          + " WHERE NOT EXISTS (SELECT 1 FROM " + table + " w WHERE w.scope = claim.scope"
          + " AND w.idem_key = claim.idem_key AND w.bucket >= claim.first_bucket AND w.expires_at > claim.created_at)"
          + notLiveBeforeTheSwitch("claim.scope", "claim.idem_key", "claim.created_at")
          + TAKE_OVER_EXPIRED_OF_TODAY;
    }

    static final String LOCK_KEY = "SELECT pg_advisory_xact_lock(hashtextextended(?, 0))";

    /**
     * A CLAIM command's claim: the lock, then an IN_PROGRESS record in today's partition unless a day holds a live
     * record of the key. Every day is probed, not only the dedup window's: an extended lease keeps a record live
     * past its first day's window (its day stays too: a day goes only once its latest expiry has passed). In
     * auto-commit mode the two statements, sent before one Sync, run in one implicit transaction, which holds the
     * lock until the insert commits. Parameters: the lock text; scope, key, fingerprint, owner_token, lease_until,
     * created_at, expires_at, bucket.
     */
    @Override
    String leaseClaimSql(String table) {
      return LOCK_KEY + "; WITH claim AS (SELECT ?::varchar AS scope, ?::varchar AS idem_key,"
          + " ?::varchar AS fingerprint, ?::varchar AS owner_token, ?::bigint AS lease_until, ?::bigint AS created_at,"
          + " ?::bigint AS expires_at, ?::int AS bucket)"
          + " INSERT INTO " + table + " AS r (scope, idem_key, state, fingerprint, owner_token, lease_until,"
          + " created_at, expires_at, bucket) SELECT scope, idem_key, '" + IN_PROGRESS + "', fingerprint, owner_token,"
          + " lease_until, created_at, expires_at, bucket FROM claim WHERE NOT EXISTS (SELECT 1 FROM " + table
          + " w WHERE w.scope = claim.scope AND w.idem_key = claim.idem_key AND w.expires_at > claim.created_at)"
          + notLiveBeforeTheSwitch("claim.scope", "claim.idem_key", "claim.created_at")
          + " ON CONFLICT (scope, idem_key, bucket) DO UPDATE SET state = EXCLUDED.state,"
          + " fingerprint = EXCLUDED.fingerprint, result = NULL, error_type = NULL, result_shape = NULL,"
          + " owner_token = EXCLUDED.owner_token, lease_until = EXCLUDED.lease_until,"
          + " created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at"
          + " WHERE r.expires_at <= EXCLUDED.created_at";
    }

    @Override
    void bindLeaseClaim(PreparedStatement claim, String table, String scope, String key, String fingerprint,
        String ownerToken, long leaseUntil, long now, long expiresAt) throws SQLException {
      claim.setString(1, lockText(table, scope, key));
      claim.setString(2, scope);
      claim.setString(3, key);
      claim.setString(4, fingerprint);
      claim.setString(5, ownerToken);
      claim.setLong(6, leaseUntil);
      claim.setLong(7, now);
      claim.setLong(8, expiresAt);
      claim.setInt(9, dayBucket(now));
    }

    /**
     * A key that carries its time is filed under that time's day, which every retry of it computes alike, so that
     * the primary key (scope, idem_key, bucket) alone makes it unique: one statement, no lock, no probe of other
     * days. Parameters: scope, key, state, fingerprint, created_at, expires_at, the key's bucket.
     */
    @Override
    String keyTimeClaimSql(String table) {
      return "INSERT INTO " + table + " AS r (scope, idem_key, state, fingerprint, created_at, expires_at, bucket)"
          + " SELECT * FROM (VALUES (?::varchar, ?::varchar, ?::varchar, ?::varchar, ?::bigint, ?::bigint, ?::int))"
          + " AS claim (scope, idem_key, state, fingerprint, created_at, expires_at, bucket) WHERE true"
          + notLiveBeforeTheSwitch("claim.scope", "claim.idem_key", "claim.created_at")
          + TAKE_OVER_EXPIRED_OF_TODAY;
    }

    @Override
    String keyTimeBatchClaimSql(String table) {
      return "WITH m AS (SELECT * FROM unnest(?::varchar[], ?::varchar[], ?::int[]) WITH ORDINALITY"
          + " AS m(idem_key, fingerprint, bucket, n)),"
          + " c AS (SELECT ?::varchar AS scope, ?::bigint AS created_at, ?::bigint AS expires_at),"
          + " live AS (SELECT w.idem_key, w.state, w.fingerprint, w.expires_at FROM m CROSS JOIN c JOIN " + table
          + " w ON w.scope = c.scope AND w.idem_key = m.idem_key AND w.bucket = m.bucket"
          + " AND w.expires_at > c.created_at"
          + (switchedFrom == null ? "" : " UNION ALL SELECT o.idem_key, o.state, o.fingerprint, o.expires_at FROM m"
              + " CROSS JOIN c JOIN " + switchedFrom + " o ON o.scope = c.scope AND o.idem_key = m.idem_key"
              + " AND o.expires_at > c.created_at")
          + "),"
          + " inserted AS (INSERT INTO " + table + " AS r (scope, idem_key, state, fingerprint, created_at,"
          + " expires_at, bucket) SELECT c.scope, m.idem_key, '" + COMPLETED + "', m.fingerprint, c.created_at,"
          + " c.expires_at, m.bucket FROM m CROSS JOIN c"
          + " WHERE NOT EXISTS (SELECT 1 FROM live WHERE live.idem_key = m.idem_key) ORDER BY m.n"
          + TAKE_OVER_EXPIRED_OF_TODAY + " RETURNING idem_key)"
          + " SELECT idem_key, NULL, NULL, NULL::bigint FROM inserted"
          + " UNION ALL SELECT idem_key, state, fingerprint, expires_at FROM live";
    }

    @Override
    void bindKeyTimeClaim(PreparedStatement claim, String scope, String key, String state, String fingerprint,
        long now, long expiresAt, long keyMillis) throws SQLException {
      claim.setString(1, scope);
      claim.setString(2, key);
      claim.setString(3, state);
      claim.setString(4, fingerprint);
      claim.setLong(5, now);
      claim.setLong(6, expiresAt);
      claim.setInt(7, dayBucket(keyMillis));
    }

    static final String TAKE_OVER_EXPIRED_OF_TODAY = " ON CONFLICT (scope, idem_key, bucket) DO UPDATE SET"
        + " state = EXCLUDED.state, fingerprint = EXCLUDED.fingerprint, result = NULL, error_type = NULL,"
        + " result_shape = NULL, owner_token = NULL, lease_until = NULL, created_at = EXCLUDED.created_at,"
        + " expires_at = EXCLUDED.expires_at WHERE r.expires_at <= EXCLUDED.created_at";

    @Override
    void bindClaim(PreparedStatement claim, String table, String scope, String key, String state,
        String fingerprint, long now, long expiresAt, long windowMillis) throws SQLException {
      claim.setString(1, lockText(table, scope, key));
      claim.setString(2, scope);
      claim.setString(3, key);
      claim.setString(4, state);
      claim.setString(5, fingerprint);
      claim.setLong(6, now);
      claim.setLong(7, expiresAt);
      claim.setInt(8, dayBucket(now));
      claim.setInt(9, dayBucket(now - windowMillis));
    }

    /** The lock's row (a claim by key time has none), then the insert's count. */
    @Override
    boolean claim(PreparedStatement claim) throws SQLException {
      try {
        if (claim.execute() && claim.getMoreResults()) { // the lock's SELECT, then the insert
          throw new SQLException("The claim returned rows; expected an update count", "XX000");
        }
        return claim.getUpdateCount() == 1;
      } catch (SQLException e) {
        throw explainMissingPartition(e);
      }
    }

    /** The latest record of the key, of all days (and of the table switched from). */
    @Override
    String selectSql(String table) {
      return latestOf(super.selectSql(table));
    }

    /** The latest record of the key, of all days (and of the table switched from); for inspect. */
    @Override
    String leaseSelectSql(String table) {
      return latestOf(super.leaseSelectSql(table));
    }

    /**
     * A select by scope and key (two parameters) made to read the latest record of all days and, after a switch,
     * of the old table too: the key's parameters bound once in a CTE, each table read by its primary key.
     */
    private String latestOf(String byKey) {
      if (switchedFrom == null) {
        return byKey + " ORDER BY expires_at DESC LIMIT 1";
      }
      int from = byKey.indexOf(" FROM ");
      String columns = byKey.substring("SELECT ".length(), from);
      String table = byKey.substring(from + " FROM ".length(), byKey.indexOf(" WHERE "));
      return "WITH k AS (SELECT ?::varchar AS s, ?::varchar AS i) SELECT " + columns + " FROM (SELECT " + columns
          + " FROM " + table + " r, k WHERE r.scope = k.s AND r.idem_key = k.i UNION ALL SELECT " + columns
          + " FROM " + switchedFrom + " o, k WHERE o.scope = k.s AND o.idem_key = k.i) latest"
          + " ORDER BY expires_at DESC LIMIT 1";
    }

    @Override
    BatchStatements batchStatements(String table) {
      return new BatchStatements.DayPartitionedArrayBound(this, table);
    }

    /**
     * The batch's locks (in the keys' sorted order, so that two batches never wait for each other in a cycle), then
     * {@link PostgresDialect#batchClaimSql}'s one statement with the window probe and today's bucket. Parameters:
     * the lock text's prefix, the keys' array; the keys' array, the fingerprints' array, scope, created_at,
     * expires_at, bucket, first bucket. Columns as {@link PostgresDialect#batchClaimSql}; the records read are the
     * unexpired ones of the window.
     */
    @Override
    String batchClaimSql(String table, int rows) {
      return "SELECT count(pg_advisory_xact_lock(hashtextextended(? || l.k, 0))) FROM"
          + " (SELECT k FROM unnest(?::varchar[]) WITH ORDINALITY AS l(k, n) ORDER BY n) l;"
          + " WITH m AS (SELECT * FROM unnest(?::varchar[], ?::varchar[]) WITH ORDINALITY AS m(idem_key, fingerprint,"
          + " n)), c AS (SELECT ?::varchar AS scope, ?::bigint AS created_at, ?::bigint AS expires_at,"
          + " ?::int AS bucket, ?::int AS first_bucket),"
          + " live AS (SELECT w.idem_key, w.state, w.fingerprint, w.expires_at FROM m CROSS JOIN c JOIN " + table
          + " w ON w.scope = c.scope AND w.idem_key = m.idem_key AND w.bucket >= c.first_bucket"
          + " AND w.expires_at > c.created_at"
          + (switchedFrom == null ? "" : " UNION ALL SELECT o.idem_key, o.state, o.fingerprint, o.expires_at FROM m"
              + " CROSS JOIN c JOIN " + switchedFrom + " o ON o.scope = c.scope AND o.idem_key = m.idem_key"
              + " AND o.expires_at > c.created_at")
          + "),"
          + " inserted AS (INSERT INTO " + table + " AS r (scope, idem_key, state, fingerprint, created_at,"
          + " expires_at, bucket) SELECT c.scope, m.idem_key, '" + COMPLETED + "', m.fingerprint, c.created_at,"
          + " c.expires_at, c.bucket FROM m CROSS JOIN c"
          + " WHERE NOT EXISTS (SELECT 1 FROM live WHERE live.idem_key = m.idem_key) ORDER BY m.n"
          + TAKE_OVER_EXPIRED_OF_TODAY + " RETURNING idem_key)"
          + " SELECT idem_key, NULL, NULL, NULL::bigint FROM inserted"
          + " UNION ALL SELECT idem_key, state, fingerprint, expires_at FROM live";
    }

    /** The latest records of the keys, oldest first, so that a reader keeping the last row per key keeps them. */
    @Override
    String batchSelectSql(String table, int keys) {
      return super.batchSelectSql(table, keys) + " ORDER BY expires_at";
    }

    /** Deleting rows by ctid would not be safe across partitions (a ctid is unique in one partition only). */
    @Override
    String purgeSql(String table) {
      throw new UnsupportedOperationException("A day-partitioned table is purged by dropping its days");
    }
  }

  private static class MariaDbDialect extends SqlDialect {

    /**
     * MariaDB and MySQL refuse LIMIT in an IN subquery: a bounded ranged DELETE by the expiry index. It locks only
     * SENT rows past their retention (and the next index record), which no relay or writer touches.
     */
    @Override
    String outboxPurgeSql() {
      return "DELETE FROM " + OUTBOX_TABLE + " WHERE expires_at <= " + lockNowMillis() + " ORDER BY expires_at LIMIT ?";
    }
    private static final int ER_DUP_ENTRY = 1062;
    private static final int ER_NO_SUCH_TABLE = 1146;
    static final int ER_LOCK_WAIT_TIMEOUT = 1205;
    private static final int ER_LOCK_DEADLOCK = 1213;
    private static final int ER_LOCK_NOWAIT = 3572;
    /**
     * A locking read sees the latest committed row; a plain read under REPEATABLE READ would use the snapshot
     * taken before the competing claim committed and find nothing.
     */
    static final String LOCKING_READ = " LOCK IN SHARE MODE";

    MariaDbDialect() {
      super(Dialect.MARIADB);
    }

    @Override
    String schemaResource() {
      return "schema/mariadb.sql";
    }

    @Override
    boolean commitsImplicitly() {
      return true;
    }

    // No storeResultAndCommitSql / completeAndCommitSql here, on purpose. With Connector/J's defaults (no
    // allowMultiQueries) the only safe single statement is an anonymous block, BEGIN NOT ATOMIC UPDATE …;
    // IF ROW_COUNT() <> 1 THEN SIGNAL …; END IF; COMMIT; END: it works (6 → 5 statements for a first execution), but
    // the server compiles the block at every execution (client-side prepares), which costs what the round trip
    // saves: measured on 2026-12-01, server CPU +6…+20 µs per operation and 0.95x / 0.99x the throughput of UPDATE
    // then COMMIT at 1 / 8 threads (faster, 1.05x / 1.08x, only with useServerPrepStmts=true); and MySQL has no
    // anonymous blocks. Pipelining the UPDATE and a COMMIT (a JDBC batch) is not safe: the server runs the COMMIT
    // even when the UPDATE matched nothing or failed, since a failed statement does not abort the transaction here.

    @Override
    boolean opensTransactionsWithStatement() {
      return true;
    }

    @Override
    String claimSql(String table) {
      // INSERT IGNORE waits for a concurrent uncommitted claim and turns the duplicate into
      // "0 rows". It would also hide truncation, but keys and scopes are validated beforehand.
      return "INSERT IGNORE INTO " + table + CLAIM_COLUMNS + " VALUES " + CLAIM_VALUES;
    }

    @Override
    String leaseClaimSql(String table) {
      return "INSERT IGNORE INTO " + table + LEASE_CLAIM_COLUMNS;
    }

    /**
     * MariaDB (10.3 and later, which RETURNING and NOWAIT need already) sets a statement's lock wait to zero with
     * {@code SET STATEMENT … FOR}: the claim's duplicate check then fails with ER_LOCK_WAIT_TIMEOUT instead of
     * waiting while an owner extending its lease holds the row, and a new key costs the insert alone. MySQL has no
     * such clause (and no lock wait under one second), so there the claim keeps reading first. The server is told
     * by its version string, which both MariaDB Connector/J and MySQL Connector/J (as {@code 5.5.5-…-MariaDB})
     * report from the handshake.
     */
    @Override
    String noWaitLeaseClaimSql(String table, DatabaseMetaData server) throws SQLException {
      String version = server.getDatabaseProductVersion();
      return version != null && version.contains("MariaDB")
          ? "SET STATEMENT innodb_lock_wait_timeout = 0 FOR " + leaseClaimSql(table)
          : null;
    }

    @Override
    String selectSql(String table) {
      return super.selectSql(table) + LOCKING_READ;
    }

    @Override
    String lookupSql(String table) {
      return super.selectSql(table);
    }

    @Override
    BatchStatements batchStatements(String table) {
      return new BatchStatements.RowBound(this, table);
    }

    /**
     * A multi-row {@code INSERT IGNORE … RETURNING} (MariaDB 10.5 and later; MySQL has no RETURNING): like the
     * single claim, it waits for a competing uncommitted insert of a key and turns the duplicate into "no row", and
     * RETURNING lists only the rows it inserted. Parameters per row: scope, key, fingerprint, created_at,
     * expires_at.
     */
    @Override
    String batchClaimSql(String table, int rows) {
      StringBuilder sql = new StringBuilder("INSERT IGNORE INTO ").append(table).append(CLAIM_COLUMNS)
          .append(" VALUES ");
      for (int i = 0; i < rows; i++) {
        sql.append(i == 0 ? "" : ", ").append(COMPLETED_CLAIM_VALUES);
      }
      return sql.append(" RETURNING idem_key").toString();
    }

    @Override
    String batchSelectSql(String table, int keys) {
      return super.batchSelectSql(table, keys) + LOCKING_READ;
    }

    @Override
    String purgeSql(String table) {
      // Concurrent purges (one per node) walk the expiry index in the same order, so that one waits for the other's
      // batch rather than deadlocking; a deadlock or lock timeout all the same is retried (purgeBatch).
      return "DELETE FROM " + table + " WHERE expires_at <= ? ORDER BY expires_at LIMIT ?";
    }

    /**
     * A ranged DELETE locks every index record it scans, the first one past the expired range included, and under
     * REPEATABLE READ the gaps too: where that first record belongs to a call in flight (its claim or an
     * {@code extendLease} holds the row), the purge waits for that call while holding the rows it deleted already,
     * so that retries of those keys, and with a small pool every caller, stall behind it (seen: 10 s). Where the
     * server has SKIP LOCKED (MariaDB 10.6, MySQL 8.0), the batch is picked by a locking read that skips rows
     * others hold, run at READ COMMITTED (no gap locks), then deleted by key in the same transaction.
     */
    @Override
    String purgeSelectSql(String table, DatabaseMetaData server) throws SQLException {
      if (!hasSkipLocked(server)) {
        return null;
      }
      return "SELECT scope, idem_key FROM " + table + " WHERE expires_at <= ? ORDER BY expires_at LIMIT ?"
          + " FOR UPDATE SKIP LOCKED";
    }

    private static final Pattern MARIADB_VERSION = Pattern.compile("(\\d+)\\.(\\d+)\\.\\d+-MariaDB");

    static boolean hasSkipLocked(DatabaseMetaData server) throws SQLException {
      String version = server.getDatabaseProductVersion();
      Matcher mariaDb = MARIADB_VERSION.matcher(version == null ? "" : version);
      if (mariaDb.find()) {
        int major = Integer.parseInt(mariaDb.group(1));
        int minor = Integer.parseInt(mariaDb.group(2));
        return major > 10 || (major == 10 && minor >= 6);
      }
      return server.getDatabaseMajorVersion() >= 8; // MySQL
    }

    @Override
    boolean isLockNotAvailable(SQLException e) {
      for (SQLException s : SqlErrors.chain(e)) {
        // NOWAIT reports a lock wait timeout (MariaDB), or ER_LOCK_NOWAIT (MySQL 8)
        if (s.getErrorCode() == ER_LOCK_WAIT_TIMEOUT || s.getErrorCode() == ER_LOCK_NOWAIT) {
          return true;
        }
      }
      return false;
    }

    /**
     * The statement's start in epoch millis with no time zone in the way: {@code UTC_TIMESTAMP(3)} is the statement's
     * start as a UTC date and time (one value however often a statement names it), and its distance from the epoch is
     * plain arithmetic. The former {@code UNIX_TIMESTAMP(NOW(3))} turned the session's local time back into epoch
     * seconds, which in the hour a daylight-saving change repeats has two answers; the server picks one (MySQL bug
     * #6695), so on a server whose {@code time_zone} observes DST every lease and expiry decided in that hour was an
     * hour off (leases taken in it ending an hour early once it was over).
     */
    private static final String EPOCH_MILLIS =
        "(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(3)) DIV 1000)";

    @Override
    String currentTimeMillisSql() {
      return "SELECT " + EPOCH_MILLIS;
    }

    @Override
    String lockNowMillis() {
      return EPOCH_MILLIS;
    }

    /**
     * The takeover UPDATE, and an INSERT only for a name that has no row yet: ONE statement and one round trip per
     * acquisition once the row exists, as with ShedLock's JDBC provider, and no read-back: the new token is set
     * through {@code LAST_INSERT_ID(fence + 1)}, which the server returns in the statement's OK packet (the insert
     * id; JDBC's {@code getGeneratedKeys()}, read from that reply by both MariaDB Connector/J and MySQL
     * Connector/J). The statement's auto-commit commits it. An INSERT ... ON DUPLICATE KEY UPDATE taking the lease
     * and increasing the token in one statement works too, but ran at 0.4 of ShedLock's rate on one thread in
     * LockBenchmark (the duplicate-key path of InnoDB costs more than an UPDATE). Parameters as
     * {@link #lockTakeOverSql()}'s.
     */
    @Override
    String lockAcquireSql() {
      return "UPDATE " + LOCK_TABLE + " SET fence = LAST_INSERT_ID(fence + 1), owner_token = ?, locked_at = "
          + lockNowMillis() + ", lease_until = " + lockNowMillis() + " + ?, locked_by = ? WHERE name = ? AND"
          + " lease_until <= " + lockNowMillis();
    }

    @Override
    boolean lockAcquireReportsFenceAsInsertId() {
      return true;
    }

    @Override
    boolean lockAcquireTakesOverOnly() {
      return true;
    }

    @Override
    int maxIdentifierLength() {
      return 64;
    }

    @Override
    boolean isTransient(SQLException e) {
      for (SQLException s : SqlErrors.chain(e)) {
        int code = s.getErrorCode();
        if (code == ER_LOCK_DEADLOCK || code == ER_LOCK_WAIT_TIMEOUT) {
          return true;
        }
      }
      return super.isTransient(e);
    }

    /** ER_NO_SUCH_TABLE (1146), whatever SQLState the driver reports with it. */
    @Override
    boolean isUndefinedTable(SQLException e) {
      for (SQLException s : SqlErrors.chain(e)) {
        if (s.getErrorCode() == ER_NO_SUCH_TABLE) {
          return true;
        }
      }
      return super.isUndefinedTable(e);
    }

    @Override
    boolean isDuplicateKey(SQLException e) {
      for (SQLException s : SqlErrors.chain(e)) {
        if (s.getErrorCode() == ER_DUP_ENTRY) {
          return true;
        }
      }
      return super.isDuplicateKey(e);
    }
  }

  /**
   * MariaDB with {@link RecordLayout#DAY_PARTITIONS}: {@code idem_record} is partitioned {@code BY RANGE COLUMNS
   * (bucket)}, one partition per UTC day (database time) of a record's first execution, primary key (scope,
   * idem_key, bucket), no MAXVALUE partition. Uniqueness of a key across days comes from the claim: it takes a
   * named lock, {@code GET_LOCK} on a SHA-256 of database, table, scope and key (so claims of one key pass one at a
   * time), then probes the dedup window's days with a locking read ({@code LOCK IN SHARE MODE}: it reads the latest
   * committed rows whatever the transaction's snapshot, and waits for a competitor's uncommitted claim of the key),
   * inserts into today's partition only if no day holds a live record (overwriting an expired record of today, under
   * the lock), and releases the lock in {@code finally}, before the transaction ends: the competitor's uncommitted
   * row, which the next claimant's locking probe waits for, carries the serialization from there. The named lock is
   * therefore never held past the claim, whatever becomes of the transaction, and a pooled connection goes back
   * without one. Why not a locking read alone: two probes of a key that is nowhere find nothing and take only gap
   * locks (none at READ COMMITTED), so both insert, each into its own day, or deadlock at REPEATABLE READ.
   */
  static final class DayPartitionedMariaDbDialect extends MariaDbDialect {

    /** The named lock of one key: GET_LOCK names are server-wide and at most 64 characters (a SHA-256 in hex). */
    static final String LOCK_NAME = "SHA2(CONCAT_WS(CHAR(31), DATABASE(), ?), 256)";

    /**
     * The one-table record table of before the switch, or null. While its records are inside their dedup window,
     * every probe of a key also reads it (a claim inserts nothing while it holds a live record of the key) and the
     * selects take the latest record of both tables. Nothing writes it any more (its writers were drained before
     * the switch, see {@link SchemaInstaller}), and the key's named lock already serializes the claims, so reading it
     * is enough. Its reads take the same locking clause as the partitioned table's: a locking read of rows nobody
     * writes never waits, and it sees the latest committed rows even in a transaction whose snapshot predates the
     * old layout's last commits.
     */
    private final String switchedFrom;

    DayPartitionedMariaDbDialect(String switchedFrom) {
      this.switchedFrom = switchedFrom;
    }

    @Override
    String switchedFrom() {
      return switchedFrom;
    }

    @Override
    RecordLayout layout() {
      return RecordLayout.DAY_PARTITIONS;
    }

    @Override
    String schemaResource() {
      return "schema/mariadb-day-partitions.sql";
    }

    @Override
    String transitionLogSchemaResource() {
      return "schema/transition-log-mariadb-day-partitions.sql";
    }

    /** The lock's text: table, scope and key with a separator no key or scope contains. */
    static String lockText(String table, String scope, String key) {
      return table + '\u001f' + scope + '\u001f' + key;
    }

    private static final String OVERWRITE_EXPIRED = " ON DUPLICATE KEY UPDATE state = VALUES(state),"
        + " fingerprint = VALUES(fingerprint), result = NULL, error_type = NULL, result_shape = NULL,"
        + " owner_token = VALUES(owner_token), lease_until = VALUES(lease_until), created_at = VALUES(created_at),"
        + " expires_at = VALUES(expires_at)";

    /**
     * The insert into today's partition, run by {@link #claimKey} under the key's lock once the probe found no live
     * record: a row of today it meets is expired, and is overwritten. Parameters: scope, key, state, fingerprint,
     * created_at, expires_at, bucket.
     */
    @Override
    String claimSql(String table) {
      return "INSERT INTO " + table + " (scope, idem_key, state, fingerprint, owner_token, lease_until, created_at,"
          + " expires_at, bucket) VALUES (?, ?, ?, ?, NULL, NULL, ?, ?, ?)" + OVERWRITE_EXPIRED;
    }

    @Override
    void bindClaim(PreparedStatement claim, String table, String scope, String key, String state,
        String fingerprint, long now, long expiresAt, long windowMillis) throws SQLException {
      super.bindClaim(claim, table, scope, key, state, fingerprint, now, expiresAt, windowMillis);
      claim.setInt(7, dayBucket(now));
    }

    /** As {@link #claimSql}, IN_PROGRESS. Parameters: scope, key, fingerprint, owner_token, lease_until, created_at,
     * expires_at, bucket. */
    @Override
    String leaseClaimSql(String table) {
      return "INSERT INTO " + table + " (scope, idem_key, state, fingerprint, owner_token, lease_until, created_at,"
          + " expires_at, bucket) VALUES (?, ?, '" + IN_PROGRESS + "', ?, ?, ?, ?, ?, ?)" + OVERWRITE_EXPIRED;
    }

    @Override
    void bindLeaseClaim(PreparedStatement claim, String table, String scope, String key, String fingerprint,
        String ownerToken, long leaseUntil, long now, long expiresAt) throws SQLException {
      super.bindLeaseClaim(claim, table, scope, key, fingerprint, ownerToken, leaseUntil, now, expiresAt);
      claim.setInt(8, dayBucket(now));
    }

    /** No claim without the lock ({@link #claimKey}). */
    @Override
    String noWaitLeaseClaimSql(String table, DatabaseMetaData server) {
      return null;
    }

    /**
     * A CLAIM call claims first: {@link #claimKey} probes every day under the key's lock, and in auto-commit mode
     * (where a CLAIM call claims) with a plain read, which never waits for an owner extending its lease.
     */
    @Override
    boolean leaseClaimSkipsRecordedKeys() {
      return true;
    }

    /**
     * The probe: a live record of the key in the days from the first bucket on, read with a lock or without; after a
     * switch, or in the table switched from. Parameters: scope, key, first bucket, now; after a switch, then scope,
     * key, now. Each branch of the UNION is parenthesized with its own locking clause, which MariaDB applies to that
     * branch's table.
     */
    private String probeSql(String table, boolean locking) {
      String lock = locking ? LOCKING_READ : "";
      String days = "SELECT 1 FROM " + table + " WHERE scope = ? AND idem_key = ? AND bucket >= ? AND expires_at > ?"
          + lock;
      return switchedFrom == null ? days : "(" + days + ") UNION ALL (SELECT 1 FROM " + switchedFrom
          + " WHERE scope = ? AND idem_key = ? AND expires_at > ?" + lock + ")";
    }

    /**
     * The lock, the probe, the insert, the release. The probe of a TRANSACTIONAL claim is a locking read: it runs in
     * a transaction (idem's or the application's, whose snapshot may predate a competitor's commit) and must wait for
     * a competitor's uncommitted claim of the key. A CLAIM command's claim ({@code firstBucket} =
     * {@link Integer#MIN_VALUE}: every day) runs in auto-commit mode: each competitor's insert commits before its lock
     * is released, so a plain read sees it, and never waits for the row lock of an owner extending its lease.
     */
    @Override
    boolean claimKey(java.sql.Connection connection, PreparedStatement claim, String table, String scope, String key,
        long now, int firstBucket) throws SQLException {
      boolean locking = firstBucket != Integer.MIN_VALUE || !connection.getAutoCommit();
      String text = lockText(table, scope, key);
      lock(connection, List.of(text));
      SQLException failure = null;
      try {
        try (PreparedStatement probe = connection.prepareStatement(probeSql(table, locking))) {
          probe.setString(1, scope);
          probe.setString(2, key);
          probe.setInt(3, firstBucket);
          probe.setLong(4, now);
          if (switchedFrom != null) {
            probe.setString(5, scope);
            probe.setString(6, key);
            probe.setLong(7, now);
          }
          try (java.sql.ResultSet live = probe.executeQuery()) {
            if (live.next()) {
              return false;
            }
          }
        }
        return claim.executeUpdate() >= 1;
      } catch (SQLException e) {
        failure = explainMissingPartition(e);
        throw failure;
      } finally {
        unlock(connection, List.of(text), failure);
      }
    }

    /**
     * Takes the named locks of {@code texts} (in the given order: callers sort them, so that two batches never wait
     * for each other in a cycle) in one statement, each waiting at most {@code innodb_lock_wait_timeout}.
     */
    static void lock(java.sql.Connection connection, List<String> texts) throws SQLException {
      StringBuilder sql = new StringBuilder("SELECT ");
      for (int i = 0; i < texts.size(); i++) {
        sql.append(i == 0 ? "" : ", ").append("GET_LOCK(").append(LOCK_NAME).append(", @@innodb_lock_wait_timeout)");
      }
      try (PreparedStatement lock = connection.prepareStatement(sql.toString())) {
        for (int i = 0; i < texts.size(); i++) {
          lock.setString(i + 1, texts.get(i));
        }
        try (java.sql.ResultSet rs = lock.executeQuery()) {
          rs.next();
          for (int i = 1; i <= texts.size(); i++) {
            if (rs.getInt(i) != 1) {
              SQLException timeout = new SQLException("Waiting for the claim lock of a key (GET_LOCK) timed out"
                  + " after innodb_lock_wait_timeout: another claim of the key held it", "HY000",
                  ER_LOCK_WAIT_TIMEOUT);
              unlock(connection, texts, timeout);
              throw timeout;
            }
          }
        }
      }
    }

    /**
     * Releases the named locks of {@code texts} that this session holds (RELEASE_LOCK of a lock not held is a no-op
     * answering 0). A failure to release is added to {@code failure} if there is one, else thrown: a session that
     * cannot release is broken, and its locks end with it.
     */
    static void unlock(java.sql.Connection connection, List<String> texts, SQLException failure) throws SQLException {
      StringBuilder sql = new StringBuilder("SELECT ");
      for (int i = 0; i < texts.size(); i++) {
        sql.append(i == 0 ? "" : ", ").append("RELEASE_LOCK(").append(LOCK_NAME).append(")");
      }
      try (PreparedStatement unlock = connection.prepareStatement(sql.toString())) {
        for (int i = 0; i < texts.size(); i++) {
          unlock.setString(i + 1, texts.get(i));
        }
        unlock.executeQuery().close();
      } catch (SQLException e) {
        if (failure == null) {
          throw e;
        }
        failure.addSuppressed(e);
      }
    }

    /**
     * A key that carries its time is filed under that time's day, which every retry computes alike: the primary key
     * alone makes it unique, one statement, no lock. A plain INSERT (a duplicate fails and reads as "recorded"),
     * not INSERT IGNORE, which would also swallow the refusal of a day that has no partition. Parameters: scope,
     * key, state, fingerprint, created_at, expires_at, the key's bucket. After a switch it inserts only if the table
     * switched from holds no live record of the key (an insert of no row reads as "recorded" too); parameters then
     * also scope, key, created_at. No lock there either: nothing writes that table any more.
     */
    @Override
    String keyTimeClaimSql(String table) {
      String insert = "INSERT INTO " + table + " (scope, idem_key, state, fingerprint, created_at, expires_at, bucket)";
      return switchedFrom == null ? insert + " VALUES (?, ?, ?, ?, ?, ?, ?)"
          : insert + " SELECT ?, ?, ?, ?, ?, ?, ? FROM DUAL WHERE NOT EXISTS (SELECT 1 FROM " + switchedFrom
              + " o WHERE o.scope = ? AND o.idem_key = ? AND o.expires_at > ?)";
    }

    @Override
    void bindKeyTimeClaim(PreparedStatement claim, String scope, String key, String state, String fingerprint,
        long now, long expiresAt, long keyMillis) throws SQLException {
      claim.setString(1, scope);
      claim.setString(2, key);
      claim.setString(3, state);
      claim.setString(4, fingerprint);
      claim.setLong(5, now);
      claim.setLong(6, expiresAt);
      claim.setInt(7, dayBucket(keyMillis));
      if (switchedFrom != null) {
        claim.setString(8, scope);
        claim.setString(9, key);
        claim.setLong(10, now);
      }
    }

    /** The key-time claim: a duplicate key (or, after a switch, no row inserted) means recorded. */
    @Override
    boolean claim(PreparedStatement claim) throws SQLException {
      try {
        return claim.executeUpdate() == 1;
      } catch (SQLException e) {
        if (isDuplicateKey(e)) {
          return false;
        }
        throw explainMissingPartition(e);
      }
    }

    /**
     * The latest record of the key, of all days (and of the table switched from), read with a lock (the latest
     * committed version).
     */
    @Override
    String selectSql(String table) {
      return latestOf("state, fingerprint, result, error_type, expires_at, result_shape, created_at", table,
          LOCKING_READ);
    }

    /** The same latest record, without the lock. */
    @Override
    String lookupSql(String table) {
      return latestOf("state, fingerprint, result, error_type, expires_at, result_shape, created_at", table, "");
    }

    /** The latest record of the key, of all days (and of the table switched from). */
    @Override
    String leaseSelectSql(String table) {
      return latestOf("state, fingerprint, result, error_type, expires_at, owner_token, lease_until, result_shape,"
          + " created_at", table, "");
    }

    /**
     * The latest record of a key (parameters: scope, key). After a switch, the key's parameters are bound once in a
     * CTE and each table is read by its primary key in a parenthesized branch of a UNION inside a derived table; the
     * branch's own locking clause applies to that branch's table (MariaDB takes it there: a competitor's uncommitted
     * row of the partitioned table is waited for, see MariaDbDayPartitionsContractTest).
     */
    private String latestOf(String columns, String table, String lock) {
      if (switchedFrom == null) {
        return "SELECT " + columns + " FROM " + table + " WHERE scope = ? AND idem_key = ?"
            + " ORDER BY expires_at DESC LIMIT 1" + lock;
      }
      return "WITH k AS (SELECT ? AS s, ? AS i) SELECT " + columns + " FROM ((SELECT " + columns + " FROM " + table
          + " r, k WHERE r.scope = k.s AND r.idem_key = k.i" + lock + ") UNION ALL (SELECT " + columns + " FROM "
          + switchedFrom + " o, k WHERE o.scope = k.s AND o.idem_key = k.i" + lock + ")) latest"
          + " ORDER BY expires_at DESC LIMIT 1";
    }

    @Override
    BatchStatements batchStatements(String table) {
      return new BatchStatements.DayPartitionedLocked(this, table);
    }

    /**
     * The batch's insert of the keys its probe found no live record of, under their locks, into today's partition
     * (an expired record of today overwritten). Parameters per row: scope, key, fingerprint, created_at,
     * expires_at, bucket.
     */
    @Override
    String batchClaimSql(String table, int rows) {
      StringBuilder sql = new StringBuilder("INSERT INTO ").append(table)
          .append(" (scope, idem_key, state, fingerprint, owner_token, lease_until, created_at, expires_at, bucket)")
          .append(" VALUES ");
      for (int i = 0; i < rows; i++) {
        sql.append(i == 0 ? "" : ", ").append("(?, ?, '" + COMPLETED + "', ?, NULL, NULL, ?, ?, ?)");
      }
      return sql.append(OVERWRITE_EXPIRED).toString();
    }

    /**
     * The batch's probe: the live records of the keys in the days from the first bucket on, read with a lock; after
     * a switch, and those of the table switched from. Parameters: scope, the keys, first bucket, now; after a switch,
     * then scope, the keys, now. Columns as {@link #batchSelectSql}.
     */
    String batchProbeSql(String table, int keys) {
      String days = BATCH_SELECT_COLUMNS + table + " WHERE scope = ? AND idem_key IN (" + placeholders(keys)
          + ") AND bucket >= ? AND expires_at > ?" + LOCKING_READ;
      return switchedFrom == null ? days : "(" + days + ") UNION ALL (" + BATCH_SELECT_COLUMNS + switchedFrom
          + " WHERE scope = ? AND idem_key IN (" + placeholders(keys) + ") AND expires_at > ?" + LOCKING_READ + ")";
    }

    /**
     * The latest records of the keys (of all days, and of the table switched from), oldest first, so that a reader
     * keeping the last row per key keeps them. Parameters: scope, the keys; after a switch, then scope, the keys
     * again.
     */
    @Override
    String batchSelectSql(String table, int keys) {
      String days = BATCH_SELECT_COLUMNS + table + " WHERE scope = ? AND idem_key IN (" + placeholders(keys) + ")";
      return switchedFrom == null ? days + " ORDER BY expires_at" + LOCKING_READ
          : "(" + days + LOCKING_READ + ") UNION ALL (" + BATCH_SELECT_COLUMNS + switchedFrom
              + " WHERE scope = ? AND idem_key IN (" + placeholders(keys) + ")" + LOCKING_READ + ") ORDER BY expires_at";
    }

    /** A day-partitioned table is purged by dropping its days. */
    @Override
    String purgeSql(String table) {
      throw new UnsupportedOperationException("A day-partitioned table is purged by dropping its days");
    }
  }

  private static final class H2Dialect extends SqlDialect {

    /** H2 has DELETE ... FETCH FIRST (by the expiry index), and counts a locked subquery's rows unreliably. */
    @Override
    String outboxPurgeSql() {
      return "DELETE FROM " + OUTBOX_TABLE + " WHERE expires_at <= " + lockNowMillis() + " FETCH FIRST ? ROWS ONLY";
    }
    private static final int LOCK_TIMEOUT = 50200;
    private static final int CONCURRENT_UPDATE = 90131;
    private static final int DEADLOCK = 40001;
    /** TABLE_OR_VIEW_NOT_FOUND_1, _WITH_CANDIDATES_2, _DATABASE_EMPTY_1. */
    private static final int TABLE_NOT_FOUND = 42102;
    private static final int TABLE_NOT_FOUND_WITH_CANDIDATES = 42103;
    private static final int TABLE_NOT_FOUND_DATABASE_EMPTY = 42104;

    H2Dialect() {
      super(Dialect.H2);
    }

    @Override
    String schemaResource() {
      return "schema/h2.sql";
    }

    @Override
    boolean commitsImplicitly() {
      return true; // DDL commits the open transaction
    }

    /**
     * Inserts unless the key is recorded: a replay finds the committed row through the primary key and inserts
     * nothing, without an exception. That matters on H2: building its duplicate-key exception and the statement-level
     * rollback after it cost most of a replay, and every such rollback ({@code SessionLocal.rollbackTo}) empties the
     * session's query cache, so the application's own statements on that connection were parsed again. A concurrent
     * claim that is not committed yet is invisible to NOT EXISTS: then the insert waits on the primary key and fails
     * with 23505 once the other commits, which {@link #claim} still turns into "already recorded".
     *
     * <p>The row is a bare {@code SELECT} of numbered parameters, the NOT EXISTS reusing {@code ?1} and {@code ?2}:
     * a {@code VALUES} list in a derived table makes H2 build and query a view per execution (~0.3 µs of a ~5 µs
     * claim in a micro-benchmark), and the numbered parameters keep the binding the other dialects' claim has.
     */
    @Override
    String claimSql(String table) {
      return "INSERT INTO " + table + CLAIM_COLUMNS + " SELECT ?1, ?2, ?3, ?4, ?5, ?6"
          + " WHERE NOT EXISTS (SELECT 1 FROM " + table + " WHERE scope = ?1 AND idem_key = ?2)";
    }

    /**
     * A plain INSERT, as {@link #leaseClaimSql} is and for the same reason: a TRANSACTIONAL call's claim is nearly
     * always of a new key (the result cache answers the replays this runtime served, and a command whose calls are
     * mostly retries reads first), and on a new key the NOT EXISTS probe of {@link #claimSql} is the costliest part of
     * the claim (~1.3 µs of a ~10 µs first execution in the interleaved benchmark, 2026-12-03). A recorded key fails
     * with 23505, which {@link #claim} turns into "recorded"; H2 undoes only that statement, never the transaction
     * (the caller's own, when the call joined one, stays usable). Where recorded keys come in runs, the record
     * statements claim with {@link #claimSql} for a while, so that a run pays the exception once.
     */
    @Override
    String unguardedClaimSql(String table) {
      return "INSERT INTO " + table + CLAIM_COLUMNS + " VALUES (?1, ?2, ?3, ?4, ?5, ?6)";
    }

    /**
     * A plain INSERT, unlike {@link #claimSql}: a CLAIM call's claim is nearly always of a new key (a replay this
     * runtime served is answered from its cache before any claim, and a command whose calls are mostly retries
     * reads first), and on a new key the NOT EXISTS probe was the costliest part of the claim: ~1.3 µs of the ~2 µs by which a CLAIM first execution trailed its hand-written
     * floor (0.88×, 2026-12-03). A recorded key now fails with 23505, which {@link #claim} turns into "recorded"
     * (classified by SQLState, never by text); that costs the exception and the statement's rollback, which empties
     * the session's query cache, on the rarer paths that claim a recorded key (an uncached replay, a key in flight, a
     * takeover; where those come in runs, the executor claims with {@link #guardedLeaseClaimSql} for a while).
     *
     * <p>It never waits for an owner's row lock: H2 (2.x, MVStore) checks the primary key against the committed index
     * entry, which neither an owner's UPDATE of its record (a lease extension, a completion: no key column changes)
     * nor its uncommitted DELETE (a release) makes uncommitted, so the insert fails at once with 23505, as the NOT
     * EXISTS probe found the committed row at once; {@link #leaseClaimSkipsRecordedKeys} stays true.
     * H2ClaimContractTest pins this. It waits, as before, only for a competitor's claim that is not committed yet
     * (an uncommitted index entry): then 23505 once it commits, or the row once it rolls back.
     */
    @Override
    String leaseClaimSql(String table) {
      return "INSERT INTO " + table + " (scope, idem_key, state, fingerprint, owner_token, lease_until, created_at,"
          + " expires_at) VALUES (?, ?, '" + IN_PROGRESS + "', ?, ?, ?, ?, ?)";
    }

    /** The claim as it was before 2026-12-03: a recorded key inserts nothing, with no exception (see claimSql). */
    @Override
    String guardedLeaseClaimSql(String table) {
      return "INSERT INTO " + table + " (scope, idem_key, state, fingerprint, owner_token, lease_until, created_at,"
          + " expires_at) SELECT ?1, ?2, '" + IN_PROGRESS + "', ?3, ?4, ?5, ?6, ?7"
          + " WHERE NOT EXISTS (SELECT 1 FROM " + table + " WHERE scope = ?1 AND idem_key = ?2)";
    }

    /** True without a probe: see {@link #leaseClaimSql}. */
    @Override
    boolean leaseClaimSkipsRecordedKeys() {
      return true;
    }

    @Override
    boolean claim(PreparedStatement claim) throws SQLException {
      // The insert waits for a concurrent uncommitted claim of the key, then fails with 23505 if it committed; the
      // plain leaseClaimSql fails with 23505 at once on a committed record. H2 rolls back only the failed statement,
      // never the transaction, so catching the duplicate is safe here (unlike on PostgreSQL).
      try {
        return claim.executeUpdate() == 1;
      } catch (SQLException e) {
        if (isDuplicateKey(e)) {
          return false;
        }
        throw e;
      }
    }

    @Override
    BatchStatements batchStatements(String table) {
      return new BatchStatements.JdbcBatched(this, table);
    }

    /**
     * A plain INSERT of the single claim's columns, run as a JDBC batch: H2 executes every row of a batch even when
     * some fail, and rolls back only the failed row's statement, never the transaction; the per-row update counts
     * then say which rows this transaction inserted. H2 runs in-process, so a batch is as cheap as one statement;
     * its ON CONFLICT exists only in PostgreSQL mode and its MERGE would overwrite records. Parameters: those of the
     * single claim but the state (a batch's rows are COMPLETED), once per batched row; {@code rows} does not change
     * the text.
     */
    @Override
    String batchClaimSql(String table, int rows) {
      return "INSERT INTO " + table + CLAIM_COLUMNS + " VALUES " + COMPLETED_CLAIM_VALUES;
    }

    @Override
    String purgeSql(String table) {
      return "DELETE FROM " + table + " WHERE expires_at <= ? FETCH FIRST ? ROWS ONLY";
    }

    @Override
    boolean isLockNotAvailable(SQLException e) {
      for (SQLException s : SqlErrors.chain(e)) {
        if (s.getErrorCode() == LOCK_TIMEOUT) {
          return true;
        }
      }
      return false;
    }

    /** CURRENT_TIMESTAMP is the transaction's start in H2: measured in auto-commit mode or first in a transaction. */
    @Override
    String currentTimeMillisSql() {
      return "SELECT DATEDIFF('MILLISECOND', TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00', CURRENT_TIMESTAMP)";
    }

    /** CURRENT_TIMESTAMP: the statement's start in auto-commit mode, where every lock statement runs. */
    @Override
    String lockNowMillis() {
      return "DATEDIFF('MILLISECOND', TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00', CURRENT_TIMESTAMP)";
    }

    /** MERGE ... USING with a matched branch that applies only if the lease has ended; won: read back by token. */
    @Override
    String lockAcquireSql() {
      return "MERGE INTO " + LOCK_TABLE + " l USING (SELECT CAST(? AS VARCHAR(255)) AS name,"
          + " CAST(? AS VARCHAR(64)) AS owner_token, CAST(? AS BIGINT) AS lease_ms, CAST(? AS VARCHAR(255)) AS locked_by,"
          + " " + lockNowMillis() + " AS now_ms) s ON l.name = s.name"
          + " WHEN MATCHED AND l.lease_until <= s.now_ms THEN UPDATE SET owner_token = s.owner_token,"
          + " lease_until = s.now_ms + s.lease_ms, fence = l.fence + 1, locked_at = s.now_ms, locked_by = s.locked_by"
          + " WHEN NOT MATCHED THEN INSERT (name, owner_token, lease_until, fence, locked_at, locked_by)"
          + " VALUES (s.name, s.owner_token, s.now_ms + s.lease_ms, 1, s.now_ms, s.locked_by)";
    }

    @Override
    int maxIdentifierLength() {
      return 256; // H2's MAX_IDENTIFIER_LENGTH
    }

    @Override
    boolean isTransient(SQLException e) {
      for (SQLException s : SqlErrors.chain(e)) {
        int code = s.getErrorCode();
        if (code == LOCK_TIMEOUT || code == CONCURRENT_UPDATE || code == DEADLOCK) {
          return true;
        }
      }
      return super.isTransient(e);
    }

    @Override
    boolean isUndefinedTable(SQLException e) {
      for (SQLException s : SqlErrors.chain(e)) {
        int code = s.getErrorCode();
        if (code == TABLE_NOT_FOUND || code == TABLE_NOT_FOUND_WITH_CANDIDATES
            || code == TABLE_NOT_FOUND_DATABASE_EMPTY) {
          return true;
        }
      }
      return super.isUndefinedTable(e);
    }
  }
}
