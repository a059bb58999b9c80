package dev.idem.benchmarks.http;

import dev.idem.examples.payments.JdbcPayments;
import dev.idem.examples.payments.PaymentsApi;
import dev.idem.examples.payments.PaymentsServer;
import dev.idem.http.HttpReply;
import dev.idem.http.HttpRequestView;
import dev.idem.testing.IsolatedDatabase;
import dev.idem.testing.TestDatabase;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The example payments API's own work per request, without a server or sockets: {@link PaymentsApi#route} called
 * in a loop on one thread for {@code GET /health} (the HTTP benchmark's trivial handler) and for replays answered
 * from idem's local cache, on PostgreSQL. Reports CPU nanoseconds and bytes allocated per call (median of blocks),
 * so that what a replay adds over the trivial handler in {@link HttpBenchmark} can be split into the router's share
 * and the server's.
 *
 * <pre>
 * mvn -B -q -Pbench -pl idem-benchmarks -am verify -DskipTests -Dbench.mainClass=dev.idem.benchmarks.http.RouterCost
 * </pre>
 */
public final class RouterCost {

  private static final int KEYS = 2_000;
  private static final int BLOCKS = Integer.getInteger("bench.router.blocks", 15);
  private static final int CALLS_PER_BLOCK = Integer.getInteger("bench.router.calls", 50_000);

  private RouterCost() {}

  public static void main(String[] args) throws Exception {
    IsolatedDatabase.Settings settings = new IsolatedDatabase.Settings("idem_r_", 4, 4, false);
    try (IsolatedDatabase database = IsolatedDatabase.open(TestDatabase.POSTGRESQL, settings)) {
      PaymentsApi api = PaymentsServer.api(database.dataSource(),
          runtime -> new JdbcPayments(runtime, database.dataSource()));
      byte[] body = "{\"amountCents\":1250,\"currency\":\"EUR\"}".getBytes(StandardCharsets.US_ASCII);
      HttpRequestView[] replays = new HttpRequestView[KEYS];
      for (int i = 0; i < KEYS; i++) {
        replays[i] = headers(Map.of("authorization", List.of("Bearer bench-client"),
            "idempotency-key", List.of("\"replay-" + i + "\""), "content-type", List.of("application/json")));
        int status = api.route("POST", "/payments", replays[i], body).status();
        if (status != 201) {
          throw new IllegalStateException("Creating key " + i + " answered " + status);
        }
      }
      HttpRequestView health = headers(Map.of());
      byte[] none = new byte[0];
      com.sun.management.ThreadMXBean threads =
          (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
      double[][] nanos = new double[2][BLOCKS];
      double[][] bytes = new double[2][BLOCKS];
      long sink = 0;
      for (int block = -3; block < BLOCKS; block++) { // three blocks of warm-up
        for (int kind = 0; kind < 2; kind++) {
          long cpu = threads.getCurrentThreadCpuTime();
          long allocated = threads.getThreadAllocatedBytes(Thread.currentThread().getId());
          for (int i = 0; i < CALLS_PER_BLOCK; i++) {
            HttpReply reply = kind == 0 ? api.route("GET", "/health", health, none)
                : api.route("POST", "/payments", replays[i % KEYS], body);
            sink += reply.status() + reply.bodyLength();
          }
          if (block >= 0) {
            nanos[kind][block] = (threads.getCurrentThreadCpuTime() - cpu) / (double) CALLS_PER_BLOCK;
            bytes[kind][block] = (threads.getThreadAllocatedBytes(Thread.currentThread().getId()) - allocated)
                / (double) CALLS_PER_BLOCK;
          }
        }
      }
      System.out.printf(Locale.ROOT, "RouterCost (PostgreSQL, one thread, %d blocks of %d calls, medians; %d):%n"
          + "  GET /health:       %8.0f ns CPU, %6.0f bytes allocated per call%n"
          + "  replay (cached):   %8.0f ns CPU, %6.0f bytes allocated per call%n",
          BLOCKS, CALLS_PER_BLOCK, sink % 10, median(nanos[0]), median(bytes[0]), median(nanos[1]),
          median(bytes[1]));
    }
  }

  private static HttpRequestView headers(Map<String, List<String>> byLowerCaseName) {
    return name -> byLowerCaseName.getOrDefault(name.toLowerCase(Locale.ROOT), List.of());
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }
}
