package dev.idem.runtime;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.Mode;
import java.io.IOException;
import java.io.InputStream;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * Executes idempotent commands: the first call with a key runs the command's body and records its
 * result in the same database transaction as the body's own writes; later calls with the same key
 * and payload replay the recorded result without running the body. {@code CLAIM} commands, whose
 * effects leave the database, commit a leased claim before the body runs instead (see
 * {@link ClaimExecutor}); {@code replayOn} failures are recorded and replayed like results in both
 * modes. Committed completed records are kept in a bounded in-memory cache, so that most retries
 * need no database round trip.
 *
 * <p>Generated code calls {@link #execute}; application code uses {@link #inTransaction},
 * {@link #currentConnection()} and {@link #afterCommit(Runnable)} for its own writes, and
 * {@link #createSchema()} / {@link #purgeExpired(int)} for housekeeping. Thread-safe; create one per
 * data source and table.
 */
public final class IdemRuntime {

  private static final System.Logger LOG = System.getLogger(IdemRuntime.class.getName());
  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
  private static final int MAX_TABLE_NAME_LENGTH = 63;
  private static final int DEFAULT_RESULT_CACHE_SIZE = 10_000;
  /** Attempts for transient failures (deadlocks, lock timeouts) that happen before the body ran. */
  private static final int MAX_ATTEMPTS = 5;
  private static final String COMPLETED = "COMPLETED";
  /** What an attempt returns when it must start over in a new transaction. */
  private static final Object RETRY = new Object();

  private final DataSource dataSource;
  private final Dialect dialect;
  private final String tableName;
  private final KeyComposer keys;
  private final ResultCodec results;
  private final Clock clock;
  private final SafeListener listener;
  private final CompletedRecordCache cache;
  private final ThreadLocal<Transaction> current = new ThreadLocal<>();
  private final ClaimExecutor claims;
  private final Transitions transitions;

  private final String claimSql;
  private final String selectSql;
  private final String takeOverSql;
  private final String storeResultSql;
  private final String purgeSql;
  private final BatchExecutor batches;

  private IdemRuntime(Builder builder, Dialect dialect) {
    this.dataSource = builder.dataSource;
    this.dialect = dialect;
    this.tableName = builder.tableName;
    this.keys = new KeyComposer(builder.maxKeyLength, builder.allowedKeyPunctuation);
    this.results = new ResultCodec(builder.objectMapper);
    this.clock = builder.clock;
    this.listener = new SafeListener(builder.listener);
    this.cache = new CompletedRecordCache(builder.resultCacheEnabled ? builder.resultCacheSize : 0);
    this.claimSql = dialect.claimSql(tableName);
    this.selectSql = dialect.selectSql(tableName);
    this.takeOverSql = "UPDATE " + tableName + " SET fingerprint = ?, state = '" + COMPLETED
        + "', result = NULL, error_type = NULL, owner_token = NULL, lease_until = NULL,"
        + " created_at = ?, expires_at = ? WHERE scope = ? AND idem_key = ? AND expires_at = ?";
    this.storeResultSql = "UPDATE " + tableName + " SET result = ?, error_type = ? WHERE scope = ? AND idem_key = ?";
    this.purgeSql = dialect.purgeSql(tableName);
    this.batches = new BatchExecutor(this, dialect, tableName, keys, clock, listener);
    this.claims = new ClaimExecutor(dataSource, dialect, tableName, results, clock, listener, cache, current);
    this.transitions = new Transitions(this, builder.clock, builder.transitionListener, builder.logTransitions);
  }

  /** @return a builder; {@link Builder#dataSource(DataSource)} is required */
  public static Builder builder() {
    return new Builder();
  }

  /** @return the dialect in use */
  public Dialect dialect() {
    return dialect;
  }

  /** @return what generated {@code @StateTransition} methods share (log, listener, outcome decisions) */
  public Transitions transitions() {
    return transitions;
  }

  /** @return the name of the table holding the records */
  public String tableName() {
    return tableName;
  }

  // ------------------------------------------------------------------------------------------------
  // Commands

  /**
   * Runs {@code body} once per key: the first call runs it and records its result in the same
   * transaction as the body's writes (made through {@link #currentConnection()}); later calls with
   * the same key and payload return the recorded result without running it. Joins the transaction
   * in progress on this thread, if any, else runs in its own transaction.
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
   *     or replayed; any exception of the body is rethrown unchanged after rolling back
   */
  public <T> T execute(CommandSpec<T> spec, Object[] keyParts, Object[] payload, CommandBody<T> body) {
    Objects.requireNonNull(spec, "spec");
    Objects.requireNonNull(body, "body");
    String key;
    try {
      key = keys.compose(spec, keyParts);
    } catch (InvalidIdempotencyKeyException e) {
      listener.invalidKey(spec.scope(), e.rule().name());
      throw e;
    }
    String fingerprint = Fingerprinter.fingerprint(spec, payload);
    CompletedRecord cached = cache.get(spec.scope(), key, clock.millis());
    if (cached != null) {
      return replayCached(spec, key, fingerprint, cached);
    }
    if (spec.mode() == Mode.CLAIM) {
      return claims.execute(spec, key, fingerprint, body);
    }
    Transaction joined = current.get();
    return joined != null
        ? executeJoined(joined, spec, key, fingerprint, body)
        : executeInOwnTransactions(spec, key, fingerprint, body);
  }

  /** A cache hit: no database access, but the same fingerprint rule as a replay from the table. */
  private <T> T replayCached(CommandSpec<T> spec, String key, String fingerprint, CompletedRecord cached) {
    if (!cached.fingerprint().equals(fingerprint)) {
      listener.keyReused(spec.scope(), key);
      throw new IdempotencyKeyReusedException(spec.scope(), key);
    }
    listener.replayed(spec.scope(), key);
    @SuppressWarnings("unchecked")
    T result = (T) results.replay(spec, cached);
    return result;
  }

  private <T> T executeInOwnTransactions(
      CommandSpec<T> spec, String key, String fingerprint, CommandBody<T> body) {
    SQLException lastTransientFailure = null;
    for (int attemptNumber = 1; attemptNumber <= MAX_ATTEMPTS; attemptNumber++) {
      Attempt attempt = new Attempt();
      Transaction tx = begin();
      Object outcome;
      try {
        outcome = attempt(tx.connection, spec, key, fingerprint, body, attempt);
        if (outcome == RETRY) {
          tx.connection.rollback();
        } else {
          tx.connection.commit();
        }
      } catch (BodyFailure failure) {
        rollbackQuietly(tx.connection);
        throw Sneaky.rethrow(failure.getCause());
      } catch (SQLException e) {
        rollbackQuietly(tx.connection);
        // Once the body ran, its side effects outside the database may have happened: never rerun it.
        if (attempt.bodyStarted || !dialect.isTransient(e)) {
          throw new IdempotencyStoreException(
              "Recording " + spec.scope() + " key '" + key + "' failed; the transaction was rolled back", e);
        }
        lastTransientFailure = e;
        outcome = RETRY;
      } catch (Throwable t) {
        rollbackQuietly(tx.connection);
        throw Sneaky.rethrow(t);
      } finally {
        end(tx);
      }
      if (outcome == RETRY) {
        pauseBeforeRetry(attemptNumber);
        continue;
      }
      if (attempt.completed != null) {
        cache.put(spec.scope(), key, attempt.completed);
      }
      if (attempt.executed) {
        listener.completed(spec.scope(), key);
      }
      tx.runAfterCommit();
      return resultOf(outcome);
    }
    String message = "Could not claim or replay " + spec.scope() + " key '" + key + "' in "
        + MAX_ATTEMPTS + " attempts";
    if (lastTransientFailure != null) {
      throw new IdempotencyStoreException(message, lastTransientFailure);
    }
    throw new IdempotencyException(message + ": its record kept disappearing or changing (concurrent purge?)");
  }

  /**
   * Runs inside the caller's transaction. A savepoint isolates the command: if the body fails, its
   * writes and the claim are undone while the caller's transaction stays usable, so a caller that
   * catches the exception and commits cannot record a result that was never produced.
   */
  private <T> T executeJoined(
      Transaction tx, CommandSpec<T> spec, String key, String fingerprint, CommandBody<T> body) {
    Connection connection = tx.connection;
    Savepoint savepoint;
    try {
      savepoint = connection.setSavepoint();
    } catch (SQLException e) {
      throw new IdempotencyStoreException("Cannot set a savepoint for " + spec.scope(), e);
    }
    for (int attemptNumber = 1; attemptNumber <= MAX_ATTEMPTS; attemptNumber++) {
      Attempt attempt = new Attempt();
      Object outcome;
      try {
        outcome = attempt(connection, spec, key, fingerprint, body, attempt);
      } catch (BodyFailure failure) {
        rollbackQuietly(connection, savepoint);
        throw Sneaky.rethrow(failure.getCause());
      } catch (SQLException e) {
        // No retry: the database may have aborted the caller's whole transaction (deadlock victim).
        rollbackQuietly(connection, savepoint);
        throw new IdempotencyStoreException("Recording " + spec.scope() + " key '" + key
            + "' in the caller's transaction failed", e);
      } catch (Throwable t) {
        rollbackQuietly(connection, savepoint);
        throw Sneaky.rethrow(t);
      }
      if (outcome == RETRY) {
        continue; // nothing was written; claim again in the same transaction
      }
      releaseQuietly(connection, savepoint);
      String scope = spec.scope();
      CompletedRecord completed = attempt.completed;
      boolean executed = attempt.executed;
      if (completed != null || executed) {
        // Read in the caller's transaction, the record may be its own uncommitted one: cache it only once durable.
        tx.afterCommit(() -> {
          if (completed != null) {
            cache.put(scope, key, completed);
          }
          if (executed) {
            listener.completed(scope, key);
          }
        });
      }
      return resultOf(outcome);
    }
    rollbackQuietly(connection, savepoint);
    throw new IdempotencyException("Could not claim or replay " + spec.scope() + " key '" + key
        + "' in " + MAX_ATTEMPTS + " attempts: its record kept disappearing or changing");
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
   * @throws InvalidIdempotencyKeyException if a message's key is invalid (checked before any database access)
   * @throws IdempotencyKeyReusedException if a message's key was first used with a different payload
   * @throws IdempotencyStoreException if idem's own statements fail
   */
  public <E> int executeBatch(CommandSpec<Void> spec, Collection<E> messages, Function<? super E, Object[]> keyParts,
                              Function<? super E, Object[]> payload, BatchBody<E> body) {
    return batches.execute(spec, messages, keyParts, payload, body);
  }

  /** What happened in one attempt, for deciding whether a failure may be retried. */
  private static final class Attempt {
    boolean bodyStarted;
    boolean executed;
    /** The record this attempt wrote or read, to cache once it is committed. */
    CompletedRecord completed;
  }

  /** An attempt's outcome that is an exception to throw after the commit: a stored or replayed business failure. */
  private record Rethrow(Throwable failure) {}

  private static <T> T resultOf(Object outcome) {
    if (outcome instanceof Rethrow rethrow) {
      throw Sneaky.rethrow(rethrow.failure());
    }
    @SuppressWarnings("unchecked")
    T result = (T) outcome;
    return result;
  }

  /** Carries the body's exception past the SQLException handling, to be rethrown unchanged. */
  private static final class BodyFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    BodyFailure(Throwable cause) {
      super(null, cause, false, false);
    }
  }

  /**
   * One claim-or-replay in the given transaction.
   *
   * @return the result to return, or {@link #RETRY} if the attempt must be repeated
   */
  private Object attempt(Connection connection, CommandSpec<?> spec, String key, String fingerprint,
      CommandBody<?> body, Attempt attempt) throws SQLException {
    String scope = spec.scope();
    long now = clock.millis();
    long expiresAt = now + spec.retentionMillis();
    // The row is inserted as COMPLETED right away: in this mode nobody sees it before the commit,
    // and then the result is there too. Saves a state update.
    boolean claimed;
    try (PreparedStatement claim = connection.prepareStatement(claimSql)) {
      claim.setString(1, scope);
      claim.setString(2, key);
      claim.setString(3, fingerprint);
      claim.setLong(4, now);
      claim.setLong(5, expiresAt);
      claimed = dialect.claim(claim);
    }
    if (!claimed) {
      Stored stored = read(connection, scope, key);
      if (stored == null) {
        return RETRY; // the competing claim rolled back, or the record was purged meanwhile
      }
      if (stored.expiresAt() <= now) {
        if (!takeOver(connection, scope, key, fingerprint, now, expiresAt, stored.expiresAt())) {
          return RETRY; // someone else took it over first
        }
      } else if (!stored.fingerprint().equals(fingerprint)) {
        listener.keyReused(scope, key);
        throw new IdempotencyKeyReusedException(scope, key);
      } else if (COMPLETED.equals(stored.state())) {
        attempt.completed = new CompletedRecord(stored.fingerprint(), stored.result(), stored.errorType(),
            stored.expiresAt());
        listener.replayed(scope, key);
        try {
          return results.replay(spec, attempt.completed);
        } catch (IdempotencyException e) {
          throw e;
        } catch (Throwable storedFailure) {
          return new Rethrow(storedFailure);
        }
      } else {
        throw new IdempotencyException("The record of " + scope + " key '" + key + "' is in state "
            + stored.state() + ", which only the CLAIM mode writes; this runtime cannot handle it");
      }
    }
    listener.claimed(scope, key);
    attempt.bodyStarted = true;
    // Only commands with business failures need to undo the body's writes but keep the claim.
    Savepoint beforeBody = spec.replayOn().isEmpty() ? null : connection.setSavepoint();
    Object value;
    try {
      value = body.run();
    } catch (Throwable t) {
      ReplayableFailure<?> replayable = spec.replayableFor(t);
      if (replayable == null) {
        throw new BodyFailure(t);
      }
      String arguments = captureFailure(spec, replayable, t);
      connection.rollback(beforeBody);
      storeResult(connection, scope, key, arguments, replayable.storedName());
      attempt.executed = true;
      attempt.completed = new CompletedRecord(fingerprint, arguments, replayable.storedName(), expiresAt);
      return new Rethrow(t);
    }
    String json = spec.resultType().isVoid() ? null : results.write(spec, value);
    if (json != null) {
      storeResult(connection, scope, key, json, null);
    }
    attempt.executed = true;
    attempt.completed = new CompletedRecord(fingerprint, json, null, expiresAt);
    return value;
  }

  /** The failure's constructor arguments as JSON; if they cannot be captured, the failure is not stored. */
  private String captureFailure(CommandSpec<?> spec, ReplayableFailure<?> replayable, Throwable failure) {
    try {
      return results.writeArguments(spec, replayable, replayable.capture(failure));
    } catch (RuntimeException e) {
      failure.addSuppressed(e);
      throw new BodyFailure(failure);
    }
  }

  private void storeResult(Connection connection, String scope, String key, String json, String errorType)
      throws SQLException {
    try (PreparedStatement store = connection.prepareStatement(storeResultSql)) {
      store.setString(1, json);
      store.setString(2, errorType);
      store.setString(3, scope);
      store.setString(4, key);
      store.executeUpdate();
    }
  }

  private record Stored(String state, String fingerprint, String result, String errorType, long expiresAt) {}

  private Stored read(Connection connection, String scope, String key) throws SQLException {
    try (PreparedStatement select = connection.prepareStatement(selectSql)) {
      select.setString(1, scope);
      select.setString(2, key);
      try (ResultSet rs = select.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        return new Stored(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getLong(5));
      }
    }
  }

  /** Reuses an expired record; guarded by its old expiry so that only one caller wins. */
  private boolean takeOver(Connection connection, String scope, String key, String fingerprint,
      long now, long expiresAt, long oldExpiresAt) throws SQLException {
    try (PreparedStatement update = connection.prepareStatement(takeOverSql)) {
      update.setString(1, fingerprint);
      update.setLong(2, now);
      update.setLong(3, expiresAt);
      update.setString(4, scope);
      update.setString(5, key);
      update.setLong(6, oldExpiresAt);
      return update.executeUpdate() == 1;
    }
  }

  private static void pauseBeforeRetry(int attemptNumber) {
    // A short random pause de-synchronizes competitors that just deadlocked each other.
    try {
      Thread.sleep(ThreadLocalRandom.current().nextInt(1, 5 * attemptNumber + 1));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  // ------------------------------------------------------------------------------------------------
  // Transactions

  /**
   * The connection of the transaction this runtime has in progress on this thread: inside a
   * command's body or {@link #inTransaction} work. Do not commit, roll back or close it.
   *
   * @return the connection
   * @throws IllegalStateException if no transaction of this runtime is in progress on this thread
   */
  public Connection currentConnection() {
    return requireTransaction("currentConnection()").connection;
  }

  /**
   * Runs {@code work} in a transaction: joins the one in progress on this thread, else begins one,
   * commits it, or rolls it back if {@code work} throws (rethrowing the exception unchanged).
   * Joined work shares the outer transaction; the outermost call decides commit or rollback.
   *
   * @param work the work; it gets the transaction's connection (also {@link #currentConnection()})
   * @param <T> the result type
   * @return the work's result
   * @throws IdempotencyStoreException if the transaction cannot begin or commit
   */
  public <T> T inTransaction(TransactionalWork<T> work) {
    Objects.requireNonNull(work, "work");
    Transaction joined = current.get();
    if (joined != null) {
      try {
        return work.run(joined.connection);
      } catch (Throwable t) {
        throw Sneaky.rethrow(t);
      }
    }
    Transaction tx = begin();
    T result;
    try {
      try {
        result = work.run(tx.connection);
      } catch (Throwable t) {
        rollbackQuietly(tx.connection);
        throw Sneaky.rethrow(t);
      }
      try {
        tx.connection.commit();
      } catch (SQLException e) {
        rollbackQuietly(tx.connection);
        throw new IdempotencyStoreException("Commit failed; the transaction was rolled back", e);
      }
    } finally {
      end(tx);
    }
    tx.runAfterCommit();
    return result;
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
   * Runs {@code action} after the outermost transaction in progress on this thread commits, e.g. to
   * acknowledge a message only once its effects are durable. Never runs if it rolls back.
   *
   * @param action the action
   * @throws IllegalStateException if no transaction of this runtime is in progress on this thread
   */
  public void afterCommit(Runnable action) {
    Objects.requireNonNull(action, "action");
    requireTransaction("afterCommit()").afterCommit(action);
  }

  /** Whether a transaction of this runtime is in progress on this thread. */
  boolean hasTransaction() {
    return current.get() != null;
  }

  /**
   * Inside the body of a {@code CLAIM} command: extends this caller's lease, so that a long-running body is not
   * taken over. The lease then ends {@code extension} from now. Commits at once, on a connection of its own.
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
    return claims.extendLease(extension);
  }

  /**
   * Forgets every cached completed record, e.g. after deleting records by hand (as tests do). Never needed
   * otherwise: idem's own records change only after they expired.
   */
  public void clearResultCache() {
    cache.clear();
  }

  private Transaction requireTransaction(String what) {
    Transaction tx = current.get();
    if (tx == null) {
      throw new IllegalStateException("No transaction of this IdemRuntime is in progress on this thread: "
          + "call " + what + " inside an idempotent method's body or inside runtime.inTransaction(...)");
    }
    return tx;
  }

  private Transaction begin() {
    Connection connection;
    try {
      connection = dataSource.getConnection();
    } catch (SQLException e) {
      throw new IdempotencyStoreException("Cannot obtain a connection", e);
    }
    try {
      boolean autoCommit = connection.getAutoCommit();
      if (autoCommit) {
        connection.setAutoCommit(false);
      }
      Transaction tx = new Transaction(connection, autoCommit);
      current.set(tx);
      return tx;
    } catch (SQLException e) {
      closeQuietly(connection);
      throw new IdempotencyStoreException("Cannot begin a transaction", e);
    }
  }

  private void end(Transaction tx) {
    current.remove();
    try {
      if (tx.restoreAutoCommit) {
        tx.connection.setAutoCommit(true);
      }
    } catch (SQLException e) {
      LOG.log(Level.WARNING, "Cannot restore auto-commit", e);
    } finally {
      closeQuietly(tx.connection);
    }
  }

  private static void rollbackQuietly(Connection connection) {
    try {
      connection.rollback();
    } catch (SQLException e) {
      LOG.log(Level.WARNING, "Rollback failed", e);
    }
  }

  private static void rollbackQuietly(Connection connection, Savepoint savepoint) {
    try {
      connection.rollback(savepoint);
    } catch (SQLException e) {
      LOG.log(Level.WARNING, "Rollback to savepoint failed", e);
    }
  }

  private static void releaseQuietly(Connection connection, Savepoint savepoint) {
    try {
      connection.releaseSavepoint(savepoint);
    } catch (SQLException e) {
      // Harmless: the savepoint goes away with the transaction anyway.
      LOG.log(Level.DEBUG, "Releasing a savepoint failed", e);
    }
  }

  private static void closeQuietly(Connection connection) {
    try {
      connection.close();
    } catch (SQLException e) {
      LOG.log(Level.WARNING, "Closing a connection failed", e);
    }
  }

  // ------------------------------------------------------------------------------------------------
  // Housekeeping

  /**
   * Creates the table and its expiry index if they do not exist; safe to call repeatedly. Runs the
   * dialect's DDL resource ({@code dev/idem/runtime/schema/<dialect>.sql}) with the table name
   * substituted, and the transition log ({@code schema/transition-log-<dialect>.sql}). Production
   * systems may prefer to run those resources through Flyway or Liquibase.
   *
   * @throws IdempotencyStoreException if the DDL fails
   */
  public void createSchema() {
    String ddl = loadSchemaResource().replace("idem_record", tableName);
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement()) {
      for (String sql : statements(ddl)) {
        statement.execute(sql);
      }
      // The transition log of @StateTransition methods (idem_transition_log), created alongside.
      for (String sql : Transitions.schema(dialect)) {
        statement.execute(sql);
      }
      if (!connection.getAutoCommit()) {
        connection.commit();
      }
    } catch (SQLException e) {
      throw new IdempotencyStoreException("Creating the table " + tableName + " failed", e);
    }
  }

  private String loadSchemaResource() {
    try (InputStream in = IdemRuntime.class.getResourceAsStream(dialect.schemaResource())) {
      if (in == null) {
        throw new IllegalStateException("Missing resource " + dialect.schemaResource());
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException("Cannot read " + dialect.schemaResource(), e);
    }
  }

  /** Splits our own DDL files: they have only line comments and no semicolons in literals. */
  static List<String> statements(String script) {
    StringBuilder withoutComments = new StringBuilder(script.length());
    for (String line : script.split("\n")) {
      int comment = line.indexOf("--");
      withoutComments.append(comment >= 0 ? line.substring(0, comment) : line).append('\n');
    }
    List<String> statements = new ArrayList<>();
    for (String statement : withoutComments.toString().split(";")) {
      if (!statement.isBlank()) {
        statements.add(statement.strip());
      }
    }
    return statements;
  }

  /**
   * Deletes records whose retention has passed, in batches of at most {@code batchSize} rows, each in
   * its own short transaction on its own connection, until a batch deletes fewer rows.
   *
   * @param batchSize the most rows one statement deletes; keeps locks and undo small
   * @return the number of deleted records
   * @throws IdempotencyStoreException if a batch fails (batches deleted before stay deleted)
   */
  public long purgeExpired(int batchSize) {
    if (batchSize < 1) {
      throw new IllegalArgumentException("batchSize must be positive, got " + batchSize);
    }
    long now = clock.millis();
    long total = 0;
    try (Connection connection = dataSource.getConnection()) {
      boolean autoCommit = connection.getAutoCommit();
      if (!autoCommit) {
        connection.setAutoCommit(true);
      }
      try (PreparedStatement purge = connection.prepareStatement(purgeSql)) {
        int deleted;
        do {
          purge.setLong(1, now);
          purge.setInt(2, batchSize);
          deleted = purgeBatch(purge);
          total += deleted;
        } while (deleted >= batchSize);
      } finally {
        if (!autoCommit) {
          connection.setAutoCommit(false);
        }
      }
    } catch (SQLException e) {
      throw new IdempotencyStoreException("Purging expired records from " + tableName + " failed after "
          + total + " deletions", e);
    }
    return total;
  }

  private int purgeBatch(PreparedStatement purge) throws SQLException {
    for (int attemptNumber = 1; ; attemptNumber++) {
      try {
        return purge.executeUpdate();
      } catch (SQLException e) {
        if (attemptNumber >= MAX_ATTEMPTS || !dialect.isTransient(e)) {
          throw e;
        }
        pauseBeforeRetry(attemptNumber);
      }
    }
  }

  // ------------------------------------------------------------------------------------------------

  /** Configures an {@link IdemRuntime}. */
  public static final class Builder {

    private DataSource dataSource;
    private Dialect dialect;
    private String tableName = "idem_record";
    private int maxKeyLength = KeyComposer.DEFAULT_MAX_LENGTH;
    private String allowedKeyPunctuation = KeyComposer.DEFAULT_PUNCTUATION;
    private Clock clock = Clock.systemUTC();
    private ObjectMapper objectMapper;
    private IdempotencyListener listener = IdempotencyListener.NO_OP;
    private boolean resultCacheEnabled = true;
    private int resultCacheSize = DEFAULT_RESULT_CACHE_SIZE;
    private TransitionListener transitionListener = TransitionListener.NO_OP;
    private boolean logTransitions;

    private Builder() {}

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
     * The most completed records the result cache keeps (least recently used go first); default 10,000.
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
     * @param tableName a plain SQL identifier ({@code [A-Za-z_][A-Za-z0-9_]*}), at most 63 characters
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
      if (maxKeyLength < 1 || maxKeyLength > KeyComposer.MAX_MAX_LENGTH) {
        throw new IllegalArgumentException("maxKeyLength must be between 1 and "
            + KeyComposer.MAX_MAX_LENGTH + ", got " + maxKeyLength);
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
      new KeyComposer(KeyComposer.DEFAULT_MAX_LENGTH, punctuation); // validates
      this.allowedKeyPunctuation = punctuation;
      return this;
    }

    /**
     * The clock for creation and expiry times; default the UTC system clock.
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
     * ignores unknown properties). Fingerprints always use idem's own canonical mapper.
     *
     * @param objectMapper the mapper
     * @return this builder
     */
    public Builder objectMapper(ObjectMapper objectMapper) {
      this.objectMapper = Objects.requireNonNull(objectMapper, "objectMapper");
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
     * Builds the runtime; detects the dialect (one connection) if none was set.
     *
     * @return the runtime
     * @throws IllegalStateException if no data source was set or the dialect cannot be detected
     */
    public IdemRuntime build() {
      if (dataSource == null) {
        throw new IllegalStateException("IdemRuntime needs a dataSource");
      }
      return new IdemRuntime(this, dialect != null ? dialect : detectDialect());
    }

    private Dialect detectDialect() {
      String product;
      try (Connection connection = dataSource.getConnection()) {
        product = connection.getMetaData().getDatabaseProductName();
      } catch (SQLException e) {
        throw new IdempotencyStoreException("Cannot detect the database dialect", e);
      }
      Dialect detected = Dialect.forProductName(product);
      if (detected == null) {
        throw new IllegalStateException("idem does not know the database '" + product
            + "'; set a dialect explicitly: IdemRuntime.builder().dialect(Dialect.POSTGRESQL) "
            + "(Dialect.H2, Dialect.POSTGRESQL or Dialect.MARIADB)");
      }
      return detected;
    }
  }
}
