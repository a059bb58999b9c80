package dev.idem.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.InFlight;
import dev.idem.Mode;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyException;
import dev.idem.runtime.IdempotencyKeyReusedException;
import dev.idem.runtime.IdempotentResult;
import dev.idem.testing.DatabaseContract;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link IdemEngine#executeWithOutcome}, called as generated code calls it for a method returning
 * {@code IdempotentResult<T>}: the caller learns whether it got a replay, when the command first ran and when its
 * record expires, in both modes, whether the record comes from the table or from the local cache.
 */
abstract class OutcomeContractTest extends DatabaseContract {

  record Receipt(String paymentId, long amountCents) {}

  private static final Instant START = Instant.parse("2030-01-01T00:00:00Z");
  private static final Duration RETENTION = Duration.ofHours(2);

  private IdemRuntime runtime;

  @Override
  protected void prepare() {
    runtime = IdemRuntime.builder().dataSource(counting).clock(clock).databaseTime(false).build();
    runtime.createSchema();
  }

  @BeforeEach
  void clear() {
    database.execute("DELETE FROM idem_record");
    runtime.clearResultCache();
    clock.set(START);
  }

  private static CommandSpec<Receipt> spec(Mode mode) {
    return CommandSpec.builder("Outcomes.pay." + mode, ResultType.of(Receipt.class))
        .retention(RETENTION).keyParts("requestId").payload("amountCents").mode(mode)
        .onInFlight(InFlight.FAIL).build();
  }

  /** What a generated {@code IdempotentResult<Receipt> pay(@IdempotencyKey String requestId, long amountCents)} does. */
  private IdempotentResult<Receipt> pay(CommandSpec<Receipt> spec, String requestId, long amountCents,
                                        AtomicInteger calls) {
    return IdemEngine.of(runtime).executeWithOutcome(spec, new Object[] {requestId}, new Object[] {amountCents},
        () -> {
          calls.incrementAndGet();
          return IdempotentResult.of(new Receipt("p-" + requestId, amountCents));
        });
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void firstCallIsNotAReplayAndCarriesItsRecordsTimes(Mode mode) {
    AtomicInteger calls = new AtomicInteger();
    IdempotentResult<Receipt> first = pay(spec(mode), "r-1", 500, calls);

    assertEquals(new Receipt("p-r-1", 500), first.value());
    assertFalse(first.replayed());
    assertEquals(START, first.firstExecutedAt());
    assertEquals(START.plus(RETENTION), first.expiresAt());
    assertEquals(1, calls.get());
    assertEquals(START.toEpochMilli(), storedMillis("created_at", "r-1"));
    assertEquals(START.plus(RETENTION).toEpochMilli(), storedMillis("expires_at", "r-1"));
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void replayFromTheCacheCarriesTheFirstCallsTimes(Mode mode) {
    AtomicInteger calls = new AtomicInteger();
    pay(spec(mode), "r-2", 500, calls);
    clock.advance(Duration.ofMinutes(5));
    counting.reset();

    IdempotentResult<Receipt> replay = pay(spec(mode), "r-2", 500, calls);

    assertEquals(0, counting.connectionsObtained(), "answered from the local cache");
    assertReplayOfTheFirstCall(replay, calls);
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void replayFromTheTableCarriesTheFirstCallsTimes(Mode mode) {
    AtomicInteger calls = new AtomicInteger();
    pay(spec(mode), "r-3", 500, calls);
    clock.advance(Duration.ofMinutes(5));
    runtime.clearResultCache(); // as another instance, or after a restart, would see it
    counting.reset();

    IdempotentResult<Receipt> replay = pay(spec(mode), "r-3", 500, calls);

    assertTrue(counting.statementsExecuted() > 0, "read from the table");
    assertReplayOfTheFirstCall(replay, calls);
  }

  private static void assertReplayOfTheFirstCall(IdempotentResult<Receipt> replay, AtomicInteger calls) {
    assertEquals(new Receipt("p-" + replay.value().paymentId().substring(2), 500), replay.value());
    assertTrue(replay.replayed());
    assertEquals(START, replay.firstExecutedAt());
    assertEquals(START.plus(RETENTION), replay.expiresAt());
    assertEquals(1, calls.get(), "the body ran once");
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void afterExpiryTheKeyRunsAnewAndIsNotAReplay(Mode mode) {
    AtomicInteger calls = new AtomicInteger();
    pay(spec(mode), "r-4", 500, calls);
    Instant later = START.plus(RETENTION).plusSeconds(1);
    clock.set(later);

    IdempotentResult<Receipt> again = pay(spec(mode), "r-4", 500, calls);

    assertFalse(again.replayed());
    assertEquals(later, again.firstExecutedAt());
    assertEquals(later.plus(RETENTION), again.expiresAt());
    assertEquals(2, calls.get());
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void reusedKeyIsRejectedAsWithAPlainResult(Mode mode) {
    AtomicInteger calls = new AtomicInteger();
    pay(spec(mode), "r-5", 500, calls);
    runtime.clearResultCache();

    assertThrows(IdempotencyKeyReusedException.class, () -> pay(spec(mode), "r-5", 501, calls));
    assertEquals(1, calls.get());
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aNullWrapperFailsClearlyAndLeavesNoRecord(Mode mode) {
    IdempotencyException failure = assertThrows(IdempotencyException.class, () -> IdemEngine.of(runtime)
        .executeWithOutcome(spec(mode), new Object[] {"r-6"}, new Object[] {1L}, () -> null));

    assertTrue(failure.getMessage().contains("returned null instead of an IdempotentResult"), failure.getMessage());
    assertNull(storedMillisOrNull("created_at", "r-6"), "no record is left behind");
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aNullValueIsStoredAndReplayed(Mode mode) {
    CommandSpec<Receipt> spec = spec(mode);
    Object[] key = {"r-7"};
    Object[] payload = {1L};
    IdempotentResult<Receipt> first =
        IdemEngine.of(runtime).executeWithOutcome(spec, key, payload, () -> IdempotentResult.of(null));
    runtime.clearResultCache();
    IdempotentResult<Receipt> replay =
        IdemEngine.of(runtime).executeWithOutcome(spec, key, payload, () -> IdempotentResult.of(null));

    assertNull(first.value());
    assertFalse(first.replayed());
    assertNull(replay.value());
    assertTrue(replay.replayed());
  }

  @org.junit.jupiter.api.Test
  void insideTheCallersTransactionTheReplaySignalWorksToo() {
    AtomicInteger calls = new AtomicInteger();
    CommandSpec<Receipt> spec = spec(Mode.TRANSACTIONAL);
    IdempotentResult<Receipt> first = runtime.inTransaction(connection -> pay(spec, "r-8", 500, calls));
    runtime.clearResultCache();
    IdempotentResult<Receipt> replay = runtime.inTransaction(connection -> pay(spec, "r-8", 500, calls));

    assertFalse(first.replayed());
    assertTrue(replay.replayed());
    assertEquals(first.firstExecutedAt(), replay.firstExecutedAt());
    assertEquals(1, calls.get());
  }

  private long storedMillis(String column, String key) {
    Long value = storedMillisOrNull(column, key);
    if (value == null) {
      throw new AssertionError("no record for " + key);
    }
    return value;
  }

  private Long storedMillisOrNull(String column, String key) {
    try (Connection connection = database.dataSource().getConnection();
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery("SELECT " + column + " FROM idem_record WHERE idem_key = '" + key + "'")) {
      return rs.next() ? rs.getLong(1) : null;
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aCachedReplaysValidityHoldsUntilTheRecordExpires(Mode mode) {
    AtomicInteger calls = new AtomicInteger();
    IdempotentResult<Receipt> first = pay(spec(mode), "r-v1", 500, calls);
    assertFalse(first.replayValidity().replayAgain(), "a first execution carries no replay validity");
    IdempotentResult<Receipt> replay = pay(spec(mode), "r-v1", 500, calls);

    assertTrue(replay.replayValidity().replayAgain(), "the cache still holds the record");
    clock.set(START.plus(RETENTION).minusMillis(1));
    assertTrue(replay.replayValidity().replayAgain(), "one millisecond before the expiry");
    clock.set(START.plus(RETENTION));
    assertFalse(replay.replayValidity().replayAgain(), "expired exactly when the cache drops the record");
    clock.set(START);
    assertFalse(replay.replayValidity().replayAgain(), "the cache dropped it: over for good");
    assertEquals(1, calls.get());
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void replayingAgainCountsAsAReplayForTheListeners(Mode mode) {
    AtomicInteger replays = new AtomicInteger();
    IdemRuntime listened = IdemRuntime.builder().dataSource(counting).clock(clock).databaseTime(false)
        .listener(new dev.idem.runtime.IdempotencyListener() {
          @Override
          public void replayed(String scope, String key) {
            replays.incrementAndGet();
          }
        }).build();
    CommandSpec<Receipt> spec = spec(mode);
    IdemEngine engine = IdemEngine.of(listened);
    IdempotentResult<Receipt> replay = null;
    for (int i = 0; i < 2; i++) {
      replay = engine.executeWithOutcome(spec, new Object[] {"r-v5"}, new Object[] {500L},
          () -> IdempotentResult.of(new Receipt("p-r-v5", 500)));
    }
    assertEquals(1, replays.get());

    assertTrue(replay.replayValidity().replayAgain());
    assertEquals(2, replays.get(), "a replay answered above the runtime is still a replay");
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aCachedReplaysValidityEndsWhenTheKeyIsForgottenOrTheCacheCleared(Mode mode) {
    AtomicInteger calls = new AtomicInteger();
    pay(spec(mode), "r-v2", 500, calls);
    IdempotentResult<Receipt> forgotten = pay(spec(mode), "r-v2", 500, calls);
    pay(spec(mode), "r-v3", 500, calls);
    IdempotentResult<Receipt> cleared = pay(spec(mode), "r-v3", 500, calls);

    assertTrue(runtime.forget("Outcomes.pay." + mode, "r-v2"));
    assertFalse(forgotten.replayValidity().replayAgain(), "an operator's forget ends it");
    assertTrue(cleared.replayValidity().replayAgain());
    runtime.clearResultCache();
    assertFalse(cleared.replayValidity().replayAgain(), "a cleared cache ends it");
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aReplayReadFromTheTableCarriesNoValidityAndAnotherRecordEndsTheOld(Mode mode) {
    AtomicInteger calls = new AtomicInteger();
    pay(spec(mode), "r-v4", 500, calls);
    IdempotentResult<Receipt> cached = pay(spec(mode), "r-v4", 500, calls);
    runtime.clearResultCache();

    IdempotentResult<Receipt> fromTable = pay(spec(mode), "r-v4", 500, calls);

    assertTrue(fromTable.replayed());
    assertFalse(fromTable.replayValidity().replayAgain(), "not served from the local cache");
    assertFalse(cached.replayValidity().replayAgain(), "the cache now holds another instance of the record");
    assertTrue(pay(spec(mode), "r-v4", 500, calls).replayValidity().replayAgain());
  }
}
