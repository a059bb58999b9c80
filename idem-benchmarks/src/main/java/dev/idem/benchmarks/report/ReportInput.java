package dev.idem.benchmarks.report;

import dev.idem.benchmarks.compile.CompileBenchmark;
import dev.idem.benchmarks.http.HttpBenchmark;
import dev.idem.benchmarks.jmh.Operation;
import dev.idem.benchmarks.jmh.StatementCounter.PerCall;
import dev.idem.benchmarks.jmh.PairedBenchmark;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Everything one run measured and the conditions it ran under; rendered by {@link MarkdownReport}. {@code compiles}
 * holds the compile benchmark's variants (record results, generic results); {@code paired} holds the interleaved ratios
 * ({@link PairedBenchmark}), or null if they were not measured; {@code consumerSection} is the Markdown
 * the consumer benchmark wrote in the same session, or null; {@code http} the HTTP benchmark's section and verdicts,
 * or null if it did not run.
 */
public record ReportInput(
    String command,
    boolean quick,
    String commit,
    Instant started,
    Duration took,
    List<String> loadSamples,
    List<DatabaseDescription> databases,
    List<String> skippedDatabases,
    JmhSettings jmh,
    List<Figure> figures,
    PairedBenchmark.Result paired,
    Map<String, Map<Operation, PerCall>> counts,
    List<CompileBenchmark.Result> compiles,
    String consumerSection,
    HttpBenchmark.Outcome http,
    List<String> failedRuns) {

  /** A database as the run found it: version and the settings that decide commit cost. */
  public record DatabaseDescription(String name, String version, String url, List<String> settings) {}

  /** The JMH options of the run. */
  public record JmhSettings(int forks, int warmupIterations, String warmupTime, int measurementIterations,
      String measurementTime, List<Integer> threads, List<String> jvmArgs, int poolSize) {}
}
