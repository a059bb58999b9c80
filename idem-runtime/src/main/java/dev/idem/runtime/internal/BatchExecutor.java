package dev.idem.runtime.internal;

import dev.idem.runtime.FrontTier;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyCommitUnknownException;
import dev.idem.runtime.IdempotencyException;
import dev.idem.runtime.IdempotencyKeyReusedException;
import dev.idem.runtime.IdempotencyStoreException;
import dev.idem.runtime.InvalidIdempotencyKeyException;
import dev.idem.runtime.internal.BatchStatements.StoredRecord;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * Runs batch commands for {@link IdemEngine#executeBatch}: claims every key of a batch with one statement, calls
 * the body once with the first-seen messages and commits the claims with the body's writes.
 *
 * <p>A message redelivered with the same key but a different content (fingerprint) rejects the whole batch with
 * {@link IdempotencyKeyReusedException} naming that key, and nothing of the batch commits: skipping it silently
 * would lose the new content, processing it would apply one message twice. The same holds for two messages of one
 * batch that share a key but not their content; with equal content they count once.
 */
final class BatchExecutor {

  /** Claim rounds within one attempt for keys whose competing claim rolled back or whose record was purged. */
  private static final int MAX_ROUNDS = 5;

  private final TransactionManager transactions;
  private final SqlDialect dialect;
  private final BatchStatements statements;
  private final RecordStatements records;
  private final KeyComposer keys;
  private final DatabaseClock clock;
  private final SafeListener listener;
  /** The front tier asked before the database and told after the commit; null without one. */
  private final FrontTierGate frontTier;

  BatchExecutor(TransactionManager transactions, RecordStatements records, SqlDialect dialect, String table,
                KeyComposer keys, DatabaseClock clock, SafeListener listener, FrontTierGate frontTier) {
    this.frontTier = frontTier != null && frontTier.isEnabled() ? frontTier : null;
    this.transactions = transactions;
    this.dialect = dialect;
    this.statements = dialect.batchStatements(table);
    this.records = records;
    this.keys = keys;
    this.clock = clock;
    this.listener = listener;
  }

  <E> int execute(CommandSpec<Void> spec, Collection<E> messages, Function<? super E, Object[]> keyParts,
                  Function<? super E, Object[]> payload, BatchBody<E> body) {
    Objects.requireNonNull(spec, "spec");
    Objects.requireNonNull(messages, () -> "the batch of " + spec.scope() + " is null");
    Objects.requireNonNull(body, "body");
    if (messages.isEmpty()) {
      return 0;
    }
    Batch<E> batch = prepare(spec, messages, keyParts, payload);
    if (frontTier != null) {
      batch = withoutConsumed(spec, batch);
      if (batch.messages().isEmpty()) {
        return 0; // every message consumed before, as the tier knows from committed batches
      }
    }
    Transaction joined = transactions.current();
    if (joined != null) {
      return executeJoined(joined, spec, batch, body);
    }
    Transaction applications = transactions.bindApplications();
    if (applications == null) {
      return executeInOwnTransactions(spec, batch, body);
    }
    try {
      return executeJoined(applications, spec, batch, body);
    } finally {
      transactions.unbind();
    }
  }

  /**
   * The batch's messages with their keys and fingerprints, validated before any database access.
   *
   * @param messages every message, in delivery order
   * @param keyOf the key of each message, parallel to {@code messages}
   * @param fingerprints each distinct key's fingerprint
   * @param sortedKeys the distinct keys, sorted: the order in which every batch locks them
   */
  private record Batch<E>(List<E> messages, String[] keyOf, Map<String, String> fingerprints,
                          List<String> sortedKeys) {

    /** The messages whose key was claimed, in delivery order, each key once. */
    List<E> firstSeen(Set<String> claimed) {
      List<E> firstSeen = new ArrayList<>(claimed.size());
      Set<String> taken = new HashSet<>(claimed.size() * 2);
      for (int i = 0; i < keyOf.length; i++) {
        if (claimed.contains(keyOf[i]) && taken.add(keyOf[i])) {
          firstSeen.add(messages.get(i));
        }
      }
      return firstSeen;
    }
  }

  private <E> Batch<E> prepare(CommandSpec<Void> spec, Collection<E> messages,
                               Function<? super E, Object[]> keyParts, Function<? super E, Object[]> payload) {
    List<E> list = new ArrayList<>(messages);
    String[] keyOf = new String[list.size()];
    Map<String, String> fingerprints = new LinkedHashMap<>(list.size() * 2);
    for (int i = 0; i < keyOf.length; i++) {
      E message = list.get(i);
      try {
        keyOf[i] = keys.compose(spec, keyParts.apply(message));
      } catch (InvalidIdempotencyKeyException e) {
        listener.invalidKey(spec.scope(), e.rule().name());
        throw e;
      }
      String fingerprint = Fingerprinter.fingerprint(spec, payload.apply(message));
      String first = fingerprints.putIfAbsent(keyOf[i], fingerprint);
      if (first != null && !first.equals(fingerprint)) {
        listener.keyReused(spec.scope(), keyOf[i]);
        throw new IdempotencyKeyReusedException(spec.scope(), keyOf[i]);
      }
    }
    List<String> sorted = new ArrayList<>(fingerprints.keySet());
    sorted.sort(null);
    return new Batch<>(list, keyOf, fingerprints, sorted);
  }

  /**
   * The batch without the messages the front tier knows as consumed (published after their batch committed) with
   * the same fingerprint; a known key with another fingerprint rejects the batch as the database would. Keys the
   * tier does not know, or could not answer for, stay: the database decides them.
   */
  private <E> Batch<E> withoutConsumed(CommandSpec<Void> spec, Batch<E> batch) {
    String scope = spec.scope();
    List<String> keysToAsk = batch.sortedKeys();
    List<FrontTier.Completed> found = frontTier.lookupCompleted(scope, keysToAsk);
    long now = clock.millis();
    Set<String> consumed = new HashSet<>();
    for (int i = 0; i < keysToAsk.size(); i++) {
      FrontTier.Completed outcome = found.get(i);
      String key = keysToAsk.get(i);
      if (outcome == null || outcome.expiresAt() <= now) {
        continue; // unknown, or a late entry: the database knows whether the key runs anew
      }
      if (!outcome.fingerprint().equals(batch.fingerprints().get(key))) {
        listener.keyReused(scope, key);
        throw new IdempotencyKeyReusedException(scope, key);
      }
      consumed.add(key);
    }
    if (consumed.isEmpty()) {
      return batch;
    }
    List<E> messages = new ArrayList<>(batch.messages().size());
    List<String> keyOf = new ArrayList<>(batch.messages().size());
    for (int i = 0; i < batch.keyOf().length; i++) {
      if (!consumed.contains(batch.keyOf()[i])) {
        messages.add(batch.messages().get(i));
        keyOf.add(batch.keyOf()[i]);
      }
    }
    Map<String, String> fingerprints = new LinkedHashMap<>(batch.fingerprints());
    fingerprints.keySet().removeAll(consumed);
    List<String> sorted = new ArrayList<>(batch.sortedKeys());
    sorted.removeAll(consumed);
    for (String key : consumed) {
      listener.frontTierHit(scope, key);
      listener.replayed(scope, key);
    }
    return new Batch<>(messages, keyOf.toArray(new String[0]), fingerprints, sorted);
  }

  private <E> int executeInOwnTransactions(CommandSpec<Void> spec, Batch<E> batch, BatchBody<E> body) {
    SQLException lastTransientFailure = null;
    for (int attemptNumber = 1; attemptNumber <= Retries.MAX_ATTEMPTS; attemptNumber++) {
      Attempt attempt = new Attempt();
      try {
        return transactions.inTransactionRethrowing(
            connection -> attempt(transactions.current(), spec, batch, body, attempt, true));
      } catch (BodyFailure failure) {
        throw Sneaky.rethrow(failure.getCause());
      } catch (IdempotencyCommitUnknownException e) {
        // A redelivered batch skips the keys that did commit and runs the others.
        throw new IdempotencyCommitUnknownException(spec.scope(), null, e.getCause());
      } catch (Exception e) {
        if (!(e instanceof SQLException sqlException)) {
          throw e;
        }
        // Once the body ran, its side effects outside the database may have happened: never rerun it.
        if (attempt.bodyStarted || !dialect.isTransient(sqlException)) {
          throw new IdempotencyStoreException("Recording a batch of " + batch.sortedKeys().size() + " keys of "
              + spec.scope() + " failed; the transaction was rolled back"
              + dialect.missingTableHint(sqlException, records.table()), sqlException);
        }
        lastTransientFailure = sqlException;
        Retries.pauseBeforeRetry(attemptNumber);
      }
    }
    throw new IdempotencyStoreException("Could not claim a batch of " + batch.sortedKeys().size() + " keys of "
        + spec.scope() + " in " + Retries.MAX_ATTEMPTS + " attempts", lastTransientFailure);
  }

  /** Inside the caller's transaction; a savepoint undoes the batch alone if it fails (see TransactionalExecutor). */
  private <E> int executeJoined(Transaction tx, CommandSpec<Void> spec, Batch<E> batch, BatchBody<E> body) {
    Connection connection = tx.connection;
    tx.flush(); // the application's pending writes go out before idem's savepoint (see TransactionalExecutor)
    Savepoint savepoint;
    try {
      savepoint = connection.setSavepoint();
    } catch (SQLException e) {
      throw new IdempotencyStoreException("Cannot set a savepoint for " + spec.scope(), e);
    }
    try {
      int processed = attempt(tx, spec, batch, body, new Attempt(), false);
      Quietly.release(connection, savepoint);
      return processed;
    } catch (BodyFailure failure) {
      Quietly.rollback(connection, savepoint);
      tx.bodyFailed(failure.getCause());
      throw Sneaky.rethrow(failure.getCause());
    } catch (SQLException e) {
      // No retry: the database may have aborted the caller's whole transaction (deadlock victim).
      Quietly.rollback(connection, savepoint);
      throw new IdempotencyStoreException("Recording a batch of " + spec.scope()
          + " in the caller's transaction failed" + dialect.missingTableHint(e, records.table()), e);
    } catch (RuntimeException | Error e) {
      Quietly.rollback(connection, savepoint);
      throw e;
    }
  }

  private static final class Attempt {
    boolean bodyStarted;
  }

  private <E> int attempt(Transaction tx, CommandSpec<Void> spec, Batch<E> batch, BatchBody<E> body,
                          Attempt attempt, boolean ownTransaction) throws SQLException {
    Connection connection = tx.connection;
    String scope = spec.scope();
    // In its own transaction, this is the first statement: the database's time is the transaction's start.
    long now = ownTransaction ? clock.millis(connection) : clock.millis();
    long expiresAt = now + spec.retentionMillis();
    Set<String> claimed = new HashSet<>(batch.sortedKeys().size() * 2);
    List<String> unresolved = batch.sortedKeys();
    for (int round = 1; !unresolved.isEmpty(); round++) {
      if (round > MAX_ROUNDS) {
        throw new IdempotencyException("Could not claim or skip " + unresolved.size() + " keys of " + scope
            + " (first: '" + unresolved.get(0) + "'): their records kept disappearing or changing");
      }
      List<String> fingerprints = new ArrayList<>(unresolved.size());
      for (String key : unresolved) {
        fingerprints.add(batch.fingerprints().get(key));
      }
      BatchStatements.Claimed claim = statements.claim(connection, spec, unresolved, fingerprints, now, expiresAt);
      Set<String> inserted = claim.inserted();
      claimed.addAll(inserted);
      List<String> recorded = new ArrayList<>(unresolved.size() - inserted.size());
      for (String key : unresolved) {
        if (!inserted.contains(key)) {
          recorded.add(key);
        }
      }
      unresolved = recorded.isEmpty() ? List.of()
          : resolve(connection, spec, batch, recorded, claim.recorded(), now, expiresAt, claimed);
    }

    List<E> firstSeen = batch.firstSeen(claimed);
    if (firstSeen.isEmpty()) {
      return 0; // all duplicates: nothing was written, the (empty) commit changes nothing
    }
    for (String key : claimed) {
      listener.claimed(scope, key);
    }
    attempt.bodyStarted = true;
    int processed;
    try {
      processed = body.run(firstSeen);
      tx.flush();
    } catch (Throwable t) {
      throw new BodyFailure(t);
    }
    tx.afterCommitOrNow(() -> {
      for (String key : claimed) {
        listener.completed(scope, key);
      }
    });
    if (frontTier != null) {
      Map<String, FrontTier.Completed> outcomes = new LinkedHashMap<>(claimed.size() * 2);
      for (String key : claimed) {
        outcomes.put(key, new FrontTier.Completed(batch.fingerprints().get(key), null, null, spec.resultShape(),
            expiresAt, now));
      }
      // Only after a real commit (never "now"): a tier that said "consumed" for a batch that rolled back would
      // drop its messages on redelivery.
      tx.tryAfterCommit(() -> frontTier.publishAll(scope, outcomes, expiresAt));
    }
    return processed;
  }

  /**
   * Looks at the records of keys someone else recorded: a live one with the same fingerprint is a duplicate to
   * skip, an expired one is taken over (and so claimed), one with another fingerprint rejects the batch.
   *
   * @param found the records as the claim read them, or null to read them here
   * @return the keys to claim again: their record vanished (the competing claim rolled back, or a purge ran), or
   *     the claim that read them could not see it yet
   */
  private List<String> resolve(Connection connection, CommandSpec<Void> spec, Batch<?> batch, List<String> recorded,
                               Map<String, StoredRecord> found, long now, long expiresAt, Set<String> claimed)
      throws SQLException {
    String scope = spec.scope();
    if (found == null) {
      found = statements.read(connection, scope, recorded);
    }
    List<String> again = new ArrayList<>();
    for (String key : recorded) {
      StoredRecord stored = found.get(key);
      String fingerprint = batch.fingerprints().get(key);
      if (stored == null) {
        again.add(key);
      } else if (stored.expiresAt() <= now) {
        if (records.takeOver(connection, scope, key, fingerprint, SqlDialect.COMPLETED, now, expiresAt,
            stored.expiresAt())) {
          claimed.add(key);
        } else {
          again.add(key);
        }
      } else if (!stored.fingerprint().equals(fingerprint)) {
        listener.keyReused(scope, key);
        throw new IdempotencyKeyReusedException(scope, key);
      } else if (!SqlDialect.COMPLETED.equals(stored.state())) {
        throw new IdempotencyException("The record of " + scope + " key '" + key + "' is in state "
            + stored.state() + ", which batch commands cannot handle");
      } else {
        listener.replayed(scope, key);
      }
    }
    return again;
  }
}
