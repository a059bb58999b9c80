package dev.idem.integration.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.runtime.IdemRuntime;
import dev.idem.testing.DatabaseContract;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code @SingleFlight} across JVMs (issue 24's tests): child processes ({@link JobInstance}) run the generated
 * wrappers against one database. Three instances whose clocks are ten minutes apart fire the same job every 200 ms
 * for 30 s: no two executions overlap, fencing tokens strictly increase, lockAtLeastFor holds. A holder killed with
 * SIGKILL: another instance runs the job once the lease ends and not before. A holder paused with SIGSTOP past its
 * lease, taken over, resumed with SIGCONT: its late fenced write is rejected and it is told it lost the lock.
 */
@Tag("multi-jvm")
@Timeout(180)
abstract class SingleFlightAcrossJvmsTest extends DatabaseContract {

  private static final long LOCK_AT_LEAST_FOR_MILLIS = 500;

  private IdemRuntime runtime;
  private final List<Process> children = new ArrayList<>();
  /** Each child's output reader: a child's last lines are read only once its reader has seen the end. */
  private final Map<Process, Thread> readers = new ConcurrentHashMap<>();

  @Override
  protected void prepare() {
    runtime = IdemRuntime.builder().dataSource(database.dataSource()).build();
    runtime.createSchema();
    database.execute("CREATE TABLE job_run (id BIGINT NOT NULL PRIMARY KEY, instance VARCHAR(20) NOT NULL,"
        + " fence BIGINT NOT NULL, started_us BIGINT NOT NULL, ended_us BIGINT NULL, locked_at BIGINT NOT NULL)",
        "CREATE TABLE report (id INT NOT NULL PRIMARY KEY, total BIGINT NOT NULL, fence BIGINT NOT NULL)");
  }

  @BeforeEach
  void clear() {
    database.execute("DELETE FROM job_run", "DELETE FROM report", "DELETE FROM idem_lock",
        "INSERT INTO report (id, total, fence) VALUES (1, 0, 0)");
  }

  @AfterEach
  void killChildren() throws InterruptedException {
    for (Process child : children) {
      child.destroyForcibly();
      child.waitFor(30, TimeUnit.SECONDS);
    }
    children.clear();
  }

  @Test
  void threeJvmsWithSkewedClocksFiringEvery200MsNeverOverlap() throws Exception {
    List<List<String>> outputs = new ArrayList<>();
    int[] skews = {-10, 0, 10};
    for (int i = 0; i < skews.length; i++) {
      List<String> output = new CopyOnWriteArrayList<>();
      outputs.add(output);
      start(output, "fire", "jvm" + i, skews[i], 30);
    }
    for (Process child : children) {
      assertTrue(child.waitFor(90, TimeUnit.SECONDS), "the instance ended");
      assertEquals(0, child.exitValue(), outputs.toString());
    }
    for (List<String> output : outputs) {
      assertTrue(output.stream().noneMatch(line -> line.startsWith(JobInstance.FAILED)), output.toString());
    }
    List<long[]> runs = new ArrayList<>();
    Set<String> instances = new HashSet<>();
    try (Connection connection = database.dataSource().getConnection();
        PreparedStatement query = connection.prepareStatement(
            "SELECT fence, started_us, ended_us, instance, locked_at FROM job_run ORDER BY started_us");
        ResultSet rs = query.executeQuery()) {
      while (rs.next()) {
        long ended = rs.getLong(3);
        assertTrue(!rs.wasNull(), "every execution ended");
        runs.add(new long[] {rs.getLong(1), rs.getLong(2), ended, rs.getLong(5)});
        instances.add(rs.getString(4));
      }
    }
    // 30 s at one execution per 500 ms (lockAtLeastFor) at most: sixty; far fewer means the lock starved.
    assertTrue(runs.size() >= 30 && runs.size() <= 61, runs.size() + " executions, by " + instances);
    // Which instance wins each time depends on the phase of its timer against the lease's end: one may win every
    // time. What matters is that all three fired and none overlapped (the children exit 0 having fired throughout).
    for (int i = 1; i < runs.size(); i++) {
      long[] previous = runs.get(i - 1);
      long[] run = runs.get(i);
      assertTrue(run[1] >= previous[2], "execution " + i + " started " + (previous[2] - run[1])
          + " us before the previous one ended");
      assertTrue(run[0] > previous[0], "fencing token " + run[0] + " after " + previous[0]);
      // Each acquisition lockAtLeastFor after the previous one at the earliest, both on the database's clock.
      assertTrue(run[3] - previous[3] >= LOCK_AT_LEAST_FOR_MILLIS, "execution " + i + " took the lock "
          + (run[3] - previous[3]) + " ms after the previous one, within lockAtLeastFor (500 ms)");
    }
    assertEquals(runs.get(runs.size() - 1)[0], reportTotal(), "the last holder's fenced write stands");
  }

  @Test
  void afterSigkillOfTheHolderAnotherInstanceRunsOnceTheLeaseEndsAndNotBefore() throws Exception {
    List<String> output = new CopyOnWriteArrayList<>();
    Process holder = start(output, "hang", "holder", 0, 0);
    awaitLine(output, JobInstance.STARTED, holder);
    Thread.sleep(1_500); // the holder's watchdog renews its 3 s lease meanwhile
    holder.destroyForcibly(); // SIGKILL: no finally block, no shutdown hook, no release
    assertTrue(holder.waitFor(30, TimeUnit.SECONDS));
    long killedAt = databaseMillis();
    long leaseUntil = leaseUntil("it.hang");
    assertTrue(leaseUntil - killedAt <= 3_000, "a lease ends at most lockAtMostFor after the holder's last renewal");
    AtomicLong ranAt = new AtomicLong();
    while (ranAt.get() == 0) {
      runtime.runSingleFlight("it.hang", Duration.ofSeconds(3), Duration.ZERO, () -> ranAt.set(databaseMillis()));
      Thread.sleep(10);
    }
    assertTrue(ranAt.get() >= leaseUntil, "ran " + (leaseUntil - ranAt.get()) + " ms before the lease ended");
    assertTrue(ranAt.get() <= leaseUntil + 1_500, "ran " + (ranAt.get() - leaseUntil) + " ms after it ended");
  }

  @Test
  void aHolderPausedPastItsLeaseWritesLateAndIsRejectedAndToldItLostTheLock() throws Exception {
    List<String> output = new CopyOnWriteArrayList<>();
    Process holder = start(output, "pause", "paused", 0, 0);
    String started = awaitLine(output, JobInstance.STARTED, holder);
    long pausedToken = Long.parseLong(started.substring(started.lastIndexOf(' ') + 1));
    signal("STOP", holder);
    long takenToken = 0;
    try {
      AtomicLong token = new AtomicLong();
      while (token.get() == 0) {
        runtime.runSingleFlight("it.pause", Duration.ofSeconds(2), Duration.ZERO, () -> {
          token.set(runtime.fencingToken());
          try (Connection connection = database.dataSource().getConnection()) {
            assertTrue(dev.idem.runtime.FencedUpdate.of("report", "fence").set("total", runtime.fencingToken())
                .where("id", 1).execute(connection, runtime.fencingToken()), "the new holder's write applies");
          } catch (SQLException e) {
            throw new AssertionError(e);
          }
        });
        Thread.sleep(20);
      }
      takenToken = token.get();
    } finally {
      signal("CONT", holder);
    }
    assertTrue(takenToken > pausedToken);
    assertTrue(exited(holder, 60), output.toString());
    assertTrue(output.contains(JobInstance.WRITE + "rejected"), output.toString());
    assertTrue(output.stream().anyMatch(line -> line.startsWith(JobInstance.LOST + "The single-flight lock"
        + " 'it.pause' (fencing token " + pausedToken + ")")), output.toString());
    assertEquals(takenToken, reportTotal(), "the late write changed nothing");
  }

  private Process start(List<String> output, String mode, String instance, long skewMinutes, long seconds)
      throws IOException {
    Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx128m", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
        JobInstance.class.getName(), mode, database.url(), database.user(), database.password(), instance,
        String.valueOf(skewMinutes), String.valueOf(seconds))
        .redirectErrorStream(true)
        .start();
    children.add(child);
    Thread reader = new Thread(() -> {
      try (BufferedReader lines = new BufferedReader(
          new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line = lines.readLine(); line != null; line = lines.readLine()) {
          output.add(line);
        }
      } catch (IOException e) {
        output.add("READ FAILED " + e);
      }
    });
    reader.setDaemon(true);
    readers.put(child, reader);
    reader.start();
    return child;
  }

  /** Waits for the child to end and for its reader to have taken every line it printed. */
  private boolean exited(Process child, long seconds) throws InterruptedException {
    if (!child.waitFor(seconds, TimeUnit.SECONDS)) {
      return false;
    }
    Thread reader = readers.get(child);
    reader.join(TimeUnit.SECONDS.toMillis(10));
    return !reader.isAlive();
  }

  private static String awaitLine(List<String> output, String prefix, Process child) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      for (String line : output) {
        if (line.startsWith(prefix)) {
          return line;
        }
      }
      assertTrue(child.isAlive(), "the child ended: " + output);
      Thread.sleep(10);
    }
    throw new AssertionError("no line " + prefix + ": " + output);
  }

  private static void signal(String signal, Process child) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-" + signal, String.valueOf(child.pid())).inheritIO().start();
    assertEquals(0, kill.waitFor(), "kill -" + signal);
  }

  private long databaseMillis() {
    return queryLong("SELECT " + JobInstance.nowMicros(database.url()) + " / 1000");
  }

  private long leaseUntil(String name) {
    return queryLong("SELECT lease_until FROM idem_lock WHERE name = '" + name + "'");
  }

  private long reportTotal() {
    return queryLong("SELECT total FROM report WHERE id = 1");
  }

  private long queryLong(String sql) {
    try (Connection connection = database.dataSource().getConnection();
        PreparedStatement query = connection.prepareStatement(sql);
        ResultSet rs = query.executeQuery()) {
      assertTrue(rs.next(), sql);
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new AssertionError(e);
    }
  }
}
