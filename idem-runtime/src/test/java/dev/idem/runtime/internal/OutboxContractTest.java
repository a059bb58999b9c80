package dev.idem.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.runtime.IdemAdmin;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyListener;
import dev.idem.runtime.OutboxMessage;
import dev.idem.runtime.OutboxPublisher;
import dev.idem.runtime.OutboxRelay;
import dev.idem.runtime.OutboxRelayOptions;
import dev.idem.runtime.OutboxTransactionRequiredException;
import dev.idem.runtime.ParkedOutboxEvent;
import dev.idem.runtime.PublishOutcome;
import dev.idem.runtime.TransactionBinding;
import dev.idem.testing.DatabaseContract;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The transactional outbox on every database: an event is written in the caller's transaction (idem's own, the
 * application's joined one) or refused outside one; relays claim with SKIP LOCKED, publish through a publisher of
 * the test's own that records every call, and mark fenced by their claim; a stalled relay's claim ends with its
 * lease and another relay publishes the rows again with the same ids; RETRY backs off; PARK (and an unreadable row)
 * never blocks the others and an operator requeues; the purge deletes sent rows only.
 */
@Timeout(120)
abstract class OutboxContractTest extends DatabaseContract {

  private static final OutboxEventSpec ORDER_CREATED = OutboxEventSpec.of("orders", "OrderCreated", "Orders.created");

  /** The payload of the test's events. */
  public record OrderCreated(String orderId, long amount) {}

  private IdemRuntime runtime;
  private IdemEngine engine;
  private final ThreadLocal<Connection> applicationTransaction = new ThreadLocal<>();
  private final List<OutboxRelay> relays = new CopyOnWriteArrayList<>();
  private final AtomicInteger claimLost = new AtomicInteger();
  private final AtomicInteger sentEvents = new AtomicInteger();
  private final AtomicInteger parkedEvents = new AtomicInteger();
  private final AtomicInteger retriedEvents = new AtomicInteger();

  @Override
  protected void prepare() {
    runtime = IdemRuntime.builder().dataSource(database.dataSource())
        .joinTransactions(new TransactionBinding() {
          @Override
          public Connection currentConnection() {
            return applicationTransaction.get();
          }
        })
        .listener(new IdempotencyListener() {
          @Override
          public void outboxSent(String destination, long lagMillis) {
            assertTrue(lagMillis >= 0 || lagMillis > -1000, "lag " + lagMillis);
            sentEvents.incrementAndGet();
          }

          @Override
          public void outboxRetried(String destination, String reason) {
            retriedEvents.incrementAndGet();
          }

          @Override
          public void outboxParked(String destination, String reason) {
            parkedEvents.incrementAndGet();
          }

          @Override
          public void outboxClaimLost(int events) {
            claimLost.addAndGet(events);
          }
        }).build();
    runtime.createSchema();
    runtime.createSchema(); // twice: IF NOT EXISTS
    engine = IdemEngine.of(runtime);
  }

  @BeforeEach
  void clear() {
    database.execute("DELETE FROM idem_outbox", "DELETE FROM idem_outbox_partition", "DELETE FROM idem_outbox_relay");
    claimLost.set(0);
    sentEvents.set(0);
    parkedEvents.set(0);
    retriedEvents.set(0);
  }

  @AfterEach
  void stopRelays() {
    relays.forEach(OutboxRelay::close);
    relays.clear();
  }

  private String write(String orderId) {
    return engine.writeOutboxEvent(ORDER_CREATED, orderId, Map.of("tenant", "t1"), new OrderCreated(orderId, 42));
  }

  private OutboxRelay relay(OutboxPublisher publisher, OutboxRelayOptions options) {
    OutboxRelay relay = runtime.startOutboxRelay(publisher, options);
    relays.add(relay);
    return relay;
  }

  private static OutboxRelayOptions fast() {
    return OutboxRelayOptions.defaults().withPollInterval(Duration.ofMillis(20)).withBatchSize(25);
  }

  // ---------------------------------------------------------------------------------------------
  // Writing

  @Test
  void anEventCommitsWithIdemsTransactionAndARollbackLeavesNoRow() {
    String id = runtime.inTransaction(connection -> write("o-1"));
    assertThrows(IllegalStateException.class, () -> runtime.inTransaction(connection -> {
      write("o-2");
      throw new IllegalStateException("business failure after the event was written");
    }));
    assertEquals(List.of(id), ids("SELECT id FROM idem_outbox"));
    Map<String, Object> row = row(id);
    assertEquals("orders", row.get("destination"));
    assertEquals("o-1", row.get("partition_key"));
    assertEquals("OrderCreated", row.get("event_type"));
    assertEquals("{\"tenant\":\"t1\"}", row.get("headers"));
    assertEquals("{\"orderId\":\"o-1\",\"amount\":42}", row.get("payload"));
    assertEquals("PENDING", row.get("state"));
    assertEquals(7, Character.getNumericValue(id.charAt(14)), "a UUID version 7: " + id);
  }

  @Test
  void anEventJoinsTheApplicationsJdbcTransactionThroughTheBindingAndWithConnection() throws SQLException {
    try (Connection connection = database.dataSource().getConnection()) {
      connection.setAutoCommit(false);
      applicationTransaction.set(connection);
      try {
        write("rolled-back");
        connection.rollback();
        String committed = write("committed");
        connection.commit();
        runtime.withConnection(connection, c -> write("with-connection-rolled-back"));
        connection.rollback();
        String second = runtime.withConnection(connection, c -> write("with-connection"));
        connection.commit();
        assertEquals(Set.of(committed, second), Set.copyOf(ids("SELECT id FROM idem_outbox")));
      } finally {
        applicationTransaction.remove();
        connection.setAutoCommit(true);
      }
    }
  }

  @Test
  void outsideAnyTransactionTheWriteIsRefusedNamingTheRuleAndNothingIsWritten() {
    OutboxTransactionRequiredException refused =
        assertThrows(OutboxTransactionRequiredException.class, () -> write("o-1"));
    assertTrue(refused.getMessage().contains("no outbox event outside a transaction"), refused.getMessage());
    assertTrue(refused.getMessage().contains("Orders.created"), refused.getMessage());
    assertEquals(List.of(), ids("SELECT id FROM idem_outbox"));
  }

  // ---------------------------------------------------------------------------------------------
  // Relaying

  @Test
  void aMarkThatDeadlocksIsTriedAgainSoNoEventGoesOutTwice() throws Exception {
    AtomicInteger deadlocks = new AtomicInteger();
    DataSource deadlockingOnce = markDeadlocksOnce(database.dataSource(), deadlocks);
    try (IdemRuntime relaying = IdemRuntime.builder().dataSource(deadlockingOnce).build()) {
      for (int i = 0; i < 10; i++) {
        String orderId = "m" + i;
        runtime.inTransaction(connection -> write(orderId));
      }
      Recording publisher = new Recording(message -> PublishOutcome.sent());
      // A lease this short brings an unmarked batch back within the test: without the retry it goes out twice.
      try (OutboxRelay relay = relaying.startOutboxRelay(publisher, fast().withClaimLease(Duration.ofSeconds(1)))) {
        awaitTrue(() -> count("SELECT COUNT(*) FROM idem_outbox WHERE state = 'SENT'") == 10, "every event sent");
        Thread.sleep(1_500); // past the lease: a batch left claimed would be claimed and published again by now
      }
      assertEquals(1, deadlocks.get(), "the first mark deadlocked");
      assertEquals(Map.of(), onlyDuplicates(publisher.publicationsPerId()), "no event was published twice");
      assertEquals(10, publisher.publicationsPerId().size());
    }
  }

  /** The first statement that marks rows SENT fails as a deadlock (SQLState 40001), after the batch went out. */
  private static DataSource markDeadlocksOnce(DataSource dataSource, AtomicInteger deadlocks) {
    return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class},
        (proxy, method, args) -> {
          Object result = invoke(dataSource, method, args);
          if (!method.getName().equals("getConnection")) {
            return result;
          }
          Connection connection = (Connection) result;
          return Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
              (c, m, a) -> {
                Object statement = invoke(connection, m, a);
                if (!m.getName().equals("prepareStatement") || !((String) a[0]).contains("'SENT'")) {
                  return statement;
                }
                PreparedStatement prepared = (PreparedStatement) statement;
                return Proxy.newProxyInstance(PreparedStatement.class.getClassLoader(),
                    new Class<?>[] {PreparedStatement.class}, (s, sm, sa) -> {
                      if (sm.getName().equals("executeUpdate") && deadlocks.compareAndSet(0, 1)) {
                        throw new SQLException("Deadlock found when trying to get lock", "40001");
                      }
                      return invoke(prepared, sm, sa);
                    });
              });
        });
  }

  private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (java.lang.reflect.InvocationTargetException e) {
      throw e.getCause();
    }
  }

  @Test
  void fourRelaysPublishEveryEventExactlyOnceWhileWritersWrite() throws Exception {
    int writers = 4;
    int perWriter = 150;
    Recording publisher = new Recording(message -> PublishOutcome.sent());
    for (int i = 0; i < 4; i++) {
      relay(publisher, fast().withName("relay-" + i));
    }
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    Set<String> written = ConcurrentHashMap.newKeySet();
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        int writer = w;
        done.add(pool.submit(() -> {
          for (int i = 0; i < perWriter; i++) {
            String orderId = "w" + writer + "-" + i;
            written.add(runtime.inTransaction(connection -> write(orderId)));
          }
          return null;
        }));
      }
      for (Future<?> future : done) {
        future.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdown();
    }
    awaitTrue(() -> count("SELECT COUNT(*) FROM idem_outbox WHERE state = 'SENT'") == writers * perWriter,
        "every event sent");
    assertEquals(writers * perWriter, written.size());
    Map<String, Integer> perId = publisher.publicationsPerId();
    assertEquals(written, perId.keySet(), "every written event was published, nothing else");
    assertEquals(Map.of(), onlyDuplicates(perId), "no event was published twice");
    assertTrue(publisher.batchesBy().size() >= 2, "several relays took part: " + publisher.batchesBy());
    awaitTrue(() -> sentEvents.get() == writers * perWriter, "one outboxSent per event (after each commit)");
    assertEquals(0, claimLost.get());
  }

  @Test
  void aStalledRelaysClaimEndsWithItsLeaseAndAnotherPublishesTheSameIdsAgainWhileTheStalledMarkIsFenced()
      throws Exception {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      String orderId = "o-" + i;
      ids.add(runtime.inTransaction(connection -> write(orderId)));
    }
    CountDownLatch unblock = new CountDownLatch(1);
    Recording stalled = new Recording(message -> PublishOutcome.sent()).blockingOn(unblock);
    OutboxRelayOptions leased = fast().withClaimLease(Duration.ofSeconds(1));
    relay(stalled, leased.withName("stalled"));
    awaitTrue(() -> stalled.published.size() == 5, "the first relay published and stalls before marking");
    Recording second = new Recording(message -> PublishOutcome.sent());
    relay(second, leased.withName("second"));
    awaitTrue(() -> second.published.size() == 5, "the second relay takes the rows once the lease ended");
    awaitTrue(() -> count("SELECT COUNT(*) FROM idem_outbox WHERE state = 'SENT'") == 5, "marked by the second");
    unblock.countDown();
    awaitTrue(() -> claimLost.get() == 5, "the stalled relay's marks find their claim gone");
    assertEquals(Set.copyOf(ids), stalled.publicationsPerId().keySet());
    assertEquals(Set.copyOf(ids), second.publicationsPerId().keySet(), "at least once, with the same message ids");
    // The listener hears of a mark after its commit, on the relay's thread: wait for it, then see no more come.
    awaitTrue(() -> sentEvents.get() == 5, "the second relay's marks reported");
    assertEquals(5, sentEvents.get(), "only the second relay's marks count");
  }

  @Test
  void aBatchWhoseClaimWasTakenOverOnSomeRowsMarksExactlyTheRowsStillItsOwn() throws Exception {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      String orderId = "o-" + i;
      ids.add(runtime.inTransaction(connection -> write(orderId)));
    }
    CountDownLatch unblock = new CountDownLatch(1);
    Recording stalled = new Recording(message -> PublishOutcome.sent()).blockingOn(unblock);
    relay(stalled, fast().withName("stalled"));
    awaitTrue(() -> stalled.published.size() == 6, "the relay published the batch and stalls before marking");
    // Another relay's claim on two of the six rows (what a takeover after the lease writes): the batch's SENT
    // statement finds four rows, so the relay learns row by row which two are no longer its own.
    List<String> taken = List.of(ids.get(1), ids.get(4));
    try (Connection connection = database.dataSource().getConnection();
        PreparedStatement takeOver = connection.prepareStatement(
            "UPDATE idem_outbox SET claim_token = 'other-relay' WHERE id = ?")) {
      for (String id : taken) {
        takeOver.setString(1, id);
        assertEquals(1, takeOver.executeUpdate());
      }
    }
    unblock.countDown();
    awaitTrue(() -> claimLost.get() == 2, "the two taken rows reported lost");
    awaitTrue(() -> sentEvents.get() == 4, "the four rows still claimed reported sent");
    for (String id : ids) {
      Map<String, Object> row = row(id);
      if (taken.contains(id)) {
        assertEquals("PENDING", row.get("state"), "left to the relay that claimed it: " + id);
        assertEquals("other-relay", row.get("claim_token"));
      } else {
        assertEquals("SENT", row.get("state"), id);
        assertNull(row.get("claim_token"));
      }
    }
  }

  @Test
  void aRelayClosedMidBatchGivesItsClaimBackAndAnotherPublishesAtOnce() throws Exception {
    String id = runtime.inTransaction(connection -> write("o-1"));
    CountDownLatch never = new CountDownLatch(1);
    Recording interrupted = new Recording(message -> PublishOutcome.sent()).interruptiblyBlockingOn(never);
    OutboxRelay first = relay(interrupted, fast().withName("closed"));
    awaitTrue(() -> interrupted.published.size() == 1, "the first relay is publishing");
    first.close();
    assertFalse(first.isRunning());
    assertEquals("PENDING", row(id).get("state"));
    assertNull(row(id).get("claim_token"), "the claim was given back");
    Recording second = new Recording(message -> PublishOutcome.sent());
    relay(second, fast().withName("second")); // the default 30 s lease: only the release makes it due now
    awaitTrue(() -> "SENT".equals(row(id).get("state")), "published by the second relay");
    assertEquals(Map.of(id, 1), second.publicationsPerId());
  }

  @Test
  void closingTheRuntimeStopsTheRelaysItStarted() throws Exception {
    OutboxRelay relay = relay(new Recording(message -> PublishOutcome.sent()), fast());
    assertTrue(relay.isRunning());
    runtime.close();
    assertFalse(relay.isRunning());
    String id = runtime.inTransaction(connection -> write("after-close"));
    assertEquals("PENDING", row(id).get("state"), "commands and writes keep working; no relay publishes");
  }

  @Test
  void retryBacksOffPerRowDoublingUpToTheCapAndThenSends() throws Exception {
    String id = runtime.inTransaction(connection -> write("o-1"));
    AtomicInteger calls = new AtomicInteger();
    Recording publisher = new Recording(message -> calls.incrementAndGet() <= 3
        ? PublishOutcome.retry("broker down " + calls.get()) : PublishOutcome.sent());
    OutboxRelayOptions options = fast().withBackoff(Duration.ofMillis(300), Duration.ofMillis(600));
    assertEquals(Duration.ofMillis(300), options.backoffAfter(1));
    assertEquals(Duration.ofMillis(600), options.backoffAfter(2));
    assertEquals(Duration.ofMillis(600), options.backoffAfter(30), "capped");
    relay(publisher, options);
    awaitTrue(() -> "SENT".equals(row(id).get("state")), "sent after three retries");
    List<Long> times = publisher.publishedAtNanos.get(id);
    assertEquals(4, times.size(), "published four times: " + times);
    long slack = TimeUnit.MILLISECONDS.toNanos(30); // the database clock's and System.nanoTime's granularities
    assertTrue(times.get(1) - times.get(0) >= TimeUnit.MILLISECONDS.toNanos(300) - slack, "first backoff");
    assertTrue(times.get(2) - times.get(1) >= TimeUnit.MILLISECONDS.toNanos(600) - slack, "doubled");
    assertTrue(times.get(3) - times.get(2) >= TimeUnit.MILLISECONDS.toNanos(600) - slack, "capped");
    assertEquals(3, retriedEvents.get());
    assertEquals(3, ((Number) row(id).get("attempts")).intValue());
  }

  @Test
  void parkedAndUnreadableRowsNeverBlockTheOthersAndAnOperatorRequeuesOne() throws Exception {
    Set<String> rejected = ConcurrentHashMap.newKeySet();
    Recording publisher = new Recording(message -> rejected.contains(message.partitionKey())
        ? PublishOutcome.park("rejected by the broker: too large") : PublishOutcome.sent());
    rejected.add("poison");
    String poison = runtime.inTransaction(connection -> write("poison"));
    database.execute("INSERT INTO idem_outbox (id, destination, partition_key, key_hash, event_type, headers, payload,"
        + " created_at, state, attempts, next_attempt_at) VALUES ('00000000-0000-7000-8000-000000000001', 'orders',"
        + " 'hand', 7, 'OrderCreated', 'not a json object', '{}', 0, 'PENDING', 0, 0)");
    List<String> good = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      String orderId = "good-" + i;
      good.add(runtime.inTransaction(connection -> write(orderId)));
    }
    relay(publisher, fast().withBatchSize(7));
    awaitTrue(() -> count("SELECT COUNT(*) FROM idem_outbox WHERE state = 'SENT'") == 30, "the others all sent");
    awaitTrue(() -> parkedEvents.get() == 2, "both parked");
    IdemAdmin admin = IdemAdmin.of(runtime);
    List<ParkedOutboxEvent> parked = admin.parkedOutboxEvents(10);
    assertEquals(2, parked.size(), parked.toString());
    ParkedOutboxEvent unreadable = parked.get(0);
    assertEquals("00000000-0000-7000-8000-000000000001", unreadable.messageId());
    assertTrue(unreadable.reason().startsWith("unreadable row"), unreadable.reason());
    ParkedOutboxEvent rejectedEvent = parked.get(1);
    assertEquals(poison, rejectedEvent.messageId());
    assertEquals("rejected by the broker: too large", rejectedEvent.reason());
    assertEquals(1, rejectedEvent.attempts());
    assertFalse(publisher.publicationsPerId().containsKey(unreadable.messageId()), "never handed to the broker");

    rejected.clear();
    assertTrue(admin.requeueOutboxEvent(poison));
    assertFalse(admin.requeueOutboxEvent(poison), "no longer parked");
    awaitTrue(() -> "SENT".equals(row(poison).get("state")), "the requeued event is sent");
    assertEquals(2, publisher.publicationsPerId().get(poison), "once parked, once sent, same id");
    assertEquals(List.of(unreadable.messageId()), admin.parkedOutboxEvents(10).stream()
        .map(ParkedOutboxEvent::messageId).toList());
    assertThrows(IllegalStateException.class, () -> runtime.inTransaction(c -> admin.parkedOutboxEvents(1)));
  }

  @Test
  void thePurgeDeletesSentRowsPastTheirRetentionOnly() throws Exception {
    Recording publisher = new Recording(message -> message.partitionKey().startsWith("park")
        ? PublishOutcome.park("no") : PublishOutcome.sent());
    for (int i = 0; i < 12; i++) {
      String orderId = (i % 4 == 0 ? "park-" : "send-") + i;
      runtime.inTransaction(connection -> write(orderId));
    }
    OutboxRelay relay = relay(publisher, fast().withKeepSentFor(Duration.ZERO).withPurgeEvery(null));
    awaitTrue(() -> count("SELECT COUNT(*) FROM idem_outbox WHERE state <> 'PENDING'") == 12, "all handled");
    relay.close();
    database.execute("UPDATE idem_outbox SET state = 'PENDING', next_attempt_at = 9000000000000 WHERE"
        + " partition_key = 'send-1'"); // a pending row (as a requeue leaves it) keeps no expiry from before
    database.execute("UPDATE idem_outbox SET expires_at = NULL WHERE partition_key = 'send-1'");
    IdemAdmin admin = IdemAdmin.of(runtime);
    Thread.sleep(5); // the database clock passes the sent rows' expiry (keepSentFor zero)
    assertEquals(8, admin.purgeSentOutboxEvents(3));
    assertEquals(0, admin.purgeSentOutboxEvents(3));
    assertEquals(Map.of("PARKED", 3L, "PENDING", 1L), countsByState());

    // Kept for a day: the purge leaves them.
    relay(new Recording(message -> PublishOutcome.sent()), fast().withKeepSentFor(Duration.ofDays(1)));
    database.execute("UPDATE idem_outbox SET next_attempt_at = 0 WHERE partition_key = 'send-1'");
    awaitTrue(() -> countsByState().getOrDefault("SENT", 0L) == 1L, "sent");
    assertEquals(0, admin.purgeSentOutboxEvents(10));
  }

  @Test
  void orderedRelaysKeepEachKeysOrderWhilePartitionsMoveBetweenThemAndRetriesHoldOnlyTheirKey() throws Exception {
    int keys = 32;
    int perKey = 10;
    // Every fifth event of a key fails its first attempt: it backs off, and the later events of its key wait for it.
    Set<String> failedOnce = ConcurrentHashMap.newKeySet();
    Map<String, Integer> sequence = new ConcurrentHashMap<>();
    Recording publisher = new Recording(message -> {
      int n = Integer.parseInt(message.payload().replaceAll(".*\"amount\":(\\d+).*", "$1"));
      if (n % 5 == 0 && failedOnce.add(message.messageId())) {
        return PublishOutcome.retry("the broker refused it once");
      }
      return PublishOutcome.sent();
    });
    OutboxRelayOptions ordered = fast().withOrderedPartitions(8).withClaimLease(Duration.ofSeconds(2))
        .withBackoff(Duration.ofMillis(50), Duration.ofMillis(100)).withBatchSize(10);
    OutboxRelay first = relay(publisher, ordered.withName("ordered-1"));
    relay(publisher, ordered.withName("ordered-2"));
    ExecutorService pool = Executors.newFixedThreadPool(4);
    Map<String, List<String>> writtenPerKey = new ConcurrentHashMap<>();
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int w = 0; w < 4; w++) {
        int writer = w;
        done.add(pool.submit(() -> {
          for (int i = 0; i < perKey; i++) {
            for (int k = writer; k < keys; k += 4) {
              String key = "key-" + k;
              int n = i;
              String id = runtime.inTransaction(connection -> engine.writeOutboxEvent(ORDER_CREATED, key, null,
                  new OrderCreated(key, n)));
              writtenPerKey.computeIfAbsent(key, x -> new CopyOnWriteArrayList<>()).add(id);
            }
            if (writer == 0 && i == perKey / 3) {
              relay(publisher, ordered.withName("ordered-3")); // joins: partitions move to it
            }
            if (writer == 0 && i == 2 * perKey / 3) {
              first.close(); // leaves: its partitions move to the others
            }
            Thread.sleep(2);
          }
          return null;
        }));
      }
      for (Future<?> future : done) {
        future.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdown();
    }
    awaitTrue(() -> count("SELECT COUNT(*) FROM idem_outbox WHERE state = 'SENT'") == keys * perKey, "all sent");
    // Strict per-key order: an event is handed to the broker only once every earlier event of its key was
    // confirmed; handing over a confirmed one again (at least once) is allowed, anything after the next is not.
    Map<String, Integer> confirmed = new HashMap<>();
    List<Map.Entry<OutboxMessage, PublishOutcome.Status>> log;
    synchronized (publisher.log) {
      log = new ArrayList<>(publisher.log);
    }
    for (Map.Entry<OutboxMessage, PublishOutcome.Status> entry : log) {
      String key = entry.getKey().partitionKey();
      List<String> written = writtenPerKey.get(key);
      int position = written.indexOf(entry.getKey().messageId());
      int next = confirmed.getOrDefault(key, 0);
      assertTrue(position <= next, key + ": event " + position + " handed over before event " + next
          + " was confirmed");
      if (position == next && entry.getValue() == PublishOutcome.Status.SENT) {
        confirmed.put(key, next + 1);
      }
    }
    for (int k = 0; k < keys; k++) {
      String key = "key-" + k;
      List<String> written = writtenPerKey.get(key);
      List<String> sorted = new ArrayList<>(written);
      java.util.Collections.sort(sorted);
      assertEquals(written, sorted, "ids of one writer are time-ordered: " + key);
      assertEquals(perKey, confirmed.get(key), "every event of " + key + " confirmed in order");
    }
    assertEquals(keys * (perKey / 5), failedOnce.size(), "every fifth event of each key was retried once");
    assertTrue(publisher.batchesBy().size() >= 2, "several relays published: " + publisher.batchesBy().keySet());
    assertTrue(count("SELECT SUM(epoch) FROM idem_outbox_partition") > 8, "partitions changed owners (epochs)");
    assertEquals(0, count("SELECT COUNT(*) FROM idem_outbox_partition WHERE owner IS NOT NULL AND lease_until > 0"
        + " AND owner NOT IN (SELECT relay_id FROM idem_outbox_relay)"), "every owned partition's owner is alive");
  }

  // ---------------------------------------------------------------------------------------------
  // The test's publisher: records every message it is handed, in order, with when; answers by a function; can block.

  static final class Recording implements OutboxPublisher {
    final List<OutboxMessage> published = new CopyOnWriteArrayList<>();
    /** Every message handed over with its outcome, in the order the publisher answered them (all relays). */
    final List<Map.Entry<OutboxMessage, PublishOutcome.Status>> log = new ArrayList<>();
    final Map<String, List<Long>> publishedAtNanos = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> batchesByThread = new ConcurrentHashMap<>();
    private final Function<OutboxMessage, PublishOutcome> answer;
    private CountDownLatch blockUninterruptibly;
    private CountDownLatch blockInterruptibly;

    Recording(Function<OutboxMessage, PublishOutcome> answer) {
      this.answer = answer;
    }

    Recording blockingOn(CountDownLatch latch) {
      this.blockUninterruptibly = latch;
      return this;
    }

    Recording interruptiblyBlockingOn(CountDownLatch latch) {
      this.blockInterruptibly = latch;
      return this;
    }

    @Override
    public List<PublishOutcome> publish(List<OutboxMessage> messages) throws InterruptedException {
      batchesByThread.computeIfAbsent(Thread.currentThread().getName(), n -> new AtomicInteger()).incrementAndGet();
      List<PublishOutcome> outcomes = new ArrayList<>();
      for (OutboxMessage message : messages) {
        published.add(message);
        publishedAtNanos.computeIfAbsent(message.messageId(), id -> new CopyOnWriteArrayList<>())
            .add(System.nanoTime());
        PublishOutcome outcome = answer.apply(message);
        outcomes.add(outcome);
        synchronized (log) {
          log.add(Map.entry(message, outcome.status()));
        }
      }
      if (blockInterruptibly != null) {
        blockInterruptibly.await();
      }
      if (blockUninterruptibly != null) {
        boolean interrupted = false;
        while (true) {
          try {
            blockUninterruptibly.await();
            break;
          } catch (InterruptedException e) {
            interrupted = true;
          }
        }
        if (interrupted) {
          Thread.currentThread().interrupt();
        }
      }
      return outcomes;
    }

    Map<String, Integer> publicationsPerId() {
      Map<String, Integer> perId = new HashMap<>();
      for (OutboxMessage message : published) {
        perId.merge(message.messageId(), 1, Integer::sum);
      }
      return perId;
    }

    Map<String, AtomicInteger> batchesBy() {
      return batchesByThread;
    }
  }

  // ---------------------------------------------------------------------------------------------

  private static Map<String, Integer> onlyDuplicates(Map<String, Integer> perId) {
    Map<String, Integer> duplicates = new HashMap<>();
    perId.forEach((id, n) -> {
      if (n != 1) {
        duplicates.put(id, n);
      }
    });
    return duplicates;
  }

  private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("Not within 60 s: " + what);
      }
      Thread.sleep(10);
    }
  }

  private List<String> ids(String sql) {
    List<String> ids = new ArrayList<>();
    try (Connection connection = database.dataSource().getConnection();
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery(sql)) {
      while (rs.next()) {
        ids.add(rs.getString(1));
      }
      return ids;
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private long count(String sql) {
    try (Connection connection = database.dataSource().getConnection();
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private Map<String, Long> countsByState() {
    Map<String, Long> counts = new HashMap<>();
    try (Connection connection = database.dataSource().getConnection();
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery("SELECT state, COUNT(*) FROM idem_outbox GROUP BY state")) {
      while (rs.next()) {
        counts.put(rs.getString(1), rs.getLong(2));
      }
      return counts;
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private Map<String, Object> row(String id) {
    try (Connection connection = database.dataSource().getConnection();
        PreparedStatement select = connection.prepareStatement("SELECT * FROM idem_outbox WHERE id = ?")) {
      select.setString(1, id);
      try (ResultSet rs = select.executeQuery()) {
        assertTrue(rs.next(), "no row " + id);
        Map<String, Object> row = new HashMap<>();
        for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
          row.put(rs.getMetaData().getColumnLabel(i).toLowerCase(java.util.Locale.ROOT), rs.getObject(i));
        }
        return row;
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
