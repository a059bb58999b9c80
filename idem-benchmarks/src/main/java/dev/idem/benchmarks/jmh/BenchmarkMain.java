package dev.idem.benchmarks.jmh;

import dev.idem.testing.TestDatabase;
import dev.idem.benchmarks.compile.CompileBenchmark;
import dev.idem.benchmarks.http.HttpBenchmark;
import dev.idem.benchmarks.report.Figure;
import dev.idem.benchmarks.report.MachineInfo;
import dev.idem.benchmarks.report.MarkdownReport;
import dev.idem.benchmarks.report.ReportInput;
import dev.idem.benchmarks.report.ReportInput.DatabaseDescription;
import dev.idem.benchmarks.report.ReportInput.JmhSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * The whole suite in one JVM: statement counts, the compile-time benchmark, the interleaved ratios (the targets'
 * verdicts), then JMH over every operation, database and thread count, the HTTP benchmark, and finally the Markdown
 * report. System properties:
 * <ul>
 *   <li>{@code bench.quick=true}: a smoke run of a few minutes (short iterations, fewer compile rounds);
 *   <li>{@code bench.databases}: which of H2, PostgreSQL, MariaDB (unreachable servers are left out, noted);
 *   <li>{@code bench.operations}: a subset of the {@link IdemBenchmarks} method names, for development;
 *   <li>{@code bench.report}: where to write the report.
 *   <li>{@code bench.paired=false}: leaves out the interleaved ratios ({@link PairedBenchmark}, whose {@code paired.*}
 *       properties apply);
 *   <li>{@code bench.consumerReport}: a Markdown section written by the consumer benchmark earlier, included.
 *   <li>{@code bench.retentionReport}: a Markdown section written by the retention benchmark earlier, included.
 *   <li>{@code bench.http=false}: leaves out the HTTP benchmark ({@link HttpBenchmark}, on PostgreSQL; its
 *       {@code bench.http.*} properties apply).
 * </ul>
 */
public final class BenchmarkMain {

  static final String COMMAND = "mvn -q -Pbench -pl idem-benchmarks -am verify -DskipTests -Dbench.run=jmh";
  private static final List<Integer> THREADS = List.of(1, 8);
  private static final List<String> FORK_JVM_ARGS = List.of("-Xms1g", "-Xmx1g");

  private BenchmarkMain() {}

  public static void main(String[] args) throws Exception {
    boolean quick = Boolean.getBoolean("bench.quick");
    // Only the compile-time section, e.g. after a change to the processor alone, to be set into the full report.
    boolean compileOnly = Boolean.getBoolean("bench.compileOnly");
    // A quick run never overwrites the committed report.
    Path report = Path.of(quick
        ? System.getProperty("bench.quickReport", "target/BENCHMARKS-quick.md")
        : System.getProperty("bench.report", "BENCHMARKS.md")).toAbsolutePath().normalize();
    Instant started = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    List<String> load = new ArrayList<>();
    load.add("start " + MachineInfo.loadAverage());

    List<TestDatabase> databases = new ArrayList<>();
    List<String> skipped = new ArrayList<>();
    for (String name : compileOnly ? new String[0]
        : System.getProperty("bench.databases", "H2,PostgreSQL,MariaDB").split(",")) {
      TestDatabase database = TestDatabase.of(name);
      String reason = database.unreachableReason();
      if (reason == null) {
        databases.add(database);
      } else {
        System.err.println("*** Leaving out " + reason);
        skipped.add(reason);
      }
    }

    List<DatabaseDescription> descriptions = new ArrayList<>();
    Map<String, Map<Operation, StatementCounter.PerCall>> counts = new LinkedHashMap<>();
    for (TestDatabase database : databases) {
      descriptions.add(describe(database));
      progress("Counting JDBC calls on " + database.displayName());
      counts.put(database.displayName(), StatementCounter.count(database));
    }

    progress("Compile-time benchmark");
    List<CompileBenchmark.Result> compiles = new ArrayList<>();
    int compileWarmUps = quick ? 1 : 3;
    int compileRounds = quick ? 2 : 12;
    // In memory (the target's verdict: javac's and the processor's work), then record results once more on the
    // disk, which on this machine costs milliseconds per file created (see CompileBenchmark.Output).
    for (boolean genericResults : new boolean[] {false, true}) {
      compiles.add(CompileBenchmark.run(200, 5, genericResults, compileWarmUps, compileRounds,
          CompileBenchmark.Output.memory()));
    }
    compiles.add(CompileBenchmark.run(200, 5, false, compileWarmUps, compileRounds, CompileBenchmark.Output.disk()));
    // The +35% target's module with real code: commands with their implementations and the code they call.
    compiles.add(CompileBenchmark.run(CompileBenchmark.REAL_CODE_INTERFACES, 5, false, compileWarmUps, compileRounds,
        CompileBenchmark.Output.memory(), true));
    load.add("after compiling " + MachineInfo.loadAverage());

    // The operations interleaved in one JVM: the ratios the targets are judged by (see PairedBenchmark). First, on the
    // machine as quiet as the run finds it: the JMH forks after it leave the load of their 8 threads behind them.
    PairedBenchmark.Result paired = null;
    if (!databases.isEmpty() && !"false".equals(System.getProperty("bench.paired"))) {
      progress("Interleaved ratios");
      paired = PairedBenchmark.run(databases, PairedBenchmark.Settings.fromSystemProperties(quick));
      load.add("after the interleaved runs " + MachineInfo.loadAverage());
    }

    JmhSettings settings = quick
        // Smoke test only: in-process (no fork per benchmark, so no JVM start-up each time), a few short iterations.
        ? new JmhSettings(0, 1, "200 ms", 2, "200 ms", THREADS, FORK_JVM_ARGS, BenchDatabase.POOL_SIZE)
        // Embedded H2 keeps getting faster for about five seconds (JIT): a long warm-up, short iterations.
        : new JmhSettings(1, 5, "1 s", 8, "1 s", THREADS, FORK_JVM_ARGS, BenchDatabase.POOL_SIZE);
    List<Figure> figures = new ArrayList<>();
    if (!databases.isEmpty()) {
      for (int threads : THREADS) {
        progress("JMH with " + threads + " thread(s)");
        figures.addAll(runJmh(settings, databases, threads, quick));
        load.add("after " + threads + "-thread runs " + MachineInfo.loadAverage());
      }
    }

    // The example payments API under keep-alive load on both servers (PostgreSQL), last: its own JVM threads and
    // servers must not run beside JMH's forks.
    HttpBenchmark.Outcome http = null;
    String httpFailure = null;
    if (!compileOnly && !"false".equals(System.getProperty("bench.http"))
        && TestDatabase.POSTGRESQL.unreachableReason() == null) {
      progress("HTTP benchmark");
      try {
        http = HttpBenchmark.run(quick ? 2 : HttpBenchmark.SECONDS, quick ? 1 : HttpBenchmark.ROUNDS);
      } catch (Exception e) {
        // The figures measured so far still make a report; the failure is listed in it and fails the run.
        e.printStackTrace();
        httpFailure = "the HTTP benchmark (" + e + ")";
      }
      load.add("after the HTTP runs " + MachineInfo.loadAverage());
    }

    Duration took = Duration.between(started, Instant.now().truncatedTo(ChronoUnit.SECONDS));
    String command = COMMAND + (quick ? " -Dbench.quick=true" : "");
    List<String> missing = missing(databases, figures);
    if (httpFailure != null) {
      missing.add(httpFailure);
    }
    String markdown = MarkdownReport.render(new ReportInput(command, quick, gitCommit(), started, took, load,
        descriptions, skipped, settings, figures, paired, counts, compiles, consumerSection(), http, missing));
    Files.createDirectories(report.getParent());
    Files.writeString(report, markdown);
    System.out.println(markdown);
    System.out.println("Report written to " + report);
    if (!missing.isEmpty()) {
      System.err.println("*** Benchmarks failed (see their stack traces above): " + missing);
      System.exit(1);
    }
  }

  /**
   * What the consumer benchmark wrote, when it ran before this (its file is {@code bench.consumerReport}), followed
   * by what the retention benchmark wrote ({@code bench.retentionReport}), when it ran.
   */
  private static String consumerSection() throws IOException {
    String consumers = section(System.getProperty("bench.consumerReport", ""));
    String retention = section(System.getProperty("bench.retentionReport", ""));
    if (consumers == null || retention == null) {
      return consumers == null ? retention : consumers;
    }
    return consumers + "\n" + retention;
  }

  private static String section(String file) throws IOException {
    if (file.isEmpty() || !Files.exists(Path.of(file))) {
      return null;
    }
    return Files.readString(Path.of(file));
  }

  private static final long START = System.nanoTime();

  private static void progress(String phase) {
    System.out.printf("[%4d s] %s%n", (System.nanoTime() - START) / 1_000_000_000L, phase);
  }

  /** The runs that produced no figure: a benchmark that threw. */
  private static List<String> missing(List<TestDatabase> databases, List<Figure> figures) {
    List<String> operations = System.getProperty("bench.operations", "").isBlank()
        ? Arrays.stream(Operation.values()).map(Operation::method).toList()
        : List.of(System.getProperty("bench.operations").strip().split(","));
    List<String> missing = new ArrayList<>();
    for (int threads : THREADS) {
      for (TestDatabase database : databases) {
        for (String operation : operations) {
          boolean found = figures.stream().anyMatch(f -> f.operation().equals(operation.strip())
              && f.database().equals(database.displayName()) && f.threads() == threads);
          if (!found) {
            missing.add(operation.strip() + " on " + database.displayName() + " with " + threads + " thread(s)");
          }
        }
      }
    }
    return missing;
  }

  private static List<Figure> runJmh(JmhSettings settings, List<TestDatabase> databases, int threads, boolean quick)
      throws RunnerException {
    String operations = System.getProperty("bench.operations", "").isBlank()
        ? Arrays.stream(Operation.values()).map(Operation::method).collect(Collectors.joining(","))
        : System.getProperty("bench.operations").strip();
    ChainedOptionsBuilder options = new OptionsBuilder()
        .include(IdemBenchmarks.class.getName() + "\\.(" + operations.replace(',', '|') + ")$")
        .param("database", databases.stream().map(TestDatabase::displayName).toArray(String[]::new))
        .forks(settings.forks())
        .threads(threads)
        .warmupIterations(settings.warmupIterations())
        .warmupTime(quick ? TimeValue.milliseconds(200) : TimeValue.seconds(1))
        .measurementIterations(settings.measurementIterations())
        .measurementTime(quick ? TimeValue.milliseconds(200) : TimeValue.seconds(1))
        .timeUnit(TimeUnit.SECONDS)
        .jvmArgs(settings.jvmArgs().toArray(String[]::new))
        // A failing benchmark must not cost the others' figures: it is reported as missing, and main fails.
        .shouldFailOnError(false);
    List<Figure> figures = new ArrayList<>();
    for (RunResult result : new Runner(options.build()).run()) {
      figures.add(new Figure(
          result.getParams().getBenchmark().substring(result.getParams().getBenchmark().lastIndexOf('.') + 1),
          result.getParams().getParam("database"),
          result.getParams().getThreads(),
          result.getPrimaryResult().getScore(),
          result.getPrimaryResult().getScoreError()));
    }
    return figures;
  }

  /** The version and the settings that decide what a commit costs. */
  private static DatabaseDescription describe(TestDatabase database) throws SQLException {
    try (BenchDatabase db = BenchDatabase.open(database);
        Connection connection = db.dataSource().getConnection();
        Statement statement = connection.createStatement()) {
      String version = connection.getMetaData().getDatabaseProductName() + " "
          + connection.getMetaData().getDatabaseProductVersion();
      List<String> settings = new ArrayList<>();
      switch (database) {
        case H2 -> {
          settings.add("embedded, file-backed (`jdbc:h2:file:` in the temp directory), default durability: "
              + "commits are written to the file by the MVStore (WRITE_DELAY "
              + query(statement, "SELECT SETTING_VALUE FROM INFORMATION_SCHEMA.SETTINGS WHERE SETTING_NAME = 'WRITE_DELAY'")
              + " ms), no fsync per commit");
        }
        case POSTGRESQL -> {
          for (String name : List.of("synchronous_commit", "fsync", "wal_sync_method", "full_page_writes",
              "shared_buffers", "max_connections")) {
            settings.add(name + " = " + query(statement, "SHOW " + name));
          }
          settings.add("TCP on 127.0.0.1");
        }
        case MARIADB -> {
          for (String name : List.of("innodb_flush_log_at_trx_commit", "sync_binlog", "log_bin",
              "innodb_buffer_pool_size", "tx_isolation")) {
            settings.add(name + " = " + query(statement, "SELECT @@" + name));
          }
          settings.add("TCP on 127.0.0.1");
        }
      }
      return new DatabaseDescription(database.displayName(), version, db.url(), settings);
    }
  }

  private static String query(Statement statement, String sql) {
    try (ResultSet rs = statement.executeQuery(sql)) {
      return rs.next() ? rs.getString(1) : "?";
    } catch (SQLException e) {
      return "? (" + e.getMessage() + ")";
    }
  }

  private static String gitCommit() {
    try {
      Process git = new ProcessBuilder("git", "rev-parse", "--short", "HEAD").redirectErrorStream(true).start();
      String out = new String(git.getInputStream().readAllBytes()).strip();
      return git.waitFor() == 0 ? out : "unknown";
    } catch (IOException e) {
      return "unknown";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "unknown";
    }
  }
}
