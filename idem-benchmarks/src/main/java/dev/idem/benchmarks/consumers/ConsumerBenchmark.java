package dev.idem.benchmarks.consumers;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.benchmarks.consumers.PaymentConsumers.Payment;
import dev.idem.runtime.IdemRuntime;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.apache.camel.processor.idempotent.jdbc.JdbcMessageIdRepository;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Consumes the same stream of messages (1% duplicates mixed in) on PostgreSQL with each dedup variant, one after
 * the other in one run, and prints messages per second and the ratio to Camel's per-message figure. Every variant
 * does the same business write, one INSERT per processed message, in the same transaction as its dedup record.
 *
 * <p>{@code mvn -q -Pbench -pl idem-benchmarks -am verify -DskipTests}; system properties:
 * {@code idem.bench.messages} (distinct messages, default 200000), {@code idem.bench.variants} (only the variants
 * whose name contains it; their ratio is then to the first one run), {@code idem.bench.url}, {@code .user},
 * {@code .password} (default the local test database). Works in a schema of its own, dropped at the end.
 */
public final class ConsumerBenchmark {

  private static final int WARM_UP_MESSAGES = 5_000;
  private static final double DUPLICATE_RATE = 0.01;
  private static final String GROUP = "billing";

  /** One way to consume a list of deliveries. */
  private interface Variant {
    void consume(List<Payment> deliveries);
  }

  public static void main(String[] args) throws Exception {
    int messages = Integer.getInteger("idem.bench.messages", 200_000);
    String url = System.getProperty("idem.bench.url", "jdbc:postgresql://127.0.0.1:5432/test");
    String user = System.getProperty("idem.bench.user", "postgres");
    String password = System.getProperty("idem.bench.password", "");
    String schema = "idem_bench_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

    admin(url, user, password, "CREATE SCHEMA " + schema);
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema);
    config.setUsername(user);
    config.setPassword(password);
    config.setMaximumPoolSize(4);
    try (HikariDataSource dataSource = new HikariDataSource(config)) {
      new ConsumerBenchmark(dataSource).run(messages);
    } finally {
      admin(url, user, password, "DROP SCHEMA " + schema + " CASCADE");
    }
  }

  private final HikariDataSource dataSource;
  private final IdemRuntime runtime;
  private final PaymentConsumers idem;
  private final TransactionTemplate transactions;
  private final JdbcTemplate jdbc;
  private final JdbcMessageIdRepository camel;

  private ConsumerBenchmark(HikariDataSource dataSource) throws Exception {
    this.dataSource = dataSource;
    this.runtime = IdemRuntime.builder().dataSource(dataSource).build();
    runtime.createSchema();
    this.idem = new PaymentConsumers_Idempotent(new EffectWriter(runtime), runtime);
    execute("CREATE TABLE effects (message_id VARCHAR(64) NOT NULL, order_id BIGINT NOT NULL,"
            + " amount_cents BIGINT NOT NULL)",
        // Camel's own table, plus the unique key that makes it safe under concurrency (and gives its
        // SELECT COUNT(*) an index to use).
        "CREATE TABLE CAMEL_MESSAGEPROCESSED (processorName VARCHAR(255), messageId VARCHAR(100),"
            + " createdAt TIMESTAMP, CONSTRAINT camel_messageprocessed_uk UNIQUE (processorName, messageId))");
    this.transactions = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
    this.jdbc = new JdbcTemplate(dataSource);
    this.camel = new JdbcMessageIdRepository(dataSource, transactions, GROUP);
    camel.setCreateTableIfNotExists(false);
    camel.start();
  }

  private void run(int messages) throws Exception {
    Map<String, Variant> variants = new LinkedHashMap<>();
    // Camel first: the figure every other one is compared with.
    variants.put("Camel JdbcMessageIdRepository, per message", this::camelPerMessage);
    variants.put("idem per-message handler", deliveries -> deliveries.forEach(p -> idem.onPayment(p, GROUP)));
    for (int size : new int[] {1, 10, 100, 500}) {
      variants.put("idem batch handler, batch size " + size, deliveries -> inBatches(deliveries, size));
    }

    List<Payment> deliveries = deliveries("m", messages, new Random(42));
    System.out.printf("%nidem consumer benchmark on PostgreSQL: %,d deliveries (%,d distinct messages, %,d"
            + " duplicates), one business INSERT per processed message, single consumer thread%n%n",
        deliveries.size(), messages, deliveries.size() - messages);
    System.out.printf("%-45s %12s %10s %10s%n", "variant", "messages/s", "seconds", "vs Camel");

    String only = System.getProperty("idem.bench.variants", "");
    double camelRate = 0;
    for (Map.Entry<String, Variant> variant : variants.entrySet()) {
      if (!only.isEmpty() && !variant.getKey().contains(only)) {
        continue;
      }
      clear();
      variant.getValue().consume(deliveries("warm-up", WARM_UP_MESSAGES, new Random(7)));
      clear();
      long start = System.nanoTime();
      variant.getValue().consume(deliveries);
      double seconds = (System.nanoTime() - start) / 1e9;
      long effects = count("SELECT COUNT(*) FROM effects");
      if (effects != messages) {
        throw new IllegalStateException(variant.getKey() + " processed " + effects + " messages, not " + messages);
      }
      double rate = deliveries.size() / seconds;
      if (camelRate == 0) {
        camelRate = rate;
      }
      System.out.printf("%-45s %,12.0f %10.1f %9.1fx%n", variant.getKey(), rate, seconds, rate / camelRate);
    }
    System.out.println();
    camel.stop();
  }

  private void camelPerMessage(List<Payment> deliveries) {
    for (Payment payment : deliveries) {
      transactions.executeWithoutResult(status -> {
        // add() joins this transaction: same data source, PROPAGATION_REQUIRED.
        if (camel.add(payment.messageId())) {
          jdbc.update(EffectWriter.INSERT, payment.messageId(), payment.orderId(), payment.amountCents());
        }
      });
    }
  }

  private void inBatches(List<Payment> deliveries, int size) {
    for (int from = 0; from < deliveries.size(); from += size) {
      idem.onPayments(deliveries.subList(from, Math.min(deliveries.size(), from + size)), GROUP);
    }
  }

  /** {@code messages} distinct messages in order, with 1% redeliveries of recent ones mixed in. */
  private static List<Payment> deliveries(String prefix, int messages, Random random) {
    List<Payment> deliveries = new ArrayList<>(messages + messages / 50);
    List<Payment> sent = new ArrayList<>(messages);
    for (int i = 0; i < messages; i++) {
      Payment payment = new Payment(prefix + "-" + new UUID(random.nextLong(), random.nextLong()), i, 100 + i % 900);
      deliveries.add(payment);
      sent.add(payment);
      if (random.nextDouble() < DUPLICATE_RATE) {
        // A redelivery of one of the last thousand messages, as after a consumer restart.
        deliveries.add(sent.get(Math.max(0, sent.size() - 1 - random.nextInt(1000))));
      }
    }
    return deliveries;
  }

  private void clear() throws SQLException {
    execute("TRUNCATE idem_record", "TRUNCATE effects", "TRUNCATE CAMEL_MESSAGEPROCESSED", "VACUUM ANALYZE");
  }

  private void execute(String... sql) throws SQLException {
    try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
      for (String s : sql) {
        statement.execute(s);
      }
    }
  }

  private long count(String sql) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(sql)) {
      rows.next();
      return rows.getLong(1);
    }
  }

  private static void admin(String url, String user, String password, String sql) throws SQLException {
    try (Connection connection = DriverManager.getConnection(url, user, password);
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }
}
