package dev.idem.benchmarks.jmh;

import dev.idem.testing.TestDatabase;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Ratios measured side by side: every variant runs in short blocks, one after the other in a rotating order, round
 * after round, in one JVM on one database, and each round's ratio compares a variant with the baseline's block of
 * the same round. Drift of a shared machine (other builds, checkpoints, the database's growing tables) then lands on
 * both sides of each ratio instead of on whichever operation JMH happens to run at that time, which is what made the
 * JMH ratios' error bars as wide as the gaps they were meant to show.
 *
 * <p>Per block and variant it records operations per second, and on the calling threads their CPU time and
 * allocated bytes per operation (H2 runs in this JVM, so there its CPU time is the whole cost; on PostgreSQL and
 * MariaDB it is the client's share). The ratio's interval is a bootstrap 95% interval of the median over rounds.
 *
 * <p>Run alone: {@code java -cp idem-benchmarks/target/classes:$(cat cp.txt) dev.idem.benchmarks.jmh.PairedBenchmark}
 * after {@code mvn -q -Pbench -pl idem-benchmarks -am package dependency:build-classpath -DskipTests
 * -Dmdep.outputFile=cp.txt}; system properties {@code paired.databases} (default H2,PostgreSQL,MariaDB),
 * {@code paired.threads} (1,8), {@code paired.variants} (operation ids, the baseline first; default
 * {@link #DEFAULT_VARIANTS}), {@code paired.blockMillis} (400), {@code paired.rounds} (20),
 * {@code paired.warmUpRounds} (4).
 */
public final class PairedBenchmark {

  /** The baseline first: every ratio is over it. */
  public static final List<Operation> DEFAULT_VARIANTS = List.of(Operation.HAND_WRITTEN,
      Operation.HAND_WRITTEN_IDEM_SHAPED, Operation.HAND_WRITTEN_STATEMENT_TRANSACTION,
      Operation.HAND_WRITTEN_COMPLETED_AFTER, Operation.IDEM_TRANSACTIONAL, Operation.HAND_WRITTEN_GUARDED_VOID,
      Operation.IDEM_TRANSACTIONAL_VOID, Operation.IDEM_TRANSACTIONAL_VOID_PROMISED, Operation.IDEM_CLAIM,
      Operation.HAND_WRITTEN_CLAIM_FIRST, Operation.IDEM_REPLAY, Operation.HAND_WRITTEN_REPLAY,
      Operation.HAND_WRITTEN_READ_FIRST, Operation.IDEM_TRANSACTIONAL_LOOKUP_FIRST,
      Operation.IDEM_REPLAY_LOOKUP_FIRST, Operation.IDEM_REPLAY_CLAIM_FIRST);

  /** How a run is shaped. */
  public record Settings(List<Operation> variants, List<Integer> threads, int blockMillis, int rounds,
      int warmUpRounds) {

    public static Settings fromSystemProperties(boolean quick) {
      List<Operation> variants = new ArrayList<>();
      String names = System.getProperty("paired.variants", "");
      if (names.isBlank()) {
        variants.addAll(DEFAULT_VARIANTS);
      } else {
        for (String name : names.split(",")) {
          variants.add(operation(name.trim()));
        }
      }
      List<Integer> threads = Arrays.stream(System.getProperty("paired.threads", "1,8").split(","))
          .map(String::trim).map(Integer::parseInt).toList();
      return new Settings(variants, threads,
          Integer.getInteger("paired.blockMillis", quick ? 150 : 400),
          Integer.getInteger("paired.rounds", quick ? 5 : 20),
          Integer.getInteger("paired.warmUpRounds", quick ? 2 : 4));
    }

    private static Operation operation(String method) {
      for (Operation operation : Operation.values()) {
        if (operation.method().equals(method)) {
          return operation;
        }
      }
      throw new IllegalArgumentException("No operation named " + method + "; one of "
          + Arrays.stream(Operation.values()).map(Operation::method).toList());
    }

    public Operation baseline() {
      return variants.get(0);
    }
  }

  /**
   * One variant on one database and thread count, over the measured rounds.
   *
   * @param opsPerSecond each round's rate, in round order
   * @param ratios each round's rate over the baseline's rate in the same round
   * @param cpuMicrosPerOp the calling threads' CPU time per operation, per round
   * @param allocatedBytesPerOp the calling threads' allocation per operation, per round
   */
  public record Series(Operation operation, String database, int threads, List<Double> opsPerSecond,
      List<Double> ratios, List<Double> cpuMicrosPerOp, List<Double> allocatedBytesPerOp) {

    public double medianRate() {
      return median(opsPerSecond);
    }

    public double medianRatio() {
      return median(ratios);
    }

    /** A bootstrap 95% interval of the median ratio: {low, high}. */
    public double[] ratioInterval() {
      return bootstrapMedianInterval(ratios);
    }

    public double medianCpuMicros() {
      return median(cpuMicrosPerOp);
    }

    public double medianAllocatedBytes() {
      return median(allocatedBytesPerOp);
    }
  }

  /** The figures of one run. */
  public record Result(Settings settings, List<Series> series) {

    public Series find(Operation operation, String database, int threads) {
      for (Series s : series) {
        if (s.operation() == operation && s.database().equals(database) && s.threads() == threads) {
          return s;
        }
      }
      return null;
    }

    /**
     * {@code operation}'s rate over {@code floor}'s in each round (every round runs every variant, so that rounds
     * pair up as they do with the baseline), or null unless both ran on this database and thread count.
     */
    public RoundRatios ratiosOver(Operation operation, Operation floor, String database, int threads) {
      Series measured = find(operation, database, threads);
      Series under = find(floor, database, threads);
      if (measured == null || under == null) {
        return null;
      }
      List<Double> ratios = new ArrayList<>();
      for (int i = 0; i < measured.opsPerSecond().size(); i++) {
        ratios.add(measured.opsPerSecond().get(i) / under.opsPerSecond().get(i));
      }
      return new RoundRatios(ratios);
    }
  }

  /** Per-round ratios of two variants, with their median and its bootstrap interval. */
  public record RoundRatios(List<Double> ratios) {

    public double median() {
      return PairedBenchmark.median(ratios);
    }

    /** A bootstrap 95% interval of the median: {low, high}. */
    public double[] interval() {
      return bootstrapMedianInterval(ratios);
    }
  }

  private PairedBenchmark() {}

  public static void main(String[] args) throws Exception {
    Settings settings = Settings.fromSystemProperties(Boolean.getBoolean("bench.quick"));
    List<TestDatabase> databases = new ArrayList<>();
    for (String name : System.getProperty("paired.databases", "H2,PostgreSQL,MariaDB").split(",")) {
      TestDatabase database = TestDatabase.of(name.trim());
      String reason = database.unreachableReason();
      if (reason == null) {
        databases.add(database);
      } else {
        System.err.println("*** Leaving out " + reason);
      }
    }
    Result result = run(databases, settings);
    System.out.print(table(result));
  }

  /** Runs every database in turn, each in a fresh database of its own, every thread count on it. */
  public static Result run(List<TestDatabase> databases, Settings settings) throws Exception {
    List<Series> all = new ArrayList<>();
    for (TestDatabase database : databases) {
      try (BenchDatabase bench = BenchDatabase.open(database)) {
        Operations operations = new Operations(bench.database(), bench.dataSource());
        operations.createSchema();
        operations.completeReplayKeys();
        for (int threadIndex = 0; threadIndex < Operations.MAX_THREADS; threadIndex++) {
          operations.createInvoices(threadIndex);
        }
        // Fresh keys and order ids are shared by every variant (one counter per thread index), so that no two
        // variants ever write the same order.
        long[] counters = new long[Operations.MAX_THREADS];
        for (int threads : settings.threads()) {
          all.addAll(runOne(database.displayName(), operations, counters, threads, settings));
        }
      }
    }
    return new Result(settings, all);
  }

  private static List<Series> runOne(String database, Operations operations, long[] counters, int threads,
      Settings settings) throws Exception {
    List<Operation> variants = settings.variants();
    int n = variants.size();
    Map<Operation, List<Double>> rates = new LinkedHashMap<>();
    Map<Operation, List<Double>> cpu = new LinkedHashMap<>();
    Map<Operation, List<Double>> allocated = new LinkedHashMap<>();
    for (Operation v : variants) {
      rates.put(v, new ArrayList<>());
      cpu.put(v, new ArrayList<>());
      allocated.put(v, new ArrayList<>());
    }
    try (Workers workers = new Workers(operations, counters, threads)) {
      int totalRounds = settings.warmUpRounds() + settings.rounds();
      for (int round = 0; round < totalRounds; round++) {
        // Rotate the order, and reverse it every other round, so that no variant always follows the same one.
        for (int k = 0; k < n; k++) {
          int position = (round / 2 + k) % n;
          Operation variant = variants.get(round % 2 == 0 ? position : n - 1 - position);
          Block block = workers.run(variant, settings.blockMillis());
          if (round >= settings.warmUpRounds()) {
            rates.get(variant).add(block.operations() * 1e9 / block.nanos());
            cpu.get(variant).add(block.cpuNanos() / 1e3 / Math.max(1, block.operations()));
            allocated.get(variant).add((double) block.allocatedBytes() / Math.max(1, block.operations()));
          }
        }
        System.err.printf(Locale.ROOT, "  paired %s, %d thr: round %d/%d%n", database, threads, round + 1,
            totalRounds);
      }
    }
    List<Double> baseline = rates.get(settings.baseline());
    List<Series> series = new ArrayList<>();
    for (Operation v : variants) {
      List<Double> ratios = new ArrayList<>();
      List<Double> r = rates.get(v);
      for (int i = 0; i < r.size(); i++) {
        ratios.add(r.get(i) / baseline.get(i));
      }
      series.add(new Series(v, database, threads, r, ratios, cpu.get(v), allocated.get(v)));
    }
    return series;
  }

  /** What one block measured, summed over its threads. */
  private record Block(long operations, long nanos, long cpuNanos, long allocatedBytes) {}

  /**
   * A fixed set of calling threads, held between blocks: each block releases them together on one variant, they
   * call it until the block's deadline, and the block ends when the last one returns.
   */
  private static final class Workers implements AutoCloseable {
    private static final com.sun.management.ThreadMXBean THREADS =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private final Operations operations;
    private final long[] counters;
    private final int threads;
    private final CyclicBarrier start;
    private final CyclicBarrier end;
    private final Thread[] workers;
    private final long[] ops;
    private final long[] cpuNanos;
    private final long[] allocatedBytes;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile Operation variant;
    private volatile long deadline;
    private volatile boolean closed;

    Workers(Operations operations, long[] counters, int threads) {
      this.operations = operations;
      this.counters = counters;
      this.threads = threads;
      this.start = new CyclicBarrier(threads + 1);
      this.end = new CyclicBarrier(threads + 1);
      this.workers = new Thread[threads];
      this.ops = new long[threads];
      this.cpuNanos = new long[threads];
      this.allocatedBytes = new long[threads];
      for (int i = 0; i < threads; i++) {
        int threadIndex = i;
        workers[i] = new Thread(() -> work(threadIndex), "paired-" + i);
        workers[i].setDaemon(true);
        workers[i].start();
      }
    }

    Block run(Operation next, int blockMillis) throws Exception {
      variant = next;
      long began = System.nanoTime();
      deadline = began + blockMillis * 1_000_000L;
      start.await();
      end.await();
      long took = System.nanoTime() - began;
      Throwable t = failure.get();
      if (t != null) {
        throw new IllegalStateException(next.method() + " failed", t);
      }
      long total = 0;
      long cpu = 0;
      long bytes = 0;
      for (int i = 0; i < threads; i++) {
        total += ops[i];
        cpu += cpuNanos[i];
        bytes += allocatedBytes[i];
      }
      return new Block(total, took, cpu, bytes);
    }

    private void work(int threadIndex) {
      long threadId = Thread.currentThread().getId();
      try {
        while (true) {
          start.await();
          if (closed) {
            return;
          }
          Operation op = variant;
          long cpuBefore = THREADS.getCurrentThreadCpuTime();
          long bytesBefore = THREADS.getThreadAllocatedBytes(threadId);
          long count = 0;
          try {
            do {
              call(op, threadIndex, counters[threadIndex]++);
              count++;
            } while (System.nanoTime() < deadline);
          } catch (Throwable t) {
            failure.compareAndSet(null, t);
          }
          ops[threadIndex] = count;
          cpuNanos[threadIndex] = THREADS.getCurrentThreadCpuTime() - cpuBefore;
          allocatedBytes[threadIndex] = THREADS.getThreadAllocatedBytes(threadId) - bytesBefore;
          end.await();
        }
      } catch (Exception e) {
        failure.compareAndSet(null, e);
      }
    }

    /** The same calls, keys and payloads as {@link IdemBenchmarks}' methods. */
    private void call(Operation op, int threadIndex, long n) throws Exception {
      operations.call(op, threadIndex, n);
    }

    @Override
    public void close() {
      closed = true;
      try {
        start.await();
        for (Thread worker : workers) {
          worker.join(10_000);
        }
      } catch (InterruptedException | java.util.concurrent.BrokenBarrierException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  // ---- statistics

  public static double median(double[] values) {
    return median(Arrays.stream(values).boxed().toList());
  }

  public static double[] bootstrapMedianInterval(double[] values) {
    return bootstrapMedianInterval(Arrays.stream(values).boxed().toList());
  }

  static double median(List<Double> values) {
    double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    int n = sorted.length;
    if (n == 0) {
      return Double.NaN;
    }
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  /** Percentile bootstrap of the median (2,000 resamples, a fixed seed so that a report is reproducible). */
  static double[] bootstrapMedianInterval(List<Double> values) {
    int n = values.size();
    if (n < 2) {
      return new double[] {Double.NaN, Double.NaN};
    }
    Random random = new Random(42);
    int resamples = 2000;
    double[] medians = new double[resamples];
    List<Double> sample = new ArrayList<>(n);
    for (int b = 0; b < resamples; b++) {
      sample.clear();
      for (int i = 0; i < n; i++) {
        sample.add(values.get(random.nextInt(n)));
      }
      medians[b] = median(sample);
    }
    Arrays.sort(medians);
    return new double[] {medians[(int) (resamples * 0.025)], medians[(int) (resamples * 0.975) - 1]};
  }

  /** A plain-text table of a run, for the console. */
  static String table(Result result) {
    StringBuilder out = new StringBuilder();
    Settings s = result.settings();
    out.append(String.format(Locale.ROOT, "Paired, interleaved: %d rounds of %d ms blocks (after %d warm-up rounds);"
        + " ratios over %s in the same round%n", s.rounds(), s.blockMillis(), s.warmUpRounds(), s.baseline().method()));
    out.append(String.format(Locale.ROOT, "%-12s %4s %-24s %10s %8s %17s %10s %10s%n", "database", "thr", "variant",
        "ops/s", "ratio", "95% CI", "cpu us/op", "B/op"));
    for (Series x : result.series()) {
      double[] ci = x.ratioInterval();
      out.append(String.format(Locale.ROOT, "%-12s %4d %-24s %10.0f %8.3f %8.3f-%-8.3f %10.1f %10.0f%n",
          x.database(), x.threads(), x.operation().method(), x.medianRate(), x.medianRatio(), ci[0], ci[1],
          x.medianCpuMicros(), x.medianAllocatedBytes()));
    }
    // The verdicts: each judged idem path over its same-guarantee floor, where both ran.
    boolean header = false;
    for (Series x : result.series()) {
      Operation floor = x.operation().floor(x.database());
      RoundRatios over = floor == null ? null : result.ratiosOver(x.operation(), floor, x.database(), x.threads());
      if (over == null) {
        continue;
      }
      if (!header) {
        out.append(String.format(Locale.ROOT, "%nidem over its same-guarantee floor, per round (median, bootstrap 95%%"
            + " interval of the median)%n"));
        header = true;
      }
      double[] ci = over.interval();
      out.append(String.format(Locale.ROOT, "%-12s %4d %-30s over %-26s %8.3f %8.3f-%-8.3f%n", x.database(),
          x.threads(), x.operation().method(), floor.method(), over.median(), ci[0], ci[1]));
      RoundRatios unguarded = floor == Operation.HAND_WRITTEN_IDEM_SHAPED ? null
          : result.ratiosOver(x.operation(), Operation.HAND_WRITTEN_IDEM_SHAPED, x.database(), x.threads());
      if (x.operation() == Operation.IDEM_TRANSACTIONAL_VOID && unguarded != null) {
        // Information only: (2b) has no implicit-commit guard, which the default void path keeps here.
        double[] u = unguarded.interval();
        out.append(String.format(Locale.ROOT, "%-12s %4d %-30s over %-26s %8.3f %8.3f-%-8.3f (information)%n",
            x.database(), x.threads(), x.operation().method(), Operation.HAND_WRITTEN_IDEM_SHAPED.method(),
            unguarded.median(), u[0], u[1]));
      }
    }
    return out.toString();
  }
}
