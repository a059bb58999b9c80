package dev.idem.runtime.internal;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.InFlight;
import dev.idem.Mode;
import dev.idem.Store;
import dev.idem.runtime.Dialect;
import dev.idem.runtime.FrontTier;
import dev.idem.runtime.IdempotencyInProgressException;
import dev.idem.runtime.GeneratedCodeVersionException;
import dev.idem.runtime.IdemAdmin;
import dev.idem.runtime.IdemManifest;
import dev.idem.runtime.IdempotencyStats;
import dev.idem.runtime.IdempotencyBrokenRecordException;
import dev.idem.runtime.IdempotencyRecord;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.RecordLayout;
import dev.idem.runtime.RecordPartition;
import dev.idem.runtime.RecordStore;
import dev.idem.runtime.ReplayValidity;
import dev.idem.runtime.IdempotencyException;
import dev.idem.runtime.IdempotencyKeyReusedException;
import dev.idem.runtime.IdempotencyListener;
import dev.idem.runtime.LockProvider;
import dev.idem.runtime.IdempotencyScopeConflictException;
import dev.idem.runtime.IdempotencyStoreException;
import dev.idem.runtime.IdempotentResult;
import dev.idem.runtime.InvalidIdempotencyKeyException;
import dev.idem.runtime.TransactionBinding;
import dev.idem.runtime.TransactionalWork;
import dev.idem.runtime.TransitionListener;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.LongConsumer;
import javax.sql.DataSource;

/**
 * The door generated code goes through: {@link #execute}, {@link #executeBatch}, {@link #inTransaction} and
 * {@link #transitions()}. Behind it, one executor per mode ({@link TransactionalExecutor}, {@link ClaimExecutor},
 * {@link BatchExecutor}) shares one {@link TransactionManager}, so that commands, batches and transactions on one
 * thread join each other. {@link IdemRuntime} is the application's face of the same engine.
 *
 * <p>Generated classes get theirs with {@link #of(IdemRuntime, String)} in their constructor, passing the idem
 * version that generated them.
 */
@IdemInternal
public final class IdemEngine {

  /** Set by {@link IdemRuntime}'s class initializer: the one way from a runtime to its engine. */
  private static volatile Function<IdemRuntime, IdemEngine> engines;

  private final SqlDialect dialect;
  private final String tableName;
  private final KeyComposer keys;
  private final ResultCodec results;
  private final DatabaseClock clock;
  private final SafeListener listener;
  private final CompletedRecordCache cache;
  private final FrontTierGate frontTier;
  private final TransactionManager transactions;
  private final TransactionalExecutor transactional;
  private final ClaimExecutor claims;
  private final RecordLookup lookup;
  private final BatchExecutor batches;
  /** Runs {@code store = REDIS} commands; null when the runtime has no {@link RecordStore}. */
  private final RecordStoreExecutor storeCommands;
  private final Transitions transitions;
  private final SchemaInstaller schema;
  /** How many days after today's the partition maintenance keeps created. */
  static final int PARTITION_DAYS_AHEAD = 7;
  /** The day partitions' maintenance; null for {@link RecordLayout#ONE_TABLE}. */
  private final PartitionMaintenance partitions;
  /** The transition log's day partitions (with the records'); null for {@link RecordLayout#ONE_TABLE}. */
  private final PartitionMaintenance logPartitions;
  /** The outbox's day partitions (DAY_PARTITIONS layout), or null. */
  private final PartitionMaintenance outboxPartitions;
  private final DataSource dataSource;
  private final long keepAfterDedupWindowMillis;
  private final ExpiredRecordPurger purger;
  private final RecordOperations operations;
  private final RecordStats stats;
  private final SingleFlightRunner singleFlights;
  private final OutboxWriter outboxWriter;
  private final OutboxOperations outboxOperations;
  private final ObjectMapper outboxMapper;
  /** The relays this runtime started and that are not closed yet; {@link #close()} stops them. */
  private final java.util.Set<OutboxRelayLoop> relays = ConcurrentHashMap.newKeySet();
  /** The built-in scheduled purge; null unless the builder asked for one. */
  private final ScheduledPurge scheduledPurge;
  /**
   * The first command seen per scope, with its share of retries: two different commands must not share one (see
   * {@link #checkScope}).
   */
  private final ConcurrentHashMap<String, Registered> commandsByScope = new ConcurrentHashMap<>();
  /** Whether a command that does not set {@code lookupFirst} reads first while most of its calls are retries. */
  private final boolean adaptiveLookupFirst;

  /** A command this runtime has run, and what it learned of its calls. */
  private record Registered(CommandSpec<?> spec, RetryShare retries) {}

  /**
   * Wires an engine; called by {@link IdemRuntime.Builder#build()}, which has validated every setting.
   *
   * @param settings the runtime's settings
   */
  public IdemEngine(Settings settings) {
    this(settings, new DatabaseClock(settings.clock(), SqlDialect.of(settings.dialect()),
        settings.followDatabaseClock()));
  }

  /** An engine on a given time (tests: a monotonic one over a clock that steps, see {@link DatabaseClock}). */
  IdemEngine(Settings settings, DatabaseClock clock) {
    DataSource dataSource = settings.dataSource();
    this.dialect = SqlDialect.of(settings.dialect(), settings.layout(), settings.switchedFrom());
    this.tableName = settings.tableName();
    this.keys = new KeyComposer(settings.maxKeyLength(), settings.allowedKeyPunctuation());
    this.results = new ResultCodec(settings.objectMapper(), settings.maxResultSize());
    this.clock = clock;
    this.listener = new SafeListener(settings.listener());
    this.frontTier = new FrontTierGate(settings.frontTier(), clock, settings.frontTierInFlight());
    this.cache = new CompletedRecordCache(settings.resultCacheSize(), frontTier.isEnabled() ? frontTier : null);
    this.transactions = new TransactionManager(dataSource, settings.transactionBinding(), dialect);
    RecordStatements records = new RecordStatements(dialect, tableName);
    this.transactional = new TransactionalExecutor(transactions, records, dialect, results, clock, listener, cache,
        settings.bodiesNeverCommitImplicitly() || !dialect.commitsImplicitly());
    this.claims = new ClaimExecutor(transactions, dialect, tableName, results, clock, listener, cache);
    this.lookup = new RecordLookup(transactions, records, clock);
    this.batches = new BatchExecutor(transactions, records, dialect, tableName, keys, clock, listener, frontTier);
    this.storeCommands = settings.recordStore() == null ? null
        : new RecordStoreExecutor(settings.recordStore(), results, clock, listener);
    this.transitions = new Transitions(transactions, dialect, settings.clock(), settings.transitionListener(),
        settings.logTransitions());
    this.dataSource = dataSource;
    this.keepAfterDedupWindowMillis = settings.keepAfterDedupWindow().toMillis();
    this.partitions = dialect.layout() == RecordLayout.DAY_PARTITIONS
        ? PartitionMaintenance.ofRecords(dataSource, dialect, tableName, clock, listener, PARTITION_DAYS_AHEAD,
            settings.archiveSchema())
        : null;
    this.logPartitions = dialect.layout() == RecordLayout.DAY_PARTITIONS
        ? PartitionMaintenance.ofTransitionLog(dataSource, dialect, clock, listener, PARTITION_DAYS_AHEAD,
            settings.archiveSchema(), settings.keepTransitionLogFor() == null ? Long.MAX_VALUE
                : settings.keepTransitionLogFor().toMillis())
        : null;
    this.outboxPartitions = dialect.layout() == RecordLayout.DAY_PARTITIONS
        ? PartitionMaintenance.ofOutbox(dataSource, dialect, clock, listener, PARTITION_DAYS_AHEAD,
            settings.archiveSchema())
        : null;
    this.schema = new SchemaInstaller(dataSource, dialect, tableName);
    this.purger = new ExpiredRecordPurger(dataSource, transactions, dialect, tableName, clock,
        settings.keepAfterDedupWindow().toMillis(), partitions, logPartitions, outboxPartitions);
    this.operations = new RecordOperations(transactions, dialect, tableName, results, cache,
        scope -> {
          Registered registered = commandsByScope.get(scope);
          return registered == null ? null : registered.spec();
        });
    this.adaptiveLookupFirst = settings.adaptiveLookupFirst();
    this.stats = new RecordStats(transactions, dialect, tableName, clock);
    this.singleFlights = new SingleFlightRunner(settings.lockProvider() != null ? settings.lockProvider()
        : new JdbcLockProvider(dataSource, dialect), listener);
    this.outboxMapper = results.mapper();
    this.outboxWriter = new OutboxWriter(transactions, dialect, outboxMapper, clock);
    this.outboxOperations = new OutboxOperations(dataSource, dialect, outboxPartitions);
    this.scheduledPurge = settings.purgeInterval() == null ? null
        : new ScheduledPurge(purger, listener, tableName, settings.purgeInterval(), settings.purgeBatchSize());
  }

  /**
   * What {@link IdemRuntime.Builder} hands the engine.
   *
   * @param dataSource the data source
   * @param dialect the dialect
   * @param tableName the records' table
   * @param maxKeyLength the longest composed key
   * @param allowedKeyPunctuation the punctuation allowed in keys
   * @param clock the clock
   * @param objectMapper a base mapper for stored results, or null
   * @param listener the listener
   * @param resultCacheSize the cache's size; 0 turns it off
   * @param transitionListener the transition listener
   * @param logTransitions whether every transition is logged
   * @param maxResultSize the longest result, in characters of JSON
   * @param transactionBinding where the application's transaction is found, or null to always use idem's own
   * @param purgeInterval how often the scheduled purge runs, or null for none
   * @param purgeBatchSize the scheduled purge's batch size
   * @param followDatabaseClock whether leases and expiry follow the database's clock (see {@link DatabaseClock})
   * @param bodiesNeverCommitImplicitly the application's promise that no TRANSACTIONAL body commits idem's transaction
   *     early (see {@link IdemRuntime.Builder#bodiesNeverCommitImplicitly(boolean)})
   * @param keepAfterDedupWindow how long a purge keeps a record after its dedup window ended (see
   *     {@link IdemRuntime.Builder#keepAfterDedupWindow(Duration)})
   * @param layout the record table's layout
   * @param archiveSchema where past day partitions go instead of being dropped, or null to drop them
   * @param switchedFrom the one-table record table a day-partitioned runtime switched from, or null
   * @param keepTransitionLogFor how long a day-partitioned transition log keeps a day, or null for ever
   * @param frontTier the front tier in front of the database, {@link FrontTier#NONE} for none
   * @param frontTierInFlight how long a TRANSACTIONAL command's in-flight mark in the front tier holds at most
   * @param lockProvider where single-flight locks live; null: the idem_lock table on the data source
   * @param recordStore where {@code store = REDIS} commands keep their records; null: the runtime refuses them
   * @param adaptiveLookupFirst whether a command that does not set {@code lookupFirst} reads first while most of its
   *     calls are retries (see {@link RetryShare})
   */
  public record Settings(DataSource dataSource, Dialect dialect, String tableName, int maxKeyLength,
                         String allowedKeyPunctuation, Clock clock, ObjectMapper objectMapper,
                         IdempotencyListener listener, int resultCacheSize, TransitionListener transitionListener,
                         boolean logTransitions, int maxResultSize, TransactionBinding transactionBinding,
                         Duration purgeInterval, int purgeBatchSize, boolean followDatabaseClock,
                         boolean bodiesNeverCommitImplicitly, Duration keepAfterDedupWindow,
                         RecordLayout layout, String archiveSchema, String switchedFrom,
                         Duration keepTransitionLogFor, FrontTier frontTier,
                         Duration frontTierInFlight, LockProvider lockProvider, RecordStore recordStore,
                         boolean adaptiveLookupFirst) {}

  /**
   * Registers how to get from a runtime to its engine; {@link IdemRuntime} does it once, in its class initializer.
   *
   * @param access the accessor
   */
  public static void registerAccess(Function<IdemRuntime, IdemEngine> access) {
    if (engines != null) {
      throw new IllegalStateException("The engine accessor is registered by IdemRuntime, once");
    }
    engines = Objects.requireNonNull(access, "access");
  }

  /**
   * The engine of {@code runtime}, for a generated class's constructor, which passes the idem version that
   * generated it: the internal API is compatible only within one idem version.
   *
   * @param runtime the application's runtime
   * @param generatedBy the idem version of the processor that generated the calling class
   * @return its engine
   * @throws GeneratedCodeVersionException if {@code generatedBy} is not this runtime's version
   */
  public static IdemEngine of(IdemRuntime runtime, String generatedBy) {
    Objects.requireNonNull(generatedBy, "generatedBy");
    if (!generatedBy.equals(IdemVersion.VERSION)) {
      throw new GeneratedCodeVersionException(caller(), generatedBy, IdemVersion.VERSION);
    }
    return of(runtime);
  }

  /** The engine of {@code runtime}, for this package's own tests, which are of this version by construction. */
  static IdemEngine of(IdemRuntime runtime) {
    Objects.requireNonNull(runtime, "runtime");
    // An IdemRuntime instance exists, so its class initializer has registered the accessor.
    return engines.apply(runtime);
  }

  /** The class that called {@link #of(IdemRuntime, String)}: the generated class to re-generate. */
  private static String caller() {
    // Only on the way to an exception, never on a command's path.
    return StackWalker.getInstance().walk(frames -> frames
        .map(StackWalker.StackFrame::getClassName)
        .filter(name -> !name.equals(IdemEngine.class.getName()))
        .findFirst()
        .orElse("The generated class"));
  }

  /** @return the dialect in use */
  public Dialect dialect() {
    return dialect.dialect();
  }

  /** @return the name of the table holding the records */
  public String tableName() {
    return tableName;
  }

  /** @return what generated {@code @StateTransition} methods share (log, listener, outcome decisions) */
  public Transitions transitions() {
    return transitions;
  }

  // ------------------------------------------------------------------------------------------------
  // Commands

  /**
   * Runs {@code body} once per key: the first call runs it and records its result in the same
   * transaction as the body's writes; later calls with the same key and payload return the recorded result without
   * running it. Joins the transaction in progress on this thread, if any, else runs in its own transaction.
   * {@code CLAIM} commands commit a leased claim before the body runs instead.
   *
   * @param spec the command
   * @param keyParts the parts of the idempotency key, in the order of {@link CommandSpec#keyPartNames()}
   * @param payload the fingerprinted parameters, in the order of {@link CommandSpec#payloadNames()}
   * @param body the real work
   * @param <T> the result type
   * @return the body's result, or the recorded result of the first call
   * @throws InvalidIdempotencyKeyException if the key is invalid (checked before any database access)
   * @throws IdempotencyKeyReusedException if the key was first used with a different payload
   * @throws IdempotencyStoreException if idem's own statements fail
   * @throws IdempotencyException if the payload cannot be fingerprinted or the result not stored
   *     or replayed; any exception of the body is rethrown unchanged (checked ones too) after rolling back
   */
  public <T> T execute(CommandSpec<T> spec, Object[] keyParts, Object[] payload, CommandBody<T> body) {
    return run(spec, keyParts, payload, body).value();
  }

  /**
   * {@link #execute} for a command declared to return {@link IdempotentResult}: the body returns the delegate's
   * wrapper, whose value is stored like any result; the caller gets a new wrapper that says whether this call
   * replayed a recorded outcome, when the command first ran and when its record expires. Generated code calls it
   * for methods returning {@code IdempotentResult<T>}; a plain {@link #execute} allocates no wrapper.
   *
   * @param spec the command; its result type is the wrapped type {@code T}
   * @param keyParts the parts of the idempotency key, in the order of {@link CommandSpec#keyPartNames()}
   * @param payload the fingerprinted parameters, in the order of {@link CommandSpec#payloadNames()}
   * @param body the real work, returning the delegate's wrapper
   * @param <T> the wrapped result type
   * @return the value with the facts of its record
   * @throws IdempotencyException if the body returns null instead of a wrapper (the transaction is rolled back);
   *     otherwise as {@link #execute}
   */
  public <T> IdempotentResult<T> executeWithOutcome(CommandSpec<T> spec, Object[] keyParts, Object[] payload,
                                                    CommandBody<IdempotentResult<T>> body) {
    Objects.requireNonNull(body, "body");
    Outcome<T> outcome = run(spec, keyParts, payload, () -> {
      IdempotentResult<T> wrapper = body.run();
      if (wrapper == null) {
        throw new IdempotencyException(spec.scope() + " returned null instead of an IdempotentResult; return"
            + " IdempotentResult.of(value) (the value may be null)");
      }
      return wrapper.value();
    });
    return IdempotentResult.of(outcome.value(), outcome.replayed(), Instant.ofEpochMilli(outcome.createdAt()),
        Instant.ofEpochMilli(outcome.expiresAt()), outcome.validity());
  }

  private <T> Outcome<T> run(CommandSpec<T> spec, Object[] keyParts, Object[] payload, CommandBody<T> body) {
    Objects.requireNonNull(spec, "spec");
    Objects.requireNonNull(body, "body");
    // Timed here, at the one door every command call passes, so that the listener sees each call exactly once
    // whichever executor ran it; two nanoTime reads are the whole cost when no one listens.
    long start = System.nanoTime();
    try {
      Outcome<T> result = decideAndRun(spec, keyParts, payload, body);
      listener.commandFinished(spec.scope(), null, System.nanoTime() - start);
      return result;
    } catch (Throwable failure) {
      if (failure instanceof IdempotencyBrokenRecordException broken) {
        listener.brokenRecord(broken.scope(), broken.key());
      }
      listener.commandFinished(spec.scope(), failure, System.nanoTime() - start);
      throw failure;
    }
  }

  private <T> Outcome<T> decideAndRun(CommandSpec<T> spec, Object[] keyParts, Object[] payload,
                                      CommandBody<T> body) {
    RetryShare retries = checkScope(spec);
    String key;
    try {
      key = keys.compose(spec, keyParts);
    } catch (InvalidIdempotencyKeyException e) {
      listener.invalidKey(spec.scope(), e.rule().name());
      throw e;
    }
    String fingerprint = Fingerprinter.fingerprint(spec, payload);
    if (spec.derivedKey()) {
      key = derivedKey(spec, key, fingerprint);
    }
    if (spec.store() != Store.DATABASE) {
      // Its records live in the record store alone: no local cache, no front tier, no database.
      return storeCommands.execute(spec, key, fingerprint, body);
    }
    CompletedRecord cached = cache.get(spec.scope(), key, clock.millis());
    if (cached != null) {
      return replayCached(spec, key, fingerprint, cached, true);
    }
    if (frontTier.isEnabled()) {
      return askFrontTier(spec, key, fingerprint, body, retries);
    }
    return execute(spec, key, fingerprint, body, retries);
  }

  /** Hex digits of the payload's fingerprint in a derived key: 128 bits. */
  static final int DERIVED_KEY_HASH_LENGTH = 32;
  /** The width of the records' {@code idem_key} column. */
  private static final int KEY_COLUMN_WIDTH = 255;

  /**
   * The key of a command whose callers send none ({@code window}): the caller's identity, then 128 bits of the
   * payload's canonical fingerprint. The same caller with the same payload within the window is one action; its
   * record's expiry (the window, from the first call) ends it, so no clock bucket splits two close calls.
   */
  private static String derivedKey(CommandSpec<?> spec, String identity, String fingerprint) {
    if (identity.length() + 1 + DERIVED_KEY_HASH_LENGTH > KEY_COLUMN_WIDTH) {
      throw new IdempotencyException(spec.scope() + "'s identity is " + identity.length() + " characters; with the"
          + " payload's hash its derived key would not fit the key column of " + KEY_COLUMN_WIDTH + " characters."
          + " Identify callers by a shorter value (an id, not a name)");
    }
    return identity + KeyComposer.SEPARATOR + fingerprint.substring(0, DERIVED_KEY_HASH_LENGTH);
  }

  /**
   * The database's answer: read first where the command says so ({@code lookupFirst}) or where most of its recent
   * calls were retries ({@link RetryShare}), then the executor of its mode, which claims the key and decides.
   *
   * @param retries the command's share of retries, which this call is counted in
   */
  private <T> Outcome<T> execute(CommandSpec<T> spec, String key, String fingerprint, CommandBody<T> body,
                                 RetryShare retries) {
    Outcome<T> outcome;
    try {
      outcome = readFirstOrClaim(spec, key, fingerprint, body, retries);
    } catch (IdempotencyKeyReusedException reused) {
      retries.observe(true); // a completed key, which one read refuses as well as a claim does
      throw reused;
    }
    retries.observe(outcome.replayed());
    return outcome;
  }

  private <T> Outcome<T> readFirstOrClaim(CommandSpec<T> spec, String key, String fingerprint, CommandBody<T> body,
                                          RetryShare retries) {
    if ((spec.lookupFirst() || adaptiveLookupFirst && retries.readFirst()) && lookup.applies()) {
      CompletedRecord completed = lookup.completed(spec.scope(), key);
      if (completed != null) {
        // Committed, as a replay the executors read: cached (and published to the front tier) like theirs.
        cache.put(spec.scope(), key, completed);
        return replayCached(spec, key, fingerprint, completed, false);
      }
    }
    if (spec.mode() == Mode.CLAIM) {
      return claims.execute(spec, key, fingerprint, body);
    }
    return transactional.execute(spec, key, fingerprint, body);
  }

  /**
   * The front tier's fast path: a completed outcome replays and another caller's mark turns this one away (or, for
   * {@link InFlight#WAIT}, is polled in the tier), all without a database connection. Anything else (a miss, which
   * marks the key for this call, or a tier that cannot answer) goes to the executors, where the database decides:
   * a mark never lets a call run that the database would not let run.
   */
  private <T> Outcome<T> askFrontTier(CommandSpec<T> spec, String key, String fingerprint, CommandBody<T> body,
                                      RetryShare retries) {
    String scope = spec.scope();
    boolean claim = spec.mode() == Mode.CLAIM;
    Duration inFlightFor = claim ? spec.lease() : frontTier.transactionalInFlight();
    String token = UUID.randomUUID().toString();
    long waitUntilNanos = System.nanoTime() + spec.waitTimeout().toNanos();
    long pauseMillis = 1;
    while (true) {
      FrontTier.Lookup lookup = frontTier.lookupOrMark(scope, key, token, inFlightFor);
      switch (lookup.found()) {
        case COMPLETED -> {
          CompletedRecord record = FrontTierGate.recordOf(lookup.outcome());
          if (record.isExpiredAt(clock.millis())) {
            listener.frontTierFallback(scope, key); // a late entry: the database knows whether the key runs anew
            return execute(spec, key, fingerprint, body, retries);
          }
          listener.frontTierHit(scope, key);
          return replayCached(spec, key, fingerprint, record, false);
        }
        case MARKED -> {
          listener.frontTierMiss(scope, key);
          FrontTierGate.Mark mark = frontTier.hold(scope, key, token);
          try {
            return execute(spec, key, fingerprint, body, retries);
          } finally {
            frontTier.release(mark);
          }
        }
        case IN_FLIGHT -> {
          long remainingNanos = waitUntilNanos - System.nanoTime();
          if (!claim || spec.onInFlight() == InFlight.FAIL || remainingNanos <= 0) {
            listener.inFlightRejected(scope, key);
            Instant markEndsAt = Instant.now().plus(lookup.inFlightFor());
            throw claim ? new IdempotencyInProgressException(scope, key, markEndsAt)
                : new IdempotencyInProgressException(scope, key);
          }
          // Polled in the tier, not the database: the waiting caller holds no pooled connection.
          pause(Math.min(pauseMillis, Math.max(1, TimeUnit.NANOSECONDS.toMillis(remainingNanos))));
          pauseMillis = Math.min(pauseMillis * 2, 50);
        }
        default -> {
          listener.frontTierFallback(scope, key);
          // A lookup that timed out may still have marked the key: hold the token, so that the outcome replaces the
          // mark or the mark is removed, as after a miss (the tier defers both while it is unreachable).
          FrontTierGate.Mark mark = frontTier.hold(scope, key, token);
          try {
            return execute(spec, key, fingerprint, body, retries);
          } finally {
            frontTier.release(mark);
          }
        }
      }
    }
  }

  private static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IdempotencyException("Interrupted while waiting for another caller's outcome", e);
    }
  }

  /** A cache hit: no database access, but the same fingerprint rule as a replay from the table. */
  /** @param local whether {@code cached} is the local cache's instance, which a {@link CachedReplay} can check */
  private <T> Outcome<T> replayCached(CommandSpec<T> spec, String key, String fingerprint,
                                      CompletedRecord cached, boolean local) {
    if (!cached.fingerprint().equals(fingerprint)) {
      listener.keyReused(spec.scope(), key);
      throw new IdempotencyKeyReusedException(spec.scope(), key);
    }
    listener.replayed(spec.scope(), key);
    @SuppressWarnings("unchecked")
    T result = (T) results.replay(spec, key, cached);
    return local ? Outcome.replayOf(result, cached, new CachedReplay(spec.scope(), key, cached))
        : Outcome.replayOf(result, cached);
  }

  /**
   * The validity of a replay served from the local cache: current while the cache still holds that very record,
   * unexpired on the engine's clock, which is exactly when the next call with the same key and payload would be
   * answered from it. Replays of a record the front tier answered with carry none (the next call asks the front tier
   * again), nor do replays read from the database (the next one comes from the cache and carries a validity).
   */
  private final class CachedReplay implements ReplayValidity {
    private final String scope;
    private final String key;
    private final CompletedRecord record;

    CachedReplay(String scope, String key, CompletedRecord record) {
      this.scope = scope;
      this.key = key;
      this.record = record;
    }

    @Override
    public boolean replayAgain() {
      if (!cache.stillHolds(scope, key, record, clock.millis())) {
        return false;
      }
      listener.replayed(scope, key);
      return true;
    }
  }

  /**
   * Runs a batch command: claims the key of every message in one statement, calls {@code body} once with the
   * messages seen for the first time (in their original order, each key once) and commits the claims with the
   * body's writes. Skips the body when every message is a duplicate. A message whose key was first recorded with
   * a different payload rejects the whole batch. Joins the transaction in progress on this thread, if any; in its
   * own transaction, transient failures (deadlocks) before the body ran retry the whole batch.
   *
   * @param spec the command; its key parts are those of one message
   * @param messages the batch, in delivery order
   * @param keyParts the key parts of one message, in the order of {@link CommandSpec#keyPartNames()}
   * @param payload the fingerprinted values of one message, in the order of {@link CommandSpec#payloadNames()}
   * @param body the real work
   * @param <E> the message type
   * @return what the body returned, or 0 if it was not called
   */
  public <E> int executeBatch(CommandSpec<Void> spec, Collection<E> messages, Function<? super E, Object[]> keyParts,
                              Function<? super E, Object[]> payload, BatchBody<E> body) {
    Objects.requireNonNull(spec, "spec");
    checkScope(spec);
    return batches.execute(spec, messages, keyParts, payload, body);
  }

  /**
   * Fails fast when a second, different command uses a scope on this runtime: their keys would share a namespace.
   * One map lookup and an identity comparison on the hot path; the full comparison only for a second spec instance.
   * A command seen for the first time is also refused if its results could never be replayed
   * ({@link ResultCodec#checkReplayable}).
   *
   * @return the command's share of retries on this runtime
   */
  private RetryShare checkScope(CommandSpec<?> spec) {
    Registered first = commandsByScope.get(spec.scope());
    if (first != null && first.spec() == spec) {
      return first.retries();
    }
    if (first == null) {
      // Once per command, before it is registered (a refused one is checked again on its next call).
      if (spec.store() != Store.DATABASE && storeCommands == null) {
        throw new IdempotencyException(spec.scope() + (spec.declaredBy() == null ? "" : " (" + spec.declaredBy()
            + ")") + " keeps its records in " + spec.store() + " (@IdempotentCommand(store = Store." + spec.store()
            + ")), but this runtime has no record store, and idem never moves such a command to the database"
            + " silently. Build the runtime with IdemRuntime.builder()...recordStore(RedisRecordStore.builder()"
            + ".connect(uri)) (idem-redis), or remove store = Store." + spec.store() + " to keep its records in the"
            + " database");
      }
      results.checkReplayable(spec);
      Registered registered = new Registered(spec, new RetryShare(spec.scope()));
      first = commandsByScope.putIfAbsent(spec.scope(), registered);
      if (first == null) {
        return registered.retries();
      }
    }
    if (!first.spec().sameCommandAs(spec)) {
      throw new IdempotencyScopeConflictException(spec.scope(), first.spec().identity(), spec.identity());
    }
    return first.retries(); // the same command from another spec instance (another class loader): one share
  }

  // ------------------------------------------------------------------------------------------------
  // Transactions and housekeeping, for IdemRuntime and generated transitions

  /**
   * @return the connection of the transaction this engine has in progress on this thread, guarded: commit,
   *     rollback and auto-commit belong to idem (see {@link GuardedConnection}), closing it does nothing
   * @throws IllegalStateException if there is none
   */
  public Connection currentConnection() {
    return transactions.userConnection();
  }

  /**
   * Runs {@code work} in a transaction: joins the one in progress on this thread, else begins one.
   *
   * @param work the work
   * @param <T> the result type
   * @return the work's result
   */
  public <T> T inTransaction(TransactionalWork<T> work) {
    Objects.requireNonNull(work, "work");
    return transactions.inTransaction(work);
  }

  /**
   * Runs {@code work} with {@code connection}, the application's transaction, bound to this thread.
   *
   * @param connection the application's connection, auto-commit off
   * @param work the work
   * @param <T> the result type
   * @return the work's result
   */
  public <T> T withConnection(Connection connection, TransactionalWork<T> work) {
    Objects.requireNonNull(connection, "connection");
    Objects.requireNonNull(work, "work");
    return transactions.withConnection(connection, work);
  }

  /**
   * Runs {@code action} after the outermost transaction in progress on this thread commits.
   *
   * @param action the action
   */
  public void afterCommit(Runnable action) {
    Objects.requireNonNull(action, "action");
    transactions.afterCommit(action);
  }

  /**
   * Extends the lease of the {@code CLAIM} command running on this thread.
   *
   * @param extension a positive duration
   * @return false if the lease was lost
   */
  public boolean extendLease(Duration extension) {
    return claims.extendLease(extension);
  }

  /** Forgets every cached completed record. */
  public void clearResultCache() {
    cache.clear();
  }

  /**
   * Runs a single-flight body: takes the lock, runs the body under a watchdog, releases the lock.
   *
   * @param spec the lock
   * @param notRun what to return when this call did not get the lock
   * @param body the delegate's call
   * @return the body's result, or {@code notRun}
   * @throws dev.idem.runtime.SingleFlightLockLostException if the lease was lost while the body ran
   */
  public <T> T singleFlight(SingleFlightSpec spec, T notRun, CommandBody<T> body) {
    return singleFlights.run(spec, notRun, body);
  }

  /**
   * A spec for {@link IdemRuntime#singleFlight}: skips when busy.
   *
   * @param name the lock's name
   * @param lockAtMostFor the lease
   * @param lockAtLeastFor the least time held
   * @return the spec
   */
  public static SingleFlightSpec singleFlightSpec(String name, Duration lockAtMostFor, Duration lockAtLeastFor) {
    return SingleFlightSpec.of(name, lockAtMostFor, lockAtLeastFor, dev.idem.OnBusy.SKIP, Duration.ZERO);
  }

  /** @return where single-flight locks live */
  public LockProvider lockProvider() {
    return singleFlights.provider();
  }

  /** @return the fencing token of the single-flight body running on this thread, if any */
  public OptionalLong fencingToken() {
    return singleFlights.fencingToken();
  }

  /** Creates the tables if absent, and for day partitions today's and the coming days' partitions. */
  public void createSchema() {
    schema.createSchema();
    if (partitions != null) {
      partitions.premake();
      logPartitions.premake();
      outboxPartitions.premake();
    }
  }

  /**
   * Creates today's and the coming days' partitions that do not exist yet.
   *
   * @return the partitions created; empty if another node's maintenance runs right now
   */
  public List<String> premakePartitions() {
    List<String> created = requirePartitions().premake();
    List<String> logCreated = logPartitions.premake();
    List<String> outboxCreated = outboxPartitions.premake();
    List<String> all = new java.util.ArrayList<>(created == null ? List.of() : created);
    all.addAll(logCreated == null ? List.of() : logCreated);
    all.addAll(outboxCreated == null ? List.of() : outboxCreated);
    return all;
  }

  /** @return until when a record of the table switched from is inside its archive horizon; empty if none is left */
  public Optional<Instant> switchedTableLiveUntil() {
    String oldTable = dialect.switchedFrom();
    if (oldTable == null) {
      throw new IllegalStateException("The runtime of " + tableName + " was not built with switchingFrom(...)");
    }
    try (Connection connection = dataSource.getConnection();
        java.sql.Statement statement = connection.createStatement();
        java.sql.ResultSet rs = statement.executeQuery("SELECT max(expires_at) FROM " + oldTable)) {
      rs.next();
      long latest = rs.getLong(1);
      return rs.wasNull() ? Optional.empty() : Optional.of(Instant.ofEpochMilli(latest + keepAfterDedupWindowMillis));
    } catch (java.sql.SQLException e) {
      throw new IdempotencyStoreException("Reading the latest expiry of " + oldTable + " failed", e);
    }
  }

  /** @return the day partitions attached to the table, oldest first */
  public List<RecordPartition> partitions() {
    return requirePartitions().partitions();
  }

  private PartitionMaintenance requirePartitions() {
    if (partitions == null) {
      throw new IllegalStateException("The table " + tableName + " has no day partitions: it is laid out as "
          + "RecordLayout." + dialect.layout() + " (choose RecordLayout.DAY_PARTITIONS on the builder)");
    }
    return partitions;
  }

  /**
   * Deletes expired records in bounded batches.
   *
   * @param batchSize the most rows one statement deletes
   * @return the number of deleted records
   */
  public long purgeExpired(int batchSize) {
    return purger.purgeExpired(batchSize);
  }

  /** Stops the scheduled purge, if any (waits briefly for a run in progress), and the single-flight watchdog. */
  public void close() {
    for (OutboxRelayLoop relay : List.copyOf(relays)) {
      relay.close();
    }
    singleFlights.close();
    if (scheduledPurge != null) {
      scheduledPurge.close();
    }
  }

  // ------------------------------------------------------------------------------------------------
  // The transactional outbox

  /**
   * Writes one outbox event in the transaction in progress on this thread (idem's own or the application's joined
   * one), for a generated {@code @OutboxEvent} method.
   *
   * @param spec the method's destination and event type
   * @param partitionKey the partition key (written as its string form), or null
   * @param headers the event's headers, or null for none
   * @param payload the event, written as JSON with the runtime's codec
   * @return the event's message id
   * @throws dev.idem.runtime.OutboxTransactionRequiredException outside any transaction (nothing written)
   */
  public String writeOutboxEvent(OutboxEventSpec spec, Object partitionKey, java.util.Map<String, String> headers,
                                 Object payload) {
    return outboxWriter.write(spec, partitionKey, headers, payload);
  }

  /**
   * @param publisher the broker adapter
   * @param options how the relay runs
   * @return the running relay
   */
  public dev.idem.runtime.OutboxRelay startOutboxRelay(dev.idem.runtime.OutboxPublisher publisher,
                                                       dev.idem.runtime.OutboxRelayOptions options) {
    OutboxRelayLoop relay = new OutboxRelayLoop(dataSource, dialect, outboxMapper, listener,
        Objects.requireNonNull(publisher, "publisher"), Objects.requireNonNull(options, "options"), outboxOperations,
        relays::remove);
    relays.add(relay);
    return relay.start();
  }

  /**
   * @param limit the most events listed
   * @return the parked events, oldest first
   */
  public List<dev.idem.runtime.ParkedOutboxEvent> parkedOutboxEvents(int limit) {
    refuseInTransaction("parkedOutboxEvents");
    return outboxOperations.parked(limit);
  }

  /**
   * @param messageId the parked event's message id
   * @return whether a parked event was requeued
   */
  public boolean requeueOutboxEvent(String messageId) {
    refuseInTransaction("requeueOutboxEvent");
    return outboxOperations.requeue(Objects.requireNonNull(messageId, "messageId"));
  }

  /**
   * @param batchSize the most rows one statement deletes
   * @return how many sent events past their retention were deleted
   */
  public long purgeSentOutboxEvents(int batchSize) {
    refuseInTransaction("purgeSentOutboxEvents");
    return outboxOperations.purgeSent(batchSize);
  }

  private void refuseInTransaction(String call) {
    if (transactions.inProgress() || transactions.applicationsInProgress()) {
      throw new IllegalStateException(call + "() runs in auto-commit mode on a connection of its own; call it outside"
          + " runtime.inTransaction(...), a command's body and the application's transaction");
    }
  }

  // ------------------------------------------------------------------------------------------------
  // Operators

  /**
   * @param scope the command's scope
   * @param key the composed key
   * @return the record, if any
   */
  public Optional<IdempotencyRecord> inspect(String scope, String key) {
    return operations.inspect(scope, key);
  }

  /**
   * @param scope the command's scope
   * @param key the composed key
   * @return whether a record was deleted
   */
  public boolean forget(String scope, String key) {
    return operations.forget(scope, key);
  }

  /**
   * @param scope the command's scope
   * @param key the composed key
   * @param resultJson the result as JSON, or null for a void command
   * @return whether an OUTCOME_UNKNOWN record was completed
   */
  public boolean resolve(String scope, String key, String resultJson) {
    return operations.resolve(scope, key, resultJson);
  }

  // ------------------------------------------------------------------------------------------------
  // Operator tools (IdemAdmin)

  /**
   * @param scope the command's scope
   * @param key the composed key
   * @return the record with its fingerprint, stored JSON and result shape, if any
   */
  public Optional<IdemAdmin.StoredRecord> read(String scope, String key) {
    return operations.read(scope, key);
  }

  /**
   * @param scope the command's scope
   * @param key the composed key
   * @return whether an OUTCOME_UNKNOWN record was deleted
   */
  public boolean release(String scope, String key) {
    return operations.release(scope, key);
  }

  /**
   * @param scope the command's scope
   * @param key the composed key
   * @param resultJson the result as JSON, or null for a void command
   * @param command the command as the application's manifest describes it
   * @return whether an OUTCOME_UNKNOWN record was completed
   */
  public boolean resolve(String scope, String key, String resultJson, IdemManifest.Command command) {
    return operations.resolveChecked(scope, key, resultJson, command);
  }

  /**
   * @param batchSize the most rows one statement deletes
   * @param afterBatch told how many rows each committed batch deleted
   * @return the number of deleted records
   */
  public long purgeExpired(int batchSize, LongConsumer afterBatch) {
    return purger.purgeExpired(batchSize, afterBatch);
  }

  /**
   * @param limit the most keys per list
   * @return the table's counts
   */
  public IdempotencyStats stats(int limit) {
    return stats.stats(limit);
  }

  /** Limits of the key and scope, for the builder's argument checks. */
  public static final class Limits {
    /** The default longest composed key. */
    public static final int DEFAULT_MAX_KEY_LENGTH = KeyComposer.DEFAULT_MAX_LENGTH;
    /** The longest composed key that can be configured (the column's width). */
    public static final int MAX_MAX_KEY_LENGTH = KeyComposer.MAX_MAX_LENGTH;
    /** The default punctuation allowed in keys. */
    public static final String DEFAULT_KEY_PUNCTUATION = KeyComposer.DEFAULT_PUNCTUATION;
    /** The default largest result, in characters of JSON. */
    public static final int DEFAULT_MAX_RESULT_SIZE = ResultCodec.DEFAULT_MAX_RESULT_SIZE;

    private Limits() {}

    /**
     * Checks a punctuation setting.
     *
     * @param punctuation the allowed punctuation
     * @throws IllegalArgumentException naming the rule it breaks
     */
    public static void checkKeyPunctuation(String punctuation) {
      new KeyComposer(KeyComposer.DEFAULT_MAX_LENGTH, punctuation);
    }

    /**
     * Checks every identifier idem derives from a table name against the dialect's limit.
     *
     * @param dialect the dialect
     * @param tableName the table's name
     * @throws IllegalArgumentException naming the derived identifier and the limit
     */
    public static void checkTableName(Dialect dialect, String tableName) {
      SqlDialect.of(dialect).checkIdentifiers(tableName);
    }
  }
}
