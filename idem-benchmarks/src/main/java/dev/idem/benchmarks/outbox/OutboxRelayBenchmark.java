package dev.idem.benchmarks.outbox;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConnectionFactory;
import dev.idem.brokers.testing.KafkaTestBroker;
import dev.idem.examples.orders.Billing;
import dev.idem.examples.orders.OrderCreated;
import dev.idem.examples.orders.OrderEvents;
import dev.idem.examples.orders.OrderEvents_Outbox;
import dev.idem.examples.orders.OrdersOutboxExample;
import dev.idem.kafka.IdempotentKafkaConsumer;
import dev.idem.kafka.KafkaOutboxPublisher;
import dev.idem.rabbitmq.IdempotentRabbitConsumer;
import dev.idem.rabbitmq.RabbitOutboxPublisher;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.OutboxMessage;
import dev.idem.runtime.OutboxPublisher;
import dev.idem.runtime.OutboxRelay;
import dev.idem.runtime.OutboxRelayOptions;
import dev.idem.runtime.PublishOutcome;
import dev.idem.testing.IsolatedDatabase;
import dev.idem.testing.TestDatabase;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * The outbox relay's cost, on one database (PostgreSQL by default) and two brokers (RabbitMQ with publisher confirms
 * at 127.0.0.1:5672, and Kafka: a KRaft broker in this JVM unless {@code idem.bench.kafka} names one).
 *
 * <p><b>Throughput</b>, events/s from commit to the broker's last confirmation: each round writes {@code
 * idem.bench.outbox.events} events through the example's generated {@code OrderEvents_Outbox} (committed before the
 * clock starts), then one variant publishes them all and the clock stops at the broker's last confirmation. The variants
 * alternate within every round (interleaved), and the median of {@code idem.bench.outbox.rounds} rounds is printed
 * with the ratio idem / hand-written poller:
 * <ul>
 *   <li>idem's relay ({@code runtime.startOutboxRelay}, batch size 200, unordered);</li>
 *   <li>a hand-written poller on the same table and rows: one transaction that claims 200 due PENDING rows with
 *       {@code FOR UPDATE SKIP LOCKED}, publishes them through the same publisher, marks them SENT and commits.</li>
 * </ul>
 *
 * <p><b>Latency</b>, commit → the consumer's commit: a writer paced at {@code idem.bench.outbox.rate} events/s
 * (1,000) for {@code idem.bench.outbox.seconds} seconds, idem's relay, and the example's billing consumer in its
 * batch form ({@code Billing.onOrdersCreated}: the batch's claims in one statement, one commit per batch, acked after
 * it; one transaction per message falls behind at this rate on two cores); p50 and p99 per broker.
 *
 * <p>{@code mvn -q -Pbench -pl idem-benchmarks -am verify -DskipTests
 * -Dbench.mainClass=dev.idem.benchmarks.outbox.OutboxRelayBenchmark}; the figures also go to
 * {@code idem.bench.outbox.report} (the pom sets {@code idem-benchmarks/target/outbox-relay.md}). The load average is printed before and
 * after: compare runs only on a quiet machine.
 */
@SuppressWarnings("try") // relays run while their try's body waits
public final class OutboxRelayBenchmark {

  private static final int BATCH = 200;
  /** The RabbitMQ consumer's largest batch (Kafka's is a partition's records from one poll). */
  private static final int CONSUMER_BATCH = 100;

  private OutboxRelayBenchmark() {}

  /**
   * @param args none; see the class description for the system properties
   * @throws Exception if a server is unreachable
   */
  public static void main(String[] args) throws Exception {
    int events = Integer.getInteger("idem.bench.outbox.events", 20_000);
    int rounds = Integer.getInteger("idem.bench.outbox.rounds", 5);
    int rate = Integer.getInteger("idem.bench.outbox.rate", 1_000);
    int seconds = Integer.getInteger("idem.bench.outbox.seconds", 20);
    TestDatabase database = TestDatabase.of(System.getProperty("idem.bench.databases", "PostgreSQL").split(",")[0].trim());
    StringBuilder report = new StringBuilder("# Outbox relay benchmark\n\n");
    String loadBefore = loadAverage();
    System.out.println("load average before: " + loadBefore);
    report.append("- ").append(Instant.now()).append(", ").append(database).append(", ").append(events)
        .append(" events x ").append(rounds).append(" interleaved rounds; latency at ").append(rate)
        .append(" events/s for ").append(seconds).append(" s\n- load average before: ").append(loadBefore).append('\n');
    String externalKafka = System.getProperty("idem.bench.kafka", "");
    try (IsolatedDatabase db = IsolatedDatabase.open(database);
         KafkaTestBroker kafka = externalKafka.isEmpty() ? KafkaTestBroker.start() : null) {
      String bootstrap = externalKafka.isEmpty() ? kafka.bootstrapServers() : externalKafka;
      OrdersOutboxExample.OrdersService orders = OrdersOutboxExample.ordersService(db.dataSource());
      Billing billing = OrdersOutboxExample.billingService(db.dataSource());
      String name = "idem-bench-outbox-" + UUID.randomUUID();
      ConnectionFactory rabbit = new ConnectionFactory();
      rabbit.setHost(System.getProperty("idem.rabbitmq.host", "127.0.0.1"));
      try (com.rabbitmq.client.Connection connection = rabbit.newConnection("idem-bench")) {
        try (Channel channel = connection.createChannel()) {
          channel.exchangeDeclare(name, "topic", false, true, null);
          channel.queueDeclare(name, false, false, true, null);
          channel.queueBind(name, name, "#");
        }
        if (kafka != null) {
          kafka.createTopic(name, 4);
        }
        Map<String, OutboxPublisher> brokers = new java.util.LinkedHashMap<>();
        brokers.put("RabbitMQ (confirms)", RabbitOutboxPublisher.builder(rabbit).exchange(m -> name).build());
        brokers.put("Kafka (idempotent producer)", KafkaOutboxPublisher.builder(Map.of("bootstrap.servers", bootstrap))
            .topic(m -> name).build());
        for (Map.Entry<String, OutboxPublisher> broker : brokers.entrySet()) {
          report.append(throughput(db.dataSource(), orders.runtime(), broker.getKey(), broker.getValue(), events,
              rounds));
        }
        // The throughput part leaves every row it deleted as a dead tuple, and autovacuum is off on the benchmark
        // machine: the latency part's claims would wade through them (Kafka's p99 at 1,000 events/s was 60 s
        // without this, 0.16 s with it). An application's tables are vacuumed and analyzed; so are these.
        vacuumAnalyze(db.dataSource(), database);
        // Latency: the consumer reads what the throughput part left in the queue/topic first (a fresh group,
        // from the end for Kafka; the RabbitMQ queue is purged).
        try (Channel channel = connection.createChannel()) {
          channel.queuePurge(name);
        }
        Map<Long, Long> committedAt = new ConcurrentHashMap<>();
        ConcurrentLinkedQueue<Long> latencies = new ConcurrentLinkedQueue<>();
        String group = OrdersOutboxExample.BILLING_GROUP;
        AutoCloseable rabbitConsumer = IdempotentRabbitConsumer.builder(connection, name, group)
            .startBatches(CONSUMER_BATCH, messages -> {
              List<Billing.Delivery> deliveries = new ArrayList<>(messages.size());
              for (dev.idem.rabbitmq.RabbitMessage message : messages) {
                deliveries.add(OrdersOutboxExample.delivery(message.messageId(), message.bodyText()));
              }
              record(billing, group, committedAt, latencies, deliveries);
            });
        report.append(latency(db.dataSource(), orders.runtime(), "RabbitMQ (confirms)",
            brokers.get("RabbitMQ (confirms)"), rate, seconds, committedAt, latencies));
        rabbitConsumer.close();
        committedAt.clear();
        latencies.clear();
        AutoCloseable kafkaConsumer = IdempotentKafkaConsumer.builder(Map.of("bootstrap.servers", bootstrap,
                "group.id", "bench-" + UUID.randomUUID(), "auto.offset.reset", "latest"), List.of(name))
            .startBatches(messages -> {
              List<Billing.Delivery> deliveries = new ArrayList<>(messages.size());
              for (dev.idem.kafka.KafkaMessage message : messages) {
                deliveries.add(OrdersOutboxExample.delivery(message.messageId(), message.valueText()));
              }
              record(billing, group, committedAt, latencies, deliveries);
            });
        vacuumAnalyze(db.dataSource(), database); // the billing tables the first latency part filled, too
        Thread.sleep(3_000); // the group's assignment, before the clock starts
        report.append(latency(db.dataSource(), orders.runtime(), "Kafka (idempotent producer)",
            brokers.get("Kafka (idempotent producer)"), rate, seconds, committedAt, latencies));
        kafkaConsumer.close();
        for (OutboxPublisher publisher : brokers.values()) {
          publisher.close();
        }
        try (Channel channel = connection.createChannel()) {
          channel.queueDelete(name); // auto-delete removes it only after a consumer: the run's own cleanup
          channel.exchangeDelete(name);
        }
      }
    }
    String loadAfter = loadAverage();
    System.out.println("load average after: " + loadAfter);
    report.append("- load average after: ").append(loadAfter).append('\n');
    Path file = Path.of(System.getProperty("idem.bench.outbox.report", "idem-benchmarks/target/outbox-relay.md"));
    Files.createDirectories(file.toAbsolutePath().getParent());
    Files.writeString(file, report.toString());
    System.out.println("written to " + file.toAbsolutePath());
  }

  private static String throughput(DataSource dataSource, IdemRuntime runtime, String broker,
                                   OutboxPublisher publisher, int events, int rounds) throws Exception {
    double[] idem = new double[rounds];
    double[] poller = new double[rounds];
    for (int round = 0; round < rounds; round++) {
      // Interleaved, and the first variant alternates, so that drift of the machine hits both alike.
      for (int turn = 0; turn < 2; turn++) {
        boolean idemTurn = (round + turn) % 2 == 0;
        write(runtime, events);
        // The clock stops at the broker's last confirmation (counted by the same wrapper for both variants), not by
        // polling the table, which would load the database the variants share.
        java.util.concurrent.CountDownLatch confirmed = new java.util.concurrent.CountDownLatch(events);
        OutboxPublisher counting = messages -> {
          List<PublishOutcome> outcomes = publisher.publish(messages);
          outcomes.stream().filter(o -> o.status() == PublishOutcome.Status.SENT).forEach(o -> confirmed.countDown());
          return outcomes;
        };
        long start = System.nanoTime();
        long elapsed;
        if (idemTurn) {
          try (OutboxRelay relay = runtime.startOutboxRelay(counting, OutboxRelayOptions.defaults()
              .withBatchSize(BATCH).withPollInterval(Duration.ofMillis(5)))) {
            confirmed.await();
            elapsed = System.nanoTime() - start;
            awaitAllSent(dataSource);
          }
        } else {
          handWrittenPoller(dataSource, counting);
          confirmed.await();
          elapsed = System.nanoTime() - start;
        }
        double perSecond = events / (elapsed / 1e9);
        (idemTurn ? idem : poller)[round] = perSecond;
        execute(dataSource, "DELETE FROM idem_outbox");
      }
      System.out.printf(Locale.ROOT, "%s round %d: idem relay %.0f events/s, hand-written poller %.0f events/s%n",
          broker, round + 1, idem[round], poller[round]);
    }
    double idemMedian = median(idem);
    double pollerMedian = median(poller);
    String line = String.format(Locale.ROOT, "- throughput, %s: idem relay %.0f events/s, hand-written SKIP LOCKED"
        + " poller %.0f events/s (medians of %d); ratio idem/poller %.2f%n", broker, idemMedian, pollerMedian, rounds,
        idemMedian / pollerMedian);
    System.out.print(line);
    return line;
  }

  /** The baseline: claim, publish and mark in one transaction that holds the row locks while publishing. */
  private static void handWrittenPoller(DataSource dataSource, OutboxPublisher publisher) throws Exception {
    String claim = "SELECT id, destination, partition_key, event_type, payload, created_at FROM idem_outbox"
        + " WHERE state = 'PENDING' ORDER BY next_attempt_at LIMIT " + BATCH + " FOR UPDATE SKIP LOCKED";
    try (Connection connection = dataSource.getConnection()) {
      connection.setAutoCommit(false);
      while (true) {
        List<OutboxMessage> batch = new ArrayList<>(BATCH);
        try (PreparedStatement select = connection.prepareStatement(claim); ResultSet rs = select.executeQuery()) {
          while (rs.next()) {
            batch.add(new OutboxMessage(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), Map.of(),
                rs.getString(5), Instant.ofEpochMilli(rs.getLong(6))));
          }
        }
        if (batch.isEmpty()) {
          connection.commit();
          return;
        }
        List<PublishOutcome> outcomes = publisher.publish(batch);
        try (PreparedStatement mark = connection.prepareStatement(
            "UPDATE idem_outbox SET state = 'SENT', sent_at = ?, claim_token = NULL WHERE id = ?")) {
          for (int i = 0; i < batch.size(); i++) {
            if (outcomes.get(i).status() != PublishOutcome.Status.SENT) {
              throw new IllegalStateException("the broker did not confirm: " + outcomes.get(i));
            }
            mark.setLong(1, System.currentTimeMillis());
            mark.setString(2, batch.get(i).messageId());
            mark.addBatch();
          }
          mark.executeBatch();
        }
        connection.commit();
      }
    }
  }

  private static String latency(DataSource dataSource, IdemRuntime runtime, String broker, OutboxPublisher publisher,
                                int rate, int seconds, Map<Long, Long> committedAt, ConcurrentLinkedQueue<Long> latencies)
      throws Exception {
    OrderEvents events = new OrderEvents_Outbox(runtime);
    int total = rate * seconds;
    // Autovacuum is off on the benchmark machine, so nothing would ANALYZE the consumer's tables while they grow
    // from empty: plans made for an empty idem_record (a sequential scan in the batch claim's join) then cost more
    // with every batch, and the consumer fell behind (p99 of 26 s at 1,000 events/s on RabbitMQ, measured). An
    // application's autovacuum analyzes a table that grew by 10%; this does the same, every second.
    ScheduledExecutorService analyzer = Executors.newSingleThreadScheduledExecutor();
    if (isPostgres(dataSource)) {
      analyzer.scheduleWithFixedDelay(() -> {
        try {
          execute(dataSource, "ANALYZE");
        } catch (SQLException e) {
          System.err.println("ANALYZE failed: " + e);
        }
      }, 1, 1, TimeUnit.SECONDS);
    }
    try {
      return measureLatency(runtime, broker, publisher, rate, seconds, committedAt, latencies, events, total,
          dataSource);
    } finally {
      analyzer.shutdownNow();
      analyzer.awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  private static boolean isPostgres(DataSource dataSource) throws SQLException {
    try (Connection connection = dataSource.getConnection()) {
      return connection.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT).contains("postgres");
    }
  }

  private static String measureLatency(IdemRuntime runtime, String broker, OutboxPublisher publisher, int rate,
      int seconds, Map<Long, Long> committedAt, ConcurrentLinkedQueue<Long> latencies, OrderEvents events, int total,
      DataSource dataSource) throws Exception {
    try (OutboxRelay relay = runtime.startOutboxRelay(publisher, OutboxRelayOptions.defaults()
        .withBatchSize(BATCH).withPollInterval(Duration.ofMillis(5)))) {
      long start = System.nanoTime();
      for (int i = 0; i < total; i++) {
        long due = start + (long) (i * (1e9 / rate));
        long wait = due - System.nanoTime();
        if (wait > 0) {
          TimeUnit.NANOSECONDS.sleep(wait);
        }
        long id = i + 1L + (long) broker.hashCode() * 1_000_000_000L;
        runtime.runInTransaction(connection -> events.orderCreated(new OrderCreated(id, "bench", 100)));
        committedAt.put(id, System.nanoTime());
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (latencies.size() < total && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
    }
    long[] sorted = latencies.stream().mapToLong(Long::longValue).sorted().toArray();
    String line = String.format(Locale.ROOT, "- latency commit -> consumer commit, %s at %d events/s: p50 %.1f ms,"
        + " p99 %.1f ms (%d of %d events)%n", broker, rate, percentile(sorted, 0.50) / 1e6,
        percentile(sorted, 0.99) / 1e6, sorted.length, total);
    System.out.print(line);
    execute(dataSource, "DELETE FROM idem_outbox");
    return line;
  }

  /** Applies a batch with the billing command's batch form (one transaction) and records each event's latency. */
  private static void record(Billing billing, String group, Map<Long, Long> committedAt,
                             ConcurrentLinkedQueue<Long> latencies, List<Billing.Delivery> deliveries) {
    billing.onOrdersCreated(deliveries, group);
    long now = System.nanoTime();
    for (Billing.Delivery delivery : deliveries) {
      Long committed = committedAt.remove(delivery.event().orderId());
      if (committed != null) {
        latencies.add(now - committed);
      }
    }
  }

  private static void write(IdemRuntime runtime, int events) {
    OrderEvents outbox = new OrderEvents_Outbox(runtime);
    AtomicLong next = new AtomicLong();
    for (int written = 0; written < events; written += 500) {
      int n = Math.min(500, events - written);
      runtime.runInTransaction(connection -> {
        for (int i = 0; i < n; i++) {
          outbox.orderCreated(new OrderCreated(next.incrementAndGet(), "bench", 100));
        }
      });
    }
  }

  private static void awaitAllSent(DataSource dataSource) throws SQLException, InterruptedException {
    while (count(dataSource, "SELECT COUNT(*) FROM idem_outbox WHERE state <> 'SENT'") > 0) {
      Thread.sleep(5);
    }
  }

  private static long count(DataSource dataSource, String sql) throws SQLException {
    try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
         ResultSet rs = statement.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** What autovacuum, off on the benchmark machine, would have done for an application: dead tuples and plans. */
  private static void vacuumAnalyze(DataSource dataSource, TestDatabase database) throws SQLException {
    if (database == TestDatabase.POSTGRESQL) {
      execute(dataSource, "VACUUM ANALYZE");
    }
  }

  private static void execute(DataSource dataSource, String sql) throws SQLException {
    try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted.length % 2 == 1 ? sorted[sorted.length / 2]
        : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
  }

  private static double percentile(long[] sorted, double p) {
    return sorted.length == 0 ? Double.NaN : sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)];
  }

  private static String loadAverage() {
    return String.format(Locale.ROOT, "%.2f (1 min, %d cores)",
        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
        Runtime.getRuntime().availableProcessors());
  }
}
