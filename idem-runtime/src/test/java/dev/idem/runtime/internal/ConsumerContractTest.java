package dev.idem.runtime.internal;

import dev.idem.runtime.Dialect;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyListener;
import dev.idem.runtime.IdempotencyKeyReusedException;
import dev.idem.runtime.InvalidIdempotencyKeyException;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.testing.DatabaseContract;
import dev.idem.testing.RecordingListener;
import dev.idem.testing.TestDatabase;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * At-least-once message consumers, called exactly as generated code calls the runtime: per-message handlers keyed
 * by message id and consumer group, and batch handlers ({@link IdemRuntime#executeBatch}). Runs against every
 * database through the concrete subclasses.
 */
abstract class ConsumerContractTest extends DatabaseContract {

  record OrderPaid(String messageId, long amountCents) {}

  // ---- specs, as the processor generates them for
  // void onOrderPaid(@IdempotencyKey("messageId") OrderPaid msg, @IdempotencyKey String consumerGroup)
  // void onBatch(@IdempotencyKey("messageId") List<OrderPaid> batch, @IdempotencyKey String group)
  private static final CommandSpec<Void> ON_ORDER_PAID =
      CommandSpec.builder("Consumers.onOrderPaid", ResultType.VOID)
          .retention(Duration.parse("P1D"))
          .keyParts("msg.messageId", "consumerGroup")
          .payload("msg")
          .build();
  private static final CommandSpec<Void> ON_BATCH =
      CommandSpec.builder("Consumers.onBatch", ResultType.VOID)
          .retention(Duration.parse("P1D"))
          .keyParts("batch.messageId", "group")
          .payload("batch")
          .build();

  private IdemRuntime runtime;


  @Override
  protected void prepare() {
    runtime = IdemRuntime.builder()
        .dataSource(counting)
        .clock(clock).databaseTime(false)
        .listener(RecordingListener.keysOnly(IdempotencyListener.class, events))
        .build();
    runtime.createSchema();
    database.execute("CREATE TABLE effects (consumer_group VARCHAR(64) NOT NULL, message_id VARCHAR(64) NOT NULL,"
        + " amount BIGINT NOT NULL)");
  }

  @BeforeEach
  void clear() {
    database.execute("DELETE FROM idem_record", "DELETE FROM effects");
    runtime.clearResultCache();
    clock.set(Instant.parse("2030-01-01T00:00:00Z"));
    counting.reset();
    events.clear();
    delegateCalls.set(0);
    delegateBatches.clear();
  }

  // ---- the "generated" methods and the business code behind them

  private final AtomicInteger delegateCalls = new AtomicInteger();
  private final List<List<String>> delegateBatches = new CopyOnWriteArrayList<>();

  private void onOrderPaid(OrderPaid msg, String consumerGroup) {
    IdemEngine.of(runtime).execute(ON_ORDER_PAID,
        new Object[] {msg == null ? null : msg.messageId(), consumerGroup},
        new Object[] {msg},
        () -> {
          delegateCalls.incrementAndGet();
          applyEffect(consumerGroup, msg);
          return null;
        });
  }

  private void onBatch(List<OrderPaid> batch, String group) {
    IdemEngine.of(runtime).executeBatch(ON_BATCH, batch,
        message -> new Object[] {message == null ? null : message.messageId(), group},
        message -> new Object[] {message},
        firstSeen -> {
          delegateCalls.incrementAndGet();
          delegateBatches.add(firstSeen.stream().map(OrderPaid::messageId).toList());
          for (OrderPaid message : firstSeen) {
            applyEffect(group, message);
          }
          return firstSeen.size();
        });
  }

  private void applyEffect(String group, OrderPaid message) throws SQLException {
    try (PreparedStatement insert = runtime.currentConnection()
        .prepareStatement("INSERT INTO effects (consumer_group, message_id, amount) VALUES (?, ?, ?)")) {
      insert.setString(1, group);
      insert.setString(2, message.messageId());
      insert.setLong(3, message.amountCents());
      insert.executeUpdate();
    }
  }

  private static List<OrderPaid> messages(String... ids) {
    List<OrderPaid> messages = new ArrayList<>();
    for (String id : ids) {
      messages.add(new OrderPaid(id, 100));
    }
    return messages;
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

  private long effects(String group) {
    return count("SELECT COUNT(*) FROM effects WHERE consumer_group = '" + group + "'");
  }

  // ---- per-message consumers

  @Test
  void aMessageIsProcessedOncePerConsumerGroupAndIndependentlyByEachGroup() {
    OrderPaid paid = new OrderPaid("msg-1", 250);
    for (int delivery = 0; delivery < 3; delivery++) {
      onOrderPaid(paid, "billing");
      onOrderPaid(paid, "shipping");
    }
    assertEquals(1, effects("billing"));
    assertEquals(1, effects("shipping"));
    assertEquals(2, delegateCalls.get());
    assertEquals(2, count("SELECT COUNT(*) FROM idem_record"));
  }

  @Test
  void aVoidHandlerStoresOnlyTheCompletedMarkerAndADuplicateSkipsTheDelegate() {
    onOrderPaid(new OrderPaid("msg-1", 250), "billing");
    // Where the body could commit idem's transaction early (DDL on MariaDB and H2), the claim is PENDING and a third
    // statement completes it, so that an early commit can never leave a COMPLETED record of an unfinished body.
    boolean completedSeparately = SqlDialect.of(IdemEngine.of(runtime).dialect()).commitsImplicitly();
    assertEquals((completedSeparately ? 3 : 2) + OwnTransactionStatements.statementsFor(runtime.dialect(), 1),
        counting.statementsExecuted(), "the claim and the business insert (and the completion)");
    OwnTransactionStatements.assertCommitted(counting, runtime.dialect(), 1);
    assertEquals(1, count("SELECT COUNT(*) FROM idem_record WHERE state = 'COMPLETED' AND result IS NULL"));

    counting.reset();
    onOrderPaid(new OrderPaid("msg-1", 250), "billing");
    assertEquals(1, delegateCalls.get(), "the duplicate did not reach the delegate");
    assertEquals(0, counting.statementsExecuted(), "answered from the runtime's cache of completed records");

    runtime.clearResultCache(); // as in another consumer process, or after a restart
    onOrderPaid(new OrderPaid("msg-1", 250), "billing");
    assertEquals(1, delegateCalls.get());
    assertEquals(2 + OwnTransactionStatements.statementsFor(runtime.dialect(), 1), counting.statementsExecuted(),
        "the claim that found the key, and the read of its record");
    OwnTransactionStatements.assertCommitted(counting, runtime.dialect(), 1);
    assertEquals(1, effects("billing"));
  }

  // ---- batch consumers

  @Test
  void aBatchCallsTheDelegateOnceWithItsMessagesInOrder() {
    onBatch(messages("m-3", "m-1", "m-2"), "billing");
    assertEquals(List.of(List.of("m-3", "m-1", "m-2")), delegateBatches);
    assertEquals(3, effects("billing"));
    assertEquals(3, count("SELECT COUNT(*) FROM idem_record WHERE result IS NULL"));
    assertEquals(4 + OwnTransactionStatements.statementsFor(runtime.dialect(), 1), counting.statementsExecuted(),
        "one claim for the whole batch, then three business inserts");
    OwnTransactionStatements.assertCommitted(counting, runtime.dialect(), 1);
  }

  @Test
  void duplicatesInsideOneBatchCountOnce() {
    onBatch(messages("m-1", "m-2", "m-1", "m-3", "m-2"), "billing");
    assertEquals(List.of(List.of("m-1", "m-2", "m-3")), delegateBatches);
    assertEquals(3, effects("billing"));
  }

  @Test
  void aRedeliveredBatchPassesOnlyTheFirstSeenMessages() {
    onBatch(messages("m-1", "m-2"), "billing");
    counting.reset();
    onBatch(messages("m-0", "m-1", "m-2", "m-3"), "billing");
    assertEquals(List.of(List.of("m-1", "m-2"), List.of("m-0", "m-3")), delegateBatches);
    assertEquals(4, effects("billing"));
    // PostgreSQL's claim reads the records of the keys it could not claim in the same statement.
    boolean claimReads = runtime.dialect() == Dialect.POSTGRESQL;
    assertEquals((claimReads ? 3 : 4) + OwnTransactionStatements.statementsFor(runtime.dialect(), 1),
        counting.statementsExecuted(),
        "claim, read of the two duplicates (PostgreSQL: within the claim), two business inserts");
    OwnTransactionStatements.assertCommitted(counting, runtime.dialect(), 1);
    assertEquals(2, events.stream().filter(e -> e.startsWith("replayed ")).count());
  }

  /** PostgreSQL receives a batch's keys as the text of an array: quotes, backslashes, commas and braces stay text. */
  @Test
  void keysWithTheCharactersOfArrayLiteralsAreClaimedAndRecognizedAsTheyAre() {
    IdemRuntime punctuated = IdemRuntime.builder()
        .dataSource(counting)
        .clock(clock).databaseTime(false)
        .allowedKeyPunctuation("\"\\,{}-")
        .build();
    List<String> processed = new ArrayList<>();
    BatchBody<OrderPaid> body = firstSeen -> {
      firstSeen.forEach(message -> processed.add(message.messageId()));
      return firstSeen.size();
    };
    IdemEngine engine = IdemEngine.of(punctuated);
    engine.executeBatch(ON_BATCH, messages("a\"b", "c\\d", "e,f", "{g}", "NULL"),
        message -> new Object[] {message.messageId(), "billing"}, message -> new Object[] {message}, body);
    engine.executeBatch(ON_BATCH, messages("NULL", "{g}", "h", "e,f", "c\\d", "a\"b"),
        message -> new Object[] {message.messageId(), "billing"}, message -> new Object[] {message}, body);
    assertEquals(List.of("a\"b", "c\\d", "e,f", "{g}", "NULL", "h"), processed);
    assertEquals(6, count("SELECT COUNT(*) FROM idem_record"), "one record per key, none for a mangled key");
  }

  @Test
  void aBatchOfDuplicatesOnlyDoesNotCallTheDelegate() {
    onBatch(messages("m-1", "m-2"), "billing");
    onBatch(messages("m-2", "m-1", "m-2"), "billing");
    assertEquals(1, delegateCalls.get());
    assertEquals(2, effects("billing"));
  }

  @Test
  void theGroupIsPartOfTheKey() {
    onBatch(messages("m-1", "m-2"), "billing");
    onBatch(messages("m-1", "m-2"), "shipping");
    onBatch(messages("m-1", "m-2"), "shipping");
    assertEquals(2, effects("billing"));
    assertEquals(2, effects("shipping"));
    assertEquals(2, delegateCalls.get());
  }

  @Test
  void theReturnedCountIsTheDelegatesOrZero() {
    List<OrderPaid> batch = messages("m-1", "m-2", "m-1");
    assertEquals(2, IdemEngine.of(runtime).executeBatch(ON_BATCH, batch, m -> new Object[] {m.messageId(), "g"},
        m -> new Object[] {m}, List::size));
    assertEquals(0, IdemEngine.of(runtime).executeBatch(ON_BATCH, batch, m -> new Object[] {m.messageId(), "g"},
        m -> new Object[] {m}, List::size));
    assertEquals(0, IdemEngine.of(runtime).executeBatch(ON_BATCH, List.<OrderPaid>of(), m -> new Object[] {m.messageId(), "g"},
        m -> new Object[] {m}, List::size));
  }

  @Test
  void aRedeliveryWithOtherContentRejectsTheWholeBatch() {
    onBatch(messages("m-1"), "billing");
    List<OrderPaid> redelivered = List.of(new OrderPaid("m-0", 100), new OrderPaid("m-1", 999));
    IdempotencyKeyReusedException e = assertThrows(IdempotencyKeyReusedException.class,
        () -> onBatch(redelivered, "billing"));
    assertEquals("m-1|billing", e.key());
    assertTrue(e.getMessage().contains("'m-1|billing'"), e.getMessage());
    assertEquals(1, delegateCalls.get());
    assertEquals(1, count("SELECT COUNT(*) FROM idem_record"), "m-0 was not recorded either");
    assertEquals(1, effects("billing"));
  }

  @Test
  void twoMessagesOfOneBatchWithOneKeyButOtherContentAreRejectedBeforeAnyDatabaseAccess() {
    List<OrderPaid> batch = List.of(new OrderPaid("m-1", 100), new OrderPaid("m-1", 200));
    IdempotencyKeyReusedException e = assertThrows(IdempotencyKeyReusedException.class, () -> onBatch(batch, "g"));
    assertEquals("m-1|g", e.key());
    assertEquals(0, counting.connectionsObtained());
  }

  @Test
  void anInvalidKeyRejectsTheBatchBeforeAnyDatabaseAccess() {
    List<OrderPaid> batch = List.of(new OrderPaid("m-1", 100), new OrderPaid("m 2", 100));
    assertThrows(InvalidIdempotencyKeyException.class, () -> onBatch(batch, "g"));
    List<OrderPaid> withNull = new ArrayList<>(messages("m-1"));
    withNull.add(null);
    assertThrows(InvalidIdempotencyKeyException.class, () -> onBatch(withNull, "g"));
    assertEquals(0, counting.connectionsObtained());
  }

  @Test
  void aFailingDelegateRollsBackTheWholeBatchAndItsExceptionReachesTheCaller() {
    IOException failure = new IOException("disk full");
    IOException thrown = assertThrows(IOException.class, () -> IdemEngine.of(runtime).executeBatch(ON_BATCH, messages("m-1", "m-2"),
        m -> new Object[] {m.messageId(), "g"}, m -> new Object[] {m}, firstSeen -> {
          applyEffect("g", firstSeen.get(0));
          throw failure;
        }));
    assertTrue(thrown == failure);
    assertEquals(0, count("SELECT COUNT(*) FROM idem_record"));
    assertEquals(0, effects("g"));
    onBatch(messages("m-1", "m-2"), "g");
    assertEquals(2, effects("g"));
  }

  @Test
  void afterTheRetentionABatchMessageRunsAnew() {
    onBatch(messages("m-1"), "g");
    clock.advance(Duration.ofDays(1));
    onBatch(messages("m-1", "m-2"), "g");
    assertEquals(List.of(List.of("m-1"), List.of("m-1", "m-2")), delegateBatches);
    assertEquals(2, count("SELECT COUNT(*) FROM idem_record"));
  }

  @Test
  void aBatchJoinsTheCallersTransactionAndRollsBackWithIt() {
    assertThrows(IllegalStateException.class, () -> runtime.runInTransaction(connection -> {
      onBatch(messages("m-1", "m-2"), "g");
      throw new IllegalStateException("the caller fails after the batch");
    }));
    assertEquals(0, count("SELECT COUNT(*) FROM idem_record"));
    runtime.runInTransaction(connection -> onBatch(messages("m-1", "m-2"), "g"));
    assertEquals(2, effects("g"));
  }

  @Test
  void afterCommitRunsOnlyOnceTheBatchCommitted() {
    List<String> acked = new CopyOnWriteArrayList<>();
    IdemEngine.of(runtime).executeBatch(ON_BATCH, messages("m-1"), m -> new Object[] {m.messageId(), "g"}, m -> new Object[] {m},
        firstSeen -> {
          runtime.afterCommit(() -> acked.add("ack after " + count("SELECT COUNT(*) FROM idem_record")));
          assertTrue(acked.isEmpty());
          return 1;
        });
    assertEquals(List.of("ack after 1"), acked);
    assertTrue(events.contains("completed m-1|g"));
  }

  /** Consumers with overlapping batches at the same time: every message is processed exactly once. */
  @Test
  void concurrentOverlappingBatchesProcessEveryMessageExactlyOnce() throws Exception {
    int consumers = 8;
    int messages = 400;
    int batchSize = 25;
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(consumers);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int c = 0; c < consumers; c++) {
        List<OrderPaid> all = new ArrayList<>();
        for (int m = 0; m < messages; m++) {
          all.add(new OrderPaid("m-" + m, m));
        }
        // Odd consumers see the messages in another order, so batches overlap in every way.
        if (c % 2 == 1) {
          Collections.shuffle(all, new Random(c));
        }
        futures.add(pool.submit(() -> {
          start.await();
          for (int from = 0; from < all.size(); from += batchSize) {
            onBatch(all.subList(from, Math.min(all.size(), from + batchSize)), "g");
          }
          return null;
        }));
      }
      start.countDown();
      for (Future<?> future : futures) {
        future.get(180, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertEquals(messages, effects("g"));
    assertEquals(messages, count("SELECT COUNT(DISTINCT message_id) FROM effects"));
    assertEquals(messages, count("SELECT COUNT(*) FROM idem_record"));
    assertEquals(messages, events.stream().filter(e -> e.startsWith("completed ")).count());
  }
}
