package dev.idem.runtime.internal;

import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyListener;
import dev.idem.runtime.IdempotencyKeyReusedException;
import dev.idem.runtime.IdempotencyStoreException;
import dev.idem.runtime.InvalidIdempotencyKeyException;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.idem.runtime.InvalidIdempotencyKeyException.KeyRule;
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
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour of {@link IdemRuntime#execute} in transactional mode, called exactly as generated code
 * calls it. Runs against every database through the concrete subclasses.
 */
abstract class CommandContractTest extends DatabaseContract {

  record PaymentRequest(String customer, long amountCents) {}

  record Receipt(String paymentId, long amountCents) {}

  enum Channel { WEB, MOBILE }

  // ---- specs, as the processor generates them
  private static final CommandSpec<Receipt> PAY =
      CommandSpec.builder("Payments.pay", new ResultType<Receipt>() {})
          .retention(Duration.parse("P1D"))
          .keyParts("requestId")
          .payload("request")
          .build();
  private static final CommandSpec<Void> CANCEL =
      CommandSpec.builder("Payments.cancel", ResultType.VOID).retention(Duration.parse("PT1H"))
          .keyParts("msg.messageId", "consumerGroup").payload("msg").build();
  private static final CommandSpec<List<Receipt>> LIST =
      CommandSpec.builder("Types.list", new ResultType<List<Receipt>>() {}).keyParts("id").build();
  private static final CommandSpec<Optional<Receipt>> OPTIONAL =
      CommandSpec.builder("Types.optional", new ResultType<Optional<Receipt>>() {}).keyParts("id").build();
  private static final CommandSpec<Map<String, Integer>> MAP =
      CommandSpec.builder("Types.map", new ResultType<Map<String, Integer>>() {}).keyParts("id").build();
  private static final CommandSpec<Integer> INT =
      CommandSpec.builder("Types.int", ResultType.of(int.class)).keyParts("id").build();
  private static final CommandSpec<Boolean> BOOL =
      CommandSpec.builder("Types.boolean", ResultType.of(boolean.class)).keyParts("id").build();
  private static final CommandSpec<String> STRING =
      CommandSpec.builder("Types.string", ResultType.of(String.class)).keyParts("id", "channel", "n")
          .payload("a", "b").build();

  private IdemRuntime runtime;



  @Override
  protected void prepare() {
    runtime = IdemRuntime.builder()
        .dataSource(counting)
        .clock(clock).databaseTime(false)
        .listener(RecordingListener.withScope(IdempotencyListener.class, events))
        .build();
    runtime.createSchema();
    database.execute(
        "CREATE TABLE payments (id VARCHAR(64) NOT NULL PRIMARY KEY, amount BIGINT NOT NULL)",
        "CREATE TABLE executions (k VARCHAR(255) NOT NULL)");
  }

  @BeforeEach
  void clear() {
    database.execute("DELETE FROM idem_record", "DELETE FROM payments", "DELETE FROM executions");
    clock.set(Instant.parse("2030-01-01T00:00:00Z"));
    runtime.clearResultCache(); // the records were deleted behind the runtime's back
    counting.reset();
    events.clear();
  }

  // ---- the "generated" methods

  private Receipt pay(String requestId, PaymentRequest request, AtomicInteger calls) {
    return IdemEngine.of(runtime).execute(PAY, new Object[] {requestId}, new Object[] {request}, () -> {
      calls.incrementAndGet();
      String paymentId = "p-" + requestId;
      long amount = request == null ? 0 : request.amountCents();
      insertPayment(paymentId, amount);
      return new Receipt(paymentId, amount);
    });
  }

  private void insertPayment(String id, long amount) throws SQLException {
    try (PreparedStatement insert = runtime.currentConnection()
        .prepareStatement("INSERT INTO payments (id, amount) VALUES (?, ?)")) {
      insert.setString(1, id);
      insert.setLong(2, amount);
      insert.executeUpdate();
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

  private long records() {
    return count("SELECT COUNT(*) FROM idem_record");
  }

  private long payments() {
    return count("SELECT COUNT(*) FROM payments");
  }

  private static <T> CommandBody<T> counted(AtomicInteger calls, T value) {
    return () -> {
      calls.incrementAndGet();
      return value;
    };
  }

  // ---- replay

  @Test
  void replayReturnsTheFirstResultWithoutRunningTheBody() {
    AtomicInteger calls = new AtomicInteger();
    PaymentRequest request = new PaymentRequest("alice", 1200);

    Receipt first = pay("req-1", request, calls);
    Receipt second = pay("req-1", new PaymentRequest("alice", 1200), calls);

    assertEquals(new Receipt("p-req-1", 1200), first);
    assertEquals(first, second);
    assertEquals(1, calls.get());
    assertEquals(1, payments());
    assertEquals(1, records());
    assertEquals(List.of("claimed Payments.pay req-1", "completed Payments.pay req-1",
        "replayed Payments.pay req-1"),
        events.stream().filter(event -> !event.startsWith("commandFinished ")).toList());
    assertEquals(2, events.stream().filter(event -> event.startsWith("commandFinished Payments.pay null ")).count(),
        "one latency event per call, after the call's decisions");
  }

  @Test
  void theFirstCallReturnsTheBodysOwnObject() {
    Receipt receipt = new Receipt("x", 1);
    assertSame(receipt, IdemEngine.of(runtime).execute(PAY, new Object[] {"same"}, new Object[] {null}, () -> receipt));
  }

  @Test
  void genericResultsReplayWithTheirFullType() {
    List<Receipt> list = List.of(new Receipt("a", 1), new Receipt("b", 2));
    assertReplays(LIST, list);
    assertReplays(OPTIONAL, Optional.of(new Receipt("c", 3)));
    assertReplays(OPTIONAL, Optional.empty());
    assertReplays(MAP, Map.of("one", 1, "two", 2));
    assertReplays(INT, 42);
    assertReplays(BOOL, true);
    assertReplays(LIST, null);

    List<Receipt> replayed = IdemEngine.of(runtime).execute(LIST, new Object[] {"k-" + list.hashCode()}, null, () -> fail());
    assertEquals(Receipt.class, replayed.get(0).getClass());
  }

  private <T> void assertReplays(CommandSpec<T> spec, T value) {
    String key = "k-" + (value == null ? "null" : value.hashCode());
    AtomicInteger calls = new AtomicInteger();
    T first = IdemEngine.of(runtime).execute(spec, new Object[] {key}, new Object[0], counted(calls, value));
    T second = IdemEngine.of(runtime).execute(spec, new Object[] {key}, new Object[0], counted(calls, value));
    assertSame(value, first);
    assertEquals(value, second, spec.scope());
    assertEquals(1, calls.get(), spec.scope());
  }

  @Test
  void voidCommandsRunOnceAndStoreNoResult() {
    AtomicInteger calls = new AtomicInteger();
    PaymentRequest msg = new PaymentRequest("bob", 5);
    for (int i = 0; i < 3; i++) {
      assertNull(IdemEngine.of(runtime).execute(CANCEL, new Object[] {"m-1", "billing"}, new Object[] {msg}, () -> {
        calls.incrementAndGet();
        return null;
      }));
    }
    assertEquals(1, calls.get());
    assertEquals(1, count("SELECT COUNT(*) FROM idem_record WHERE result IS NULL"));
  }

  // ---- fingerprints

  @Test
  void aKeyReusedWithADifferentPayloadIsRejectedAndNothingChanges() {
    AtomicInteger calls = new AtomicInteger();
    pay("req-2", new PaymentRequest("alice", 100), calls);
    String before = fingerprintOf("req-2");

    IdempotencyKeyReusedException e = assertThrows(IdempotencyKeyReusedException.class,
        () -> pay("req-2", new PaymentRequest("alice", 999), calls));

    assertEquals("Payments.pay", e.scope());
    assertEquals("req-2", e.key());
    assertTrue(e.getMessage().contains("different payload"), e.getMessage());
    assertEquals(1, calls.get());
    assertEquals(1, payments());
    assertEquals(before, fingerprintOf("req-2"));
    assertTrue(events.contains("keyReused Payments.pay req-2"));
  }

  @Test
  void payloadOrderOfMapsDoesNotChangeTheFingerprint() {
    Map<String, Integer> ab = new java.util.LinkedHashMap<>();
    ab.put("a", 1);
    ab.put("b", 2);
    Map<String, Integer> ba = new java.util.LinkedHashMap<>();
    ba.put("b", 2);
    ba.put("a", 1);
    AtomicInteger calls = new AtomicInteger();
    IdemEngine.of(runtime).execute(STRING, new Object[] {"m", Channel.WEB, 7}, new Object[] {ab, null}, counted(calls, "x"));
    assertEquals("x", IdemEngine.of(runtime).execute(STRING, new Object[] {"m", Channel.WEB, 7}, new Object[] {ba, null},
        counted(calls, "y")));
    assertEquals(1, calls.get());
  }

  private String fingerprintOf(String key) {
    try (Connection connection = database.dataSource().getConnection();
        PreparedStatement select = connection.prepareStatement(
            "SELECT fingerprint FROM idem_record WHERE idem_key = ?")) {
      select.setString(1, key);
      try (ResultSet rs = select.executeQuery()) {
        assertTrue(rs.next());
        return rs.getString(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  // ---- failures of the body

  @Test
  void aFailingBodyRollsBackEverythingAndItsExceptionReachesTheCaller() {
    IllegalStateException boom = new IllegalStateException("card declined");
    IllegalStateException caught = assertThrows(IllegalStateException.class,
        () -> IdemEngine.of(runtime).execute(PAY, new Object[] {"req-3"}, new Object[] {null}, () -> {
          insertPayment("p-req-3", 1);
          throw boom;
        }));
    assertSame(boom, caught);
    assertEquals(0, payments());
    assertEquals(0, records());

    AtomicInteger calls = new AtomicInteger();
    pay("req-3", null, calls);
    assertEquals(1, calls.get(), "a retry after a failure runs again");
    assertEquals(1, payments());
  }

  @Test
  void checkedExceptionsPassUnchanged() {
    IOException io = new IOException("gateway down");
    try {
      IdemEngine.of(runtime).execute(PAY, new Object[] {"req-4"}, new Object[] {null}, () -> {
        throw io;
      });
      fail("expected the IOException");
    } catch (Exception e) {
      assertSame(io, e);
    }
    assertEquals(0, records());
  }

  @Test
  void errorsPassUnchangedToo() {
    AssertionError error = new AssertionError("bug");
    assertSame(error, assertThrows(AssertionError.class,
        () -> IdemEngine.of(runtime).execute(PAY, new Object[] {"req-5"}, new Object[] {null}, () -> {
          throw error;
        })));
    assertEquals(0, records());
  }

  // ---- retention

  @Test
  void afterTheRetentionTheCommandRunsAnew() {
    AtomicInteger calls = new AtomicInteger();
    pay("req-6", new PaymentRequest("carol", 10), calls);
    clock.advance(Duration.ofHours(23));
    pay("req-6", new PaymentRequest("carol", 10), calls);
    assertEquals(1, calls.get());

    clock.advance(Duration.ofHours(1)); // exactly the retention: expired
    Receipt again = IdemEngine.of(runtime).execute(PAY, new Object[] {"req-6"}, new Object[] {new PaymentRequest("carol", 20)},
        counted(calls, new Receipt("new", 20)));
    assertEquals(new Receipt("new", 20), again);
    assertEquals(2, calls.get());
    assertEquals(1, records());
    // and the renewed record replays with its new payload
    assertEquals(again, IdemEngine.of(runtime).execute(PAY, new Object[] {"req-6"},
        new Object[] {new PaymentRequest("carol", 20)}, () -> fail()));
  }

  @Test
  void purgeExpiredDeletesInBatchesAndKeepsLiveRecords() throws SQLException {
    long now = clock.millis();
    try (Connection connection = database.dataSource().getConnection();
        PreparedStatement insert = connection.prepareStatement("INSERT INTO idem_record "
            + "(scope, idem_key, state, fingerprint, created_at, expires_at) VALUES (?, ?, 'COMPLETED', 'f', ?, ?)")) {
      connection.setAutoCommit(false);
      for (int i = 0; i < 1010; i++) {
        insert.setString(1, "Purge.test");
        insert.setString(2, "k" + i);
        insert.setLong(3, now - 10_000);
        insert.setLong(4, i < 1000 ? now - i : now + 1 + i);
        insert.addBatch();
      }
      insert.executeBatch();
      connection.commit();
      connection.setAutoCommit(true);
    }
    counting.reset();

    assertEquals(1000, runtime.purgeExpired(100));

    assertEquals(10, records());
    // MariaDB picks each batch with a SKIP LOCKED read, then deletes its rows by key in one JDBC batch.
    int perBatch = database() == dev.idem.testing.TestDatabase.MARIADB ? 2 : 1;
    assertEquals(10 * perBatch + 1, counting.statementsExecuted(), "10 full batches and a last one finding nothing");
    assertEquals(1, counting.connectionsObtained());
    assertEquals(0, runtime.purgeExpired(100));
  }

  // ---- keys

  @Test
  void invalidKeysAreRejectedWithoutTouchingTheDatabase() {
    assertRejected(KeyRule.NULL_PART, () -> pay(null, null, new AtomicInteger()),
        "Idempotency key part 'requestId' of Payments.pay is null");
    assertRejected(KeyRule.EMPTY_PART, () -> pay("", null, new AtomicInteger()),
        "Idempotency key part 'requestId' of Payments.pay is empty");
    assertRejected(KeyRule.TOO_LONG, () -> pay("a".repeat(129), null, new AtomicInteger()),
        "at most 128");
    assertRejected(KeyRule.ILLEGAL_CHARACTER, () -> pay("abc def", null, new AtomicInteger()),
        "Idempotency key part 'requestId' of Payments.pay contains the character ' ' at index 3; "
            + "allowed are letters, digits and -_.:@/+=~");
    assertRejected(KeyRule.ILLEGAL_CHARACTER, () -> pay("a|b", null, new AtomicInteger()), "'|'");
    assertRejected(KeyRule.ILLEGAL_CHARACTER, () -> pay("caf\u00e9", null, new AtomicInteger()), "'\u00e9' (U+00E9)");
    PaymentRequest msg = null;
    assertRejected(KeyRule.NULL_PART, () -> IdemEngine.of(runtime).execute(CANCEL,
        new Object[] {msg == null ? null : msg.customer(), "g"}, new Object[] {msg}, () -> null),
        "'msg.messageId'");
    assertRejected(KeyRule.TOO_LONG, () -> IdemEngine.of(runtime).execute(CANCEL,
        new Object[] {"a".repeat(64), "b".repeat(64)}, new Object[] {msg}, () -> null), "129");

    assertEquals(0, counting.connectionsObtained());
    assertTrue(events.contains("invalidKey Payments.pay NULL_PART"), events.toString());
    assertTrue(events.contains("invalidKey Payments.cancel TOO_LONG"), events.toString());
  }

  private static void assertRejected(KeyRule rule, Runnable call, String messagePart) {
    InvalidIdempotencyKeyException e = assertThrows(InvalidIdempotencyKeyException.class, call::run);
    assertEquals(rule, e.rule());
    assertTrue(e.getMessage().contains(messagePart), e.getMessage());
  }

  @Test
  void compositeKeysAreUnambiguous() {
    AtomicInteger calls = new AtomicInteger();
    IdemEngine.of(runtime).execute(STRING, new Object[] {"a-b", Channel.MOBILE, 1}, new Object[] {1, 2}, counted(calls, "1"));
    IdemEngine.of(runtime).execute(STRING, new Object[] {"a", Channel.MOBILE, 1}, new Object[] {1, 2}, counted(calls, "2"));
    IdemEngine.of(runtime).execute(STRING, new Object[] {"a", Channel.WEB, 11}, new Object[] {1, 2}, counted(calls, "3"));
    assertEquals("1", IdemEngine.of(runtime).execute(STRING, new Object[] {"a-b", Channel.MOBILE, 1}, new Object[] {1, 2},
        counted(calls, "x")));
    assertEquals(3, calls.get());
    assertEquals(1, count("SELECT COUNT(*) FROM idem_record WHERE idem_key = 'a-b|MOBILE|1'"));
    UUID id = UUID.randomUUID();
    IdemEngine.of(runtime).execute(CANCEL, new Object[] {id, "g"}, new Object[] {null}, () -> null);
    assertEquals(1, count("SELECT COUNT(*) FROM idem_record WHERE idem_key = '" + id + "|g'"));
  }

  // ---- transactions

  @Test
  void businessWritesCommitWithTheRecord() {
    AtomicInteger calls = new AtomicInteger();
    pay("req-7", new PaymentRequest("dave", 7), calls);
    assertEquals(1, payments());
    assertEquals(1, records());
    assertEquals(1, counting.connectionsObtained(), "one connection, one transaction");
  }

  @Test
  void joinsTheOuterTransaction() {
    AtomicInteger calls = new AtomicInteger();
    runtime.runInTransaction(connection -> {
      Connection outer = runtime.currentConnection();
      IdemEngine.of(runtime).execute(PAY, new Object[] {"req-8"}, new Object[] {null}, () -> {
        assertSame(outer, runtime.currentConnection());
        calls.incrementAndGet();
        insertPayment("p-8", 8);
        return new Receipt("p-8", 8);
      });
      insertPayment("other", 1);
    });
    assertEquals(1, calls.get());
    assertEquals(2, payments());
    assertEquals(1, records());
    assertEquals(1, counting.connectionsObtained());
    assertTrue(events.contains("completed Payments.pay req-8"));
  }

  @Test
  void anOuterRollbackUndoesTheRecordAndTheBusinessWrites() {
    RuntimeException abort = new RuntimeException("abort");
    assertSame(abort, assertThrows(RuntimeException.class, () -> runtime.runInTransaction(connection -> {
      pay("req-9", null, new AtomicInteger());
      throw abort;
    })));
    assertEquals(0, payments());
    assertEquals(0, records());
    assertFalse(events.contains("completed Payments.pay req-9"), "completed only after the commit");
  }

  @Test
  void aFailingJoinedBodyIsUndoneButTheOuterTransactionGoesOn() {
    IllegalStateException boom = new IllegalStateException("boom");
    runtime.runInTransaction(connection -> {
      insertPayment("kept", 1);
      try {
        IdemEngine.of(runtime).execute(PAY, new Object[] {"req-10"}, new Object[] {null}, () -> {
          insertPayment("undone", 2);
          throw boom;
        });
        fail();
      } catch (IllegalStateException e) {
        assertSame(boom, e);
      }
    });
    assertEquals(1, payments());
    assertEquals(0, records());
  }

  @Test
  void afterCommitRunsOnlyAfterTheCommit() {
    AtomicBoolean acked = new AtomicBoolean();
    IdemEngine.of(runtime).execute(CANCEL, new Object[] {"m-2", "g"}, new Object[] {null}, () -> {
      runtime.afterCommit(() -> {
        assertEquals(1, records(), "committed before the action runs");
        acked.set(true);
      });
      assertFalse(acked.get());
      return null;
    });
    assertTrue(acked.get());

    AtomicBoolean notAcked = new AtomicBoolean();
    assertThrows(IllegalStateException.class,
        () -> IdemEngine.of(runtime).execute(CANCEL, new Object[] {"m-3", "g"}, new Object[] {null}, () -> {
          runtime.afterCommit(() -> notAcked.set(true));
          throw new IllegalStateException("rolled back");
        }));
    assertFalse(notAcked.get());

    AtomicBoolean outer = new AtomicBoolean();
    runtime.runInTransaction(connection -> {
      runtime.runInTransaction(inner -> runtime.afterCommit(() -> outer.set(true)));
      assertFalse(outer.get(), "not before the outermost commit");
    });
    assertTrue(outer.get());
  }

  @Test
  void outsideATransactionThereIsNoConnectionAndNoAfterCommit() {
    assertThrows(IllegalStateException.class, runtime::currentConnection);
    assertThrows(IllegalStateException.class, () -> runtime.afterCommit(() -> {}));
  }

  @Test
  void inTransactionReturnsTheResultAndRestoresTheConnection() throws SQLException {
    assertEquals("done", runtime.inTransaction(connection -> {
      assertFalse(runtime.currentConnection().getAutoCommit());
      return "done";
    }));
    try (Connection connection = database.dataSource().getConnection()) {
      assertTrue(connection.getAutoCommit());
    }
  }

  // ---- inTransaction work whose SQL fails: an IdempotencyStoreException, a transient failure rerun (issue 26 §5.1)

  @Test
  void inTransactionWorkWhoseSqlFailsGetsAStoreExceptionWithTheCauseAndRunsOnce() {
    AtomicInteger attempts = new AtomicInteger();
    IdempotencyStoreException e = assertThrows(IdempotencyStoreException.class, () -> runtime.inTransaction(c -> {
      attempts.incrementAndGet();
      try (Statement statement = c.createStatement()) {
        statement.executeQuery("SELECT x FROM no_such_table");
      }
      return "unreachable";
    }));
    assertTrue(e.getCause() instanceof SQLException, e.toString());
    assertEquals(1, attempts.get(), "not transient: never rerun");
    assertTrue(e.getMessage().contains("runtime.createSchema()"), e.getMessage());
  }

  @Test
  void inTransactionRerunsWorkThatFailedTransientlyInANewTransaction() throws Exception {
    AtomicInteger attempts = new AtomicInteger();
    assertEquals("done", runtime.inTransaction(c -> {
      insertPayment("p-retried", 1); // the first attempt's insert rolls back, or the second one's would collide
      if (attempts.incrementAndGet() == 1) {
        throw new SQLException("chosen as deadlock victim", "40001");
      }
      return "done";
    }));
    assertEquals(2, attempts.get());
    assertEquals(1, count("SELECT COUNT(*) FROM payments WHERE id = 'p-retried'"));
  }

  @Test
  void inTransactionGivesUpOnATransientFailureAfterFiveAttempts() {
    AtomicInteger attempts = new AtomicInteger();
    IdempotencyStoreException e = assertThrows(IdempotencyStoreException.class, () -> runtime.inTransaction(c -> {
      attempts.incrementAndGet();
      throw new SQLException("lock wait timeout", "40001");
    }));
    assertEquals(5, attempts.get());
    assertEquals("40001", e.getCause().getSQLState());
  }

  @Test
  void joinedInTransactionWorkIsNotRetriedButTheOutermostTransactionOfIdemsIs() {
    AtomicInteger outer = new AtomicInteger();
    AtomicInteger inner = new AtomicInteger();
    assertEquals("done", runtime.inTransaction(c -> {
      outer.incrementAndGet();
      IdempotencyStoreException e = assertThrows(IdempotencyStoreException.class, () -> runtime.inTransaction(j -> {
        inner.incrementAndGet();
        throw new SQLException("deadlock", "40001");
      }));
      assertEquals(1, inner.getAndSet(0), "joined: never rerun inside the outer transaction");
      if (outer.get() == 1) {
        throw e; // the outermost transaction is idem's own: rerun as a whole
      }
      return "done";
    }));
    assertEquals(2, outer.get());
  }

  @Test
  void workInTheApplicationsTransactionIsNeverRetried() throws Exception {
    AtomicInteger attempts = new AtomicInteger();
    try (Connection connection = database.dataSource().getConnection()) {
      connection.setAutoCommit(false);
      IdempotencyStoreException e = assertThrows(IdempotencyStoreException.class,
          () -> runtime.withConnection(connection, c -> runtime.inTransaction(j -> {
            attempts.incrementAndGet();
            throw new SQLException("deadlock", "40001");
          })));
      assertEquals("40001", e.getCause().getSQLState());
      connection.rollback();
      connection.setAutoCommit(true);
    }
    assertEquals(1, attempts.get());
  }

  @Test
  void theApplicationsOwnExceptionsLeaveInTransactionUnchanged() {
    IOException checked = new IOException("the application's");
    assertSame(checked, assertThrows(IOException.class, () -> runtime.inTransaction(c -> {
      throw checked;
    })));
  }

  // ---- a null map key in a payload (issue 26 §5.4)

  private static final CommandSpec<String> TAGGED =
      CommandSpec.builder("Types.tagged", ResultType.of(String.class)).keyParts("id").payload("tags").build();

  @Test
  void aPayloadMapWithANullKeyIsRefusedBeforeAnySqlAndNeverReplaysAnothersResult() {
    AtomicInteger calls = new AtomicInteger();
    assertEquals("first", IdemEngine.of(runtime).execute(TAGGED, new Object[] {"t-1"},
        new Object[] {Map.of("null", 5)}, counted(calls, "first")));
    Map<String, Integer> nullKey = new java.util.HashMap<>();
    nullKey.put(null, 5);
    counting.reset();
    for (String key : List.of("t-1", "t-2")) {
      dev.idem.runtime.IdempotencyException e = assertThrows(dev.idem.runtime.IdempotencyException.class,
          () -> IdemEngine.of(runtime).execute(TAGGED, new Object[] {key}, new Object[] {nullKey},
              counted(calls, "second")));
      assertTrue(e.getMessage().contains("null key"), e.getMessage());
    }
    assertEquals(1, calls.get());
    assertEquals(0, counting.statementsExecuted(), "refused before any SQL");
    assertEquals(0, count("SELECT COUNT(*) FROM idem_record WHERE idem_key = 't-2'"));
  }

  // ---- a missing table says what to do (issue 26 §5.5)

  @Test
  void aMissingRecordTableSaysHowToCreateIt() {
    IdemRuntime uninstalled = IdemRuntime.builder().dataSource(database.dataSource()).clock(clock)
        .databaseTime(false).tableName("never_created").build();
    String dialect = switch (database.database()) {
      case H2 -> "h2";
      case POSTGRESQL -> "postgresql";
      case MARIADB -> "mariadb";
    };
    CommandSpec<String> claim = CommandSpec.builder("Types.claimed", ResultType.of(String.class))
        .mode(dev.idem.Mode.CLAIM).keyParts("id").build();
    List<IdempotencyStoreException> failures = List.of(
        assertThrows(IdempotencyStoreException.class, () -> IdemEngine.of(uninstalled)
            .execute(STRING, new Object[] {"m-1", Channel.WEB, 1}, new Object[] {"a", "b"}, () -> "ran")),
        assertThrows(IdempotencyStoreException.class, () -> IdemEngine.of(uninstalled)
            .execute(claim, new Object[] {"m-2"}, new Object[0], () -> "ran")),
        assertThrows(IdempotencyStoreException.class, () -> uninstalled.inspect("Types.string", "m-3")));
    for (IdempotencyStoreException e : failures) {
      String message = e.getMessage();
      assertTrue(message.contains("idem's table never_created does not exist"), message);
      assertTrue(message.contains("runtime.createSchema()"), message);
      assertTrue(message.contains("dev/idem/runtime/schema/" + dialect + ".sql"), message);
      assertTrue(message.contains("classpath:dev/idem/runtime/flyway/" + dialect), message);
    }
  }

  @Test
  void createSchemaTwiceIsFine() {
    runtime.createSchema();
    runtime.createSchema();
    assertEquals(0, records());
  }

  @Test
  void theDialectIsDetected() {
    IdemRuntime detected = IdemRuntime.builder().dataSource(database.dataSource()).build();
    assertSame(runtime.dialect(), detected.dialect());
    assertEquals("idem_record", detected.tableName());
  }

  @Test
  void aCustomTableWorksLikeTheDefaultOne() {
    IdemRuntime custom = IdemRuntime.builder().dataSource(database.dataSource()).clock(clock).databaseTime(false)
        .tableName("orders_idem").build();
    custom.createSchema();
    custom.createSchema();
    AtomicInteger calls = new AtomicInteger();
    IdemEngine.of(custom).execute(PAY, new Object[] {"c-1"}, new Object[] {null}, counted(calls, new Receipt("c", 1)));
    assertEquals(new Receipt("c", 1),
        IdemEngine.of(custom).execute(PAY, new Object[] {"c-1"}, new Object[] {null}, counted(calls, new Receipt("d", 2))));
    assertEquals(1, calls.get());
    assertEquals(1, count("SELECT COUNT(*) FROM orders_idem"));
    assertEquals(0, records());
    clock.advance(Duration.ofDays(1));
    assertEquals(1, custom.purgeExpired(10));
  }

  // ---- concurrency

  @Test
  void concurrentCallsWithTheSameKeyRunTheBodyExactlyOnce() throws Exception {
    int threads = 32;
    int keys = 100;
    CountDownLatch start = new CountDownLatch(1);
    Map<String, List<String>> results = new ConcurrentHashMap<>();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        List<Integer> order = new ArrayList<>();
        for (int k = 0; k < keys; k++) {
          order.add(k);
        }
        // Half the threads go in the same order (maximum contention), half shuffled.
        if (t % 2 == 1) {
          Collections.shuffle(order, new Random(t));
        }
        futures.add(pool.submit(() -> {
          start.await();
          for (int k : order) {
            String key = "key-" + k;
            String result = IdemEngine.of(runtime).execute(STRING, new Object[] {key, Channel.WEB, k}, new Object[] {k, "p"}, () -> {
              try (PreparedStatement insert = runtime.currentConnection()
                  .prepareStatement("INSERT INTO executions (k) VALUES (?)")) {
                insert.setString(1, key);
                insert.executeUpdate();
              }
              return key + "/" + UUID.randomUUID();
            });
            results.computeIfAbsent(key, x -> new CopyOnWriteArrayList<>()).add(result);
          }
          return null;
        }));
      }
      start.countDown();
      for (Future<?> future : futures) {
        future.get(120, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertEquals(keys, count("SELECT COUNT(*) FROM executions"));
    assertEquals(keys, count("SELECT COUNT(DISTINCT k) FROM executions"));
    assertEquals(keys, results.size());
    assertEquals(keys, events.stream().filter(e -> e.startsWith("claimed ")).count());
    assertEquals(keys, events.stream().filter(e -> e.startsWith("completed ")).count());
    assertEquals((long) keys * (threads - 1), events.stream().filter(e -> e.startsWith("replayed ")).count());
    for (Map.Entry<String, List<String>> entry : results.entrySet()) {
      assertEquals(threads, entry.getValue().size());
      assertEquals(1, entry.getValue().stream().distinct().count(), "one result for " + entry.getKey());
    }
  }

  /**
   * With {@link IdemRuntime.Builder#bodiesNeverCommitImplicitly}, a void claim is inserted COMPLETED (no completing
   * UPDATE) on every database: concurrent duplicates still wait for it and run the body once.
   */
  @Test
  void concurrentVoidCallsRunTheBodyOnceWhenBodiesArePromisedNeverToCommitImplicitly() throws Exception {
    CommandSpec<Void> note = CommandSpec.builder("Orders.noteOnce", ResultType.VOID).keyParts("id").build();
    IdemRuntime promising = IdemRuntime.builder().dataSource(counting).clock(clock).databaseTime(false)
        .bodiesNeverCommitImplicitly(true).build();
    int threads = 16;
    int keys = 50;
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        futures.add(pool.submit(() -> {
          start.await();
          for (int k = 0; k < keys; k++) {
            String key = "note-" + k;
            IdemEngine.of(promising).execute(note, new Object[] {key}, new Object[0], () -> {
              try (PreparedStatement insert = promising.currentConnection()
                  .prepareStatement("INSERT INTO executions (k) VALUES (?)")) {
                insert.setString(1, key);
                insert.executeUpdate();
              }
              return null;
            });
          }
          return null;
        }));
      }
      start.countDown();
      for (Future<?> future : futures) {
        future.get(120, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertEquals(keys, count("SELECT COUNT(*) FROM executions"));
    assertEquals(keys, count("SELECT COUNT(DISTINCT k) FROM executions"));
    assertEquals(keys, count("SELECT COUNT(*) FROM idem_record WHERE scope = 'Orders.noteOnce' AND state = 'COMPLETED'"));
  }

  @Test
  void whenTheFirstCallerRollsBackAWaitingOneClaimsTheKey() throws Exception {
    int threads = 32;
    int keys = 100;
    Set<String> failedOnce = ConcurrentHashMap.newKeySet();
    CountDownLatch start = new CountDownLatch(1);
    Map<String, List<String>> results = new ConcurrentHashMap<>();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        futures.add(pool.submit(() -> {
          start.await();
          for (int k = 0; k < keys; k++) {
            String key = "rb-" + k;
            for (int attempt = 1; ; attempt++) { // the client retries after a failure, as clients do
              try {
                results.computeIfAbsent(key, x -> new CopyOnWriteArrayList<>()).add(
                    IdemEngine.of(runtime).execute(STRING, new Object[] {key, Channel.MOBILE, 0}, new Object[] {0, "p"}, () -> {
                      try (PreparedStatement insert = runtime.currentConnection()
                          .prepareStatement("INSERT INTO executions (k) VALUES (?)")) {
                        insert.setString(1, key);
                        insert.executeUpdate();
                      }
                      if (failedOnce.add(key)) {
                        Thread.sleep(2); // let competitors queue up behind the uncommitted claim
                        throw new IOException("first execution of " + key + " fails");
                      }
                      return key + "/" + UUID.randomUUID();
                    }));
                break;
              } catch (Exception e) { // what the generated method declares (throws IOException)
                if (!(e instanceof IOException) || attempt > 3) {
                  throw e;
                }
              }
            }
          }
          return null;
        }));
      }
      start.countDown();
      for (Future<?> future : futures) {
        future.get(120, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertEquals(keys, count("SELECT COUNT(*) FROM executions"), "rolled-back executions leave no row");
    for (Map.Entry<String, List<String>> entry : results.entrySet()) {
      assertEquals(threads, entry.getValue().size());
      assertEquals(1, entry.getValue().stream().distinct().count(), "one result for " + entry.getKey());
    }
  }
  /** Connections whose lock waits end after a fraction of a second, as a short lock timeout makes them. */
  private javax.sql.DataSource withShortLockTimeout() {
    String setting = switch (database()) {
      case H2 -> "SET LOCK_TIMEOUT 300";
      case POSTGRESQL -> "SET lock_timeout = '300ms'";
      default -> "SET SESSION innodb_lock_wait_timeout = 1";
    };
    javax.sql.DataSource target = database.dataSource();
    return (javax.sql.DataSource) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
        new Class<?>[] {javax.sql.DataSource.class}, (proxy, method, args) -> {
          Object result;
          try {
            result = method.invoke(target, args);
          } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
          }
          if (result instanceof java.sql.Connection connection) {
            try (java.sql.Statement statement = connection.createStatement()) {
              statement.execute(setting);
            }
          }
          return result;
        });
  }

  @Test
  void aDuplicateThatWaitsLongerThanTheLockTimeoutIsToldTheKeyIsInFlight() throws Exception {
    IdemRuntime impatient = IdemRuntime.builder().dataSource(withShortLockTimeout()).clock(clock).databaseTime(false)
        .build();
    AtomicInteger calls = new AtomicInteger();
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    ExecutorService first = Executors.newSingleThreadExecutor();
    try {
      java.util.concurrent.Future<Receipt> firstCall = first.submit(() ->
          IdemEngine.of(runtime).execute(PAY, new Object[] {"slow-1"}, new Object[] {new PaymentRequest("c", 5)},
              () -> {
                calls.incrementAndGet();
                running.countDown();
                assertTrue(finish.await(30, TimeUnit.SECONDS));
                return new Receipt("p-slow-1", 5);
              }));
      assertTrue(running.await(10, TimeUnit.SECONDS));
      // Its claim is uncommitted and holds the key: the duplicate waits on it at every attempt, then is told why.
      dev.idem.runtime.IdempotencyInProgressException e = assertThrows(
          dev.idem.runtime.IdempotencyInProgressException.class,
          () -> IdemEngine.of(impatient).execute(PAY, new Object[] {"slow-1"},
              new Object[] {new PaymentRequest("c", 5)}, () -> {
                calls.incrementAndGet();
                return new Receipt("duplicate", 5);
              }));
      assertTrue(e.getMessage().contains("slow-1") && e.getMessage().contains("retry later"), e.getMessage());
      assertEquals(null, e.leaseEndsAt(), "a TRANSACTIONAL claim has no lease");
      finish.countDown();
      assertEquals(new Receipt("p-slow-1", 5), firstCall.get(30, TimeUnit.SECONDS));
      // Once the first committed, the retry replays it.
      assertEquals(new Receipt("p-slow-1", 5), IdemEngine.of(impatient).execute(PAY, new Object[] {"slow-1"},
          new Object[] {new PaymentRequest("c", 5)}, () -> new Receipt("duplicate", 5)));
      assertEquals(1, calls.get());
    } finally {
      finish.countDown();
      first.shutdownNow();
      impatient.close();
    }
  }
}
