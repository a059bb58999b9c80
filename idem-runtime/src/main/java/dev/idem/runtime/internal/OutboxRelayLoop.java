package dev.idem.runtime.internal;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.OutboxMessage;
import dev.idem.runtime.OutboxPublisher;
import dev.idem.runtime.OutboxRelay;
import dev.idem.runtime.OutboxRelayOptions;
import dev.idem.runtime.PublishOutcome;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * The outbox relay, once for every broker: a daemon thread that repeats claim, publish, mark.
 *
 * <ol>
 *   <li><b>Claim</b>, in a short transaction at READ COMMITTED: {@link SqlDialect#outboxClaimSelectSql()} locks up to
 *       a batch of due PENDING rows, skipping rows other relays' claims hold; each gets this round's claim token and
 *       {@code next_attempt_at = now + lease}; commit. No row lock is held after this.</li>
 *   <li><b>Publish</b> through the {@link OutboxPublisher}, rows that cannot be read being parked instead.</li>
 *   <li><b>Mark</b>, in one transaction, each row by its outcome (sent, retry after a backoff, parked), every
 *       statement fenced by the claim token: a row whose lease ended and that another relay claimed since is left to
 *       that relay (reported as {@code outboxClaimLost}). The SENT rows take one statement together; see
 *       {@link #mark}.</li>
 * </ol>
 *
 * A relay that dies between claim and mark leaves its rows claimed until the lease ends; then they are due again and
 * another relay publishes them with the same message ids (at least once). A batch bounds what one relay holds in
 * memory however large the backlog.
 */
final class OutboxRelayLoop implements OutboxRelay {

  private static final System.Logger LOG = System.getLogger(IdemRuntime.class.getName());
  private static final TypeReference<Map<String, String>> HEADERS = new TypeReference<>() {};
  private static final int PURGE_BATCH = 1000;
  private static final int MAX_REASON = 1000;
  /**
   * The most ids one claim or mark statement binds (a batch may hold 10,000 rows; drivers and servers cap a
   * statement's parameters, PostgreSQL at 32,767).
   */
  private static final int MARK_CHUNK = 1000;

  /** One claimed row; {@code unreadable} says why it cannot be published, null when it can. */
  private record Claimed(OutboxMessage message, String id, String destination, long createdAt, long lagMillis,
                         int attempts, String unreadable, int partition) {}

  private final DataSource dataSource;
  private final SqlDialect dialect;
  private final ObjectMapper mapper;
  private final SafeListener listener;
  private final OutboxPublisher publisher;
  private final OutboxRelayOptions options;
  private final OutboxOperations operations;
  private final Thread thread;
  /** The ordered relay's partitions; null when unordered. */
  private final OutboxPartitions partitions;
  private volatile boolean stopping;
  /** Tells the runtime this relay is closed. */
  private final java.util.function.Consumer<OutboxRelayLoop> onClose;
  private long nextPurgeNanos;
  /**
   * Unordered mode: the relay's second thread, which runs the next batch's claim and the last batch's mark while the
   * relay thread publishes (see {@link #round()}); null in ordered mode, where a batch goes out in waves.
   */
  private final java.util.concurrent.ExecutorService ahead;
  /** The next batch's claim, running on {@link #ahead}; null when none was started. Relay thread only. */
  private java.util.concurrent.Future<ClaimedBatch> nextClaim;
  /** The last batch's mark, running on {@link #ahead}; null when none is pending. Relay thread only. */
  private java.util.concurrent.Future<Void> pendingMark;

  /** A claimed batch and the token that claims it. */
  private record ClaimedBatch(String token, List<Claimed> rows) {}

  OutboxRelayLoop(DataSource dataSource, SqlDialect dialect, ObjectMapper mapper, SafeListener listener,
                  OutboxPublisher publisher, OutboxRelayOptions options, OutboxOperations operations,
                  java.util.function.Consumer<OutboxRelayLoop> onClose) {
    this.onClose = onClose;
    this.dataSource = dataSource;
    this.dialect = dialect;
    this.mapper = mapper;
    this.listener = listener;
    this.publisher = publisher;
    this.options = options;
    this.operations = operations;
    this.partitions = options.orderedPartitions() == 0 ? null
        : new OutboxPartitions(dataSource, dialect, options.orderedPartitions(), options.claimLease().toMillis());
    this.thread = new Thread(this::run, options.name());
    this.thread.setDaemon(true);
    this.nextPurgeNanos = System.nanoTime();
    this.ahead = partitions != null ? null : java.util.concurrent.Executors.newSingleThreadExecutor(task -> {
      Thread worker = new Thread(task, options.name() + "-claim-mark");
      worker.setDaemon(true);
      return worker;
    });
  }

  OutboxRelayLoop start() {
    thread.start();
    return this;
  }

  @Override
  public void close() {
    stopping = true;
    onClose.accept(this);
    thread.interrupt();
    if (Thread.currentThread() == thread) {
      return;
    }
    try {
      thread.join(TimeUnit.SECONDS.toMillis(30));
      if (thread.isAlive()) {
        LOG.log(Level.WARNING, "The outbox relay " + options.name() + " did not stop within 30 s (its publisher"
            + " ignores interrupts); its claim ends with its lease");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public boolean isRunning() {
    return thread.isAlive();
  }

  private void run() {
    try {
      loop();
    } finally {
      if (partitions != null) {
        partitions.leave();
      } else {
        drainAhead();
      }
    }
  }

  /**
   * On stop: the last mark is let finish (its batch was published), and a claim made ahead is given back, so that
   * another relay publishes its rows at once rather than when the lease ends.
   */
  private void drainAhead() {
    try {
      if (pendingMark != null) {
        awaitUninterruptibly(pendingMark);
      }
      if (nextClaim != null) {
        ClaimedBatch claimed = awaitUninterruptibly(nextClaim);
        if (claimed != null && !claimed.rows.isEmpty()) {
          release(claimed.token, claimed.rows);
        }
      }
    } finally {
      pendingMark = null;
      nextClaim = null;
      ahead.shutdown();
    }
  }

  /** The task's result, or null when it failed (a failed mark or claim leaves its rows to the lease). */
  private static <T> T awaitUninterruptibly(java.util.concurrent.Future<T> task) {
    boolean interrupted = Thread.interrupted();
    try {
      while (true) {
        try {
          return task.get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
          LOG.log(Level.DEBUG, "An outbox relay's last claim or mark did not complete; its rows wait for the lease", e);
          return null;
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** The task's result; its failure rethrown as the relay thread's own (an SQLException or a RuntimeException). */
  private static <T> T await(java.util.concurrent.Future<T> task) throws SQLException, InterruptedException {
    try {
      return task.get();
    } catch (java.util.concurrent.ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof SQLException sql) {
        throw sql;
      }
      if (cause instanceof RuntimeException runtime) {
        throw runtime;
      }
      if (cause instanceof Error error) {
        throw error;
      }
      throw new IllegalStateException(cause);
    }
  }

  private void loop() {
    while (!stopping) {
      try {
        purgeWhenDue();
        if (round() == 0) {
          Thread.sleep(options.pollInterval().toMillis());
        }
      } catch (InterruptedException e) {
        return;
      } catch (SQLException | RuntimeException e) {
        if (stopping) {
          return;
        }
        // A deadlock or lock timeout between relays' claims and writers is rolled back whole and simply retried.
        boolean transientFailure = e instanceof SQLException sql && (dialect.isTransient(sql)
            || dialect.isLockNotAvailable(sql));
        LOG.log(transientFailure ? Level.DEBUG : Level.WARNING, "An outbox relay round failed; trying again in "
            + options.pollInterval(), e);
        listener.outboxRelayFailed(e);
        try {
          Thread.sleep(options.pollInterval().toMillis());
        } catch (InterruptedException stop) {
          return;
        }
      }
    }
  }

  private void purgeWhenDue() {
    if (options.purgeEvery() == null || System.nanoTime() - nextPurgeNanos < 0) {
      return;
    }
    nextPurgeNanos = System.nanoTime() + options.purgeEvery().toNanos();
    long deleted = operations.purgeSent(PURGE_BATCH);
    if (deleted > 0) {
      listener.purged(SqlDialect.OUTBOX_TABLE, deleted);
    }
  }

  /**
   * One claim, publish and mark; the number of rows claimed (0: nothing was due).
   *
   * <p>Unordered mode pipelines: when a batch came back full (a backlog), the next batch is claimed on the second
   * thread while this one is published, and this batch's mark runs there too while the next one is published. So
   * the broker's round trips and the database's overlap instead of adding up. Each batch keeps its own claim token
   * (its marks stay fenced by it), at most one claim and two marks (the last, and this one queued behind it) are ahead,
   * and a mark's failure surfaces on the relay thread at the next round, as a synchronous mark's would.
   */
  int round() throws SQLException, InterruptedException {
    String token;
    List<Claimed> batch;
    if (partitions == null) {
      if (nextClaim != null) {
        java.util.concurrent.Future<ClaimedBatch> claimed = nextClaim;
        nextClaim = null;
        ClaimedBatch prefetched = await(claimed);
        token = prefetched.token;
        batch = prefetched.rows;
      } else {
        token = UUID.randomUUID().toString();
        batch = claim(token);
      }
      if (batch.size() == options.batchSize()) {
        String nextToken = UUID.randomUUID().toString();
        nextClaim = ahead.submit(() -> new ClaimedBatch(nextToken, claim(nextToken)));
      }
    } else {
      token = UUID.randomUUID().toString();
      partitions.maintain();
      if (partitions.ownedSet().isEmpty()) {
        return 0;
      }
      batch = claim(token);
      // Rows of a partition whose lease may have ended meanwhile go back: another relay may own it by now.
      List<Claimed> unheld = new ArrayList<>();
      for (Claimed row : batch) {
        if (!partitions.held(row.partition)) {
          unheld.add(row);
        }
      }
      if (!unheld.isEmpty()) {
        release(token, unheld);
        batch = new ArrayList<>(batch);
        batch.removeAll(unheld);
      }
    }
    if (batch.isEmpty()) {
      awaitPendingMark(); // a claim made ahead found the backlog gone: the last batch's mark completes first
      return 0;
    }
    List<Claimed> readable = new ArrayList<>(batch.size());
    List<OutboxMessage> messages = new ArrayList<>(batch.size());
    for (Claimed row : batch) {
      if (row.unreadable == null) {
        readable.add(row);
        messages.add(row.message);
      }
    }
    if (partitions != null) {
      return orderedWaves(token, batch, readable);
    }
    List<PublishOutcome> outcomes = List.of();
    if (!messages.isEmpty()) {
      try {
        outcomes = publish(messages);
      } catch (InterruptedException e) {
        release(token, batch);
        throw e;
      }
    }
    List<PublishOutcome> published = outcomes;
    String claimToken = token;
    List<Claimed> claimedRows = batch;
    // This batch's mark is queued before the previous one's outcome is looked at: a failed previous mark must not
    // leave a published batch unmarked (its rows would go out again after the lease).
    java.util.concurrent.Future<Void> previousMark = pendingMark;
    pendingMark = ahead.submit(() -> {
      mark(claimToken, claimedRows, readable, published);
      return null;
    });
    if (previousMark != null) {
      await(previousMark);
    }
    if (nextClaim == null) {
      awaitPendingMark(); // no backlog: the batch is marked before the relay sleeps or claims again
    }
    return batch.size();
  }

  private void awaitPendingMark() throws SQLException, InterruptedException {
    if (pendingMark != null) {
      java.util.concurrent.Future<Void> mark = pendingMark;
      pendingMark = null;
      await(mark);
    }
  }

  /** The publisher's outcomes, one per message: a failure of the publisher itself is every message's RETRY. */
  private List<PublishOutcome> publish(List<OutboxMessage> messages) throws InterruptedException {
    try {
      List<PublishOutcome> outcomes = publisher.publish(List.copyOf(messages));
      if (outcomes == null || outcomes.size() != messages.size()) {
        return allRetry(messages.size(), "the publisher returned " + (outcomes == null ? "null" : outcomes.size()
            + " outcomes") + " for " + messages.size() + " messages");
      }
      return outcomes;
    } catch (RuntimeException e) {
      return allRetry(messages.size(), "the publisher threw " + e);
    }
  }

  /**
   * Ordered mode: the batch goes out in waves, each holding at most one row per key (the earliest not yet
   * published), so that a row is handed to the broker only once every earlier row of its key was confirmed (or
   * parked). A key whose row ends in RETRY stops there: its later rows are given back unpublished, and the claim's
   * NOT EXISTS keeps them back until the retried row is sent.
   */
  private int orderedWaves(String token, List<Claimed> batch, List<Claimed> readable) throws SQLException,
      InterruptedException {
    java.util.Map<String, java.util.ArrayDeque<Claimed>> byKey = new java.util.LinkedHashMap<>();
    for (Claimed row : readable) {
      String key = row.message.partitionKey() == null ? "\u0000" + row.id : row.message.partitionKey();
      byKey.computeIfAbsent(key, k -> new java.util.ArrayDeque<>()).add(row);
    }
    List<Claimed> published = new ArrayList<>();
    List<PublishOutcome> outcomes = new ArrayList<>();
    List<Claimed> heldBack = new ArrayList<>();
    while (!byKey.isEmpty()) {
      // A slow round may outlive a partition's lease: its rows go back rather than out.
      byKey.values().removeIf(rows -> {
        if (partitions.held(rows.peekFirst().partition)) {
          return false;
        }
        heldBack.addAll(rows);
        return true;
      });
      if (byKey.isEmpty()) {
        break;
      }
      List<Claimed> wave = new ArrayList<>();
      List<OutboxMessage> messages = new ArrayList<>();
      for (java.util.ArrayDeque<Claimed> rows : byKey.values()) {
        wave.add(rows.peekFirst());
        messages.add(rows.peekFirst().message);
      }
      List<PublishOutcome> waveOutcomes;
      try {
        waveOutcomes = publish(messages);
      } catch (InterruptedException e) {
        mark(token, published, published, outcomes);
        List<Claimed> rest = new ArrayList<>(batch);
        rest.removeAll(published);
        release(token, rest);
        throw e;
      }
      java.util.Iterator<java.util.Map.Entry<String, java.util.ArrayDeque<Claimed>>> keys = byKey.entrySet().iterator();
      for (int i = 0; keys.hasNext(); i++) {
        java.util.ArrayDeque<Claimed> rows = keys.next().getValue();
        PublishOutcome outcome = waveOutcomes.get(i);
        published.add(rows.pollFirst());
        outcomes.add(outcome);
        if (outcome == null || outcome.status() == PublishOutcome.Status.RETRY) {
          heldBack.addAll(rows);
          rows.clear();
        }
        if (rows.isEmpty()) {
          keys.remove();
        }
      }
    }
    mark(token, batch, published, outcomes);
    if (!heldBack.isEmpty()) {
      release(token, heldBack);
    }
    return batch.size();
  }

  private static List<PublishOutcome> allRetry(int size, String reason) {
    List<PublishOutcome> outcomes = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      outcomes.add(PublishOutcome.retry(reason));
    }
    return outcomes;
  }

  private List<Claimed> claim(String token) throws SQLException {
    try (Connection connection = dataSource.getConnection()) {
      boolean autoCommit = connection.getAutoCommit();
      int isolation = connection.getTransactionIsolation();
      connection.setAutoCommit(false);
      // No gap locks (MariaDB's REPEATABLE READ takes them): a claim locks exactly the rows it returns. Set only when
      // it differs: PostgreSQL's driver sends a statement for every call, twice per claim with the restore.
      if (isolation != Connection.TRANSACTION_READ_COMMITTED) {
        connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
      }
      try {
        List<Claimed> batch = new ArrayList<>();
        List<Integer> owned = partitions == null ? List.of() : partitions.owned();
        try (PreparedStatement select = connection.prepareStatement(partitions == null
            ? dialect.outboxClaimSelectSql() : dialect.outboxOrderedClaimSelectSql(owned.size()))) {
          if (partitions == null) {
            select.setInt(1, options.batchSize());
          } else {
            int i = 1;
            select.setInt(i++, partitions.count());
            select.setInt(i++, partitions.count());
            for (Integer partition : owned) {
              select.setInt(i++, partition);
            }
            select.setInt(i, options.batchSize());
          }
          try (ResultSet rs = select.executeQuery()) {
            while (rs.next()) {
              batch.add(read(rs));
            }
          }
        }
        // One statement per chunk rather than one per row: the rows are locked by the read above.
        for (List<Claimed> chunk : chunks(batch)) {
          try (PreparedStatement update = connection.prepareStatement(dialect.outboxClaimBatchSql(chunk.size()))) {
            int i = 1;
            update.setString(i++, token);
            update.setLong(i++, options.claimLease().toMillis());
            i = bindWrittenBetween(update, i, chunk);
            for (Claimed row : chunk) {
              update.setString(i++, row.id);
            }
            update.executeUpdate();
          }
        }
        connection.commit();
        return batch;
      } catch (SQLException | RuntimeException e) {
        Quietly.rollback(connection);
        throw e;
      } finally {
        try {
          if (isolation != Connection.TRANSACTION_READ_COMMITTED) {
            connection.setTransactionIsolation(isolation);
          }
          connection.setAutoCommit(autoCommit);
        } catch (SQLException e) {
          LOG.log(Level.DEBUG, "Cannot restore the relay connection's settings", e);
        }
      }
    }
  }

  private Claimed read(ResultSet rs) throws SQLException {
    String id = rs.getString(1);
    String destination = rs.getString(2);
    String partitionKey = rs.getString(3);
    String eventType = rs.getString(4);
    String headersJson = rs.getString(5);
    String payload = rs.getString(6);
    long createdAt = rs.getLong(7);
    int attempts = rs.getInt(8);
    long now = rs.getLong(9);
    int partition = partitions == null ? -1 : rs.getInt(10);
    try {
      Map<String, String> headers = headersJson == null ? Map.of() : mapper.readValue(headersJson, HEADERS);
      if (payload == null) {
        throw new IllegalArgumentException("the payload is NULL");
      }
      mapper.readTree(payload); // a row written by hand must be JSON too
      OutboxMessage message = new OutboxMessage(id, destination, partitionKey, eventType, headers, payload,
          Instant.ofEpochMilli(createdAt));
      return new Claimed(message, id, destination, createdAt, now - createdAt, attempts, null, partition);
    } catch (Exception e) { // Jackson's, a null header, a missing column value: the row cannot be published
      return new Claimed(null, id, destination, createdAt, now - createdAt, attempts, "unreadable row: " + e.getMessage(),
          partition);
    }
  }

  /**
   * Marks the batch in one transaction. The SENT rows (nearly all of a batch) are marked by one fenced statement per
   * {@link #MARK_CHUNK} rows; when its update count says a claim was lost on some of them, that transaction is rolled
   * back and the batch is marked again row by row, which tells exactly which rows are no longer this relay's.
   */
  private void mark(String token, List<Claimed> batch, List<Claimed> readable, List<PublishOutcome> outcomes)
      throws SQLException {
    // The batch went out already: a mark given up on leaves it claimed until the lease ends, and then it goes out
    // again. So a deadlock or lock timeout (each attempt is one transaction, rolled back whole) is tried again, as
    // idem retries a command's transaction; four relays and four writers on MariaDB met one about once in ten runs.
    for (int attempt = 1; ; attempt++) {
      try {
        if (!markOnce(token, batch, readable, outcomes, true)) {
          markOnce(token, batch, readable, outcomes, false);
        }
        return;
      } catch (SQLException e) {
        if (attempt >= Retries.MAX_ATTEMPTS || !(dialect.isTransient(e) || dialect.isLockNotAvailable(e))) {
          throw e;
        }
        Retries.pauseBeforeRetry(attempt);
      }
    }
  }

  /** False (rolled back) when marking the SENT rows together found fewer rows still claimed than it sent. */
  private boolean markOnce(String token, List<Claimed> batch, List<Claimed> readable, List<PublishOutcome> outcomes,
                           boolean sentTogether) throws SQLException {
    int lost = 0;
    List<Runnable> events = new ArrayList<>();
    try (Connection connection = dataSource.getConnection()) {
      boolean autoCommit = connection.getAutoCommit();
      connection.setAutoCommit(false);
      try (PreparedStatement sent = connection.prepareStatement(dialect.outboxMarkSentSql());
          PreparedStatement retry = connection.prepareStatement(dialect.outboxRetrySql());
          PreparedStatement park = connection.prepareStatement(dialect.outboxParkSql())) {
        java.util.Set<Integer> fenced = new java.util.HashSet<>();
        if (partitions != null) {
          // The epoch fence: each partition's row locked, still this relay's at the epoch it was taken with.
          for (Integer partition : new java.util.TreeSet<>(batch.stream().map(Claimed::partition).toList())) {
            if (!partitions.markable(connection, partition)) {
              fenced.add(partition);
            }
          }
        }
        for (Claimed row : batch) {
          if (fenced.contains(row.partition)) {
            lost += row.unreadable != null ? 1 : 0; // the readable ones are counted below
            continue;
          }
          if (row.unreadable != null) {
            lost += parkRow(park, row, row.unreadable, token, events);
          }
        }
        List<Claimed> sentRows = new ArrayList<>();
        for (int i = 0; i < readable.size(); i++) {
          Claimed row = readable.get(i);
          PublishOutcome outcome = outcomes.get(i);
          if (fenced.contains(row.partition)) {
            lost++;
            continue;
          }
          switch (outcome == null ? PublishOutcome.Status.RETRY : outcome.status()) {
            case SENT -> {
              if (sentTogether) {
                sentRows.add(row);
                continue;
              }
              sent.setLong(1, options.keepSentFor().toMillis());
              sent.setString(2, row.id);
              sent.setString(3, token);
              if (sent.executeUpdate() == 1) {
                events.add(() -> listener.outboxSent(row.destination, row.lagMillis));
              } else {
                lost++;
              }
            }
            case RETRY -> {
              String reason = outcome == null ? "the publisher returned a null outcome" : outcome.reason();
              retry.setLong(1, options.backoffAfter(row.attempts + 1).toMillis());
              retry.setString(2, truncate(reason));
              retry.setString(3, row.id);
              retry.setString(4, token);
              if (retry.executeUpdate() == 1) {
                events.add(() -> listener.outboxRetried(row.destination, reason));
              } else {
                lost++;
              }
            }
            case PARK -> lost += parkRow(park, row, outcome.reason(), token, events);
            default -> throw new AssertionError(outcome);
          }
        }
        for (List<Claimed> chunk : chunks(sentRows)) {
          try (PreparedStatement sentChunk = connection.prepareStatement(dialect.outboxMarkSentBatchSql(chunk.size()))) {
            int p = 1;
            sentChunk.setLong(p++, options.keepSentFor().toMillis());
            sentChunk.setString(p++, token);
            p = bindWrittenBetween(sentChunk, p, chunk);
            for (Claimed row : chunk) {
              sentChunk.setString(p++, row.id);
            }
            if (sentChunk.executeUpdate() != chunk.size()) {
              Quietly.rollback(connection);
              return false;
            }
          }
          for (Claimed row : chunk) {
            events.add(() -> listener.outboxSent(row.destination, row.lagMillis));
          }
        }
        connection.commit();
      } catch (SQLException | RuntimeException e) {
        Quietly.rollback(connection);
        throw e;
      } finally {
        try {
          connection.setAutoCommit(autoCommit);
        } catch (SQLException e) {
          LOG.log(Level.DEBUG, "Cannot restore the relay connection's auto-commit", e);
        }
      }
    }
    events.forEach(Runnable::run);
    if (lost > 0) {
      listener.outboxClaimLost(lost);
    }
    return true;
  }

  /**
   * Binds the earliest and latest {@code created_at} of the rows: on a day-partitioned outbox the statement then
   * reads only the days they were written on, instead of probing every day's index for each id. The next parameter.
   */
  private static int bindWrittenBetween(PreparedStatement statement, int parameter, List<Claimed> rows)
      throws SQLException {
    long earliest = Long.MAX_VALUE;
    long latest = Long.MIN_VALUE;
    for (Claimed row : rows) {
      earliest = Math.min(earliest, row.createdAt);
      latest = Math.max(latest, row.createdAt);
    }
    statement.setLong(parameter, earliest);
    statement.setLong(parameter + 1, latest);
    return parameter + 2;
  }

  /** The rows in chunks of at most {@link #MARK_CHUNK}, each bound to one statement. */
  private static List<List<Claimed>> chunks(List<Claimed> rows) {
    List<List<Claimed>> chunks = new ArrayList<>();
    for (int from = 0; from < rows.size(); from += MARK_CHUNK) {
      chunks.add(rows.subList(from, Math.min(rows.size(), from + MARK_CHUNK)));
    }
    return chunks;
  }

  /** 0 when parked, 1 when the claim was gone. */
  private int parkRow(PreparedStatement park, Claimed row, String reason, String token, List<Runnable> events)
      throws SQLException {
    park.setString(1, truncate(reason));
    park.setString(2, row.id);
    park.setString(3, token);
    if (park.executeUpdate() == 1) {
      events.add(() -> listener.outboxParked(row.destination, reason));
      return 0;
    }
    return 1;
  }

  /** Gives a batch that was not published back: due at once for any relay. */
  private void release(String token, List<Claimed> batch) {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement release = connection.prepareStatement(dialect.outboxReleaseSql())) {
      for (Claimed row : batch) {
        release.setString(1, row.id);
        release.setString(2, token);
        release.executeUpdate();
      }
      if (!connection.getAutoCommit()) {
        connection.commit();
      }
    } catch (SQLException | RuntimeException e) {
      LOG.log(Level.DEBUG, "Giving the outbox claim back failed; it ends with its lease", e);
    }
  }

  private static String truncate(String reason) {
    return reason == null || reason.length() <= MAX_REASON ? reason : reason.substring(0, MAX_REASON - 1) + "…";
  }
}
