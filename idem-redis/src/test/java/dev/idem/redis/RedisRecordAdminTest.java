package dev.idem.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.runtime.Dialect;
import dev.idem.runtime.IdemAdmin;
import dev.idem.runtime.IdemManifest;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyLeaseLostException;
import dev.idem.runtime.IdempotencyRecord;
import dev.idem.runtime.RecordStore;
import dev.idem.testing.DatabaseContract;
import dev.idem.testing.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The operator calls on Redis-only records ({@link RedisRecordAdmin}) on the shared Redis (a key prefix of this
 * class's own), against claims that real calls hold: a body kept running stands for a stuck owner.
 */
@Timeout(60)
class RedisRecordAdminTest extends DatabaseContract {

  private static final String SCOPE = "redis.reminders.send";

  private RedisTestKeys keys;
  private RedisRecordStore store;
  private RedisRecordAdmin admin;
  private Reminders node;
  private final AtomicInteger executions = new AtomicInteger();
  private volatile CountDownLatch release = new CountDownLatch(0);
  private final CountDownLatch[] started = {new CountDownLatch(1)};
  private final ExecutorService stuckCaller = Executors.newSingleThreadExecutor();

  @Override
  protected TestDatabase database() {
    return TestDatabase.H2;
  }

  @Override
  protected void prepare() {
    keys = new RedisTestKeys(getClass().getSimpleName());
  }

  @BeforeEach
  void connect() {
    executions.set(0);
    release = new CountDownLatch(0);
    store = RedisRecordStore.builder().keyPrefix(keys.prefix).connect(RedisTestKeys.SHARED);
    admin = RedisRecordAdmin.builder().keyPrefix(keys.prefix).connect(RedisTestKeys.SHARED);
    node = new Reminders_Idempotent(new SameBodyReminders(this::send),
        IdemRuntime.builder().dataSource(database.dataSource()).dialect(Dialect.H2).recordStore(store).build());
  }

  @AfterEach
  void close() {
    release.countDown();
    store.close();
    admin.close();
    keys.clean();
  }

  @AfterAll
  void closeKeys() {
    stuckCaller.shutdownNow();
    keys.close();
  }

  /** The body of every command: counts, then runs until {@link #release} opens. */
  private String send(String reminderId, String text) {
    int run = executions.incrementAndGet();
    started[0].countDown();
    try {
      release.await(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return reminderId + ":" + text + ":" + run;
  }

  /** A call whose body runs until {@link #release} opens: its claim is in flight meanwhile. */
  private Future<String> stuck(String key) throws InterruptedException {
    release = new CountDownLatch(1);
    started[0] = new CountDownLatch(1);
    Future<String> call = stuckCaller.submit(() -> node.send(key, "hello"));
    assertTrue(started[0].await(10, TimeUnit.SECONDS), "the body started");
    return call;
  }

  private static IdemManifest.Command sendCommand() {
    return IdemManifest.find(IdemManifest.onClassPath(RedisRecordAdminTest.class.getClassLoader()), SCOPE)
        .orElseThrow();
  }

  @Test
  void readShowsTheClaimInFlightWithItsOwnerThenTheCompletedOutcome() throws Exception {
    String key = UUID.randomUUID().toString();
    assertTrue(admin.read(SCOPE, key).isEmpty());
    Future<String> call = stuck(key);

    IdemAdmin.StoredRecord claim = admin.read(SCOPE, key).orElseThrow();
    assertEquals(IdempotencyRecord.State.IN_PROGRESS, claim.record().state());
    assertNotNull(claim.record().ownerToken());
    assertNotNull(claim.fingerprint());
    Instant leaseUntil = claim.record().leaseUntil();
    assertTrue(leaseUntil.isAfter(Instant.now().plusSeconds(20)) && leaseUntil.isBefore(Instant.now().plusSeconds(35)),
        "lease PT30S: " + leaseUntil);

    release.countDown();
    String result = call.get(10, TimeUnit.SECONDS);
    IdemAdmin.StoredRecord completed = admin.read(SCOPE, key).orElseThrow();
    assertEquals(IdempotencyRecord.State.COMPLETED, completed.record().state());
    assertEquals(IdempotencyRecord.StoredOutcome.RESULT, completed.record().storedOutcome());
    assertEquals("\"" + result + "\"", completed.storedJson());
    assertEquals(claim.fingerprint(), completed.fingerprint());
    assertEquals(sendCommand().resultShapeHash(), completed.resultShape());
    assertTrue(completed.record().expiresAt().isAfter(Instant.now().plus(Duration.ofMinutes(9))));
  }

  @Test
  void inFlightListsTheScopesClaimsOnlyFromEverySCANPage() throws Exception {
    // 1,200 keys of the scope (more than two SCAN pages), three of them claims; a claim of another scope.
    String run = UUID.randomUUID().toString().substring(0, 8) + "-";
    for (int i = 0; i < 1_197; i++) {
      keys.redis().set(store.redisKey(SCOPE, run + "done-" + i), RedisFrontTier.encode(
          new dev.idem.runtime.FrontTier.Completed("f", "\"x\"", null, null, 0, 0)));
    }
    for (int i = 0; i < 3; i++) {
      assertEquals(RecordStore.Found.CLAIMED,
          store.claim(SCOPE, run + "claimed-" + i, "owner-" + i, "f", Duration.ofMinutes(1)).found());
    }
    store.claim("redis.reminders.sendWaiting", run + "other", "owner-x", "f", Duration.ofMinutes(1));

    List<IdemAdmin.StoredRecord> claims = admin.inFlight(SCOPE, 100);
    assertEquals(List.of(run + "claimed-0", run + "claimed-1", run + "claimed-2"),
        claims.stream().map(stored -> stored.record().key()).sorted().toList());
    claims.forEach(stored -> assertEquals("owner-" + stored.record().key().substring(run.length() + 8),
        stored.record().ownerToken()));
    assertEquals(2, admin.inFlight(SCOPE, 2).size());
  }

  @Test
  void releaseIsFencedByTheOwnerTokenAndLetsTheNextCallRun() throws Exception {
    String key = UUID.randomUUID().toString();
    Future<String> stuckCall = stuck(key);
    String owner = admin.read(SCOPE, key).orElseThrow().record().ownerToken();

    assertFalse(admin.release(SCOPE, key, "someone-else"), "another token: nothing changes");
    assertEquals(IdempotencyRecord.State.IN_PROGRESS, admin.read(SCOPE, key).orElseThrow().record().state());
    assertTrue(admin.release(SCOPE, key, owner));
    assertTrue(admin.read(SCOPE, key).isEmpty());
    assertFalse(admin.release(SCOPE, key, owner), "released once");

    // The stuck owner finishes late: its completion finds no claim of its own and is not stored.
    release.countDown();
    ExecutionException late = assertThrows(ExecutionException.class, () -> stuckCall.get(10, TimeUnit.SECONDS));
    assertInstanceOf(IdempotencyLeaseLostException.class, late.getCause());
    assertEquals("" + key + ":hello:2", node.send(key, "hello"), "the next call runs the command again");
  }

  @Test
  void resolveCompletesTheStuckClaimFencedByItsOwnerAndRetriesReplayIt() throws Exception {
    String key = UUID.randomUUID().toString();
    Future<String> stuckCall = stuck(key);
    String owner = admin.read(SCOPE, key).orElseThrow().record().ownerToken();
    IdemManifest.Command command = sendCommand();

    assertThrows(IllegalArgumentException.class, () -> admin.resolve(SCOPE, key, owner, "{\"not\":\"a string\"}",
        command), "checked against the result shape first");
    assertFalse(admin.resolve(SCOPE, key, "someone-else", "\"settled by hand\"", command));
    assertEquals(IdempotencyRecord.State.IN_PROGRESS, admin.read(SCOPE, key).orElseThrow().record().state());

    assertTrue(admin.resolve(SCOPE, key, owner, "\"settled by hand\"", command));
    IdemAdmin.StoredRecord resolved = admin.read(SCOPE, key).orElseThrow();
    assertEquals(IdempotencyRecord.State.COMPLETED, resolved.record().state());
    long ttl = keys.redis().pttl(store.redisKey(SCOPE, key));
    assertTrue(ttl > 9 * 60_000 && ttl <= 10 * 60_000, "the command's retention PT10M: " + ttl);
    assertEquals("settled by hand", node.send(key, "hello"), "a retry replays the resolved outcome");
    assertFalse(admin.resolve(SCOPE, key, owner, "\"again\"", command), "no claim any more");

    release.countDown();
    ExecutionException late = assertThrows(ExecutionException.class, () -> stuckCall.get(10, TimeUnit.SECONDS));
    assertInstanceOf(IdempotencyLeaseLostException.class, late.getCause());
    assertEquals(1, executions.get());
    assertEquals("settled by hand", node.send(key, "hello"));
  }

  @Test
  void forgetRemovesACompletedRecordSoTheNextCallRunsAgain() {
    String key = UUID.randomUUID().toString();
    assertEquals(key + ":hello:1", node.send(key, "hello"));
    assertTrue(admin.forget(SCOPE, key));
    assertFalse(admin.forget(SCOPE, key));
    assertEquals(Optional.empty(), admin.read(SCOPE, key));
    assertEquals(key + ":hello:2", node.send(key, "hello"));
  }

  @Test
  void aValueIdemDidNotWriteIsNamedNotGuessed() {
    String key = UUID.randomUUID().toString();
    keys.redis().set(store.redisKey(SCOPE, key), "hand-written");
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> admin.read(SCOPE, key));
    assertTrue(e.getMessage().contains("UNLINK " + store.redisKey(SCOPE, key)), e.getMessage());
  }
}
