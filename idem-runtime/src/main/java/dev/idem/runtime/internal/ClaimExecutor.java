package dev.idem.runtime.internal;

import dev.idem.runtime.IdempotencyException;
import dev.idem.runtime.IdempotencyInProgressException;
import dev.idem.runtime.IdempotencyKeyReusedException;
import dev.idem.runtime.IdempotencyLeaseLostException;
import dev.idem.runtime.IdempotencyStoreException;
import dev.idem.InFlight;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * Runs {@code CLAIM} commands, whose effects outside the database cannot roll back with a transaction.
 *
 * <ol>
 *   <li>The claim (state {@code IN_PROGRESS}, a random owner token, {@code lease_until}) commits on its own before
 *       the body starts, so that other callers see it at once.
 *   <li>The body runs in a transaction of the runtime; that transaction also carries the completion, an UPDATE
 *       fenced by the owner token. If the lease was taken over meanwhile, it updates nothing: the body's writes roll
 *       back and the caller learns it lost, while the new owner's record stands.
 *   <li>A body that throws a business failure ({@code replayOn}) completes with the failure; any other exception
 *       releases the claim (a fenced DELETE) so that a retry runs again. A crashed caller leaves its claim until the
 *       lease ends; then one caller takes it over with a guarded UPDATE.
 * </ol>
 *
 * <p>Claim, takeover, release and lease extension run in auto-commit mode, so that they hold row locks for one
 * statement only. An in-progress record expires {@code retention} after its lease ends, so purging never removes a
 * live claim.
 */
final class ClaimExecutor {

  /** Rounds in which the record changed under us (released, purged, taken over by a competitor) before we give up. */
  private static final int MAX_CONTENDED_ROUNDS = 20;
  /** Longest pause between two looks at an in-flight record while waiting for its result. */
  private static final long MAX_POLL_MILLIS = 100;

  /** For lease extensions, which commit at once on a connection of their own while the body's transaction runs. */
  private final DataSource dataSource;
  private final TransactionManager transactions;
  private final SqlDialect dialect;
  private final ResultCodec results;
  private final Clock clock;
  private final SafeListener listener;
  private final CompletedRecordCache cache;
  /** The lease held by the CLAIM body running on this thread, for {@link #extendLease}. */
  private final ThreadLocal<Lease> currentLease = new ThreadLocal<>();

  private final String claimSql;
  private final String selectSql;
  private final String takeOverLeaseSql;
  private final String takeOverExpiredSql;
  private final String completeSql;
  private final String releaseSql;
  private final String extendSql;

  ClaimExecutor(DataSource dataSource, TransactionManager transactions, SqlDialect dialect, String table,
      ResultCodec results, Clock clock, SafeListener listener, CompletedRecordCache cache) {
    this.dataSource = dataSource;
    this.transactions = transactions;
    this.dialect = dialect;
    this.results = results;
    this.clock = clock;
    this.listener = listener;
    this.cache = cache;
    this.claimSql = dialect.leaseClaimSql(table);
    this.selectSql = dialect.leaseSelectSql(table);
    this.takeOverLeaseSql = dialect.takeOverLeaseSql(table);
    this.takeOverExpiredSql = dialect.takeOverExpiredSql(table);
    this.completeSql = dialect.completeSql(table);
    this.releaseSql = dialect.releaseSql(table);
    this.extendSql = dialect.extendLeaseSql(table);
  }

  /** The claim this caller holds while its body runs. */
  private record Lease(CommandSpec<?> spec, String key, String ownerToken) {}

  /** A record as read in the claim phase. */
  private record Row(String state, String fingerprint, String result, String errorType, long expiresAt,
                     String ownerToken, long leaseUntil, String resultShape, long createdAt) {}

  <T> Outcome<T> execute(CommandSpec<T> spec, String key, String fingerprint, CommandBody<T> body) {
    if (transactions.inProgress()) {
      throw new IllegalStateException("The CLAIM command " + spec.scope() + " cannot join the transaction in"
          + " progress on this thread: its claim must commit before its work starts. Call it outside"
          + " runtime.inTransaction(...), runtime.withConnection(...) and other commands' bodies.");
    }
    if (transactions.applicationsInProgress()) {
      throw new IllegalStateException("The CLAIM command " + spec.scope() + " cannot join the application's"
          + " transaction in progress on this thread (found by the runtime's TransactionBinding): its claim must"
          + " commit before its work starts, so that a crash leaves a visible in-progress claim. Call it after that"
          + " transaction commits, or outside it; or declare the command TRANSACTIONAL if all its effects are in"
          + " the database, so that it joins the application's transaction.");
    }
    Connection connection = transactions.newConnection();
    try {
      boolean autoCommit = connection.getAutoCommit();
      if (!autoCommit) {
        connection.setAutoCommit(true);
      }
      try {
        return claimAndRun(connection, spec, key, fingerprint, body);
      } finally {
        if (!autoCommit) {
          connection.setAutoCommit(false);
        }
      }
    } catch (SQLException e) {
      throw new IdempotencyStoreException("Claiming " + spec.scope() + " key '" + key + "' failed", e);
    } finally {
      Quietly.close(connection);
    }
  }

  private <T> Outcome<T> claimAndRun(Connection connection, CommandSpec<T> spec, String key, String fingerprint,
      CommandBody<T> body) throws SQLException {
    String scope = spec.scope();
    String token = UUID.randomUUID().toString();
    long waitUntilNanos = System.nanoTime() + spec.waitTimeout().toNanos();
    long pauseMillis = 1;
    int contendedRounds = 0;
    SQLException lastTransientFailure = null;
    while (contendedRounds++ < MAX_CONTENDED_ROUNDS) {
      long now = clock.millis();
      long leaseUntil = now + spec.leaseMillis();
      Row row;
      try {
        if (insertClaim(connection, spec, key, fingerprint, token, now, leaseUntil)) {
          listener.claimed(scope, key);
          return run(connection, spec, key, fingerprint, token, now, body);
        }
        row = read(connection, scope, key);
        if (row == null) {
          continue; // released or purged since the insert failed: claim again
        }
        if (row.expiresAt() <= now) {
          if (takeOverExpired(connection, spec, key, fingerprint, token, now, leaseUntil, row.expiresAt())) {
            listener.takenOver(scope, key);
            listener.claimed(scope, key);
            return run(connection, spec, key, fingerprint, token, now, body);
          }
          continue; // a competitor took it first
        }
        if (!row.fingerprint().equals(fingerprint)) {
          listener.keyReused(scope, key);
          throw new IdempotencyKeyReusedException(scope, key);
        }
        if (SqlDialect.COMPLETED.equals(row.state())) {
          return replay(spec, key, new CompletedRecord(row.fingerprint(), row.result(), row.errorType(),
              row.resultShape(), row.expiresAt(), row.createdAt()));
        }
        if (row.leaseUntil() < now) {
          if (takeOverLease(connection, spec, key, token, now, leaseUntil, row.ownerToken())) {
            listener.takenOver(scope, key);
            listener.claimed(scope, key);
            // The lease takeover keeps the record's created_at: the key was first claimed then.
            return run(connection, spec, key, fingerprint, token, row.createdAt(), body);
          }
          continue; // a competitor took it first; the next round sees its live lease
        }
      } catch (SQLException e) {
        // Nothing ran yet, so a deadlock or lock timeout among competing claims may simply be retried.
        if (!dialect.isTransient(e)) {
          throw e;
        }
        lastTransientFailure = e;
        pause(ThreadLocalRandom.current().nextLong(1, 5L * contendedRounds + 1));
        continue;
      }
      // In flight, lease running: the caller's choice.
      long remainingNanos = waitUntilNanos - System.nanoTime();
      if (spec.onInFlight() == InFlight.FAIL || remainingNanos <= 0) {
        listener.inFlightRejected(scope, key);
        throw new IdempotencyInProgressException(scope, key, Instant.ofEpochMilli(row.leaseUntil()));
      }
      contendedRounds = 0; // waiting is not contention
      pause(Math.min(pauseMillis, Math.max(1, TimeUnit.NANOSECONDS.toMillis(remainingNanos))));
      pauseMillis = Math.min(pauseMillis * 2, MAX_POLL_MILLIS);
    }
    String message = "Could not claim or replay " + scope + " key '" + key + "' in " + MAX_CONTENDED_ROUNDS
        + " attempts";
    if (lastTransientFailure != null) {
      throw new IdempotencyStoreException(message, lastTransientFailure);
    }
    throw new IdempotencyException(message + ": its record kept disappearing or changing");
  }

  private <T> Outcome<T> replay(CommandSpec<T> spec, String key, CompletedRecord record) {
    cache.put(spec.scope(), key, record); // read in auto-commit mode: committed
    listener.replayed(spec.scope(), key);
    @SuppressWarnings("unchecked")
    T result = (T) results.replay(spec, key, record);
    return Outcome.replayOf(result, record);
  }

  /**
   * Runs the body in a transaction on the claim's connection, and completes the record in the same transaction.
   */
  private <T> Outcome<T> run(Connection connection, CommandSpec<T> spec, String key, String fingerprint,
      String token, long createdAt, CommandBody<T> body) throws SQLException {
    String scope = spec.scope();
    connection.setAutoCommit(false);
    Transaction tx = transactions.bind(connection);
    currentLease.set(new Lease(spec, key, token));
    T value;
    String json;
    try {
      try {
        value = body.run();
        json = spec.resultType().isVoid() ? null : results.write(spec, value);
      } finally {
        transactions.unbind();
        currentLease.remove();
      }
    } catch (Throwable failure) {
      Quietly.rollback(connection);
      ReplayableFailure<?> replayable = spec.replayableFor(failure);
      String arguments = replayable == null ? null : captureQuietly(spec, replayable, failure);
      try {
        connection.setAutoCommit(true);
        if (arguments == null) {
          if (release(connection, spec, key, token)) {
            listener.released(scope, key);
          }
        } else {
          long expiresAt = clock.millis() + spec.retentionMillis();
          if (complete(connection, spec, key, token, arguments, replayable.storedName(), null, expiresAt)) {
            cache.put(scope, key,
                new CompletedRecord(fingerprint, arguments, replayable.storedName(), null, expiresAt, createdAt));
            listener.completed(scope, key);
          } else {
            listener.leaseLost(scope, key);
            failure.addSuppressed(new IdempotencyLeaseLostException(scope, key));
          }
        }
      } catch (SQLException e) {
        // The body's exception matters more; the claim then holds until its lease ends, as after a crash.
        failure.addSuppressed(new IdempotencyStoreException("Recording the outcome of " + scope + " key '" + key
            + "' failed; the claim holds until its lease ends", e));
      }
      throw Sneaky.rethrow(failure);
    }

    long expiresAt = clock.millis() + spec.retentionMillis();
    boolean completed;
    try {
      completed = complete(connection, spec, key, token, json, null, spec.resultShape(), expiresAt);
      if (completed) {
        connection.commit();
      } else {
        connection.rollback();
      }
    } catch (SQLException e) {
      // The claim stays in progress until its lease ends, as after a crash: the body's effects may have happened.
      Quietly.rollback(connection);
      throw e;
    } finally {
      connection.setAutoCommit(true);
    }
    if (!completed) {
      listener.leaseLost(scope, key);
      throw new IdempotencyLeaseLostException(scope, key);
    }
    CompletedRecord completedRecord =
        new CompletedRecord(fingerprint, json, null, spec.resultShape(), expiresAt, createdAt);
    cache.put(scope, key, completedRecord);
    listener.completed(scope, key);
    tx.runAfterCommit();
    return Outcome.executed(value, completedRecord);
  }

  boolean extendLease(Duration extension) {
    Lease lease = currentLease.get();
    if (lease == null) {
      throw new IllegalStateException("extendLease() works only inside the body of a CLAIM command, on its thread");
    }
    long leaseUntil = clock.millis() + extension.toMillis();
    try (Connection connection = dataSource.getConnection()) {
      if (!connection.getAutoCommit()) {
        connection.setAutoCommit(true);
      }
      try (PreparedStatement extend = connection.prepareStatement(extendSql)) {
        extend.setLong(1, leaseUntil);
        extend.setLong(2, leaseUntil + lease.spec().retentionMillis());
        extend.setString(3, lease.spec().scope());
        extend.setString(4, lease.key());
        extend.setString(5, lease.ownerToken());
        return extend.executeUpdate() == 1;
      }
    } catch (SQLException e) {
      throw new IdempotencyStoreException("Extending the lease on " + lease.spec().scope() + " key '"
          + lease.key() + "' failed", e);
    }
  }

  // ------------------------------------------------------------------------------------------------
  // Statements: the SQL is SqlDialect's; here they are bound and their results read.

  private boolean insertClaim(Connection connection, CommandSpec<?> spec, String key, String fingerprint,
      String token, long now, long leaseUntil) throws SQLException {
    try (PreparedStatement claim = connection.prepareStatement(claimSql)) {
      claim.setString(1, spec.scope());
      claim.setString(2, key);
      claim.setString(3, fingerprint);
      claim.setString(4, token);
      claim.setLong(5, leaseUntil);
      claim.setLong(6, now);
      claim.setLong(7, leaseUntil + spec.retentionMillis());
      return dialect.claim(claim);
    }
  }

  private Row read(Connection connection, String scope, String key) throws SQLException {
    try (PreparedStatement select = connection.prepareStatement(selectSql)) {
      select.setString(1, scope);
      select.setString(2, key);
      try (ResultSet rs = select.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        return new Row(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getLong(5),
            rs.getString(6), rs.getLong(7), rs.getString(8), rs.getLong(9));
      }
    }
  }

  private boolean takeOverLease(Connection connection, CommandSpec<?> spec, String key, String token, long now,
      long leaseUntil, String seenOwner) throws SQLException {
    try (PreparedStatement update = connection.prepareStatement(takeOverLeaseSql)) {
      update.setString(1, token);
      update.setLong(2, leaseUntil);
      update.setLong(3, leaseUntil + spec.retentionMillis());
      update.setString(4, spec.scope());
      update.setString(5, key);
      update.setString(6, seenOwner);
      update.setLong(7, now);
      return update.executeUpdate() == 1;
    }
  }

  private boolean takeOverExpired(Connection connection, CommandSpec<?> spec, String key, String fingerprint,
      String token, long now, long leaseUntil, long seenExpiresAt) throws SQLException {
    try (PreparedStatement update = connection.prepareStatement(takeOverExpiredSql)) {
      update.setString(1, fingerprint);
      update.setString(2, token);
      update.setLong(3, leaseUntil);
      update.setLong(4, now);
      update.setLong(5, leaseUntil + spec.retentionMillis());
      update.setString(6, spec.scope());
      update.setString(7, key);
      update.setLong(8, seenExpiresAt);
      update.setLong(9, now);
      return update.executeUpdate() == 1;
    }
  }

  /** The fenced completion: true only if this caller still owns the claim. */
  private boolean complete(Connection connection, CommandSpec<?> spec, String key, String token, String json,
      String errorType, String resultShape, long expiresAt) throws SQLException {
    try (PreparedStatement update = connection.prepareStatement(completeSql)) {
      update.setString(1, json);
      update.setString(2, errorType);
      update.setString(3, resultShape);
      update.setLong(4, expiresAt);
      update.setString(5, spec.scope());
      update.setString(6, key);
      update.setString(7, token);
      return update.executeUpdate() == 1;
    }
  }

  private boolean release(Connection connection, CommandSpec<?> spec, String key, String token)
      throws SQLException {
    try (PreparedStatement delete = connection.prepareStatement(releaseSql)) {
      delete.setString(1, spec.scope());
      delete.setString(2, key);
      delete.setString(3, token);
      return delete.executeUpdate() == 1;
    }
  }

  private String captureQuietly(CommandSpec<?> spec, ReplayableFailure<?> replayable, Throwable failure) {
    try {
      return results.writeArguments(spec, replayable, replayable.capture(failure));
    } catch (RuntimeException e) {
      failure.addSuppressed(e);
      return null; // not storable: released instead, so that a retry runs again
    }
  }

  private static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IdempotencyException("Interrupted while waiting for a claim held by another caller");
    }
  }
}
