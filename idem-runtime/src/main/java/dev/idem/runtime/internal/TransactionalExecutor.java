package dev.idem.runtime.internal;

import dev.idem.runtime.IdempotencyBrokenRecordException;
import dev.idem.runtime.IdempotencyCommitUnknownException;
import dev.idem.runtime.IdempotencyException;
import dev.idem.runtime.IdempotencyInProgressException;
import dev.idem.runtime.IdempotencyKeyReusedException;
import dev.idem.runtime.IdempotencyStoreException;
import dev.idem.runtime.internal.RecordStatements.Stored;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;

/**
 * Runs {@code TRANSACTIONAL} commands, whose effects are all in the database: the claim, the body's writes and the
 * result commit in one transaction, so that a failed body leaves no trace and a retry runs it again.
 *
 * <ul>
 *   <li>The claim inserts the record as {@code PENDING}, completed with the outcome in the same transaction (see
 *       {@link RecordStatements}); a key recorded already is
 *       replayed, taken over once expired, or rejected if its payload differs.
 *   <li>In its own transaction, a transient failure (deadlock, lock timeout) before the body started retries the
 *       whole attempt in a new transaction; once the body started, it never reruns.
 *   <li>Inside the caller's transaction, a savepoint isolates the command (see {@link #executeJoined}).
 *   <li>A {@code replayOn} failure rolls back the body's writes to a savepoint taken after the claim, and is stored
 *       and committed like a result, then rethrown.
 * </ul>
 */
final class TransactionalExecutor {

  /** What an attempt returns when it must start over in a new transaction. */
  private static final Object RETRY = new Object();

  private final TransactionManager transactions;
  private final RecordStatements records;
  private final SqlDialect dialect;
  private final ResultCodec results;
  private final DatabaseClock clock;
  private final SafeListener listener;
  private final CompletedRecordCache cache;
  /**
   * Whether nothing a body runs can commit idem's transaction early: true where the dialect's transactions never
   * commit implicitly (PostgreSQL), or where the application promised its bodies never do (see
   * {@link dev.idem.runtime.IdemRuntime.Builder#bodiesNeverCommitImplicitly(boolean)}). Then a void command's claim is
   * its whole outcome.
   */
  private final boolean claimCommitsOnlyWithBody;

  TransactionalExecutor(TransactionManager transactions, RecordStatements records, SqlDialect dialect,
      ResultCodec results, DatabaseClock clock, SafeListener listener, CompletedRecordCache cache,
      boolean claimCommitsOnlyWithBody) {
    this.transactions = transactions;
    this.records = records;
    this.dialect = dialect;
    this.results = results;
    this.clock = clock;
    this.listener = listener;
    this.cache = cache;
    this.claimCommitsOnlyWithBody = claimCommitsOnlyWithBody;
  }

  /** Joins the transaction in progress on this thread (idem's or the application's), if any, else runs in its own. */
  <T> Outcome<T> execute(CommandSpec<T> spec, String key, String fingerprint, CommandBody<T> body) {
    Transaction joined = transactions.current();
    if (joined != null) {
      return executeJoined(joined, spec, key, fingerprint, body);
    }
    Transaction applications = transactions.bindApplications();
    if (applications == null) {
      return executeInOwnTransactions(spec, key, fingerprint, body);
    }
    try {
      return executeJoined(applications, spec, key, fingerprint, body);
    } finally {
      transactions.unbind();
    }
  }

  private <T> Outcome<T> executeInOwnTransactions(
      CommandSpec<T> spec, String key, String fingerprint, CommandBody<T> body) {
    SQLException lastTransientFailure = null;
    boolean claimLockedOut = false;
    for (int attemptNumber = 1; attemptNumber <= Retries.MAX_ATTEMPTS; attemptNumber++) {
      claimLockedOut = false;
      Attempt attempt = new Attempt();
      Transaction tx = transactions.begin();
      Object outcome;
      try {
        outcome = attempt(tx, spec, key, fingerprint, body, attempt, true);
        if (outcome == RETRY) {
          tx.connection.rollback();
        } else {
          commit(tx, spec, key);
        }
      } catch (BodyFailure failure) {
        Quietly.rollback(tx.connection);
        throw Sneaky.rethrow(failure.getCause());
      } catch (SQLException e) {
        Quietly.rollback(tx.connection);
        // Once the body ran, its side effects outside the database may have happened: never rerun it.
        boolean lockedOut = !attempt.bodyStarted && dialect.isLockNotAvailable(e);
        if (attempt.bodyStarted || !(lockedOut || dialect.isTransient(e))) {
          throw new IdempotencyStoreException(
              "Recording " + spec.scope() + " key '" + key + "' failed; the transaction was rolled back"
                  + dialect.missingTableHint(e, records.table()), e);
        }
        // A lock timeout before the body: a competitor's uncommitted claim of the key held it all that time.
        lastTransientFailure = e;
        claimLockedOut = lockedOut;
        outcome = RETRY;
      } catch (IdempotencyCommitUnknownException e) {
        throw e; // nothing to roll back: the commit itself failed
      } catch (Throwable t) {
        Quietly.rollback(tx.connection);
        throw Sneaky.rethrow(t);
      } finally {
        transactions.end(tx);
      }
      if (outcome == RETRY) {
        Retries.pauseBeforeRetry(attemptNumber);
        continue;
      }
      if (attempt.completed != null) {
        cache.put(spec.scope(), key, attempt.completed);
      }
      if (attempt.executed) {
        listener.completed(spec.scope(), key);
      }
      tx.runAfterCommit();
      return outcomeOf(outcome, attempt);
    }
    if (claimLockedOut) {
      // Every attempt waited on a competitor's uncommitted claim of the key until the database's lock timeout (H2:
      // LOCK_TIMEOUT, 2 s by default; MariaDB: innodb_lock_wait_timeout): that caller is still running the command.
      throw new IdempotencyInProgressException(spec.scope(), key, lastTransientFailure);
    }
    String message = "Could not claim or replay " + spec.scope() + " key '" + key + "' in "
        + Retries.MAX_ATTEMPTS + " attempts";
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
  private <T> Outcome<T> executeJoined(
      Transaction tx, CommandSpec<T> spec, String key, String fingerprint, CommandBody<T> body) {
    Connection connection = tx.connection;
    // The application's pending writes (JPA) go out before idem's savepoint, so that rolling back to it cannot
    // undo what the application wrote before calling the command.
    tx.flush();
    Savepoint savepoint;
    try {
      savepoint = connection.setSavepoint();
    } catch (SQLException e) {
      throw new IdempotencyStoreException("Cannot set a savepoint for " + spec.scope(), e);
    }
    for (int attemptNumber = 1; attemptNumber <= Retries.MAX_ATTEMPTS; attemptNumber++) {
      Attempt attempt = new Attempt();
      Object outcome;
      try {
        outcome = attempt(tx, spec, key, fingerprint, body, attempt, false);
      } catch (BodyFailure failure) {
        Quietly.rollback(connection, savepoint);
        tx.bodyFailed(failure.getCause());
        throw Sneaky.rethrow(failure.getCause());
      } catch (SQLException e) {
        // No retry: the database may have aborted the caller's whole transaction (deadlock victim).
        Quietly.rollback(connection, savepoint);
        throw new IdempotencyStoreException("Recording " + spec.scope() + " key '" + key
            + "' in the caller's transaction failed" + dialect.missingTableHint(e, records.table()), e);
      } catch (Throwable t) {
        Quietly.rollback(connection, savepoint);
        throw Sneaky.rethrow(t);
      }
      if (outcome == RETRY) {
        continue; // nothing was written; claim again in the same transaction
      }
      Quietly.release(connection, savepoint);
      String scope = spec.scope();
      CompletedRecord completed = attempt.completed;
      boolean executed = attempt.executed;
      if (completed != null || executed) {
        // Read in the caller's transaction, the record may be its own uncommitted one: cache it only once durable.
        boolean registered = tx.tryAfterCommit(() -> {
          if (completed != null) {
            cache.put(scope, key, completed);
          }
          if (executed) {
            listener.completed(scope, key);
          }
        });
        if (!registered && executed) {
          // The application's transaction, whose commit idem cannot see: never cache, report now.
          listener.completed(scope, key);
        }
      }
      return outcomeOf(outcome, attempt);
    }
    Quietly.rollback(connection, savepoint);
    throw new IdempotencyException("Could not claim or replay " + spec.scope() + " key '" + key
        + "' in " + Retries.MAX_ATTEMPTS + " attempts: its record kept disappearing or changing");
  }

  /**
   * Commits an attempt's transaction. When {@code commit()} itself fails, whether it committed is unknown: the
   * failure is never reported as a rollback (a retry replays the result if it did commit, and runs if it did not).
   */
  private static void commit(Transaction tx, CommandSpec<?> spec, String key) {
    try {
      tx.connection.commit();
    } catch (SQLException e) {
      Quietly.rollback(tx.connection);
      throw new IdempotencyCommitUnknownException(spec.scope(), key, e);
    }
  }

  /** What happened in one attempt, for deciding whether a failure may be retried. */
  private static final class Attempt {
    boolean bodyStarted;
    boolean executed;
    boolean replayed;
    /** The record this attempt wrote or read, to cache once it is committed. */
    CompletedRecord completed;
  }

  /** An attempt's outcome that is an exception to throw after the commit: a stored or replayed business failure. */
  private record Rethrow(Throwable failure) {}

  private static <T> Outcome<T> outcomeOf(Object outcome, Attempt attempt) {
    if (outcome instanceof Rethrow rethrow) {
      throw Sneaky.rethrow(rethrow.failure());
    }
    @SuppressWarnings("unchecked")
    T result = (T) outcome;
    return attempt.replayed
        ? Outcome.replayOf(result, attempt.completed)
        : Outcome.executed(result, attempt.completed);
  }

  /**
   * One claim-or-replay in the given transaction.
   *
   * @return the result to return, or {@link #RETRY} if the attempt must be repeated
   */
  private Object attempt(Transaction tx, CommandSpec<?> spec, String key, String fingerprint,
      CommandBody<?> body, Attempt attempt, boolean ownTransaction) throws SQLException {
    Connection connection = tx.connection;
    String scope = spec.scope();
    // In its own transaction, this is the first statement: the database's time is the transaction's start.
    long now = ownTransaction ? clock.millis(connection) : clock.millis();
    long expiresAt = now + spec.retentionMillis();
    // A void command's outcome is "the body returned"; unless the body can commit early, the claim says it all.
    boolean completeOnClaim = spec.resultType().isVoid() && spec.replayOn().isEmpty() && claimCommitsOnlyWithBody;
    String claimState = completeOnClaim ? SqlDialect.COMPLETED : SqlDialect.PENDING;
    if (!records.claim(connection, spec, key, claimState, fingerprint, now, expiresAt)) {
      Stored stored = records.read(connection, scope, key);
      if (stored == null) {
        return RETRY; // the competing claim rolled back, or the record was purged meanwhile
      }
      if (stored.expiresAt() <= now) {
        if (!records.takeOver(connection, scope, key, fingerprint, claimState, now, expiresAt,
            stored.expiresAt())) {
          return RETRY; // someone else took it over first
        }
      } else if (!stored.fingerprint().equals(fingerprint)) {
        listener.keyReused(scope, key);
        throw new IdempotencyKeyReusedException(scope, key);
      } else if (SqlDialect.COMPLETED.equals(stored.state())) {
        attempt.completed = stored.completed();
        attempt.replayed = true;
        listener.replayed(scope, key);
        try {
          return results.replay(spec, key, attempt.completed);
        } catch (IdempotencyException e) {
          throw e;
        } catch (Throwable storedFailure) {
          return new Rethrow(storedFailure);
        }
      } else if (SqlDialect.PENDING.equals(stored.state())) {
        throw new IdempotencyBrokenRecordException(scope, key, "its claim was committed before its command finished"
            + " (the body ended idem's transaction early, e.g. by DDL, which commits implicitly on MariaDB, MySQL and"
            + " H2), so the command may be running still, or may have failed halfway");
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
      tx.flush(); // the application's pending writes (JPA) reach the connection before the record completes
    } catch (Throwable t) {
      ReplayableFailure<?> replayable = spec.replayableFor(t);
      if (replayable == null) {
        throw new BodyFailure(t);
      }
      String arguments = captureFailure(spec, key, replayable, t);
      connection.rollback(beforeBody);
      tx.failureRecorded(t);
      complete(connection, scope, key, arguments, replayable.storedName(), null, ownTransaction);
      attempt.executed = true;
      attempt.completed =
          new CompletedRecord(fingerprint, arguments, replayable.storedName(), null, expiresAt, now);
      return new Rethrow(t);
    }
    String json = spec.resultType().isVoid() ? null : results.write(spec, key, value);
    if (!completeOnClaim) {
      complete(connection, scope, key, json, null, json == null ? null : spec.resultShape(), ownTransaction);
    }
    attempt.executed = true;
    attempt.completed = new CompletedRecord(fingerprint, json, null, spec.resultShape(), expiresAt, now);
    return value;
  }

  /**
   * Completes the PENDING claim with the outcome; if it is no longer there to complete, the transaction rolls back
   * with a clear error rather than commit an outcome without its record. In a transaction idem owns, on a dialect
   * that can, the completion commits too, in the same round trip: the caller's {@code commit()} then has nothing
   * left to send, and a failed commit surfaces here as {@link dev.idem.runtime.IdempotencyCommitUnknownException},
   * before anything is cached or reported.
   */
  private void complete(Connection connection, String scope, String key, String json, String errorType,
      String resultShape, boolean ownTransaction) throws SQLException {
    boolean stored = ownTransaction && records.commitsWithResult()
        ? records.storeResultAndCommit(connection, scope, key, json, errorType, resultShape)
        : records.storeResult(connection, scope, key, json, errorType, resultShape);
    if (!stored) {
      throw new IdempotencyBrokenRecordException(scope, key, "it was no longer PENDING when its command finished:"
          + " the body ended idem's transaction early (e.g. by DDL, which commits implicitly on MariaDB, MySQL and"
          + " H2) and the record changed meanwhile, or the body changed it; the transaction was rolled back");
    }
  }

  /** The failure's constructor arguments as JSON; if they cannot be captured, the failure is not stored. */
  private String captureFailure(CommandSpec<?> spec, String key, ReplayableFailure<?> replayable, Throwable failure) {
    try {
      return results.writeArguments(spec, key, replayable, replayable.capture(failure));
    } catch (RuntimeException e) {
      failure.addSuppressed(e);
      throw new BodyFailure(failure);
    }
  }
}
