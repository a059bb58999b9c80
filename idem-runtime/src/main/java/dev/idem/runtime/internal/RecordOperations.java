package dev.idem.runtime.internal;

import dev.idem.runtime.IdemAdmin;
import dev.idem.runtime.IdemManifest;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyException;
import dev.idem.runtime.IdempotencyRecord;
import dev.idem.runtime.IdempotencyStoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Function;

/**
 * What operators do with one record, for {@link IdemRuntime#inspect}, {@link IdemRuntime#forget},
 * {@link IdemRuntime#resolve} and {@link IdemAdmin}: each in auto-commit mode on a connection of its own, never inside a transaction of the
 * runtime (that would need a second pooled connection while the thread holds one).
 */
final class RecordOperations {

  private final TransactionManager transactions;
  private final ResultCodec results;
  private final CompletedRecordCache cache;
  /** The command known for a scope on this runtime, or null: to check a resolved result against its type. */
  private final Function<String, CommandSpec<?>> commands;
  private final String selectSql;
  private final String forgetSql;
  private final String resolveSql;
  private final SqlDialect dialect;
  private final String table;
  private final String releaseSql;
  /** The command of a scope as a manifest on the class path describes it, or null. */
  private final Function<String, IdemManifest.Command> manifests;

  RecordOperations(TransactionManager transactions, SqlDialect dialect, String table, ResultCodec results,
      CompletedRecordCache cache, Function<String, CommandSpec<?>> commands) {
    this.transactions = transactions;
    this.results = results;
    this.cache = cache;
    this.commands = commands;
    this.selectSql = dialect.leaseSelectSql(table);
    this.forgetSql = dialect.forgetSql(table);
    this.resolveSql = dialect.resolveSql(table);
    this.dialect = dialect;
    this.table = table;
    this.releaseSql = dialect.releaseOutcomeUnknownSql(table);
    this.manifests = RecordOperations::fromClassPath;
  }

  /** The command of a scope in the manifests the class path holds (context class loader, else idem's own). */
  private static IdemManifest.Command fromClassPath(String scope) {
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    if (loader == null) {
      loader = RecordOperations.class.getClassLoader();
    }
    return IdemManifest.find(IdemManifest.onClassPath(loader), scope).orElse(null);
  }

  Optional<IdempotencyRecord> inspect(String scope, String key) {
    try (Connection connection = ownConnection("inspect")) {
      ClaimExecutor.Row row = ClaimExecutor.read(connection, selectSql, scope, key);
      return Optional.ofNullable(row == null ? null : describe(scope, key, row));
    } catch (SQLException e) {
      throw new IdempotencyStoreException("Inspecting " + scope + " key '" + key + "' failed"
          + dialect.missingTableHint(e, table), e);
    }
  }

  private static IdempotencyRecord describe(String scope, String key, ClaimExecutor.Row row) {
    IdempotencyRecord.State state = stateOf(row.state());
    boolean unknown = state == IdempotencyRecord.State.OUTCOME_UNKNOWN;
    IdempotencyRecord.StoredOutcome outcome = state != IdempotencyRecord.State.COMPLETED
        ? IdempotencyRecord.StoredOutcome.NONE
        : row.errorType() != null ? IdempotencyRecord.StoredOutcome.BUSINESS_FAILURE
        : row.result() != null ? IdempotencyRecord.StoredOutcome.RESULT
        : IdempotencyRecord.StoredOutcome.NONE;
    boolean leased = state == IdempotencyRecord.State.IN_PROGRESS;
    return new IdempotencyRecord(scope, key, state, row.ownerToken(),
        leased ? Instant.ofEpochMilli(row.leaseUntil()) : null, Instant.ofEpochMilli(row.createdAt()),
        Instant.ofEpochMilli(row.expiresAt()), outcome, row.errorType(),
        // An OUTCOME_UNKNOWN record's result column holds idem's note (reported as problem), not a result.
        unknown || row.result() == null ? 0 : row.result().length(),
        unknown ? OutcomeNote.parse(row.result(), row.createdAt()).problem() : null);
  }

  private static IdempotencyRecord.State stateOf(String state) {
    for (IdempotencyRecord.State known : IdempotencyRecord.State.values()) {
      if (known.name().equals(state)) {
        return known;
      }
    }
    return IdempotencyRecord.State.UNRECOGNIZED;
  }

  boolean forget(String scope, String key) {
    try (Connection connection = ownConnection("forget");
        PreparedStatement delete = connection.prepareStatement(forgetSql)) {
      delete.setString(1, scope);
      delete.setString(2, key);
      return delete.executeUpdate() == 1;
    } catch (SQLException e) {
      throw new IdempotencyStoreException("Forgetting " + scope + " key '" + key + "' failed"
          + dialect.missingTableHint(e, table), e);
    } finally {
      cache.evict(scope, key);
    }
  }

  boolean resolve(String scope, String key, String resultJson) {
    CommandSpec<?> spec = commands.apply(scope);
    String shape = null;
    if (spec != null) {
      if (spec.resultType().isVoid()) {
        if (resultJson != null) {
          throw new IllegalArgumentException(scope + " is a void command: resolve it with a null result");
        }
      } else {
        if (resultJson == null) {
          throw new IllegalArgumentException(scope + " returns " + spec.resultType().type().getTypeName()
              + ": resolve it with that result as JSON (\"null\" for a null result)");
        }
        try {
          results.read(spec, key, resultJson); // replayable, or refused now rather than on every retry
        } catch (IdempotencyException e) {
          throw new IllegalArgumentException("The result given to resolve " + scope + " key '" + key
              + "' does not replay: " + e.getMessage(), e);
        }
        shape = spec.resultShape();
      }
    } else {
      // Not run in this process: the command's manifest on the class path says what its result must look like. A
      // result stored unchecked would become a completed record that every retry fails to read.
      IdemManifest.Command command = manifests.apply(scope);
      if (command == null) {
        throw new IllegalArgumentException("No command with the scope " + scope + " has run on this runtime and no"
            + " idem manifest on the class path (META-INF/idem/*.json) describes it, so the result cannot be checked"
            + " against its result type: resolve it in the application that has the command, or with"
            + " IdemAdmin.resolve(scope, key, resultJson, command) and the command from the application's manifest"
            + " (IdemManifest.load)");
      }
      command.checkResult(resultJson);
      shape = command.isVoid() ? null : command.resultShapeHash();
    }
    return store(scope, key, resultJson, shape);
  }

  /**
   * Resolves with a result an operator tool has checked against the command's manifest ({@link IdemAdmin#resolve});
   * the manifest's shape hash is stored, so that replays compare it as they compare a completion's.
   */
  boolean resolveChecked(String scope, String key, String resultJson, IdemManifest.Command command) {
    if (!command.scope().equals(scope)) {
      throw new IllegalArgumentException("The command given is " + command.scope() + ", not " + scope);
    }
    CommandSpec<?> spec = commands.apply(scope);
    if (spec != null && !command.isVoid() && !command.resultShapeHash().equals(spec.resultShape())) {
      throw new IllegalArgumentException("The manifest's result shape of " + scope + " (" + command.resultShapeHash()
          + ") is not the one this runtime runs (" + spec.resultShape() + "): use the application's manifest");
    }
    command.checkResult(resultJson);
    if (spec != null && !spec.resultType().isVoid()) {
      try {
        results.read(spec, key, resultJson); // the command ran here: its codec has the last word
      } catch (IdempotencyException e) {
        throw new IllegalArgumentException("The result given to resolve " + scope + " key '" + key
            + "' does not replay: " + e.getMessage(), e);
      }
    }
    return store(scope, key, resultJson, command.isVoid() ? null : command.resultShapeHash());
  }

  /** Deletes a record only while its outcome is unknown, for {@link IdemAdmin#release}. */
  boolean release(String scope, String key) {
    try (Connection connection = ownConnection("release");
        PreparedStatement delete = connection.prepareStatement(releaseSql)) {
      delete.setString(1, scope);
      delete.setString(2, key);
      return delete.executeUpdate() == 1;
    } catch (SQLException e) {
      throw new IdempotencyStoreException("Releasing " + scope + " key '" + key + "' failed"
          + dialect.missingTableHint(e, table), e);
    } finally {
      cache.evict(scope, key);
    }
  }

  /** The record with what {@link #inspect} leaves out: the fingerprint, the stored JSON and the result shape. */
  Optional<IdemAdmin.StoredRecord> read(String scope, String key) {
    try (Connection connection = ownConnection("inspect")) {
      ClaimExecutor.Row row = ClaimExecutor.read(connection, selectSql, scope, key);
      return Optional.ofNullable(row == null ? null : new IdemAdmin.StoredRecord(describe(scope, key, row),
          row.fingerprint(), row.resultShape(), row.result()));
    } catch (SQLException e) {
      throw new IdempotencyStoreException("Inspecting " + scope + " key '" + key + "' failed"
          + dialect.missingTableHint(e, table), e);
    }
  }

  private boolean store(String scope, String key, String resultJson, String shape) {
    try (Connection connection = ownConnection("resolve");
        PreparedStatement update = connection.prepareStatement(resolveSql)) {
      update.setString(1, resultJson);
      update.setString(2, shape);
      update.setString(3, scope);
      update.setString(4, key);
      return update.executeUpdate() == 1;
    } catch (SQLException e) {
      throw new IdempotencyStoreException("Resolving " + scope + " key '" + key + "' failed"
          + dialect.missingTableHint(e, table), e);
    } finally {
      cache.evict(scope, key);
    }
  }

  private Connection ownConnection(String operation) throws SQLException {
    if (transactions.inProgress() || transactions.applicationsInProgress()) {
      throw new IllegalStateException(operation + "() runs on a connection of its own: call it outside"
          + " runtime.inTransaction(...), the application's transaction and commands' bodies");
    }
    Connection connection = transactions.newConnection();
    try {
      if (!connection.getAutoCommit()) {
        connection.setAutoCommit(true);
      }
      return connection;
    } catch (SQLException e) {
      Quietly.close(connection);
      throw e;
    }
  }
}
