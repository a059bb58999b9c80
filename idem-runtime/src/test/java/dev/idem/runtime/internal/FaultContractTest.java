package dev.idem.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.idem.InFlight;
import dev.idem.Mode;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyBrokenRecordException;
import dev.idem.runtime.IdempotencyCommitUnknownException;
import dev.idem.runtime.IdempotencyLeaseLostException;
import dev.idem.runtime.IdempotencyListener;
import dev.idem.runtime.IdempotencyOutcomeUnknownException;
import dev.idem.runtime.IdempotencyRecord;
import dev.idem.runtime.IdempotencyStoreException;
import dev.idem.runtime.internal.FaultInjectingDataSource.Effect;
import dev.idem.testing.DatabaseContract;
import dev.idem.testing.RecordingListener;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Faults between a command's body and its record (issue #10): a CLAIM body whose outcome cannot be recorded never
 * runs twice, a lost commit acknowledgement is reported as unknown, errors name the step that failed, a stalled
 * caller that lost its lease learns so, tampered rows are broken records, and operators can inspect, resolve and
 * forget. Faults are injected at the exact statement by {@link FaultInjectingDataSource}; runs on every database.
 */
@Timeout(60)
abstract class FaultContractTest extends DatabaseContract {

  /** A business outcome, as in {@link ClaimContractTest}. */
  static final class CardDeclinedException extends Exception {
    private static final long serialVersionUID = 1L;
    private final String declineCode;

    CardDeclinedException(String message, String declineCode) {
      super(message);
      this.declineCode = declineCode;
    }

    String declineCode() {
      return declineCode;
    }
  }

  private static final ReplayableFailure<CardDeclinedException> CARD_DECLINED = ReplayableFailure.of(
      CardDeclinedException.class,
      e -> new Object[] {e.getMessage(), e.declineCode()},
      arguments -> new CardDeclinedException((String) arguments[0], (String) arguments[1]),
      String.class, String.class);

  /** A result Jackson cannot write: its getter throws. */
  public static final class Unwritable {
    public String getValue() {
      throw new IllegalStateException("this result cannot be written");
    }
  }

  private static final CommandSpec<String> CHARGE = claim("Faults.charge", ResultType.of(String.class));
  private static final CommandSpec<Unwritable> CHARGE_UNWRITABLE =
      claim("Faults.chargeUnwritable", ResultType.of(Unwritable.class));
  private static final CommandSpec<String> TRANSFER = CommandSpec.builder("Faults.transfer",
      ResultType.of(String.class)).keyParts("id").payload("amount").replayOn(CARD_DECLINED).build();

  private static <T> CommandSpec<T> claim(String scope, ResultType<T> type) {
    return CommandSpec.builder(scope, type).mode(Mode.CLAIM).lease(Duration.ofSeconds(30))
        .onInFlight(InFlight.FAIL).retention(Duration.ofDays(1)).keyParts("id").payload("amount")
        .replayOn(CARD_DECLINED).build();
  }

  private FaultInjectingDataSource faults;
  private IdemRuntime runtime;
  private final ExecutorService otherCaller = Executors.newSingleThreadExecutor();

  @Override
  protected void prepare() {
    faults = new FaultInjectingDataSource(counting);
    runtime = IdemRuntime.builder()
        .dataSource(faults.dataSource())
        .clock(clock)
        .databaseTime(false)
        .maxResultSize(1_000)
        .listener(RecordingListener.keysOnly(IdempotencyListener.class, events))
        .build();
    runtime.createSchema();
    database.execute("CREATE TABLE payments (id VARCHAR(64) NOT NULL PRIMARY KEY)");
  }

  @BeforeEach
  void clear() {
    database.execute("DELETE FROM idem_record", "DELETE FROM payments");
    faults.reset();
    runtime.clearResultCache();
    clock.set(Instant.parse("2030-01-01T00:00:00Z"));
    events.clear();
  }

  @AfterAll
  void stopOtherCaller() {
    otherCaller.shutdownNow();
  }

  private <T> T call(CommandSpec<T> spec, String id, long amount, CommandBody<T> body) {
    return IdemEngine.of(runtime).execute(spec, new Object[] {id}, new Object[] {amount}, body);
  }

  private void insertPayment(String id) throws SQLException {
    try (PreparedStatement insert = runtime.currentConnection()
        .prepareStatement("INSERT INTO payments (id) VALUES (?)")) {
      insert.setString(1, id);
      insert.executeUpdate();
    }
  }

  private long payments() {
    return runtime.inTransaction(connection -> {
      try (var rs = connection.createStatement().executeQuery("SELECT COUNT(*) FROM payments")) {
        rs.next();
        return rs.getLong(1);
      }
    });
  }

  /** The completing UPDATE, alone or (PostgreSQL) carrying the commit, see {@link SqlDialect#completeAndCommitSql}. */
  private static boolean isCompletion(String sql) {
    return (sql.startsWith("UPDATE") || sql.startsWith("WITH completed AS (UPDATE")) && sql.contains("SET state = '" + SqlDialect.COMPLETED + "', result = ?, error_type"
        + " = ?");
  }

  /**
   * Three calls of a CLAIM command whose outcome cannot be recorded: the body runs once; every call gets
   * {@link IdempotencyOutcomeUnknownException}, also after the lease ended; the body's writes rolled back.
   */
  private <T> IdempotencyOutcomeUnknownException assertRunsOnceAndStaysUnknown(CommandSpec<T> spec, String key,
      CommandBody<T> effect) {
    AtomicInteger bodies = new AtomicInteger();
    CommandBody<T> body = () -> {
      bodies.incrementAndGet();
      insertPayment(key + "-" + bodies.get());
      return effect.run();
    };
    IdempotencyOutcomeUnknownException first =
        assertThrows(IdempotencyOutcomeUnknownException.class, () -> call(spec, key, 5, body));
    assertTrue(first.recorded(), first.getMessage());
    assertNotNull(first.getCause(), "the failure that kept the outcome from being recorded");
    IdempotencyOutcomeUnknownException second =
        assertThrows(IdempotencyOutcomeUnknownException.class, () -> call(spec, key, 5, body));
    clock.advance(Duration.ofSeconds(31)); // past the lease: still never taken over
    IdempotencyOutcomeUnknownException third =
        assertThrows(IdempotencyOutcomeUnknownException.class, () -> call(spec, key, 5, body));
    assertEquals(1, bodies.get(), "the body (the external effect) ran once");
    assertEquals(0, payments(), "the body's database writes rolled back");
    for (IdempotencyOutcomeUnknownException retry : List.of(second, third)) {
      assertEquals(spec.scope(), retry.scope());
      assertEquals(key, retry.key());
      assertEquals(first.since(), retry.since());
      assertEquals(first.problem(), retry.problem());
      assertTrue(retry.getMessage().contains("never run the body again"), retry.getMessage());
    }
    assertEquals(1, events.stream().filter(e -> e.equals("outcomeUnknown " + key)).count(), events.toString());
    assertFalse(events.contains("released " + key));
    assertFalse(events.contains("takenOver " + key));
    IdempotencyRecord record = runtime.inspect(spec.scope(), key).orElseThrow();
    assertEquals(IdempotencyRecord.State.OUTCOME_UNKNOWN, record.state());
    assertEquals(first.problem(), record.problem());
    assertEquals(IdempotencyRecord.StoredOutcome.NONE, record.storedOutcome());
    assertEquals(Instant.ofEpochMilli(first.since().toEpochMilli() + Duration.ofDays(1).toMillis()),
        record.expiresAt(), "expires by retention, counted from when it became unknown");
    return first;
  }

  // ---- 1. CLAIM never repeats the side effect when the result cannot be stored

  @Test
  void aResultThatCannotBeWrittenAsJsonNeverRunsTheBodyAgain() {
    IdempotencyOutcomeUnknownException e =
        assertRunsOnceAndStaysUnknown(CHARGE_UNWRITABLE, "u-1", Unwritable::new);
    assertTrue(e.problem().contains("its result could not be stored"), e.problem());
  }

  @Test
  void aResultLargerThanMaxResultSizeNeverRunsTheBodyAgain() {
    IdempotencyOutcomeUnknownException e = assertRunsOnceAndStaysUnknown(CHARGE, "u-2", () -> "x".repeat(2_000));
    assertInstanceOf(dev.idem.runtime.IdempotencyResultTooLargeException.class, e.getCause());
    // One account of what retries get (issue 26 §5.2): never "a retry runs the command again".
    assertTrue(e.problem().contains("2002 characters as JSON, more than the maximum result size of 1000"),
        e.problem());
    for (String message : List.of(e.getMessage(), e.getCause().getMessage())) {
      assertFalse(message.contains("runs the command again"), message);
      assertFalse(message.contains("until the result is smaller"), message);
    }
    assertTrue(e.getMessage().contains("never run the body again"), e.getMessage());
    // The record's result column holds idem's note, not a result: no result size; the note is the problem.
    IdempotencyRecord record = runtime.inspect(CHARGE.scope(), "u-2").orElseThrow();
    assertEquals(0, record.resultSize());
    assertEquals(e.problem(), record.problem());
  }

  /**
   * The completing UPDATE fails as on MariaDB when the result exceeds {@code max_allowed_packet} (error 1153; that
   * variable is global on the shared server, so the failure is injected at the statement).
   */
  @Test
  void aFailingCompletionStatementNeverRunsTheBodyAgain() {
    faults.failStatements(FaultContractTest::isCompletion, Effect.FAIL, 1);
    IdempotencyOutcomeUnknownException e = assertRunsOnceAndStaysUnknown(CHARGE, "u-3", () -> "charged");
    assertEquals(1, faults.fired.get());
    assertTrue(e.problem().contains("step: completion"), e.problem());
    assertEquals(1153, ((SQLException) e.getCause()).getErrorCode(), "the driver's error is the cause");
  }

  /**
   * The connection is cut at the completion: OUTCOME_UNKNOWN is recorded on a fresh connection. Without a pool
   * here, so that "fresh" is a new physical connection (a pool evicts a cut connection when its driver reports the
   * cut, SQLState 08; an in-process kill reports something else, and the pool would hand the dead one back).
   */
  @Test
  void aConnectionCutAtTheCompletionIsRecordedOnAFreshConnection() {
    withoutPool(() -> {
      faults.failStatements(FaultContractTest::isCompletion, Effect.KILL_CONNECTION, 1);
      assertConnectionCutAtTheCompletionIsRecorded();
    });
  }

  /** Runs {@code test} with a runtime on unpooled connections, so that a killed connection never returns. */
  private void withoutPool(Runnable test) {
    IdemRuntime pooled = runtime;
    FaultInjectingDataSource pooledFaults = faults;
    faults = new FaultInjectingDataSource(unpooled());
    runtime = IdemRuntime.builder().dataSource(faults.dataSource()).clock(clock).databaseTime(false)
        .listener(RecordingListener.keysOnly(IdempotencyListener.class, events)).build();
    try {
      test.run();
    } finally {
      runtime = pooled;
      faults = pooledFaults;
    }
  }

  private javax.sql.DataSource unpooled() {
    return (javax.sql.DataSource) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
        new Class<?>[] {javax.sql.DataSource.class}, (proxy, method, args) -> {
          if (!method.getName().equals("getConnection")) {
            throw new UnsupportedOperationException(method.getName());
          }
          return java.sql.DriverManager.getConnection(database.url(), database.user(), database.password());
        });
  }

  private void assertConnectionCutAtTheCompletionIsRecorded() {
    IdempotencyOutcomeUnknownException e = assertRunsOnceAndStaysUnknown(CHARGE, "u-4", () -> "charged");
    assertTrue(((SQLException) e.getCause()).getMessage().contains("connection was cut"), e.getCause().toString());
    assertFalse(e.getMessage().contains("Claiming"), "not reported as a failed claim: " + e.getMessage());
  }

  /**
   * The database refuses even the OUTCOME_UNKNOWN mark (on the claim's connection and on a fresh one): the caller
   * learns it was not recorded, and the runtime keeps trying in the background, so that a retry after the lease
   * still never reruns the body.
   */
  @Test
  void aMarkThatFailsToIsRecordedInTheBackgroundBeforeTheLeaseEnds() throws InterruptedException {
    faults.failStatements(sql -> isCompletion(sql) || sql.contains("'" + SqlDialect.OUTCOME_UNKNOWN + "'"),
        Effect.FAIL, 3);
    AtomicInteger bodies = new AtomicInteger();
    IdempotencyOutcomeUnknownException first = assertThrows(IdempotencyOutcomeUnknownException.class,
        () -> call(CHARGE, "u-5", 5, () -> "charged " + bodies.incrementAndGet()));
    assertFalse(first.recorded(), first.getMessage());
    assertEquals(3, faults.fired.get(), "completion, mark on the claim's connection, mark on a fresh one");
    assertEquals(2, first.getCause().getSuppressed().length, "both failed marks are attached");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (runtime.inspect("Faults.charge", "u-5").orElseThrow().state() != IdempotencyRecord.State.OUTCOME_UNKNOWN) {
      assertTrue(System.nanoTime() < deadline, "recorded in the background");
      Thread.sleep(50);
    }
    clock.advance(Duration.ofSeconds(31));
    assertThrows(IdempotencyOutcomeUnknownException.class,
        () -> call(CHARGE, "u-5", 5, () -> "charged " + bodies.incrementAndGet()));
    assertEquals(1, bodies.get());
  }

  // ---- Operators: resolve and forget an unknown outcome

  @Test
  void anOperatorResolvesAnUnknownOutcomeAndRetriesReplayIt() {
    assertRunsOnceAndStaysUnknown(CHARGE, "o-1", () -> "x".repeat(2_000));
    // The scope's command ran on this runtime: a result that would not replay is refused now.
    assertThrows(IllegalArgumentException.class, () -> runtime.resolve("Faults.charge", "o-1", "{not json"));
    assertThrows(IllegalArgumentException.class, () -> runtime.resolve("Faults.charge", "o-1", "[\"a\"]"));
    assertTrue(runtime.resolve("Faults.charge", "o-1", "\"ch_123 (from the gateway)\""));
    assertEquals("ch_123 (from the gateway)", call(CHARGE, "o-1", 5, () -> fail("must replay")));
    IdempotencyRecord record = runtime.inspect("Faults.charge", "o-1").orElseThrow();
    assertEquals(IdempotencyRecord.State.COMPLETED, record.state());
    assertEquals(IdempotencyRecord.StoredOutcome.RESULT, record.storedOutcome());
    assertEquals("\"ch_123 (from the gateway)\"".length(), record.resultSize());
    assertFalse(runtime.resolve("Faults.charge", "o-1", "\"again\""), "only OUTCOME_UNKNOWN records are resolved");
  }

  @Test
  void anOperatorForgetsAnUnknownOutcomeAndTheKeyRunsAgain() {
    assertRunsOnceAndStaysUnknown(CHARGE, "o-2", () -> "x".repeat(2_000));
    call(CHARGE, "o-3", 1, () -> "cached");
    assertTrue(runtime.forget("Faults.charge", "o-2"));
    assertTrue(runtime.forget("Faults.charge", "o-3"));
    assertFalse(runtime.forget("Faults.charge", "o-2"));
    assertTrue(runtime.inspect("Faults.charge", "o-2").isEmpty());
    assertEquals("ran again", call(CHARGE, "o-2", 5, () -> "ran again"));
    assertEquals("ran again too", call(CHARGE, "o-3", 1, () -> "ran again too"), "forget evicts the result cache");
    assertThrows(IllegalStateException.class, () -> runtime.runInTransaction(c -> runtime.forget("x", "y")));
  }

  @Test
  void inspectDescribesALiveClaim() throws Exception {
    assertEquals("done", call(CHARGE, "o-4", 1, () -> {
      IdempotencyRecord live = otherCaller.submit(() -> runtime.inspect("Faults.charge", "o-4").orElseThrow())
          .get(30, TimeUnit.SECONDS);
      assertEquals(IdempotencyRecord.State.IN_PROGRESS, live.state());
      assertNotNull(live.ownerToken());
      assertEquals(clock.instant().plusSeconds(30), live.leaseUntil());
      assertEquals(clock.instant(), live.createdAt());
      return "done";
    }));
  }

  // ---- 3. A stalled caller whose lease was taken over, and whose body then threw a business failure

  @Test
  void aStalledCallerWhoseBodyThrewABusinessFailureLearnsItLostTheLease() throws Exception {
    CardDeclinedException declined = new CardDeclinedException("declined", "do_not_honor");
    IdempotencyLeaseLostException lost = assertThrows(IdempotencyLeaseLostException.class,
        () -> call(CHARGE, "l-1", 9, () -> {
          clock.advance(Duration.ofSeconds(31)); // stalls past its lease; another caller takes over and succeeds
          assertEquals("new owner", otherCaller.submit(() -> call(CHARGE, "l-1", 9, () -> "new owner"))
              .get(30, TimeUnit.SECONDS));
          throw declined;
        }));
    assertSame(declined, lost.getCause(), "its own failure is attached as the cause");
    runtime.clearResultCache();
    assertEquals("new owner", call(CHARGE, "l-1", 9, () -> fail("replays")));
    assertTrue(events.contains("leaseLost l-1"));
  }

  // ---- 5. Errors that mislead

  @Test
  void aLostCommitAcknowledgementInATransactionIsReportedAsUnknownAndARetryReplays() {
    faults.failCommits(Effect.COMMIT_ACK_LOST, 1);
    AtomicInteger bodies = new AtomicInteger();
    CommandBody<String> body = () -> {
      insertPayment("t-" + bodies.incrementAndGet());
      return "moved";
    };
    IdempotencyCommitUnknownException e =
        assertThrows(IdempotencyCommitUnknownException.class, () -> call(TRANSFER, "k-1", 3, body));
    assertFalse(e.getMessage().contains("rolled back"), e.getMessage());
    assertTrue(e.getMessage().contains("outcome is unknown"), e.getMessage());
    assertTrue(e.getMessage().contains("replays the recorded result if it committed"), e.getMessage());
    assertEquals("Faults.transfer", e.scope());
    assertEquals("k-1", e.key());
    assertInstanceOf(IdempotencyStoreException.class, e);
    assertEquals("moved", call(TRANSFER, "k-1", 3, body), "it had committed: the retry replays");
    assertEquals(1, bodies.get());
    assertEquals(1, payments());
  }

  @Test
  void aFailedCommitInATransactionIsUnknownToTheCallerAndARetryRuns() {
    faults.failCommits(Effect.COMMIT_FAILS, 1);
    AtomicInteger bodies = new AtomicInteger();
    CommandBody<String> body = () -> {
      insertPayment("t-" + bodies.incrementAndGet());
      return "moved";
    };
    assertThrows(IdempotencyCommitUnknownException.class, () -> call(TRANSFER, "k-2", 3, body));
    assertEquals("moved", call(TRANSFER, "k-2", 3, body), "it had not committed: the retry runs");
    assertEquals(2, bodies.get());
    assertEquals(1, payments());
  }

  @Test
  void aFailedCommitOfInTransactionWorkIsReportedAsUnknown() {
    faults.failCommits(Effect.COMMIT_ACK_LOST, 1);
    IdempotencyCommitUnknownException e = assertThrows(IdempotencyCommitUnknownException.class,
        () -> runtime.runInTransaction(connection -> insertPayment("w-1")));
    assertFalse(e.getMessage().contains("rolled back"), e.getMessage());
    assertEquals(1, payments(), "it did commit");
  }

  @Test
  void aLostCommitAcknowledgementOfAClaimCompletionIsUnknownAndARetryReplays() {
    faults.failCommits(Effect.COMMIT_ACK_LOST, 1);
    AtomicInteger bodies = new AtomicInteger();
    IdempotencyCommitUnknownException e = assertThrows(IdempotencyCommitUnknownException.class,
        () -> call(CHARGE, "k-3", 1, () -> "charged " + bodies.incrementAndGet()));
    assertEquals("k-3", e.key());
    assertEquals("charged 1", call(CHARGE, "k-3", 1, () -> "charged " + bodies.incrementAndGet()));
    assertEquals(1, bodies.get());
  }

  @Test
  void aFailedCommitOfAClaimCompletionIsRecordedAsUnknownAndNeverRunsAgain() {
    faults.failCommits(Effect.COMMIT_FAILS, 1);
    IdempotencyOutcomeUnknownException e = assertRunsOnceAndStaysUnknown(CHARGE, "k-4", () -> "charged");
    assertTrue(e.problem().contains("commit"), e.problem());
  }

  /** A body that cut its own connection and then failed: its failure reaches the caller, not "closed". */
  @Test
  void aDeadClaimConnectionDoesNotReplaceTheBodysFailure() {
    withoutPool(this::assertDeadClaimConnectionDoesNotReplaceTheBodysFailure);
  }

  private void assertDeadClaimConnectionDoesNotReplaceTheBodysFailure() {
    IOException down = new IOException("gateway down");
    faults.failStatements(sql -> sql.startsWith("INSERT INTO payments"), Effect.KILL_CONNECTION, 1);
    IOException thrown = assertThrows(IOException.class, () -> call(CHARGE, "k-5", 1, () -> {
      try {
        insertPayment("k-5");
      } catch (SQLException cut) {
        down.addSuppressed(cut);
      }
      throw down;
    }));
    assertSame(down, thrown);
    assertTrue(thrown.getSuppressed().length > 1, "the release's failure is attached, not thrown: "
        + List.of(thrown.getSuppressed()));
  }

  /** The connection dies at the claim: the error names the claim step, with the driver's error as the cause. */
  @Test
  void aFailingClaimNamesItsStep() {
    // The claim's insert (on MariaDB behind SET STATEMENT … FOR, which gives it a lock wait of zero).
    faults.failStatements(sql -> sql.startsWith("INSERT") || sql.startsWith("SET STATEMENT"), Effect.FAIL, 1);
    IdempotencyStoreException e =
        assertThrows(IdempotencyStoreException.class, () -> call(CHARGE, "k-6", 1, () -> fail("must not run")));
    assertTrue(e.getMessage().contains("step: claim"), e.getMessage());
    assertEquals(1153, e.getCause().getErrorCode());
  }

  // ---- 7. Table names

  /** The longest table name the builder accepts gets its table and its expiry index on this database. */
  @Test
  void theLongestAcceptedTableNameGetsItsTableAndItsIndex() throws SQLException {
    int limit = SqlDialect.of(dev.idem.runtime.Dialect.valueOf(database().name())).maxIdentifierLength();
    StringBuilder name = new StringBuilder("idem_");
    java.util.Random random = new java.util.Random();
    while (name.length() < Math.min(limit - "_expires_idx".length(), 128)) {
      name.append((char) ('a' + random.nextInt(26)));
    }
    String table = name.toString();
    IdemRuntime longName = IdemRuntime.builder().dataSource(database.dataSource()).tableName(table).build();
    longName.createSchema();
    try (Connection connection = database.dataSource().getConnection()) {
      List<String> indexes = new java.util.ArrayList<>();
      for (String spelling : List.of(table, table.toUpperCase(java.util.Locale.ROOT))) {
        try (var rs = connection.getMetaData().getIndexInfo(connection.getCatalog(), connection.getSchema(),
            spelling, false, false)) {
          while (rs.next()) {
            if (rs.getString("INDEX_NAME") != null) {
              indexes.add(rs.getString("INDEX_NAME").toLowerCase(java.util.Locale.ROOT));
            }
          }
        }
      }
      assertTrue(indexes.contains(table + "_expires_idx"), table.length() + " characters: " + indexes);
    } finally {
      database.execute("DROP TABLE " + table);
    }
  }

  // ---- 6. Tampered or broken rows

  private void plantCompletedFailure(String scope, String key, String arguments) {
    long now = clock.millis();
    String fingerprint = Fingerprinter.fingerprint(CHARGE, new Object[] {5L});
    try (Connection connection = database.dataSource().getConnection();
        PreparedStatement insert = connection.prepareStatement("INSERT INTO idem_record (scope, idem_key, state,"
            + " fingerprint, result, error_type, created_at, expires_at) VALUES (?, ?, 'COMPLETED', ?, ?, ?, ?, ?)")) {
      insert.setString(1, scope);
      insert.setString(2, key);
      insert.setString(3, fingerprint);
      insert.setString(4, arguments);
      insert.setString(5, CARD_DECLINED.storedName());
      insert.setLong(6, now);
      insert.setLong(7, now + 60_000);
      insert.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void aClaimRecordInAStateNoClaimLeavesIsABrokenRecord() {
    long now = clock.millis();
    database.execute("INSERT INTO idem_record (scope, idem_key, state, fingerprint, created_at, expires_at) VALUES"
        + " ('Faults.charge', 'b-9', 'PENDING', '" + Fingerprinter.fingerprint(CHARGE, new Object[] {5L}) + "', "
        + now + ", " + (now + 60_000) + ")");
    IdempotencyBrokenRecordException e = assertThrows(IdempotencyBrokenRecordException.class,
        () -> call(CHARGE, "b-9", 5, () -> fail("must not run")));
    assertTrue(e.getMessage().contains("state PENDING"), e.getMessage());
    assertTrue(events.contains("brokenRecord b-9"));
  }

  @Test
  void aStoredBusinessFailureWithBrokenArgumentsIsABrokenRecordInBothModes() {
    String[] tampered = {null, "{not json", "[1, {\"a\": 2}]", "{\"message\": \"declined\"}"};
    for (CommandSpec<String> spec : List.of(CHARGE, TRANSFER)) {
      for (int i = 0; i < tampered.length; i++) {
        String key = "b-" + i;
        plantCompletedFailure(spec.scope(), key, tampered[i]);
        IdempotencyBrokenRecordException e = assertThrows(IdempotencyBrokenRecordException.class,
            () -> call(spec, key, 5, () -> fail("must not run")), spec.scope() + " " + tampered[i]);
        assertEquals(key, e.key());
        assertTrue(events.contains("brokenRecord " + key), events.toString());
        events.clear();
      }
    }
  }
}
