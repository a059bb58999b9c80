package dev.idem.examples;

import dev.idem.runtime.FencedUpdate;
import dev.idem.runtime.IdemRuntime;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcConnectionPool;

/**
 * Three application instances (three runtimes, each with the JDK's {@link ScheduledExecutorService}) fire the same
 * {@code @SingleFlight} job every 200 ms on embedded H2; one at a time runs it, at most once a second, and its
 * fenced write carries a token greater than every earlier run's:
 * {@code mvn -B -q -Prun-example -pl idem-examples -am verify -DskipTests -Dexample.mainClass=dev.idem.examples.ScheduledJobExample}.
 */
public final class ScheduledJobExample {

  /** One run of the job: who ran it, under which fencing token. */
  public record Run(String instance, long fencingToken) {}

  /** What the example observed; its test asserts on it. */
  public record Outcome(int fired, List<Run> runs, int overlapping, long reportVersion) {}

  public static void main(String[] args) throws InterruptedException {
    JdbcConnectionPool pool = JdbcConnectionPool.create("jdbc:h2:mem:scheduled-jobs;DB_CLOSE_DELAY=-1", "sa", "");
    try {
      Outcome outcome = run(pool, System.out, Duration.ofMillis(3_500));
      if (outcome.overlapping() != 0 || outcome.runs().size() > 4) {
        throw new IllegalStateException("the job ran more than once at a time: " + outcome);
      }
    } finally {
      pool.dispose();
    }
  }

  public static Outcome run(DataSource dataSource, PrintStream out, Duration runFor) throws InterruptedException {
    IdemRuntime setup = IdemRuntime.builder().dataSource(dataSource).build();
    setup.createSchema(); // idem's tables, including idem_lock
    execute(dataSource, "CREATE TABLE IF NOT EXISTS sales_report (id INT PRIMARY KEY, published INT NOT NULL,"
        + " fence BIGINT NOT NULL)");
    execute(dataSource, "MERGE INTO sales_report KEY (id) VALUES (1, 0, 0)");

    AtomicInteger fired = new AtomicInteger();
    AtomicInteger running = new AtomicInteger();
    AtomicInteger overlapping = new AtomicInteger();
    List<Run> runs = new CopyOnWriteArrayList<>();
    List<ScheduledExecutorService> schedulers = new ArrayList<>();
    out.printf("== Three instances fire the sales report every 200 ms for %d ms ==%n", runFor.toMillis());
    for (String instance : List.of("instance-a", "instance-b", "instance-c")) {
      IdemRuntime runtime = IdemRuntime.builder().dataSource(dataSource).build();
      ReportJobs jobs = new ReportJobs_Idempotent(() -> {
        if (running.incrementAndGet() != 1) {
          overlapping.incrementAndGet();
        }
        try {
          long token = runtime.fencingToken();
          // The report's row remembers the greatest token that wrote it: a run that lost its lock and writes late
          // is refused instead of overwriting a newer report.
          try (Connection connection = dataSource.getConnection()) {
            FencedUpdate.of("sales_report", "fence").set("published", runs.size() + 1).where("id", 1)
                .execute(connection, token);
          }
          runs.add(new Run(instance, token));
          out.printf("%s published the report under fencing token %d%n", instance, token);
        } catch (SQLException e) {
          throw new IllegalStateException(e);
        } finally {
          running.decrementAndGet();
        }
      }, runtime);
      ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
      scheduler.scheduleAtFixedRate(() -> {
        fired.incrementAndGet();
        jobs.publishSalesReport(); // returns at once on the instances that do not get the lock
      }, 0, 200, TimeUnit.MILLISECONDS);
      schedulers.add(scheduler);
    }
    Thread.sleep(runFor.toMillis());
    for (ScheduledExecutorService scheduler : schedulers) {
      scheduler.shutdown();
      scheduler.awaitTermination(10, TimeUnit.SECONDS);
    }
    long reportVersion = queryLong(dataSource, "SELECT published FROM sales_report WHERE id = 1");
    out.printf("fired %d times, ran %d times, one at a time; the report was published %d times%n", fired.get(),
        runs.size(), reportVersion);
    return new Outcome(fired.get(), List.copyOf(runs), overlapping.get(), reportVersion);
  }

  private static void execute(DataSource dataSource, String sql) {
    try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
      statement.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static long queryLong(DataSource dataSource, String sql) {
    try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
