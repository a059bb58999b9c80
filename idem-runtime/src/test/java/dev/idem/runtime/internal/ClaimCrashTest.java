package dev.idem.runtime.internal;

import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyInProgressException;
import dev.idem.runtime.IdempotencyListener;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * A caller that dies inside a CLAIM command's delegate leaves its claim in progress; once the lease ends, a retry
 * takes it over and runs the delegate exactly once more. The dying caller is a real child JVM, killed with
 * {@code destroyForcibly()}, so no finally block or shutdown hook can tidy up behind it.
 */
abstract class ClaimCrashTest {

  /** Where the child JVM connects; the parent uses {@link #dataSource()}. */
  abstract String url();

  abstract String user();

  abstract String password();

  abstract DataSource dataSource();

  @Test
  void aRetryAfterTheLeaseOfAKilledCallerRunsTheDelegateExactlyOnceMore() throws Exception {
    List<String> events = new CopyOnWriteArrayList<>();
    IdemRuntime runtime = IdemRuntime.builder()
        .dataSource(dataSource())
        .listener(new IdempotencyListener() {
          @Override public void takenOver(String scope, String key) { events.add("takenOver"); }
          @Override public void inFlightRejected(String scope, String key) { events.add("inFlightRejected"); }
        })
        .build();
    runtime.createSchema();
    String key = "crash-" + System.nanoTime();

    Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), ClaimCrashChild.class.getName(),
        url(), user(), password(), key)
        .redirectErrorStream(true)
        .start();
    try {
      awaitLine(child, ClaimCrashChild.STARTED);
      assertEquals("IN_PROGRESS", stateOf(key));
      // While the child's lease runs, the key is in flight.
      assertThrows(IdempotencyInProgressException.class,
          () -> IdemEngine.of(runtime).execute(ClaimCrashChild.CHARGE, new Object[] {key}, new Object[0], () -> fail()));
    } finally {
      child.destroyForcibly();
      assertTrue(child.waitFor(30, TimeUnit.SECONDS));
    }
    assertEquals("IN_PROGRESS", stateOf(key), "a crash leaves the claim in progress");

    AtomicInteger runs = new AtomicInteger();
    String result = null;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (result == null) {
      try {
        result = IdemEngine.of(runtime).execute(ClaimCrashChild.CHARGE, new Object[] {key}, new Object[0], () -> {
          runs.incrementAndGet();
          return "parent";
        });
      } catch (IdempotencyInProgressException e) {
        assertTrue(System.nanoTime() < deadline, "the lease never ended");
        Thread.sleep(Math.max(10, e.leaseEndsAt().toEpochMilli() - Instant.now().toEpochMilli() + 10));
      }
    }
    assertEquals("parent", result);
    assertEquals(1, runs.get());
    assertEquals("COMPLETED", stateOf(key));
    assertEquals(1, events.stream().filter("takenOver"::equals).count());
    assertEquals("parent", IdemEngine.of(runtime).execute(ClaimCrashChild.CHARGE, new Object[] {key}, new Object[0], () -> fail()));
  }

  private String stateOf(String key) throws Exception {
    try (Connection connection = dataSource().getConnection();
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery("SELECT state FROM idem_record WHERE idem_key = '" + key + "'")) {
      return rs.next() ? rs.getString(1) : null;
    }
  }

  /** Waits for the child to print {@code expected}; fails with everything it printed if it does not. */
  private static void awaitLine(Process child, String expected) throws Exception {
    CountDownLatch seen = new CountDownLatch(1);
    StringBuffer output = new StringBuffer();
    Thread reader = new Thread(() -> {
      try (BufferedReader lines = new BufferedReader(
          new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line = lines.readLine(); line != null; line = lines.readLine()) {
          output.append(line).append('\n');
          if (line.equals(expected)) {
            seen.countDown();
          }
        }
      } catch (java.io.IOException closed) {
        // the child was killed
      }
    }, "crash-child-output");
    reader.setDaemon(true);
    reader.start();
    if (!seen.await(60, TimeUnit.SECONDS)) {
      fail("The child JVM did not start the delegate; it printed:\n" + output);
    }
  }
}
