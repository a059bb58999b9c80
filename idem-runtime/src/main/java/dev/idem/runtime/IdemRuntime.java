package dev.idem.runtime;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.runtime.internal.IdemEngine;
import dev.idem.runtime.internal.IdemEngine.Limits;
import dev.idem.runtime.internal.SingleFlightSpec;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * idem's runtime, one per {@link DataSource} and table: the generated {@code *_Idempotent} classes take it in their
 * constructor. The first call of a command with a key runs the command's body and records its result in the same
 * database transaction as the body's own writes; later calls with the same key and payload replay the recorded
 * result without running the body. {@code CLAIM} commands, whose effects leave the database, commit a leased claim
 * before the body runs instead. Committed completed records are kept in a bounded in-memory cache, so that most
 * retries need no database round trip.
 *
 * <p>Application code uses {@link #inTransaction}, {@link #currentConnection()} and {@link #afterCommit(Runnable)}
 * for its own writes, {@link #extendLease(Duration)} inside long {@code CLAIM} bodies, and {@link #createSchema()} /
 * {@link #purgeExpired(int)} for housekeeping ({@link Builder#purgeEvery} schedules it; {@link #close()} stops it).
 * Thread-safe.
 */
public final class IdemRuntime implements AutoCloseable {

  // A facade over the engine in dev.idem.runtime.internal, which generated code reaches through
  // IdemEngine.of(runtime, version): nothing public here mentions the internal package.

  static {
    IdemEngine.registerAccess(runtime -> runtime.engine);
  }

  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
  /** The builder's first check; {@link Builder#build()} checks the identifiers derived from it per dialect. */
  private static final int MAX_TABLE_NAME_LENGTH = 128;
  private static final int DEFAULT_RESULT_CACHE_SIZE = 10_000;
  /** More often would only keep the database busy: expiry is measured in hours or days. */
  private static final Duration MIN_PURGE_INTERVAL = Duration.ofSeconds(1);

  private final IdemEngine engine;

  private IdemRuntime(IdemEngine engine) {
    this.engine = engine;
  }

  /** @return a builder; {@link Builder#dataSource(DataSource)} is required */
  public static Builder builder() {
    return new Builder();
  }

  /** The engine, for {@link IdemAdmin}. */
  IdemEngine engine() {
    return engine;
  }

  /** @return the dialect in use */
  public Dialect dialect() {
    return engine.dialect();
  }

  /** @return the name of the table holding the records */
  public String tableName() {
    return engine.tableName();
  }

  // ------------------------------------------------------------------------------------------------
  // Transactions

  /**
   * The connection of the transaction this runtime has in progress on this thread: inside a
   * command's body or {@link #inTransaction} work. The transaction is idem's: it commits the work together with the
   * command's record. So {@code commit()}, {@code rollback()}, {@code setAutoCommit(..)} and {@code abort(..)} throw
   * an {@link IllegalStateException} (throw an exception from the body to roll back), and {@code close()} does
   * nothing (try-with-resources is harmless). Savepoints and every statement are allowed.
   *
   * @return the connection, guarded as described
   * @throws IllegalStateException if no transaction of this runtime is in progress on this thread
   */
  public Connection currentConnection() {
    return engine.currentConnection();
  }

  /**
   * Runs {@code work} in a transaction: joins the one in progress on this thread, else begins one,
   * commits it, or rolls it back if {@code work} throws. Joined work shares the outer transaction; the outermost call
   * decides commit or rollback.
   *
   * <p>What {@code work} throws comes out unchanged (the application's own exceptions, checked ones too, and idem's),
   * except a raw {@link java.sql.SQLException} from its statements: that becomes an
   * {@link IdempotencyStoreException} with it as the cause. In a transaction of idem's own, a transient one (a
   * deadlock, a lock timeout, as the dialect classifies them by SQLState and vendor code; raw, or the cause of an
   * {@code IdempotencyStoreException} of a command or transition inside) rolls the transaction back and runs
   * {@code work} again from the start in a new one, up to 5 attempts in all, as {@code TRANSACTIONAL} commands do:
   * so {@code work} must be safe to rerun, which it is when all its effects are in that transaction (keep calls to
   * other systems out of it, or after the commit with {@link #afterCommit(Runnable)}, which only the committed
   * attempt runs). Joined to a transaction in progress (a command's body, the application's transaction), nothing
   * is retried: the database may have aborted that whole transaction, and only its owner can run it again.
   * {@code @StateTransition} methods run their SQL this way.
   *
   * @param work the work; it gets the transaction's connection (also {@link #currentConnection()})
   * @param <T> the result type
   * @return the work's result
   * @throws IdempotencyStoreException if the transaction cannot begin, or a statement of the work failed (with the
   *     {@link java.sql.SQLException} as its cause; if transiently, in every attempt)
   * @throws IdempotencyCommitUnknownException if {@code commit()} itself failed: the work is not run again
   */
  public <T> T inTransaction(TransactionalWork<T> work) {
    Objects.requireNonNull(work, "work");
    return engine.inTransaction(work);
  }

  /**
   * Runs {@code work}, which has no result, in a transaction; see {@link #inTransaction(TransactionalWork)}.
   * (A separate name, because a one-argument lambda could otherwise match both.)
   *
   * @param work the work
   */
  public void runInTransaction(TransactionalRunnable work) {
    Objects.requireNonNull(work, "work");
    inTransaction(connection -> {
      work.run(connection);
      return null;
    });
  }

  /**
   * Runs {@code work} with {@code connection} as the transaction in progress on this thread: the application's
   * plain JDBC transaction, which it began and will commit or roll back itself. Commands, batches, transitions and
   * {@link #inTransaction} work called inside {@code work} record on this connection, each inside a savepoint of its
   * own, so that their records commit or roll back with the application's writes; {@link #currentConnection()}
   * returns it (guarded). idem neither commits, rolls back whole nor closes it. {@code CLAIM} commands cannot run
   * inside (their claim must commit first). {@link #afterCommit(Runnable)} is unavailable inside: idem cannot see
   * when the application commits. What {@code work} throws comes out unchanged, except a raw
   * {@link java.sql.SQLException}, which comes out as an {@link IdempotencyStoreException} with it as the cause, never
   * retried (the transaction is the application's).
   *
   * @param connection a connection with auto-commit off, in the application's transaction
   * @param work the work; it gets the connection, guarded
   * @param <T> the result type
   * @return the work's result
   * @throws IllegalStateException if the connection is in auto-commit mode, or a transaction of this runtime is in
   *     progress on this thread already
   */
  public <T> T withConnection(Connection connection, TransactionalWork<T> work) {
    Objects.requireNonNull(connection, "connection");
    Objects.requireNonNull(work, "work");
    return engine.withConnection(connection, work);
  }

  /**
   * {@link #withConnection(Connection, TransactionalWork)} for work without a result.
   *
   * @param connection a connection with auto-commit off, in the application's transaction
   * @param work the work
   */
  public void runWithConnection(Connection connection, TransactionalRunnable work) {
    Objects.requireNonNull(work, "work");
    withConnection(connection, c -> {
      work.run(c);
      return null;
    });
  }

  /**
   * Runs {@code action} after the outermost transaction in progress on this thread commits, e.g. to
   * acknowledge a message only once its effects are durable. Never runs if it rolls back.
   *
   * @param action the action
   * @throws IllegalStateException if no transaction of this runtime is in progress on this thread
   */
  public void afterCommit(Runnable action) {
    Objects.requireNonNull(action, "action");
    engine.afterCommit(action);
  }

  /**
   * Inside the body of a {@code CLAIM} command: extends this caller's lease, so that a long-running body is not
   * taken over. The lease then ends {@code extension} from now. Runs on the body's own connection, in its
   * transaction, so it never needs a second pooled connection: other callers see the new lease end once the body's
   * transaction commits, and meanwhile find the record locked by it, which they take as its owner being alive (they
   * wait or fail with {@link IdempotencyInProgressException}, never take it over).
   *
   * @param extension a positive duration
   * @return true if the lease was extended; false if it was lost (another caller took the key over), in which case
   *     the body should stop: its completion will be rejected with {@link IdempotencyLeaseLostException}
   * @throws IllegalStateException if no {@code CLAIM} command's body is running on this thread
   * @throws IdempotencyStoreException if the update fails
   */
  public boolean extendLease(Duration extension) {
    Objects.requireNonNull(extension, "extension");
    if (extension.isNegative() || extension.isZero()) {
      throw new IllegalArgumentException("extension must be positive, got " + extension);
    }
    return engine.extendLease(extension);
  }

  /**
   * Forgets every cached completed record, e.g. after deleting records by hand (as tests do). Never needed
   * otherwise: idem's own records change only after they expired.
   */
  public void clearResultCache() {
    engine.clearResultCache();
  }

  // ------------------------------------------------------------------------------------------------
  // Housekeeping

  // ------------------------------------------------------------------------------------------------
  // Single-flight: work that runs on one instance at a time (what @SingleFlight generates, for hand-written code).

  /**
   * Runs {@code body} if this call gets the single-flight lock {@code name}, on one instance at a time across every
   * runtime on the lock store; returns at once, without running it, if another instance holds the lock. While the
   * body runs a watchdog renews the lease every third of {@code lockAtMostFor}; if the lease is lost, the body's
   * thread is interrupted, {@link IdempotencyListener#lockLost} fires and this call throws
   * {@link SingleFlightLockLostException}. The body reads its fencing token with {@link #fencingToken()}.
   *
   * @param name the lock's name, 1 to 255 characters
   * @param lockAtMostFor the lease: how long others wait if this instance dies holding it
   * @param lockAtLeastFor how long the lock stays held after it was taken, however soon the body ends; less than
   *     {@code lockAtMostFor}
   * @param body the work
   * @return true if the body ran here
   * @throws SingleFlightLockLostException if the lease was lost while the body ran
   * @throws IdempotencyStoreException if the lock store cannot be reached to take the lock
   * @throws IllegalArgumentException if a duration or the name breaks the rules above
   */
  public boolean runSingleFlight(String name, Duration lockAtMostFor, Duration lockAtLeastFor, Runnable body) {
    Objects.requireNonNull(body, "body");
    return singleFlight(name, lockAtMostFor, lockAtLeastFor, () -> {
      body.run();
      return Boolean.TRUE;
    }).isPresent();
  }

  /**
   * As {@link #runSingleFlight}, for a body with a result.
   *
   * @param name the lock's name
   * @param lockAtMostFor the lease
   * @param lockAtLeastFor the least time the lock is held
   * @param body the work
   * @param <T> the result's type
   * @return the body's result; empty if another instance held the lock (or the body returned null)
   */
  public <T> Optional<T> singleFlight(String name, Duration lockAtMostFor, Duration lockAtLeastFor,
      Supplier<? extends T> body) {
    Objects.requireNonNull(body, "body");
    SingleFlightSpec spec = IdemEngine.singleFlightSpec(name, lockAtMostFor,
        lockAtLeastFor);
    return engine.<Optional<T>>singleFlight(spec, Optional.empty(), () -> Optional.ofNullable(body.get()));
  }

  /**
   * The fencing token of the single-flight body running on this thread: strictly greater than that of every earlier
   * acquisition of the same lock. Pass it to the storage the body writes (see {@link FencedUpdate}).
   *
   * @return the token
   * @throws IllegalStateException outside a single-flight body
   */
  public long fencingToken() {
    return engine.fencingToken().orElseThrow(() -> new IllegalStateException(
        "fencingToken() is only known inside a single-flight body (@SingleFlight or runtime.singleFlight)"));
  }

  /**
   * Starts an outbox relay on this runtime's data source: a daemon thread that publishes the events generated
   * {@code @OutboxEvent} publishers wrote into {@code idem_outbox}, through {@code publisher}, and marks them sent
   * (see {@link OutboxRelay}). Start one per process, or several: relays in one or many processes claim disjoint
   * batches. Close it, or the runtime ({@code close()} stops the relays it started), before closing the data source.
   *
   * @param publisher the broker adapter ({@code idem-rabbitmq}, {@code idem-kafka}, {@code idem-nats}, or your own);
   *     the application owns and closes it
   * @param options batch size, poll interval, claim lease, backoff, retention of sent events
   * @return the running relay
   */
  public OutboxRelay startOutboxRelay(OutboxPublisher publisher, OutboxRelayOptions options) {
    return engine.startOutboxRelay(publisher, options);
  }

  /** @return where this runtime's single-flight locks live (the builder's, or the idem_lock table) */
  public LockProvider lockProvider() {
    return engine.lockProvider();
  }

  /**
   * Creates the table and its expiry index if they do not exist; safe to call repeatedly. Runs the
   * dialect's DDL resource ({@code dev/idem/runtime/schema/<dialect>.sql}) with the table name
   * substituted, and the transition log ({@code schema/transition-log-<dialect>.sql}). Production
   * systems may prefer to run those resources through Flyway or Liquibase.
   *
   * @throws IdempotencyStoreException if the DDL fails
   */
  public void createSchema() {
    engine.createSchema();
  }

  /**
   * Deletes records whose archive horizon has passed (their dedup window, the command's {@code retention}, plus
   * {@link Builder#keepAfterDedupWindow}), in batches of at most {@code batchSize} rows, each in
   * its own short transaction on its own connection, until a batch deletes fewer rows.
   *
   * <p>With {@link RecordLayout#DAY_PARTITIONS} it deletes no rows: it drops (or archives) the past days whose
   * records are all past their archive horizon and returns the records those days held as the database's statistics
   * estimate them (see {@link IdempotencyListener#partitionDropped}); the day is never read to count them.
   *
   * @param batchSize the most rows one statement deletes; keeps locks and undo small
   * @return the number of deleted records (day partitions: the estimated records of the days removed)
   * @throws IdempotencyStoreException if a batch fails (batches deleted before stay deleted)
   * @throws IllegalStateException inside {@link #inTransaction} or a command's body: it needs a connection of its
   *     own, which a pool the thread's own work holds may never give (a pool of one would wait for itself)
   */
  public long purgeExpired(int batchSize) {
    if (batchSize < 1) {
      throw new IllegalArgumentException("batchSize must be positive, got " + batchSize);
    }
    return engine.purgeExpired(batchSize);
  }

  /**
   * With {@link RecordLayout#DAY_PARTITIONS}: creates the partitions of yesterday, today (database time) and the next 7 days
   * that do not exist yet. {@link #createSchema()} and every run of the scheduled purge do it too; call it when a
   * claim failed because its day had no partition.
   *
   * @return the partitions created; empty if they all existed or another node's maintenance runs right now
   * @throws IllegalStateException if the table is laid out as {@link RecordLayout#ONE_TABLE}
   * @throws IdempotencyStoreException if a statement fails (partitions created before it stay)
   */
  public List<String> premakePartitions() {
    return engine.premakePartitions();
  }

  /**
   * After {@link Builder#switchingFrom}: until when a record of the old table is inside its archive horizon (its
   * latest expiry plus {@link Builder#keepAfterDedupWindow}); after that instant the old table can go.
   *
   * @return that instant, or empty if the old table holds no record
   * @throws IllegalStateException if the runtime was not built with {@link Builder#switchingFrom}
   * @throws IdempotencyStoreException if the query fails
   */
  public Optional<java.time.Instant> switchedTableLiveUntil() {
    return engine.switchedTableLiveUntil();
  }

  /**
   * With {@link RecordLayout#DAY_PARTITIONS}: the day partitions attached to the table, oldest first.
   *
   * @return the partitions
   * @throws IllegalStateException if the table is laid out as {@link RecordLayout#ONE_TABLE}
   */
  public List<RecordPartition> partitions() {
    return engine.partitions();
  }

  /**
   * Stops the scheduled purge ({@link Builder#purgeEvery}), waiting up to 5 seconds for a run in progress, and the
   * outbox relays this runtime started ({@link #startOutboxRelay}). Commands keep working after it; without a
   * scheduled purge or relays it does nothing. Idempotent.
   */
  @Override
  public void close() {
    engine.close();
  }

  // ------------------------------------------------------------------------------------------------
  // Operators: a way out for keys an operator must look at, without SQL by hand. Each runs in auto-commit mode on
  // a connection of its own; inside runtime.inTransaction(...) or a command's body it throws IllegalStateException.

  /**
   * Reads the record of a key as it is now: its state, owner and lease, times, what it stores and how large. Always
   * safe (reads only).
   *
   * @param scope the command's scope, e.g. {@code "Payments.charge"}
   * @param key the composed idempotency key, as exceptions report it ({@code key()})
   * @return the record, or empty if there is none
   * @throws IdempotencyStoreException if the read fails
   */
  public Optional<IdempotencyRecord> inspect(String scope, String key) {
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(key, "key");
    return engine.inspect(scope, key);
  }

  /**
   * Deletes the record of a key, whatever its state, and drops it from the result cache: the next call with that
   * key runs the command again. Safe for an {@code OUTCOME_UNKNOWN} or broken record only after checking the
   * external system and finding that the first execution's effect did <em>not</em> happen (else use
   * {@link #resolve}); for an {@code IN_PROGRESS} record only once its owner is known dead (else the body may run
   * twice); for a {@code COMPLETED} record, only if running the command again is what you want. Other runtimes'
   * result caches may still replay a forgotten completed record until they evict it.
   *
   * @param scope the command's scope
   * @param key the composed idempotency key
   * @return whether a record was deleted
   * @throws IdempotencyStoreException if the delete fails
   */
  public boolean forget(String scope, String key) {
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(key, "key");
    return engine.forget(scope, key);
  }

  /**
   * Completes an {@code OUTCOME_UNKNOWN} record with the result the first execution had, as found in the external
   * system (e.g. the gateway's charge id), so that every retry replays it; the record keeps its expiry. Safe once the
   * external effect is known to have happened; touches no other state (returns false for them). The result is checked
   * before anything is stored, and its result shape stored with it: if this runtime has run the scope's command, it
   * must read as its result type; otherwise it must fit the result shape of the command's manifest on the class path
   * ({@code META-INF/idem/*.json}, see {@link IdemManifest}), and without one it is refused. A tool outside the
   * application passes the command from the application's manifest to {@link IdemAdmin#resolve}.
   *
   * @param scope the command's scope
   * @param key the composed idempotency key
   * @param resultJson the result as JSON, as idem stores it ({@code "null"} for a null result); null for a void
   *     command
   * @return whether an {@code OUTCOME_UNKNOWN} record was completed
   * @throws IllegalArgumentException if the result does not read as the command's result type, or no command of the
   *     scope is known (neither run here nor in a manifest on the class path)
   * @throws IdempotencyStoreException if the update fails
   */
  public boolean resolve(String scope, String key, String resultJson) {
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(key, "key");
    return engine.resolve(scope, key, resultJson);
  }

  // ------------------------------------------------------------------------------------------------

  /** Configures an {@link IdemRuntime}. */
  public static final class Builder {

    private DataSource dataSource;
    private Dialect dialect;
    private String tableName = "idem_record";
    private int maxKeyLength = Limits.DEFAULT_MAX_KEY_LENGTH;
    private String allowedKeyPunctuation = Limits.DEFAULT_KEY_PUNCTUATION;
    private Clock clock = Clock.systemUTC();
    private ObjectMapper objectMapper;
    private IdempotencyListener listener = IdempotencyListener.NO_OP;
    private boolean resultCacheEnabled = true;
    private boolean adaptiveLookupFirst = true;
    private int resultCacheSize = DEFAULT_RESULT_CACHE_SIZE;
    private TransitionListener transitionListener = TransitionListener.NO_OP;
    private boolean logTransitions;
    private int maxResultSize = Limits.DEFAULT_MAX_RESULT_SIZE;
    private boolean databaseTime = true;
    private boolean bodiesNeverCommitImplicitly;
    private LockProvider lockProvider;
    private TransactionBinding transactionBinding;
    private Duration purgeInterval;
    private int purgeBatchSize;
    private Duration keepAfterDedupWindow = Duration.ZERO;
    private RecordLayout layout = RecordLayout.ONE_TABLE;
    private String archiveSchema;
    private String switchedFrom;
    private Duration keepTransitionLogFor;
    private FrontTier frontTier = FrontTier.NONE;
    private Duration frontTierInFlight = Duration.ofSeconds(30);
    private RecordStore recordStore;

    private Builder() {}

    /**
     * Whether leases, takeovers, expiry and purges follow the database's clock; default true. The runtime then
     * measures the offset between its {@link #clock(Clock) clock} and the database's (one query, on a connection it
     * holds anyway, on first use and every 30 s) and adds it to its clock, so that runtimes whose clocks are minutes
     * apart still agree: a caller ahead never takes over a live lease, a purger ahead never deletes a record inside
     * its retention. Between measurements, time advances by {@link System#nanoTime()} from the database's time at
     * the last measurement when the clock is the system clock (the default; {@code Clock.systemUTC()} or
     * {@code systemDefaultZone()}), so a step of the host's clock (NTP, a VM resumed) moves nothing until the next
     * measurement re-anchors on the database (and logs a warning); with any other clock, time advances with that
     * clock (a test clock moved forward moves it). With false, the runtime's clock is taken as is (tests that set a
     * fixed clock and assert stored times).
     *
     * @param followDatabase whether to follow the database's clock
     * @return this builder
     */
    public Builder databaseTime(boolean followDatabase) {
      this.databaseTime = followDatabase;
      return this;
    }

    /**
     * Opt-in, default false: the application promises that no {@code TRANSACTIONAL} body runs anything that commits
     * the transaction implicitly (DDL such as {@code CREATE}, {@code ALTER}, {@code DROP}, {@code TRUNCATE} on H2,
     * MariaDB and MySQL). A void command without {@code replayOn} then inserts its record {@code COMPLETED} with the
     * claim and skips the completing {@code UPDATE}, as it always does on PostgreSQL, whose DDL is transactional: one
     * statement less per first execution (on H2 the costliest one, which rewrites the record in every index; on
     * MariaDB a round trip).
     *
     * <p>The contract, if the promise is broken. By default, a body that commits early exposes a {@code PENDING}
     * record: a duplicate arriving meanwhile gets {@link IdempotencyBrokenRecordException}, and if the body then fails
     * the record stays {@code PENDING} and every retry gets that exception until it expires or an operator forgets it.
     * With this option the early commit exposes a {@code COMPLETED} record instead: that duplicate, and every retry
     * after the body failed later, replays "done" for a body that may never have finished. Commands with a result
     * or {@code replayOn}, CLAIM mode, batches and PostgreSQL behave the same either way.
     *
     * @param promise true if no transactional body ever commits implicitly
     * @return this builder
     */
    public Builder bodiesNeverCommitImplicitly(boolean promise) {
      this.bodiesNeverCommitImplicitly = promise;
      return this;
    }

    /**
     * The largest result a command may store, in characters of JSON (a stored business failure's arguments count
     * too); default 1 MiB (1,048,576). A larger result fails with {@link IdempotencyResultTooLargeException} before
     * its record is completed (a transactional command's transaction rolls back), instead of being stored and then
     * never replaying. Whatever is stored within this limit is readable: the runtime raises Jackson's read limits to
     * match. The database must accept it too: on MariaDB and MySQL a result takes up to 3 bytes (UTF-8) per
     * character, and {@code max_allowed_packet} (the server operator's setting, 16 MiB by default) must exceed that.
     *
     * @param maxChars a positive number of characters
     * @return this builder
     */
    public Builder maxResultSize(int maxChars) {
      if (maxChars < 1) {
        throw new IllegalArgumentException("maxResultSize must be positive, got " + maxChars);
      }
      this.maxResultSize = maxChars;
      return this;
    }

    /**
     * Whether completed results are kept in memory, so that a retry of a completed command is answered without a
     * database round trip; default on. Only committed completed records are cached (they never change before they
     * expire, so this is safe with several instances); a hit still checks the payload's fingerprint.
     *
     * @param enabled false to always read the table
     * @return this builder
     */
    public Builder resultCache(boolean enabled) {
      this.resultCacheEnabled = enabled;
      return this;
    }

    /**
     * Whether a command that does not set {@code @IdempotentCommand(lookupFirst = true)} reads its key's record
     * before claiming it while most of its recent calls are retries; default on. Claiming first is cheapest for a
     * first execution, reading first for a retry of a completed key (one read in auto-commit instead of a claim, a
     * read and a commit); with this on, each command follows its own traffic: it reads first once more than half of
     * its last calls or so found their key completed, and claims first again once fewer than a quarter did. Calls
     * answered by the result cache or the front tier do not count, so a cache that absorbs the retries keeps the
     * command claiming first. Either way decides alike: the read answers only with a committed, unexpired, completed
     * record, and everything else goes on to the claim; only calls outside any transaction ever read first. Off:
     * such commands always claim first (a command with {@code lookupFirst = true} always reads first, either way).
     *
     * @param enabled false to always claim first unless a command sets {@code lookupFirst}
     * @return this builder
     */
    public Builder adaptiveLookupFirst(boolean enabled) {
      this.adaptiveLookupFirst = enabled;
      return this;
    }

    /**
     * The most completed records the result cache keeps (rounded down to a multiple of 8); when it is full, records
     * not replayed since they were stored go first; default 10,000.
     *
     * @param maxEntries at least 1
     * @return this builder
     */
    public Builder resultCacheSize(int maxEntries) {
      if (maxEntries < 1) {
        throw new IllegalArgumentException("resultCacheSize must be positive, got " + maxEntries
            + "; use resultCache(false) to turn the cache off");
      }
      this.resultCacheSize = maxEntries;
      return this;
    }

    /**
     * The data source for records and business writes (required). Pooled in production.
     *
     * @param dataSource the data source
     * @return this builder
     */
    public Builder dataSource(DataSource dataSource) {
      this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
      return this;
    }

    /**
     * The SQL dialect. Optional: detected once by {@link #build()} from the database product name.
     *
     * @param dialect the dialect
     * @return this builder
     */
    public Builder dialect(Dialect dialect) {
      this.dialect = Objects.requireNonNull(dialect, "dialect");
      return this;
    }

    /**
     * The table holding the records; default {@code idem_record}.
     *
     * @param tableName a plain SQL identifier ({@code [A-Za-z_][A-Za-z0-9_]*}); {@link #build()} checks that the
     *     identifiers derived from it (the table, {@code <table>_expires_idx}) fit the dialect's limit (PostgreSQL 63,
     *     MariaDB 64, H2 256 characters)
     * @return this builder
     */
    public Builder tableName(String tableName) {
      Objects.requireNonNull(tableName, "tableName");
      if (tableName.length() > MAX_TABLE_NAME_LENGTH || !IDENTIFIER.matcher(tableName).matches()) {
        throw new IllegalArgumentException("tableName must be a plain SQL identifier "
            + "([A-Za-z_][A-Za-z0-9_]*, at most " + MAX_TABLE_NAME_LENGTH + " characters), got '" + tableName + "'");
      }
      this.tableName = tableName;
      return this;
    }

    /**
     * The longest composed key; default 128.
     *
     * @param maxKeyLength 1 to 255
     * @return this builder
     */
    public Builder maxKeyLength(int maxKeyLength) {
      if (maxKeyLength < 1 || maxKeyLength > Limits.MAX_MAX_KEY_LENGTH) {
        throw new IllegalArgumentException("maxKeyLength must be between 1 and "
            + Limits.MAX_MAX_KEY_LENGTH + ", got " + maxKeyLength);
      }
      this.maxKeyLength = maxKeyLength;
      return this;
    }

    /**
     * The punctuation allowed in keys besides the always allowed ASCII letters and digits; default
     * {@code -_.:@/+=~}. {@code |} cannot be allowed: it separates the parts of composite keys.
     *
     * @param punctuation visible ASCII punctuation characters
     * @return this builder
     */
    public Builder allowedKeyPunctuation(String punctuation) {
      Objects.requireNonNull(punctuation, "punctuation");
      Limits.checkKeyPunctuation(punctuation);
      this.allowedKeyPunctuation = punctuation;
      return this;
    }

    /**
     * The clock for creation and expiry times; default the UTC system clock. Unless {@link #databaseTime(boolean)}
     * is false, the offset measured between it and the database's clock is added to it (and with the system clock,
     * time between measurements is monotonic: see {@link #databaseTime(boolean)}).
     *
     * @param clock the clock
     * @return this builder
     */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * A base mapper for stored results (copied; idem adds the JDK 8 and java.time modules and
     * ignores unknown properties). Fingerprints always use idem's own canonical mapper. A mapper with polymorphic
     * default typing ({@code activateDefaultTyping}, {@code enableDefaultTyping}) is refused: a stored row naming a
     * class must never get that class instantiated. Only the types a command declares, and the sealed subtypes it
     * permits, are ever created from a stored result (idem also denies class names in {@code @JsonTypeInfo}).
     *
     * @param objectMapper the mapper
     * @return this builder
     * @throws IllegalArgumentException if the mapper has default typing enabled
     */
    public Builder objectMapper(ObjectMapper objectMapper) {
      Objects.requireNonNull(objectMapper, "objectMapper");
      if (objectMapper.getDeserializationConfig().getDefaultTyper(null) != null
          || objectMapper.getSerializationConfig().getDefaultTyper(null) != null) {
        throw new IllegalArgumentException("objectMapper has polymorphic default typing enabled; idem refuses it,"
            + " because a tampered stored result could then name any class to instantiate. Pass a mapper without"
            + " it (deactivateDefaultTyping()); declare sealed result types for polymorphic results");
      }
      this.objectMapper = objectMapper;
      return this;
    }

    /**
     * Observes decisions; default none.
     *
     * @param listener the listener
     * @return this builder
     */
    public Builder listener(IdempotencyListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /**
     * Observes {@code @StateTransition} methods: applied, repeated and rejected transitions; default none.
     *
     * @param transitionListener the listener
     * @return this builder
     */
    public Builder transitionListener(TransitionListener transitionListener) {
      this.transitionListener = Objects.requireNonNull(transitionListener, "transitionListener");
      return this;
    }

    /**
     * Records every applied {@code @StateTransition} in the transition log, not only those with {@code log = true};
     * default false. The log table is created by {@link IdemRuntime#createSchema()}.
     *
     * @param logTransitions whether to log all transitions
     * @return this builder
     */
    public Builder logTransitions(boolean logTransitions) {
      this.logTransitions = logTransitions;
      return this;
    }

    /**
     * Joins the transaction the application already has on the current thread, found by {@code binding}: when it
     * returns a connection, {@code TRANSACTIONAL} commands, batches, transitions and {@link IdemRuntime#inTransaction}
     * work run on that connection inside savepoints of their own, so that their records commit or roll back with the
     * application's transaction (and a body's writes on that connection never wait for the application's own locks);
     * there are no retries of transient failures inside it, since the database may have aborted the whole
     * transaction. When it returns null, idem begins its own transaction as without a binding. {@code CLAIM}
     * commands refuse to run inside the application's transaction: their claim must commit first.
     *
     * @param binding where the application's transaction is found
     * @return this builder
     */
    public Builder joinTransactions(TransactionBinding binding) {
      this.transactionBinding = Objects.requireNonNull(binding, "binding");
      return this;
    }

    /**
     * Where single-flight locks live ({@code @SingleFlight}, {@link IdemRuntime#singleFlight}). Default: the
     * {@code idem_lock} table on this runtime's data source, with every lease decided by the database's clock and
     * fencing tokens increased in the statement that takes the lease.
     *
     * @param provider the lock store
     * @return this builder
     */
    public Builder lockProvider(LockProvider provider) {
      this.lockProvider = Objects.requireNonNull(provider, "provider");
      return this;
    }

    /**
     * Purges expired records every {@code interval} on a daemon thread of the runtime's own, started by
     * {@link #build()} and stopped by {@link IdemRuntime#close()}: each run is {@link IdemRuntime#purgeExpired(int)}
     * with {@code batchSize}, the first one {@code interval} after the build. A failed run is logged and reported to
     * {@link IdempotencyListener#purgeFailed}; the next run comes as usual. Each run reports to
     * {@link IdempotencyListener#purged}. Safe to enable on every node of a cluster: concurrent purges of one table
     * neither deadlock nor count a row twice (PostgreSQL: each batch skips rows another purge has locked; MariaDB and
     * H2: batches lock in expiry order, so that one waits briefly for the other).
     *
     * @param interval the pause between two runs; at least one second
     * @param batchSize the most rows one statement deletes
     * @return this builder
     */
    public Builder purgeEvery(Duration interval, int batchSize) {
      Objects.requireNonNull(interval, "interval");
      if (interval.compareTo(MIN_PURGE_INTERVAL) < 0) {
        throw new IllegalArgumentException("purgeEvery's interval must be at least " + MIN_PURGE_INTERVAL
            + ", got " + interval);
      }
      if (batchSize < 1) {
        throw new IllegalArgumentException("batchSize must be positive, got " + batchSize);
      }
      this.purgeInterval = interval;
      this.purgeBatchSize = batchSize;
      return this;
    }

    /**
     * How long records stay in the table after their dedup window ended, for audit and investigation: the archive
     * horizon is each record's dedup window (its command's {@code retention}) plus this; default zero, so that the
     * horizon equals the window. {@link IdemRuntime#purgeExpired(int)} and the scheduled purge delete a record only
     * once its horizon has passed. A record past its dedup window but inside its horizon never replays and never
     * refuses a reused key: the key runs anew, and its new record takes the old one's place (the table holds one
     * record per key), so the audit copy of a key lasts until the key is reused or the horizon passes.
     *
     * @param keepAfterDedupWindow zero or more
     * @return this builder
     */
    public Builder keepAfterDedupWindow(Duration keepAfterDedupWindow) {
      Objects.requireNonNull(keepAfterDedupWindow, "keepAfterDedupWindow");
      if (keepAfterDedupWindow.isNegative()) {
        throw new IllegalArgumentException("keepAfterDedupWindow must be zero or more (a record is never purged"
            + " inside its dedup window), got " + keepAfterDedupWindow);
      }
      this.keepAfterDedupWindow = keepAfterDedupWindow;
      return this;
    }

    /**
     * How the record table is laid out; default {@link RecordLayout#ONE_TABLE}. {@link RecordLayout#DAY_PARTITIONS}
     * (PostgreSQL 14 and later, MariaDB 10.6 and later) partitions it by day, so that retention drops whole days instead of deleting rows:
     * {@link IdemRuntime#purgeExpired(int)} and the scheduled purge then drop the days whose records are all past
     * their archive horizon and create the coming days' partitions ahead of time. {@link #build()} refuses it on
     * other databases.
     *
     * @param layout the layout
     * @return this builder
     */
    public Builder layout(RecordLayout layout) {
      this.layout = Objects.requireNonNull(layout, "layout");
      return this;
    }

    /**
     * With {@link RecordLayout#DAY_PARTITIONS}: move past days to {@code schema} (created if absent; a database on MariaDB, which needs 10.7
     * or later for it) instead of
     * dropping them, for an archive the application reads or exports and drops itself.
     *
     * @param schema an unquoted schema name (letters, digits, underscores)
     * @return this builder
     */
    public Builder archivePartitionsTo(String schema) {
      Objects.requireNonNull(schema, "schema");
      if (!schema.matches("[A-Za-z_][A-Za-z0-9_]*")) {
        throw new IllegalArgumentException("archivePartitionsTo needs an unquoted schema name (letters, digits,"
            + " underscores, not starting with a digit), got '" + schema + "'");
      }
      this.archiveSchema = schema;
      return this;
    }

    /**
     * With {@link RecordLayout#DAY_PARTITIONS}, whose transition log is partitioned by day too: drop (or archive, see
     * {@link #archivePartitionsTo}) a day of the log once it ended this long ago. Without it the log keeps every
     * day, as one table does.
     *
     * @param keep at least one day
     * @return this builder
     */
    public Builder keepTransitionLogFor(Duration keep) {
      Objects.requireNonNull(keep, "keep");
      if (keep.compareTo(Duration.ofDays(1)) < 0) {
        throw new IllegalArgumentException("keepTransitionLogFor must be at least a day (the log goes by whole"
            + " days), got " + keep);
      }
      this.keepTransitionLogFor = keep;
      return this;
    }

    /**
     * Switches a live system from {@link RecordLayout#ONE_TABLE} to {@link RecordLayout#DAY_PARTITIONS} without
     * letting a duplicate through: this runtime writes its own day-partitioned {@link #tableName table}, and its
     * claims also respect the live records of {@code oneTable}, the table the one-table runtimes wrote (a key
     * recorded there inside its dedup window replays from it, or is refused with another payload). Stop the
     * one-table runtimes first; {@link IdemRuntime#createSchema()} then waits until no transaction writes
     * {@code oneTable} any more. Once {@link IdemRuntime#switchedTableLiveUntil()} has passed, build the runtimes
     * without this setting and drop {@code oneTable} (see the Retention guide).
     *
     * @param oneTable the one-table record table, unquoted
     * @return this builder
     */
    public Builder switchingFrom(String oneTable) {
      Objects.requireNonNull(oneTable, "oneTable");
      if (!oneTable.matches("[A-Za-z_][A-Za-z0-9_]*")) {
        throw new IllegalArgumentException("switchingFrom needs an unquoted table name (letters, digits,"
            + " underscores, not starting with a digit), got '" + oneTable + "'");
      }
      this.switchedFrom = oneTable;
      return this;
    }

    /**
     * A shared store in front of the database (Redis: {@code idem-redis}'s {@code RedisFrontTier}) that answers
     * retries of completed commands and duplicates of calls in flight without a database connection; default
     * {@link FrontTier#NONE}. The database stays the authority: whatever the tier does not know, or cannot answer,
     * the database decides. See {@link FrontTier}.
     *
     * @param tier the tier
     * @return this builder
     */
    public Builder frontTier(FrontTier tier) {
      this.frontTier = Objects.requireNonNull(tier, "tier");
      return this;
    }

    /**
     * How long a {@code TRANSACTIONAL} command's in-flight mark in the front tier holds if its owner never replaces
     * or removes it (its process died); default 30 s. Until then duplicates are told it is in progress. A
     * {@code CLAIM} command's mark holds for its lease.
     *
     * @param maxInFlight positive; longer than the command's slowest transaction
     * @return this builder
     */
    public Builder frontTierInFlight(Duration maxInFlight) {
      if (maxInFlight == null || maxInFlight.isNegative() || maxInFlight.isZero()) {
        throw new IllegalArgumentException("frontTierInFlight must be positive, got " + maxInFlight);
      }
      this.frontTierInFlight = maxInFlight;
      return this;
    }

    /**
     * Where the records of {@code @IdempotentCommand(store = Store.REDIS)} commands live ({@code idem-redis}'s
     * {@code RedisRecordStore}); default none, and then such a command fails on its first call. Commands of the
     * default {@code store = Store.DATABASE} never use it. See {@link RecordStore}.
     *
     * @param store the store
     * @return this builder
     */
    public Builder recordStore(RecordStore store) {
      this.recordStore = Objects.requireNonNull(store, "store");
      return this;
    }

    /**
     * Builds the runtime; detects the dialect (one connection) if none was set.
     *
     * @return the runtime
     * @throws IllegalStateException if no data source was set or the dialect cannot be detected
     * @throws IllegalArgumentException if an identifier derived from the table name is too long for the dialect
     */
    public IdemRuntime build() {
      if (dataSource == null) {
        throw new IllegalStateException("IdemRuntime needs a dataSource");
      }
      Dialect chosen = dialect != null ? dialect : Dialect.detect(dataSource);
      Limits.checkTableName(chosen, tableName);
      if (layout == RecordLayout.DAY_PARTITIONS) {
        if (chosen != Dialect.POSTGRESQL && chosen != Dialect.MARIADB) {
          throw new IllegalArgumentException(chosen + " keeps idem's records in one table: RecordLayout."
              + layout + " needs PostgreSQL or MariaDB; build this runtime with RecordLayout.ONE_TABLE");
        }
        // Its partitions' names (<table>_pYYYYMMDD) are shorter than the expiry index's, checked above.
        if (tableName.equals(switchedFrom)) {
          throw new IllegalArgumentException("switchingFrom names the one-table record table, which must differ"
              + " from this runtime's day-partitioned tableName '" + tableName + "'");
        }
      } else if (archiveSchema != null || switchedFrom != null || keepTransitionLogFor != null) {
        throw new IllegalArgumentException((archiveSchema != null ? "archivePartitionsTo"
            : switchedFrom != null ? "switchingFrom" : "keepTransitionLogFor") + " needs RecordLayout.DAY_PARTITIONS");
      }
      return new IdemRuntime(new IdemEngine(new IdemEngine.Settings(dataSource, chosen, tableName, maxKeyLength,
          allowedKeyPunctuation, clock, objectMapper, listener, resultCacheEnabled ? resultCacheSize : 0,
          transitionListener, logTransitions, maxResultSize, transactionBinding, purgeInterval, purgeBatchSize,
          databaseTime, bodiesNeverCommitImplicitly, keepAfterDedupWindow, layout, archiveSchema,
          switchedFrom, keepTransitionLogFor, frontTier, frontTierInFlight,
          lockProvider, recordStore, adaptiveLookupFirst)));
    }
  }
}
