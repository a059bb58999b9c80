package dev.idem.runtime.internal;

import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyBrokenRecordException;
import dev.idem.runtime.IdempotencyException;
import dev.idem.runtime.IdempotencyInProgressException;
import dev.idem.runtime.IdempotencyKeyReusedException;
import dev.idem.runtime.IdempotencyLeaseLostException;
import dev.idem.runtime.IdempotencyOutcomeUnknownException;
import dev.idem.runtime.Reconciliation;
import dev.idem.runtime.IdempotencyResultTooLargeException;
import dev.idem.runtime.IdempotencyStoreException;
import dev.idem.runtime.IdempotencyCommitUnknownException;
import dev.idem.ExpiredLease;
import dev.idem.InFlight;
import dev.idem.UndeclaredFailure;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@code CLAIM} commands, whose effects outside the database cannot roll back with a transaction.
 *
 * <ol>
 *   <li><b>claim</b>: unless the key has a committed record, the record (state {@code IN_PROGRESS}, a random owner
 *       token, {@code lease_until}) commits on its own, in auto-commit mode, before the body starts, so that other
 *       callers see it at once; neither that check nor a read of the record ever waits for an owner's row lock,
 *       and a read follows only when the claim inserted nothing (PostgreSQL checks with NOT EXISTS; H2 inserts
 *       plainly, its primary-key check failing at once on a committed record, locked or not; MariaDB claims with a
 *       lock wait of zero and reads when locked out, waiting only for a competitor's claim that is not committed
 *       yet; MySQL, which cannot, reads first: see {@link SqlDialect#noWaitLeaseClaimSql} and
 *       {@link SqlDialect#leaseClaimSkipsRecordedKeys()}).
 *   <li><b>body</b>: runs in a transaction of the runtime on the same connection (one pooled connection per call,
 *       whatever the pool's size).
 *   <li><b>completion</b>: an UPDATE fenced by the owner token, in the body's transaction. If the lease was taken
 *       over meanwhile, it updates nothing: the body's writes roll back and the caller gets
 *       {@link IdempotencyLeaseLostException} (with its business failure as the cause, if it threw one), while the
 *       new owner's record stands.
 *   <li><b>release</b>: a body that throws anything but a {@code replayOn} failure has its claim deleted (fenced by
 *       the owner token) so that a retry runs again. A crashed caller leaves its claim until the lease ends; then
 *       one caller takes it over with a guarded UPDATE.
 * </ol>
 *
 * <p><b>Once the body has returned, its effects happened</b>: a failure to record its outcome (result not
 * writable as JSON, larger than the limit, completion statement or commit failed) never releases the key. The
 * body's database writes roll back and the claim is turned {@code OUTCOME_UNKNOWN} (fenced by the owner token, on
 * the claim's connection, or on a fresh one if that connection is dead); retries then get
 * {@link IdempotencyOutcomeUnknownException} until an operator resolves the key or its retention ends. If even that
 * statement fails (the database is unreachable), it is retried in the background until the lease ends
 * ({@link UnrecordedOutcomes}); only a database unreachable for the whole lease leaves the claim to be taken over,
 * exactly as after a crash.
 *
 * <p><b>Lease extension</b> ({@link #extendLease}) runs on the claim's own connection, inside the body's
 * transaction: it never waits for a second pooled connection (with a pool of one, a second borrow would wait for the
 * body's own connection). Its new lease end becomes visible when the body's transaction commits; until then the
 * owner holds the record's row lock. A competitor that sees an ended lease therefore first probes that lock without
 * waiting ({@link SqlDialect#lockProbeSql}): a locked record belongs to a live owner, and counts as in flight. The
 * completion stays fenced by the owner token, and the claim stays visible before the body runs.
 *
 * <p><b>Waiting</b> ({@link InFlight#WAIT}) callers give their connection back to the pool while they sleep between
 * two looks at the record. Times (leases, expiry) follow the database's clock ({@link DatabaseClock}).
 */
final class ClaimExecutor {

  private static final System.Logger LOG = System.getLogger(IdemRuntime.class.getName());

  /** Rounds in which the record changed under us (released, purged, taken over by a competitor) before we give up. */
  private static final int MAX_CONTENDED_ROUNDS = 20;
  /** Longest pause between two looks at an in-flight record while waiting for its result. */
  private static final long MAX_POLL_MILLIS = 100;

  private final TransactionManager transactions;
  private final SqlDialect dialect;
  private final ResultCodec results;
  private final DatabaseClock time;
  private final SafeListener listener;
  private final CompletedRecordCache cache;
  private final UnrecordedOutcomes unrecorded;
  /** The lease held by the CLAIM body running on this thread, for {@link #extendLease}. */
  private final ThreadLocal<Lease> currentLease = new ThreadLocal<>();

  private final String table;
  /** The dialect's claim; waits for a competitor's uncommitted claim of the key (and for any other row lock). */
  private final String claimSql;
  /**
   * The dialect's claim that skips a recorded key without an exception where its {@link #claimSql} throws one there
   * (H2: see {@link SqlDialect#guardedLeaseClaimSql}); null elsewhere.
   */
  private final String guardedClaimSql;
  /**
   * How many more claims use {@link #guardedClaimSql}: re-armed whenever a claim meets a recorded key, so that a run of
   * claims of recorded keys (replays the result cache does not answer: the cache turned off, keys completed by
   * another runtime) pays the duplicate-key exception once rather than per call (on H2 it cost an uncached replay
   * ~3x, as its statement rollback empties the session's query cache), while new keys otherwise pay no probe. Racy on
   * purpose: both statements are correct, this only picks the cheaper one.
   */
  private int guardedClaims;
  /** {@link #guardedClaims} after a claim met a recorded key. */
  static final int GUARDED_CLAIMS = 16;
  /** How this runtime's server claims, decided on the first claim (see {@link #claimOrder}). */
  private volatile ClaimOrder claimOrder;
  private final String selectSql;
  private final String lockProbeSql;
  private final String takeOverLeaseSql;
  private final String takeOverExpiredSql;
  private final String completeSql;
  /** Null where the dialect cannot commit with the completion (see {@link SqlDialect#completeAndCommitSql}). */
  private final String completeAndCommitSql;
  private final String markOutcomeUnknownSql;
  private final String releaseSql;
  private final String extendSql;
  private final String reconcileLockSql;
  private final String resolveSql;
  private final String releaseUnknownSql;

  ClaimExecutor(TransactionManager transactions, SqlDialect dialect, String table, ResultCodec results,
      DatabaseClock time, SafeListener listener, CompletedRecordCache cache) {
    this.transactions = transactions;
    this.dialect = dialect;
    this.results = results;
    this.time = time;
    this.listener = listener;
    this.cache = cache;
    this.unrecorded = new UnrecordedOutcomes(transactions);
    this.table = table;
    this.claimSql = dialect.leaseClaimSql(table);
    this.guardedClaimSql = dialect.guardedLeaseClaimSql(table);
    this.selectSql = dialect.leaseSelectSql(table);
    this.lockProbeSql = dialect.lockProbeSql(table);
    this.takeOverLeaseSql = dialect.takeOverLeaseSql(table);
    this.takeOverExpiredSql = dialect.takeOverExpiredSql(table);
    this.completeSql = dialect.completeSql(table);
    this.completeAndCommitSql = dialect.completeAndCommitSql(table);
    this.markOutcomeUnknownSql = dialect.markOutcomeUnknownSql(table);
    this.releaseSql = dialect.releaseSql(table);
    this.extendSql = dialect.extendLeaseSql(table);
    this.reconcileLockSql = dialect.reconcileLockSql(table);
    this.resolveSql = dialect.resolveSql(table);
    this.releaseUnknownSql = dialect.releaseOutcomeUnknownSql(table);
  }

  /**
   * A retry met its key parked ({@code OUTCOME_UNKNOWN}) and the command declares a reconciler: under the record's
   * row lock (so that of concurrent retries one asks the external system and the others wait, then find the key
   * settled), asks it, and resolves the record with the reported result or deletes it. Returns when the record was
   * settled, by this retry or another; throws {@link IdempotencyOutcomeUnknownException} when the reconciler cannot
   * tell or fails (nothing changed).
   */
  private <T> void reconcile(Connection connection, CommandSpec<T> spec, String key,
      CommandReconciler<T> reconciler) throws SQLException {
    String scope = spec.scope();
    connection.setAutoCommit(false);
    boolean settled = false;
    try {
      String state = null;
      String noteJson = null;
      try (PreparedStatement lock = connection.prepareStatement(reconcileLockSql)) {
        lock.setString(1, scope);
        lock.setString(2, key);
        try (ResultSet rs = lock.executeQuery()) {
          if (rs.next()) {
            state = rs.getString(1);
            noteJson = rs.getString(2);
          }
        }
      }
      if (!SqlDialect.OUTCOME_UNKNOWN.equals(state)) {
        connection.commit(); // settled by a concurrent retry (or forgotten): the next round reads it
        settled = true;
        return;
      }
      OutcomeNote note = OutcomeNote.parse(noteJson, time.millis(connection));
      Reconciliation<T> answer;
      try {
        answer = reconciler.reconcile();
      } catch (Exception | Error e) {
        throw new IdempotencyOutcomeUnknownException(scope, key, Instant.ofEpochMilli(note.since()),
            note.problem() + "; its reconciler failed, so the key stays parked", true, e);
      }
      if (answer instanceof Reconciliation.Happened<T> happened) {
        String json = spec.resultType().isVoid() ? null : results.write(spec, key, happened.result());
        try (PreparedStatement resolve = connection.prepareStatement(resolveSql)) {
          resolve.setString(1, json);
          resolve.setString(2, spec.resultShape());
          resolve.setString(3, scope);
          resolve.setString(4, key);
          resolve.executeUpdate();
        }
      } else if (answer instanceof Reconciliation.DidNotHappen<T>) {
        try (PreparedStatement release = connection.prepareStatement(releaseUnknownSql)) {
          release.setString(1, scope);
          release.setString(2, key);
          release.executeUpdate();
        }
      } else {
        String reason = answer instanceof Reconciliation.StillUnknown<T> unknown ? unknown.reason()
            : "its reconciler returned null";
        throw new IdempotencyOutcomeUnknownException(scope, key, Instant.ofEpochMilli(note.since()),
            note.problem() + "; its reconciler cannot tell yet (" + reason + "), so the key stays parked", true,
            null);
      }
      connection.commit();
      settled = true;
      cache.evict(scope, key);
    } finally {
      if (!settled) {
        Quietly.rollback(connection);
      }
      connection.setAutoCommit(true);
    }
  }

  /**
   * Whether the claim runs before the read, and with which statement: {@code noWait} is true when that statement
   * fails with a lock error instead of waiting for a row lock (see {@link SqlDialect#noWaitLeaseClaimSql}).
   */
  private record ClaimOrder(boolean insertsFirst, String sql, boolean noWait) {
    /** The same order claiming with {@code waitingSql}, which waits for row locks. */
    ClaimOrder withWaiting(String waitingSql) {
      return new ClaimOrder(insertsFirst, waitingSql, false);
    }
  }

  /** What a claim statement did. */
  private enum Claimed { INSERTED, RECORDED, LOCKED_OUT }

  /** Decides on the first call, from the server {@code connection} is on (no round trip); the same ever after. */
  private ClaimOrder claimOrder(Connection connection) throws SQLException {
    ClaimOrder order = claimOrder;
    if (order == null) {
      String noWait = dialect.noWaitLeaseClaimSql(table, connection.getMetaData());
      order = noWait != null
          ? new ClaimOrder(true, noWait, true)
          : new ClaimOrder(dialect.leaseClaimSkipsRecordedKeys(), claimSql, false);
      claimOrder = order; // racing first calls decide alike
    }
    return order;
  }

  /** The claim this caller holds while its body runs, on the connection its body's transaction uses. */
  private record Lease(CommandSpec<?> spec, String key, String ownerToken, Connection connection) {}

  /** A record as read in the claim phase. */
  record Row(String state, String fingerprint, String result, String errorType, long expiresAt,
             String ownerToken, long leaseUntil, String resultShape, long createdAt) {}

  /** A connection borrowed from the pool for the claim phase and the run, in auto-commit mode until the body. */
  private final class Borrowed {
    Connection connection;
    boolean originalAutoCommit;
    /**
     * Set once the body's transaction committed: nothing is pending, so giving the connection back needs no
     * rollback before auto-commit is restored. That rollback is not free: on H2 every rollback empties the session's
     * query cache, so that the next call's claim, completion and the body's own statements were all parsed again
     * (over half of a CLAIM first execution on H2).
     */
    boolean committed;

    Connection get() throws SQLException {
      if (connection == null) {
        committed = false;
        connection = transactions.newConnection();
        originalAutoCommit = connection.getAutoCommit();
        if (!originalAutoCommit) {
          connection.setAutoCommit(true);
        }
      }
      return connection;
    }

    /**
     * Gives the connection back to the pool, as it was lent. A failure here (a dead connection) never replaces
     * the exception on its way to the caller: it is added to it as suppressed.
     */
    void giveBack(Throwable primary) {
      Connection lent = connection;
      connection = null;
      if (lent == null) {
        return;
      }
      try {
        if (!lent.isClosed() && lent.getAutoCommit() != originalAutoCommit) {
          if (!lent.getAutoCommit() && !committed) {
            lent.rollback(); // nothing of ours is pending here; never commit by switching modes
          }
          lent.setAutoCommit(originalAutoCommit);
        }
      } catch (SQLException e) {
        if (primary != null) {
          primary.addSuppressed(e);
        } else {
          LOG.log(Level.WARNING, "Restoring auto-commit failed", e);
        }
      } finally {
        Quietly.close(lent);
      }
    }
  }

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
    Borrowed borrowed = new Borrowed();
    Throwable primary = null;
    try {
      return claimAndRun(borrowed, spec, key, fingerprint, body);
    } catch (Throwable t) {
      primary = t;
      throw t;
    } finally {
      borrowed.giveBack(primary);
    }
  }

  private <T> Outcome<T> claimAndRun(Borrowed borrowed, CommandSpec<T> spec, String key, String fingerprint,
      CommandBody<T> body) {
    String scope = spec.scope();
    String token = newOwnerToken();
    long waitUntilNanos = System.nanoTime() + spec.waitTimeout().toNanos();
    long pauseMillis = 1;
    int contendedRounds = 0;
    SQLException lastTransientFailure = null;
    while (contendedRounds++ < MAX_CONTENDED_ROUNDS) {
      Row row;
      long now;
      try {
        Connection connection = borrowed.get();
        now = time.millis(connection);
        long leaseUntil = now + spec.leaseMillis();
        // Where the claim itself would wait for the row lock of an owner extending its lease, read first, without
        // locking (see SqlDialect.leaseClaimSkipsRecordedKeys); elsewhere a new key costs the claim alone.
        ClaimOrder order = claimOrder(connection);
        row = order.insertsFirst() ? null : read(connection, scope, key);
        if (row == null) {
          Claimed claimed = insertClaim(connection, order, spec, key, fingerprint, token, now, leaseUntil);
          if (claimed == Claimed.LOCKED_OUT) {
            row = read(connection, scope, key);
            if (row == null) {
              // Not an owner's lock (an owner's record is committed, and the read sees it): a competitor's claim of
              // the key, uncommitted for the moment its auto-commit takes. Wait for it as the plain claim does,
              // rather than spin through the contended rounds before it commits.
              claimed = insertClaim(connection, order.withWaiting(claimSql), spec, key, fingerprint, token, now,
                  leaseUntil);
            }
          }
          if (claimed == Claimed.INSERTED) {
            listener.claimed(scope, key);
            return run(borrowed, spec, key, fingerprint, token, now, body);
          }
          if (row == null) {
            row = read(connection, scope, key);
          }
          if (row == null) {
            continue; // released or purged since the insert found it: claim again
          }
        }
        if (row.expiresAt() <= now) {
          if (takeOverExpired(connection, spec, key, fingerprint, token, now, leaseUntil, row.expiresAt())) {
            listener.takenOver(scope, key);
            listener.claimed(scope, key);
            return run(borrowed, spec, key, fingerprint, token, now, body);
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
        if (SqlDialect.OUTCOME_UNKNOWN.equals(row.state())) {
          if (body instanceof CommandBody.Reconciled<T> reconciled) {
            // The retry's payload matches the parked call's (the fingerprint, checked above): ask the reconciler
            // with its arguments, then read what it settled in the next round.
            reconcile(connection, spec, key, reconciled.reconciler());
            continue;
          }
          OutcomeNote note = OutcomeNote.parse(row.result(), row.createdAt());
          throw new IdempotencyOutcomeUnknownException(scope, key, Instant.ofEpochMilli(note.since()),
              note.problem(), true, null);
        }
        if (!SqlDialect.IN_PROGRESS.equals(row.state())) {
          throw new IdempotencyBrokenRecordException(scope, key, "it is in state " + row.state() + ", which a CLAIM"
              + " command never leaves behind (written by hand, or by a command of another mode)");
        }
        if (row.leaseUntil() < now) {
          if (ownerHoldsTheRecord(connection, scope, key)) {
            // Extending its lease in its open transaction: alive. The new lease end is not visible yet.
            row = new Row(row.state(), row.fingerprint(), null, null, row.expiresAt(), row.ownerToken(),
                now + spec.leaseMillis(), null, row.createdAt());
          } else if (spec.onExpiredLease() == ExpiredLease.PARK) {
            // At-most-once: nobody may run the body again while nobody knows whether its effect happened.
            String problem = "its lease ended before its owner recorded an outcome, and the command parks such keys"
                + " (onExpiredLease = PARK): the external effect may or may not have happened";
            if (markUnknown(connection, spec, key, row.ownerToken(), OutcomeNote.write(now, problem),
                now + spec.retentionMillis())) {
              listener.outcomeUnknown(scope, key);
              if (body instanceof CommandBody.Reconciled<T>) {
                continue; // the next round finds it parked and asks the reconciler
              }
              throw new IdempotencyOutcomeUnknownException(scope, key, Instant.ofEpochMilli(now), problem, true,
                  null);
            }
            continue; // its owner recorded the outcome, or another caller parked it first: the next round reads it
          } else if (takeOverLease(connection, spec, key, token, now, leaseUntil, row.ownerToken())) {
            listener.takenOver(scope, key);
            listener.claimed(scope, key);
            // The lease takeover keeps the record's created_at: the key was first claimed then.
            return run(borrowed, spec, key, fingerprint, token, row.createdAt(), body);
          } else {
            continue; // a competitor took it first; the next round sees its live lease
          }
        }
      } catch (SQLException e) {
        // Nothing ran yet, so a deadlock or lock timeout among competing claims may simply be retried.
        if (!dialect.isTransient(e)) {
          throw new IdempotencyStoreException("Claiming " + scope + " key '" + key + "' failed (step: claim;"
              + " the body did not run; a retry claims again, or, if this claim did commit, meets it in flight"
              + " until its lease ends)" + dialect.missingTableHint(e, table), e);
        }
        lastTransientFailure = e;
        pause(ThreadLocalRandom.current().nextLong(1, 5L * contendedRounds + 1));
        continue;
      }
      // In flight, lease running: the caller's choice.
      long remainingNanos = waitUntilNanos - System.nanoTime();
      if (spec.onInFlight() == InFlight.FAIL || remainingNanos <= 0) {
        listener.inFlightRejected(scope, key);
        // In the runtime's clock, as the caller compares it with its own (the record holds the database's time).
        throw new IdempotencyInProgressException(scope, key,
            Instant.ofEpochMilli(row.leaseUntil() - time.offsetMillis()));
      }
      contendedRounds = 0; // waiting is not contention
      borrowed.giveBack(null); // never sleep on a pooled connection: others (the owner's work too) may need it
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

  /**
   * Per thread, a SHA1PRNG seeded with 256 bits of the shared default SecureRandom: as unguessable as
   * {@link UUID#randomUUID()}, whose one shared SecureRandom (NativePRNG on Linux) takes a global lock per token, the
   * most contended monitor of a CLAIM first execution at 8 threads on 2 cores (a preempted holder stalls every other
   * caller; JFR, H2, 2026-12-03). Seeded explicitly, so it never reads a blocking entropy source itself.
   */
  private static final java.security.SecureRandom SHARED_RANDOM = new java.security.SecureRandom();
  private static final ThreadLocal<java.security.SecureRandom> TOKEN_SOURCE = ThreadLocal.withInitial(() -> {
    try {
      java.security.SecureRandom random = java.security.SecureRandom.getInstance("SHA1PRNG");
      byte[] seed = new byte[32];
      SHARED_RANDOM.nextBytes(seed);
      random.setSeed(seed); // before any nextBytes: the only seed it uses
      return random;
    } catch (java.security.NoSuchAlgorithmException e) {
      return SHARED_RANDOM; // SHA1PRNG is in every JDK's SUN provider; never here
    }
  });

  /** A random (version 4) UUID as the owner token: the column holds 36 characters. */
  static String newOwnerToken() {
    byte[] bytes = new byte[16];
    TOKEN_SOURCE.get().nextBytes(bytes);
    bytes[6] = (byte) ((bytes[6] & 0x0f) | 0x40); // version 4
    bytes[8] = (byte) ((bytes[8] & 0x3f) | 0x80); // IETF variant
    long most = 0;
    long least = 0;
    for (int i = 0; i < 8; i++) {
      most = (most << 8) | (bytes[i] & 0xff);
      least = (least << 8) | (bytes[8 + i] & 0xff);
    }
    return new UUID(most, least).toString();
  }

  private <T> Outcome<T> replay(CommandSpec<T> spec, String key, CompletedRecord record) {
    @SuppressWarnings("unchecked")
    T result = (T) results.replay(spec, key, record); // a broken record throws before it is cached
    cache.put(spec.scope(), key, record); // read in auto-commit mode: committed
    listener.replayed(spec.scope(), key);
    return Outcome.replayOf(result, record);
  }

  /**
   * Runs the body in a transaction on the claim's connection, and completes the record in the same transaction.
   */
  private <T> Outcome<T> run(Borrowed borrowed, CommandSpec<T> spec, String key, String fingerprint,
      String token, long createdAt, CommandBody<T> body) {
    String scope = spec.scope();
    Connection connection = borrowed.connection;
    try {
      connection.setAutoCommit(false);
    } catch (SQLException e) {
      throw new IdempotencyStoreException("Beginning the body's transaction of " + scope + " key '" + key
          + "' failed (step: body; it did not run, its claim holds until its lease ends, then a retry runs it)", e);
    }
    Transaction tx = transactions.bind(connection);
    currentLease.set(new Lease(spec, key, token, connection));
    T value;
    try {
      value = body.run();
    } catch (Throwable failure) {
      throw failed(connection, spec, key, fingerprint, token, createdAt, failure);
    } finally {
      transactions.unbind();
      currentLease.remove();
    }

    // The body returned: its effects outside the database happened. From here on the key is never released.
    String json;
    try {
      json = spec.resultType().isVoid() ? null : results.write(spec, key, value);
    } catch (RuntimeException notStorable) {
      Quietly.rollback(connection);
      // The problem says what failed; the OUTCOME_UNKNOWN exception's message says, once, what retries get.
      String problem = notStorable instanceof IdempotencyResultTooLargeException tooLarge
          ? "its result could not be stored: it is " + tooLarge.size() + " characters as JSON, more than the"
              + " maximum result size of " + tooLarge.limit() + " (IdemRuntime.Builder.maxResultSize)"
          : "its result could not be stored (" + notStorable.getMessage() + ")";
      throw outcomeUnknown(borrowed, spec, key, token, problem, notStorable);
    }
    long expiresAt = time.millis() + spec.retentionMillis();
    boolean completed;
    try {
      completed = completeAndCommitSql == null
          ? complete(connection, spec, key, token, json, null, spec.resultShape(), expiresAt)
          : completeAndCommit(connection, spec, key, token, json, spec.resultShape(), expiresAt);
    } catch (CommitReachedException e) {
      throw commitFailed(borrowed, spec, key, token, e.getCause());
    } catch (SQLException e) {
      Quietly.rollback(connection);
      throw outcomeUnknown(borrowed, spec, key, token, "the statement completing its record failed (step:"
          + " completion; " + e.getMessage() + ")", e);
    }
    if (!completed) {
      Quietly.rollback(connection);
      listener.leaseLost(scope, key);
      throw new IdempotencyLeaseLostException(scope, key);
    }
    try {
      connection.commit(); // where the completion committed already, the driver has nothing left to send
    } catch (SQLException e) {
      throw commitFailed(borrowed, spec, key, token, e);
    }
    borrowed.committed = true;
    CompletedRecord completedRecord =
        new CompletedRecord(fingerprint, json, null, spec.resultShape(), expiresAt, createdAt);
    cache.put(scope, key, completedRecord);
    listener.completed(scope, key);
    tx.runAfterCommit();
    return Outcome.executed(value, completedRecord);
  }

  /**
   * The body threw: a business failure is stored like a result; anything else releases the claim, or parks it as
   * {@code OUTCOME_UNKNOWN} where the command declares {@link UndeclaredFailure#PARK}.
   */
  private RuntimeException failed(Connection connection, CommandSpec<?> spec, String key, String fingerprint,
      String token, long createdAt, Throwable failure) {
    String scope = spec.scope();
    Quietly.rollback(connection);
    ReplayableFailure<?> replayable = spec.replayableFor(failure);
    String arguments = replayable == null ? null : captureQuietly(spec, key, replayable, failure);
    boolean parks = arguments == null && spec.onUndeclaredFailure() == UndeclaredFailure.PARK;
    String step = parks ? "park" : arguments == null ? "release" : "completion with the business failure";
    try {
      connection.setAutoCommit(true);
      if (parks) {
        long since = time.millis();
        String problem = "its body threw " + failure.getClass().getName() + ", which replayOn does not list, and the"
            + " command parks such keys (onUndeclaredFailure = PARK): the external effect may have happened before"
            + " the exception";
        if (markUnknown(connection, spec, key, token, OutcomeNote.write(since, problem),
            since + spec.retentionMillis())) {
          listener.outcomeUnknown(scope, key);
        } else {
          listener.leaseLost(scope, key);
          return new IdempotencyLeaseLostException(scope, key, failure);
        }
      } else if (arguments == null) {
        if (release(connection, spec, key, token)) {
          listener.released(scope, key);
        }
      } else {
        long expiresAt = time.millis() + spec.retentionMillis();
        if (complete(connection, spec, key, token, arguments, replayable.storedName(), null, expiresAt)) {
          cache.put(scope, key,
              new CompletedRecord(fingerprint, arguments, replayable.storedName(), null, expiresAt, createdAt));
          listener.completed(scope, key);
        } else {
          // As on the success path: the new owner's outcome stands, this caller's failure was not stored.
          listener.leaseLost(scope, key);
          return new IdempotencyLeaseLostException(scope, key, failure);
        }
      }
    } catch (SQLException e) {
      // The body's exception matters more; the claim then holds until its lease ends, as after a crash.
      failure.addSuppressed(new IdempotencyStoreException("Recording the outcome of " + scope + " key '" + key
          + "' failed (step: " + step + "); the claim holds until its lease ends, then a retry "
          + (spec.onExpiredLease() == ExpiredLease.PARK ? "parks the key as OUTCOME_UNKNOWN" : "runs the command again"),
          e));
    }
    return Sneaky.rethrow(failure);
  }

  /**
   * The body returned but its outcome cannot be recorded: turns the claim {@code OUTCOME_UNKNOWN}, fenced by the
   * owner token, on the claim's connection, or on a fresh one if that is dead.
   */
  private RuntimeException outcomeUnknown(Borrowed borrowed, CommandSpec<?> spec, String key, String token,
      String problem, Throwable cause) {
    String scope = spec.scope();
    long since = time.millis();
    Boolean marked = markUnknown(borrowed, spec, key, token, since, problem, cause);
    if (Boolean.FALSE.equals(marked)) {
      listener.leaseLost(scope, key);
      return new IdempotencyLeaseLostException(scope, key, cause);
    }
    listener.outcomeUnknown(scope, key);
    return new IdempotencyOutcomeUnknownException(scope, key, Instant.ofEpochMilli(since), problem,
        marked != null, cause);
  }

  /**
   * {@code commit()} failed: the completion may have committed or not. If the claim is still ours and in
   * progress, it did not: the outcome is unknown and recorded so. If it is no longer ours, it committed or was taken
   * over, and a retry replays whichever outcome stands. If nothing can be run at all, the background mark settles
   * it once the database is back (see {@link #markUnknown}), so the caller is told what a retry then meets.
   */
  private RuntimeException commitFailed(Borrowed borrowed, CommandSpec<?> spec, String key, String token,
      SQLException failure) {
    Quietly.rollback(borrowed.connection);
    long since = time.millis();
    String problem = "the commit of its completion failed (step: completion; " + failure.getMessage() + ")";
    Boolean marked = markUnknown(borrowed, spec, key, token, since, problem, failure);
    if (marked == null) {
      listener.outcomeUnknown(spec.scope(), key);
      return new IdempotencyOutcomeUnknownException(spec.scope(), key, Instant.ofEpochMilli(since), problem
          + "; if that commit went through after all, a retry replays its result", false, failure);
    }
    if (marked) {
      listener.outcomeUnknown(spec.scope(), key);
      return new IdempotencyOutcomeUnknownException(spec.scope(), key, Instant.ofEpochMilli(since), problem,
          true, failure);
    }
    return new IdempotencyCommitUnknownException(spec.scope(), key, "a retry with the same key replays the"
        + " recorded outcome: this call's if its commit went through, else that of the caller that took the claim"
        + " over when its lease ended", failure);
  }

  /** @return true if marked, false if the claim is no longer ours, null if no statement could be run */
  private Boolean markUnknown(Borrowed borrowed, CommandSpec<?> spec, String key, String token, long since,
      String problem, Throwable cause) {
    String note = OutcomeNote.write(since, problem);
    long expiresAt = since + spec.retentionMillis();
    try {
      Connection connection = borrowed.connection;
      if (!connection.getAutoCommit()) {
        connection.rollback();
        connection.setAutoCommit(true);
      }
      return markUnknown(connection, spec, key, token, note, expiresAt);
    } catch (SQLException onClaimConnection) {
      cause.addSuppressed(onClaimConnection);
    }
    // The claim's connection is dead: give it back first (a pool of one has no other), then try a fresh one.
    borrowed.giveBack(cause);
    try {
      Connection fresh = borrowed.get();
      return markUnknown(fresh, spec, key, token, note, expiresAt);
    } catch (SQLException | IdempotencyStoreException onFreshConnection) {
      cause.addSuppressed(onFreshConnection);
      unrecorded.retryUntilLeaseEnds(spec.scope(), key, spec.leaseMillis(), connection -> {
        markUnknown(connection, spec, key, token, note, expiresAt); // false: no longer ours, nothing to record
        return true;
      });
      return null;
    }
  }

  /**
   * Extends the lease of the body running on this thread, on its own connection and in its transaction (see the
   * class comment): visible to others when the body's transaction commits, and meanwhile the row lock shows the
   * owner alive.
   */
  boolean extendLease(Duration extension) {
    Lease lease = currentLease.get();
    if (lease == null) {
      throw new IllegalStateException("extendLease() works only inside the body of a CLAIM command, on its thread");
    }
    long leaseUntil = time.millis() + extension.toMillis();
    try (PreparedStatement extend = lease.connection().prepareStatement(extendSql)) {
      extend.setLong(1, leaseUntil);
      extend.setLong(2, leaseUntil + lease.spec().retentionMillis());
      extend.setString(3, lease.spec().scope());
      extend.setString(4, lease.key());
      extend.setString(5, lease.ownerToken());
      return extend.executeUpdate() == 1;
    } catch (SQLException e) {
      throw new IdempotencyStoreException("Extending the lease on " + lease.spec().scope() + " key '"
          + lease.key() + "' failed (step: lease extension, in the body's transaction)", e);
    }
  }

  // ------------------------------------------------------------------------------------------------
  // Statements: the SQL is SqlDialect's; here they are bound and their results read.

  private Claimed insertClaim(Connection connection, ClaimOrder order, CommandSpec<?> spec, String key,
      String fingerprint, String token, long now, long leaseUntil) throws SQLException {
    String sql = order.sql();
    if (guardedClaimSql != null && sql.equals(claimSql) && guardedClaims > 0) {
      guardedClaims--;
      sql = guardedClaimSql;
    }
    try (PreparedStatement claim = connection.prepareStatement(sql)) {
      dialect.bindLeaseClaim(claim, table, spec.scope(), key, fingerprint, token, leaseUntil, now,
          leaseUntil + spec.retentionMillis());
      // Every day is probed: an extended lease keeps a record live past its first day's window.
      if (dialect.claimKey(connection, claim, table, spec.scope(), key, now, Integer.MIN_VALUE)) {
        return Claimed.INSERTED;
      }
      if (guardedClaimSql != null) {
        guardedClaims = GUARDED_CLAIMS;
      }
      return Claimed.RECORDED;
    } catch (SQLException e) {
      if (order.noWait() && dialect.isLockNotAvailable(e)) {
        return Claimed.LOCKED_OUT; // in auto-commit mode only the statement was undone
      }
      throw e;
    }
  }

  private Row read(Connection connection, String scope, String key) throws SQLException {
    return read(connection, selectSql, scope, key);
  }

  /** Reads a record with {@link SqlDialect#leaseSelectSql}; also for {@link IdemRuntime#inspect}. */
  static Row read(Connection connection, String selectSql, String scope, String key) throws SQLException {
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

  /** Whether an open transaction (its owner's, extending the lease) holds the record locked; never waits. */
  private boolean ownerHoldsTheRecord(Connection connection, String scope, String key) throws SQLException {
    try (PreparedStatement probe = connection.prepareStatement(lockProbeSql)) {
      probe.setString(1, scope);
      probe.setString(2, key);
      try (ResultSet rs = probe.executeQuery()) {
        rs.next();
        return false; // not locked (in auto-commit mode, the lock ends with the statement)
      }
    } catch (SQLException e) {
      if (dialect.isLockNotAvailable(e)) {
        return true;
      }
      throw e;
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
      bindCompletion(update, spec, key, token, json, errorType, resultShape, expiresAt);
      return update.executeUpdate() == 1;
    }
  }

  /** The parameters of {@link SqlDialect#completeSql} and {@link SqlDialect#completeAndCommitSql}. */
  private static void bindCompletion(PreparedStatement update, CommandSpec<?> spec, String key, String token,
      String json, String errorType, String resultShape, long expiresAt) throws SQLException {
    update.setString(1, json);
    update.setString(2, errorType);
    update.setString(3, resultShape);
    update.setLong(4, expiresAt);
    update.setString(5, spec.scope());
    update.setString(6, key);
    update.setString(7, token);
  }

  /**
   * {@link #complete} and the commit of the body's transaction in one round trip ({@link
   * SqlDialect#completeAndCommitSql}); {@code commit()} afterwards has nothing left to do.
   *
   * @return true if completed and committed; false if the claim is no longer ours (nothing committed)
   * @throws CommitReachedException if the completion succeeded and the commit failed: it may have committed or not
   * @throws SQLException if the completion failed (the commit was skipped, nothing committed)
   */
  private boolean completeAndCommit(Connection connection, CommandSpec<?> spec, String key, String token,
      String json, String resultShape, long expiresAt) throws SQLException {
    try (PreparedStatement update = connection.prepareStatement(completeAndCommitSql)) {
      bindCompletion(update, spec, key, token, json, null, resultShape, expiresAt);
      update.execute();
      return true;
    } catch (SQLException e) {
      if (dialect.isNothingToComplete(e)) {
        return false;
      }
      if (dialect.commitReached(connection)) {
        throw new CommitReachedException(e);
      }
      throw e;
    }
  }

  /** The commit carried by {@link #completeAndCommit} failed: whether it committed is unknown. */
  private static final class CommitReachedException extends SQLException {
    CommitReachedException(SQLException cause) {
      super(cause.getMessage(), cause.getSQLState(), cause.getErrorCode(), cause);
    }

    @Override
    public synchronized SQLException getCause() {
      return (SQLException) super.getCause();
    }
  }

  /** The fenced mark of an outcome that could not be recorded: true only if this caller still owns the claim. */
  private boolean markUnknown(Connection connection, CommandSpec<?> spec, String key, String token, String note,
      long expiresAt) throws SQLException {
    try (PreparedStatement update = connection.prepareStatement(markOutcomeUnknownSql)) {
      update.setString(1, note);
      update.setLong(2, expiresAt);
      update.setString(3, spec.scope());
      update.setString(4, key);
      update.setString(5, token);
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

  private String captureQuietly(CommandSpec<?> spec, String key, ReplayableFailure<?> replayable, Throwable failure) {
    try {
      return results.writeArguments(spec, key, replayable, replayable.capture(failure));
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
