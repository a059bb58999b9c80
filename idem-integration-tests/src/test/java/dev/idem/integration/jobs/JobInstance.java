package dev.idem.integration.jobs;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.runtime.FencedUpdate;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.SingleFlightLockLostException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * One application instance, a JVM of its own: {@code main(mode, url, user, password, instance, skewMinutes,
 * seconds)}. Its runtime's clock is {@code skewMinutes} off the true time, as a host whose clock is wrong would be
 * (the OS clock of a test host is not the test's to step): idem must decide by the database's time whatever it says.
 * Every time it records is the database's, so that the parent compares executions of different JVMs on one clock.
 */
public final class JobInstance implements Jobs {

  static final String STARTED = "JOB STARTED";
  static final String WRITE = "FENCED WRITE ";
  static final String LOST = "LOCK LOST ";
  static final String FAILED = "JOB FAILED ";

  private final IdemRuntime runtime;
  private final HikariDataSource dataSource;
  private final String instance;
  private final String nowMicros;

  private JobInstance(IdemRuntime runtime, HikariDataSource dataSource, String instance, String url) {
    this.runtime = runtime;
    this.dataSource = dataSource;
    this.instance = instance;
    this.nowMicros = nowMicros(url);
  }

  /** The database's current time in microseconds, per statement (not the transaction's start). */
  static String nowMicros(String url) {
    return url.startsWith("jdbc:postgresql")
        ? "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000 AS BIGINT)"
        : "CAST(UNIX_TIMESTAMP(SYSDATE(6)) * 1000000 AS SIGNED)";
  }

  public static void main(String[] args) throws Exception {
    String mode = args[0];
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(args[1]);
    config.setUsername(args[2]);
    config.setPassword(args[3]);
    config.setMaximumPoolSize(3);
    config.setMinimumIdle(1);
    HikariDataSource dataSource = new HikariDataSource(config);
    Clock skewed = Clock.offset(Clock.systemUTC(), Duration.ofMinutes(Long.parseLong(args[5])));
    IdemRuntime runtime = IdemRuntime.builder().dataSource(dataSource).clock(skewed).build();
    JobInstance delegate = new JobInstance(runtime, dataSource, args[4], args[1]);
    Jobs jobs = new Jobs_Idempotent(delegate, runtime);
    switch (mode) {
      case "fire" -> {
        // Any scheduler will do: the JDK's, firing every 200 ms on every instance.
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        // A task that throws is never run again by the JDK's scheduler: report and carry on, as a job should.
        scheduler.scheduleAtFixedRate(() -> {
          try {
            jobs.fire();
          } catch (RuntimeException e) {
            System.out.println(FAILED + e);
            System.out.flush();
          }
        }, 0, 200, TimeUnit.MILLISECONDS);
        Thread.sleep(TimeUnit.SECONDS.toMillis(Long.parseLong(args[6])));
        scheduler.shutdown();
        scheduler.awaitTermination(30, TimeUnit.SECONDS);
      }
      case "hang" -> jobs.hang();
      case "pause" -> {
        try {
          jobs.pause();
        } catch (SingleFlightLockLostException e) {
          System.out.println(LOST + e.getMessage());
        }
      }
      default -> throw new IllegalArgumentException(mode);
    }
    runtime.close();
    dataSource.close();
    System.exit(0);
  }

  @Override
  public void fire() {
    long fence = runtime.fencingToken();
    try (Connection connection = dataSource.getConnection()) {
      long id = System.nanoTime();
      // locked_at: when this run's lease was taken, on the database's clock, as the lock row holds it while held.
      try (PreparedStatement start = connection.prepareStatement("INSERT INTO job_run (id, instance, fence,"
          + " started_us, locked_at) VALUES (?, ?, ?, " + nowMicros + ", (SELECT locked_at FROM idem_lock"
          + " WHERE name = 'it.fire'))")) {
        start.setLong(1, id);
        start.setString(2, instance);
        start.setLong(3, fence);
        start.executeUpdate();
      }
      Thread.sleep(ThreadLocalRandom.current().nextLong(20, 120)); // the work
      FencedUpdate.of("report", "fence").set("total", fence).where("id", 1).execute(connection, fence);
      try (PreparedStatement end = connection.prepareStatement("UPDATE job_run SET ended_us = " + nowMicros
          + " WHERE id = ?")) {
        end.setLong(1, id);
        end.executeUpdate();
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void hang() {
    System.out.println(STARTED + " " + runtime.fencingToken());
    System.out.flush();
    try {
      Thread.sleep(Long.MAX_VALUE);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void pause() {
    long fence = runtime.fencingToken();
    System.out.println(STARTED + " " + fence);
    System.out.flush();
    try {
      Thread.sleep(6_000); // the parent stops this JVM in here, past the 2 s lease
    } catch (InterruptedException e) {
      // A careless body carries on after the watchdog's interrupt: the fenced write must still be refused.
    }
    try (Connection connection = dataSource.getConnection()) {
      boolean applied = FencedUpdate.of("report", "fence").set("total", -fence).where("id", 1)
          .execute(connection, fence);
      System.out.println(WRITE + (applied ? "applied" : "rejected"));
      System.out.flush();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
