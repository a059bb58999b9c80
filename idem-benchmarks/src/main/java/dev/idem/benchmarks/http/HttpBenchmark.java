package dev.idem.benchmarks.http;

import dev.idem.benchmarks.report.MachineInfo;
import dev.idem.examples.payments.JdbcPayments;
import dev.idem.examples.payments.PaymentsApi;
import dev.idem.examples.payments.PaymentsServer;
import dev.idem.http.jdk.JdkHttpServer;
import dev.idem.testing.IsolatedDatabase;
import dev.idem.testing.TestDatabase;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The example payments API under a keep-alive load, on both servers, against PostgreSQL: first executions (a new
 * {@code Idempotency-Key} per request), replays (keys that already ran) and, as the baseline measured in the same
 * run on the same server, {@code GET /health}, a handler that touches neither the database nor idem.
 *
 * <p>The load generator is this JVM: {@code bench.http.connections} (default 8) threads, each with one persistent
 * HTTP/1.1 connection on which it sends a request, reads the whole response, and sends the next (no pipelining), as
 * wrk does. Each workload runs {@code bench.http.seconds} (default 10) after a warm-up, and the three workloads are
 * interleaved for {@code bench.http.rounds} (default 3) rounds; the report gives each rate's median over the rounds,
 * its range, and the ratios to the trivial handler's rate in the same round. The server and the load generator share
 * the machine's cores, so the absolute rates are this machine's; the ratios are the claim.
 *
 * <pre>
 * mvn -B -q -Pbench -pl idem-benchmarks -am verify -DskipTests \
 *     -Dbench.mainClass=dev.idem.benchmarks.http.HttpBenchmark [-Dbench.http.seconds=10]
 * </pre>
 * Writes {@code idem-benchmarks/target/BENCHMARKS-http.md} (property {@code idem.bench.http.report}) and prints it. The
 * JMH suite ({@code -Dbench.run=jmh}) runs it too, as a section of BENCHMARKS.md with the target's verdicts.
 */
// PaymentsServer.close() declares Exception (Jetty's stop()), which javac's "try" lint flags for try-with-resources.
@SuppressWarnings("try")
public final class HttpBenchmark {

  private static final int CONNECTIONS = Integer.getInteger("bench.http.connections", 8);
  /** Which servers run, by name (jdk, jetty), comma-separated: one alone when profiling it. */
  private static final String SERVERS = System.getProperty("bench.http.servers", "jdk,jetty");
  /** Seconds per workload and round, unless told otherwise. */
  public static final int SECONDS = Integer.getInteger("bench.http.seconds", 10);
  /** Interleaved rounds, unless told otherwise. */
  public static final int ROUNDS = Integer.getInteger("bench.http.rounds", 3);
  /** Issue #26: replays must reach this share of the trivial handler's rate on the same server, on each server. */
  public static final double REPLAY_TARGET = 0.8;
  /** Keys created before the replay workload: each connection cycles through its share. */
  private static final int REPLAY_KEYS = 2_000;

  private enum Workload { TRIVIAL, FIRST_EXECUTION, REPLAY }

  /**
   * One server's replays against its trivial handler.
   *
   * @param server the server's name
   * @param replayRatios each round's replay rate over the trivial handler's rate in the same round
   */
  public record ServerFigures(String server, double[] replayRatios) {

    public double medianReplayRatio() {
      double[] sorted = replayRatios.clone();
      Arrays.sort(sorted);
      return median(sorted);
    }
  }

  /**
   * What a run measured: its Markdown section (without a verdict) and each server's figures.
   *
   * @param section the table, conditions and load averages, a {@code ##} section of BENCHMARKS.md
   * @param servers the JDK server's and Jetty's figures
   */
  public record Outcome(String section, List<ServerFigures> servers) {}

  private HttpBenchmark() {}

  public static void main(String[] args) throws Exception {
    Outcome outcome = run(SECONDS, ROUNDS);
    StringBuilder report = new StringBuilder(outcome.section()).append('\n');
    for (ServerFigures server : outcome.servers()) {
      report.append(verdictLine(server)).append('\n');
    }
    Path out = Path.of(System.getProperty("idem.bench.http.report", "target/BENCHMARKS-http.md"));
    Files.createDirectories(out.toAbsolutePath().getParent());
    Files.writeString(out, report);
    System.out.println(report);
  }

  /** The target's verdict on one server, as a sentence. */
  public static String verdictLine(ServerFigures server) {
    double median = server.medianReplayRatio();
    return String.format(Locale.ROOT, "Target on %s: replays ≥ %.1f× the trivial handler's rate: %.2fx (median of %d"
        + " rounds), %s.", server.server(), REPLAY_TARGET, median, server.replayRatios().length,
        median >= REPLAY_TARGET ? "**met**" : "**missed**");
  }

  /**
   * Runs both servers, each on a fresh PostgreSQL database of its own.
   *
   * @param seconds per workload and round
   * @param rounds interleaved rounds
   */
  public static Outcome run(int seconds, int rounds) throws Exception {
    // Before any HttpServer exists in this JVM (see JdkHttpServer.sendWithoutDelay).
    JdkHttpServer.sendWithoutDelay();
    String loadBefore = MachineInfo.loadAverage();
    StringBuilder report = new StringBuilder();
    report.append("## HTTP: the example payments API under keep-alive load (PostgreSQL)\n\n")
        .append("Load average before: ").append(loadBefore).append(". ").append(MachineInfo.cores())
        .append(" cores, ").append(MachineInfo.cpuModel()).append(", ").append(MachineInfo.jvm()).append(".\n")
        .append(CONNECTIONS).append(" persistent connections from the benchmark's own JVM, ").append(seconds)
        .append(" s per workload, ").append(rounds).append(" interleaved rounds; requests/s as median [min–max] over")
        .append(" the rounds; ratios to `GET /health` on the same server in the same round.\n\n")
        .append("| server | `GET /health` (trivial) | first executions | replays | first / trivial | replays / trivial")
        .append(" | replay p50 / p99 latency | database connections per replay")
        .append(" | server CPU per request, trivial / replay |\n")
        .append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    List<ServerFigures> servers = new ArrayList<>();
    for (PaymentsServer.Kind kind : PaymentsServer.Kind.values()) {
      if (Arrays.asList(SERVERS.toLowerCase(Locale.ROOT).split(",")).contains(kind.name().toLowerCase(Locale.ROOT))) {
        report.append(run(kind, seconds, rounds, servers)).append('\n');
      }
    }
    report.append("\nLoad average after: ").append(MachineInfo.loadAverage()).append(".\n");
    return new Outcome(report.toString(), servers);
  }

  private static String run(PaymentsServer.Kind kind, int seconds, int rounds, List<ServerFigures> servers)
      throws Exception {
    IsolatedDatabase.Settings settings = new IsolatedDatabase.Settings("idem_h_", 20, 20, false);
    try (IsolatedDatabase database = IsolatedDatabase.open(TestDatabase.POSTGRESQL, settings)) {
      ConnectionCounter connections = new ConnectionCounter(database.dataSource());
      PaymentsApi api = PaymentsServer.api(connections, runtime -> new JdbcPayments(runtime, connections));
      try (PaymentsServer server = PaymentsServer.start(kind, 0, api)) {
        int port = server.port();
        // Warm-up (JIT, pool, server threads), then the keys the replay workload sends again.
        measure(port, Workload.TRIVIAL, 3, "warm");
        measure(port, Workload.FIRST_EXECUTION, 3, "warm");
        createReplayKeys(port);
        measure(port, Workload.REPLAY, 3, "warm");
        database.execute("VACUUM ANALYZE"); // autovacuum is off on this machine
        double[][] rates = new double[Workload.values().length][rounds];
        double[][] serverCpu = new double[Workload.values().length][rounds];
        Latencies replayLatencies = new Latencies();
        long replays = 0;
        long replayConnections = 0;
        for (int round = 0; round < rounds; round++) {
          for (Workload workload : Workload.values()) {
            long connectionsBefore = connections.taken();
            Result result = measure(port, workload, seconds, "r" + round);
            rates[workload.ordinal()][round] = result.rate();
            serverCpu[workload.ordinal()][round] = result.serverCpuMicrosPerRequest();
            if (workload == Workload.REPLAY) {
              replayLatencies.addAll(result.latenciesMicros());
              replays += result.latenciesMicros().size;
              replayConnections += connections.taken() - connectionsBefore;
            }
            System.err.printf(Locale.ROOT, "%s round %d %s: %.0f req/s, server CPU %.1f µs/request, load generator"
                + " %.1f µs/request%n", kind, round, workload, result.rate(), result.serverCpuMicrosPerRequest(),
                result.loadCpuMicrosPerRequest());
          }
        }
        double[] firstRatio = new double[rounds];
        double[] replayRatio = new double[rounds];
        for (int round = 0; round < rounds; round++) {
          firstRatio[round] = rates[Workload.FIRST_EXECUTION.ordinal()][round]
              / rates[Workload.TRIVIAL.ordinal()][round];
          replayRatio[round] = rates[Workload.REPLAY.ordinal()][round] / rates[Workload.TRIVIAL.ordinal()][round];
        }
        String name = kind.name().toLowerCase(Locale.ROOT);
        servers.add(new ServerFigures(name, replayRatio));
        long[] latencies = replayLatencies.sorted();
        return String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %.2f / %.2f ms | %.3f | %.0f / %.0f µs |",
            name, rate(rates[0]), rate(rates[1]), rate(rates[2]),
            ratio(firstRatio), ratio(replayRatio),
            percentile(latencies, 0.50) / 1000.0, percentile(latencies, 0.99) / 1000.0,
            replays == 0 ? Double.NaN : (double) replayConnections / replays,
            medianOf(serverCpu[Workload.TRIVIAL.ordinal()]), medianOf(serverCpu[Workload.REPLAY.ordinal()]));
      }
    }
  }

  /**
   * The API's data source, counting the connections taken from the pool: a replay answered from idem's local cache
   * takes none, one read from the table one. (PostgreSQL's own commit counts lag by up to its idle-flush interval of
   * 10 s per backend, so that they mixed the preceding block's first executions into the replays' figure.) Counts
   * {@code getConnection} only: no proxy around the connections, so nothing per statement.
   */
  private static final class ConnectionCounter implements javax.sql.DataSource {
    private final javax.sql.DataSource pool;
    private final java.util.concurrent.atomic.LongAdder taken = new java.util.concurrent.atomic.LongAdder();

    ConnectionCounter(javax.sql.DataSource pool) {
      this.pool = pool;
    }

    long taken() {
      return taken.sum();
    }

    @Override
    public java.sql.Connection getConnection() throws java.sql.SQLException {
      taken.increment();
      return pool.getConnection();
    }

    @Override
    public java.sql.Connection getConnection(String user, String password) throws java.sql.SQLException {
      taken.increment();
      return pool.getConnection(user, password);
    }

    @Override
    public java.io.PrintWriter getLogWriter() throws java.sql.SQLException {
      return pool.getLogWriter();
    }

    @Override
    public void setLogWriter(java.io.PrintWriter out) throws java.sql.SQLException {
      pool.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws java.sql.SQLException {
      pool.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws java.sql.SQLException {
      return pool.getLoginTimeout();
    }

    @Override
    public java.util.logging.Logger getParentLogger() throws java.sql.SQLFeatureNotSupportedException {
      return pool.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> type) throws java.sql.SQLException {
      return type.isInstance(this) ? type.cast(this) : pool.unwrap(type);
    }

    @Override
    public boolean isWrapperFor(Class<?> type) throws java.sql.SQLException {
      return type.isInstance(this) || pool.isWrapperFor(type);
    }
  }

  private static void createReplayKeys(int port) throws IOException {
    try (Connection connection = new Connection(port)) {
      for (int i = 0; i < REPLAY_KEYS; i++) {
        int status = connection.exchange(payment("replay-" + i));
        if (status != 201) {
          throw new IllegalStateException("Creating replay key " + i + " answered " + status);
        }
      }
    }
  }

  /**
   * @param serverCpuMicrosPerRequest this JVM's CPU time during the workload, less the load generator's threads',
   *     per request: the server's threads, GC and JIT (PostgreSQL's own CPU is not in it)
   * @param loadCpuMicrosPerRequest the load generator's threads' CPU time per request
   */
  private record Result(double rate, Latencies latenciesMicros, double serverCpuMicrosPerRequest,
                        double loadCpuMicrosPerRequest) {}

  /**
   * Latencies in microseconds as primitive longs: the load generator shares the server's JVM, and a boxed Long per
   * request, kept for the percentiles, filled the old generation during the blocks (G1 ran a concurrent cycle about
   * every second, with remark pauses of 10 to 55 ms, and the growing lists were humongous allocations).
   */
  private static final class Latencies {
    private long[] values = new long[64 * 1024];
    private int size;

    void add(long micros) {
      if (size == values.length) {
        values = Arrays.copyOf(values, size * 2);
      }
      values[size++] = micros;
    }

    void addAll(Latencies other) {
      if (size + other.size > values.length) {
        values = Arrays.copyOf(values, Math.max(values.length * 2, size + other.size));
      }
      System.arraycopy(other.values, 0, values, size, other.size);
      size += other.size;
    }

    long[] sorted() {
      long[] sorted = Arrays.copyOf(values, size);
      Arrays.sort(sorted);
      return sorted;
    }
  }

  private static final com.sun.management.OperatingSystemMXBean PROCESS =
      (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
  private static final java.lang.management.ThreadMXBean THREADS =
      java.lang.management.ManagementFactory.getThreadMXBean();

  /** One workload on {@link #CONNECTIONS} keep-alive connections for {@code seconds}. */
  private static Result measure(int port, Workload workload, int seconds, String tag) throws Exception {
    AtomicLong completed = new AtomicLong();
    AtomicLong loadCpuNanos = new AtomicLong();
    List<Latencies> latencies = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    List<Throwable> failures = new ArrayList<>();
    CountDownLatch ready = new CountDownLatch(CONNECTIONS);
    CountDownLatch start = new CountDownLatch(1);
    long[] deadline = new long[1];
    for (int c = 0; c < CONNECTIONS; c++) {
      int connectionIndex = c;
      Latencies own = new Latencies();
      latencies.add(own);
      Thread thread = new Thread(() -> {
        try (Connection connection = new Connection(port)) {
          ready.countDown();
          start.await();
          long cpuAtStart = THREADS.getCurrentThreadCpuTime();
          long n = 0;
          while (System.nanoTime() < deadline[0]) {
            byte[] request = switch (workload) {
              case TRIVIAL -> health();
              case FIRST_EXECUTION -> payment(tag + "-" + connectionIndex + "-" + n);
              case REPLAY -> payment("replay-" + ((connectionIndex + n * CONNECTIONS) % REPLAY_KEYS));
            };
            long begin = System.nanoTime();
            int status = connection.exchange(request);
            long micros = (System.nanoTime() - begin) / 1_000;
            int expected = workload == Workload.TRIVIAL ? 200 : 201;
            if (status != expected) {
              throw new IllegalStateException(workload + " answered " + status + ", expected " + expected);
            }
            own.add(micros);
            n++;
          }
          completed.addAndGet(n);
          loadCpuNanos.addAndGet(THREADS.getCurrentThreadCpuTime() - cpuAtStart);
        } catch (Throwable e) {
          synchronized (failures) {
            failures.add(e);
          }
          ready.countDown();
        }
      }, "http-load-" + c);
      threads.add(thread);
      thread.start();
    }
    ready.await();
    long processCpuAtStart = PROCESS.getProcessCpuTime();
    long begin = System.nanoTime();
    deadline[0] = begin + seconds * 1_000_000_000L;
    start.countDown();
    for (Thread thread : threads) {
      thread.join();
    }
    double elapsed = (System.nanoTime() - begin) / 1e9;
    long processCpuNanos = PROCESS.getProcessCpuTime() - processCpuAtStart;
    if (!failures.isEmpty()) {
      throw new IllegalStateException(workload + " failed", failures.get(0));
    }
    Latencies all = new Latencies();
    latencies.forEach(all::addAll);
    long requests = Math.max(1, completed.get());
    return new Result(completed.get() / elapsed, all,
        (processCpuNanos - loadCpuNanos.get()) / 1e3 / requests, loadCpuNanos.get() / 1e3 / requests);
  }

  private static byte[] health() {
    return ("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
  }

  private static byte[] payment(String key) {
    String body = "{\"amountCents\":1250,\"currency\":\"EUR\"}";
    return ("POST /payments HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer bench-client\r\n"
        + "Idempotency-Key: \"" + key + "\"\r\nContent-Type: application/json\r\nContent-Length: "
        + body.length() + "\r\n\r\n" + body).getBytes(StandardCharsets.US_ASCII);
  }

  private static String rate(double[] rates) {
    double[] sorted = rates.clone();
    Arrays.sort(sorted);
    return String.format(Locale.ROOT, "%,.0f [%,.0f–%,.0f]", median(sorted), sorted[0], sorted[sorted.length - 1]);
  }

  private static String ratio(double[] ratios) {
    double[] sorted = ratios.clone();
    Arrays.sort(sorted);
    return String.format(Locale.ROOT, "%.2f [%.2f–%.2f]", median(sorted), sorted[0], sorted[sorted.length - 1]);
  }

  private static double medianOf(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return median(sorted);
  }

  private static double median(double[] sorted) {
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  private static long percentile(long[] sorted, double p) {
    return sorted.length == 0 ? 0 : sorted[Math.min(sorted.length - 1, (int) Math.floor(p * sorted.length))];
  }

  /**
   * One persistent HTTP/1.1 connection: writes a request, reads the status line, the headers and the body (by
   * Content-Length or chunked), so that the next request goes out on the same connection.
   */
  private static final class Connection implements AutoCloseable {
    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;

    Connection(int port) throws IOException {
      socket = new Socket();
      socket.setTcpNoDelay(true);
      socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
      socket.setSoTimeout(30_000);
      out = socket.getOutputStream();
      in = new BufferedInputStream(socket.getInputStream(), 16 * 1024);
    }

    int exchange(byte[] request) throws IOException {
      out.write(request);
      out.flush();
      String statusLine = line();
      int status = Integer.parseInt(statusLine.substring(9, 12));
      long length = -1;
      boolean chunked = false;
      for (String header = line(); !header.isEmpty(); header = line()) {
        String lower = header.toLowerCase(Locale.ROOT);
        if (lower.startsWith("content-length:")) {
          length = Long.parseLong(header.substring(15).trim());
        } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
          chunked = true;
        } else if (lower.startsWith("connection:") && lower.contains("close")) {
          throw new IOException("The server closed the keep-alive connection: " + statusLine);
        }
      }
      if (chunked) {
        for (long size = Long.parseLong(line().trim(), 16); size > 0; size = Long.parseLong(line().trim(), 16)) {
          skip(size);
          line();
        }
        line();
      } else if (length > 0) {
        skip(length);
      }
      return status;
    }

    private void skip(long bytes) throws IOException {
      long left = bytes;
      while (left > 0) {
        long skipped = in.skip(left);
        if (skipped <= 0) {
          if (in.read() < 0) {
            throw new IOException("Connection closed in a response body");
          }
          skipped = 1;
        }
        left -= skipped;
      }
    }

    private String line() throws IOException {
      StringBuilder line = new StringBuilder();
      for (int c = in.read(); c != '\n'; c = in.read()) {
        if (c < 0) {
          throw new IOException("Connection closed in a response head");
        }
        if (c != '\r') {
          line.append((char) c);
        }
      }
      return line.toString();
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }
}
