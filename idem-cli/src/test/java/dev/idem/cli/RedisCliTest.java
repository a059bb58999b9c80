package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.cli.seed.Reminders;
import dev.idem.cli.seed.Reminders_Idempotent;
import dev.idem.redis.RedisRecordStore;
import dev.idem.runtime.Dialect;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyLeaseLostException;
import dev.idem.testing.IsolatedDatabase;
import dev.idem.testing.TestDatabase;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * {@code idem --redis URI}, in-process, on the records of a Redis-only command that real calls wrote to the shared
 * Redis at 127.0.0.1:6379 (under a key prefix of this class's own, removed afterwards with SCAN and UNLINK): a body
 * held running stands for a stuck owner.
 */
@Timeout(60)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedisCliTest {

  private static final String REDIS = "redis://127.0.0.1:6379";
  private static final Pattern OWNER = Pattern.compile("(?m)^owner\\s+(\\S+)$");

  private final String prefix = "idem-test:RedisCliTest:" + UUID.randomUUID().toString().substring(0, 8) + ":";
  private final ExecutorService caller = Executors.newSingleThreadExecutor();
  private final AtomicInteger executions = new AtomicInteger();
  private IsolatedDatabase database;
  private RedisClient client;
  private StatefulRedisConnection<String, String> connection;
  private RedisRecordStore store;
  private Reminders reminders;
  private volatile CountDownLatch finish = new CountDownLatch(0);
  private volatile CountDownLatch started = new CountDownLatch(0);

  @BeforeAll
  void connect() {
    database = IsolatedDatabase.open(TestDatabase.H2);
    client = RedisClient.create(RedisURI.create(REDIS));
    connection = client.connect();
  }

  @BeforeEach
  void application() {
    executions.set(0);
    store = RedisRecordStore.builder().keyPrefix(prefix).connect(RedisURI.create(REDIS));
    reminders = new Reminders_Idempotent((id, text) -> {
      int run = executions.incrementAndGet();
      started.countDown();
      try {
        finish.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return id + ":" + text + ":" + run;
    }, IdemRuntime.builder().dataSource(database.dataSource()).dialect(Dialect.H2).recordStore(store).build());
  }

  @AfterEach
  void cleanUp() {
    finish.countDown();
    store.close();
    RedisCommands<String, String> redis = connection.sync();
    ScanCursor cursor = ScanCursor.INITIAL;
    do {
      KeyScanCursor<String> page = redis.scan(cursor, ScanArgs.Builder.matches(prefix + "*").limit(500));
      if (!page.getKeys().isEmpty()) {
        redis.unlink(page.getKeys().toArray(new String[0]));
      }
      cursor = page;
    } while (!cursor.isFinished());
  }

  @AfterAll
  void close() {
    caller.shutdownNow();
    connection.close();
    client.shutdown();
    database.close();
  }

  private Cli.Run idem(String... args) {
    return Cli.inProcess(Map.of("IDEM_REDIS", REDIS, "IDEM_REDIS_PREFIX", prefix), args);
  }

  /** A call whose body runs until {@link #finish} opens. */
  private Future<String> stuck(String key) throws InterruptedException {
    finish = new CountDownLatch(1);
    started = new CountDownLatch(1);
    Future<String> call = caller.submit(() -> reminders.send(key, "hello"));
    assertTrue(started.await(10, TimeUnit.SECONDS));
    return call;
  }

  private static String owner(Cli.Run inspected) {
    Matcher owner = OWNER.matcher(inspected.out());
    assertTrue(owner.find(), inspected.toString());
    return owner.group(1);
  }

  private static String manifest() {
    try {
      return Path.of(RedisCliTest.class.getResource("/META-INF/idem/" + Reminders.class.getName() + ".json").toURI())
          .toString();
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void inspectAndInflightShowAStuckClaimWithItsOwner() throws Exception {
    String key = UUID.randomUUID().toString();
    Cli.Run none = idem("inspect", "Reminders.send", key);
    assertEquals(ExitCodes.NOT_FOUND, none.code(), none.toString());
    assertTrue(none.err().contains("in Redis redis://127.0.0.1:6379 (prefix " + prefix + ")"), none.toString());

    Future<String> call = stuck(key);
    Cli.Run inspected = idem("inspect", "Reminders.send", key);
    assertEquals(ExitCodes.OK, inspected.code(), inspected.toString());
    assertTrue(inspected.out().contains("IN_PROGRESS"), inspected.toString());
    String owner = owner(inspected);

    Cli.Run listed = idem("inflight", "Reminders.send", "--json");
    assertEquals(ExitCodes.OK, listed.code(), listed.toString());
    assertTrue(listed.out().contains("\"key\" : \"" + key + "\"") && listed.out().contains(owner), listed.toString());

    finish.countDown();
    String result = call.get(10, TimeUnit.SECONDS);
    Cli.Run completed = idem("inspect", "Reminders.send", key, "--json");
    assertTrue(completed.out().contains("\"state\" : \"COMPLETED\"")
        && completed.out().contains("\"result\" : \"\\\"" + result + "\\\"\""), completed.toString());
    Cli.Run empty = idem("inflight", "Reminders.send");
    assertEquals(ExitCodes.OK, empty.code(), empty.toString());
    assertTrue(empty.out().startsWith("No claim in flight for Reminders.send"), empty.toString());
  }

  @Test
  void resolveSettlesAStuckClaimOnlyWithItsOwnerToken() throws Exception {
    String key = UUID.randomUUID().toString();
    Future<String> call = stuck(key);
    String owner = owner(idem("inspect", "Reminders.send", key));

    Cli.Run noOwner = idem("resolve", "Reminders.send", key, "--result", "\"sent by hand\"", "--manifest",
        manifest());
    assertEquals(ExitCodes.USAGE, noOwner.code(), noOwner.toString());
    Cli.Run wrongOwner = idem("resolve", "Reminders.send", key, "--owner", "someone-else", "--result",
        "\"sent by hand\"", "--manifest", manifest());
    assertEquals(ExitCodes.WRONG_STATE, wrongOwner.code(), wrongOwner.toString());
    Cli.Run badResult = idem("resolve", "Reminders.send", key, "--owner", owner, "--result", "42", "--manifest",
        manifest());
    assertEquals(ExitCodes.RESULT_REFUSED, badResult.code(), badResult.toString());

    Cli.Run resolved = idem("resolve", "Reminders.send", key, "--owner", owner, "--result", "\"sent by hand\"",
        "--manifest", manifest());
    assertEquals(ExitCodes.OK, resolved.code(), resolved.toString());
    assertEquals("sent by hand", reminders.send(key, "hello"), "retries replay the resolved outcome");

    finish.countDown();
    ExecutionException late = assertThrows(ExecutionException.class, () -> call.get(10, TimeUnit.SECONDS));
    assertInstanceOf(IdempotencyLeaseLostException.class, late.getCause());
    assertEquals(1, executions.get());
  }

  @Test
  void releaseLetsTheNextCallRunAndForgetDeletesAnyRecord() throws Exception {
    String key = UUID.randomUUID().toString();
    Future<String> call = stuck(key);
    String owner = owner(idem("inspect", "Reminders.send", key));
    Cli.Run released = idem("resolve", "Reminders.send", key, "--owner", owner, "--release");
    assertEquals(ExitCodes.OK, released.code(), released.toString());
    Cli.Run again = idem("resolve", "Reminders.send", key, "--owner", owner, "--release");
    assertEquals(ExitCodes.NOT_FOUND, again.code(), again.toString());
    finish.countDown();
    assertThrows(ExecutionException.class, () -> call.get(10, TimeUnit.SECONDS));
    assertEquals(key + ":hello:2", reminders.send(key, "hello"), "runs again after the release");

    Cli.Run forgotten = idem("forget", "Reminders.send", key);
    assertEquals(ExitCodes.OK, forgotten.code(), forgotten.toString());
    assertTrue(forgotten.out().contains("it was COMPLETED"), forgotten.toString());
    assertEquals(key + ":hello:3", reminders.send(key, "hello"));
  }

  @Test
  void databaseCommandsRefuseRedisAndInflightNeedsIt() {
    Cli.Run stats = idem("stats");
    assertEquals(ExitCodes.USAGE, stats.code(), stats.toString());
    assertTrue(stats.err().contains("works on the database's table"), stats.toString());
    Cli.Run inflight = Cli.inProcess(Map.of(), "inflight", "Reminders.send");
    assertEquals(ExitCodes.USAGE, inflight.code(), inflight.toString());
    Cli.Run unreachable = Cli.inProcess(Map.of(), "inspect", "Reminders.send", "k", "--redis",
        "redis://:s3cret@127.0.0.1:1");
    assertEquals(ExitCodes.DATABASE, unreachable.code(), unreachable.toString());
    assertTrue(unreachable.err().startsWith("idem inspect: Redis error:") && !unreachable.err().contains("s3cret"),
        unreachable.toString());
  }
}
