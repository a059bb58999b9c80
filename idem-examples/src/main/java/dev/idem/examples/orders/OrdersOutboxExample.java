package dev.idem.examples.orders;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.http.jdk.JdkHttpServer;
import dev.idem.kafka.IdempotentKafkaConsumer;
import dev.idem.kafka.KafkaOutboxPublisher;
import dev.idem.rabbitmq.IdempotentRabbitConsumer;
import dev.idem.rabbitmq.RabbitOutboxPublisher;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.OutboxPublisher;
import dev.idem.runtime.OutboxRelay;
import dev.idem.runtime.OutboxRelayOptions;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The outbox's whole flow, two services on one database:
 * <pre>
 * POST /orders (Idempotency-Key) → Orders_Idempotent: shop_orders row (CREATED) + OrderCreated in idem_outbox, one tx
 *   → the relay → RabbitMQ (publisher confirms) or Kafka (idempotent producer)
 *   → the billing service's consumer → Billing_Idempotent keyed by (message id, group): its copy of the order,
 *     the charge, CREATED → PAID; ack / offset commit only after that commit
 * </pre>
 * The billing service has its own runtime (record table {@code billing_idem_record}) and tables
 * ({@code billing_orders}, {@code billing_charges}); in production it would have its own database.
 *
 * <pre>
 * mvn -q -Prun-orders -pl idem-examples -am verify -DskipTests        # PostgreSQL 127.0.0.1:5432/test, RabbitMQ
 * ... -Dbroker=kafka -Dkafka.bootstrap=127.0.0.1:9092 -Djdbc.url=jdbc:mariadb://127.0.0.1:3306/test -Djdbc.user=root
 * </pre>
 */
public final class OrdersOutboxExample {

  /** The billing service's consumer group. */
  public static final String BILLING_GROUP = "billing";

  private static final ObjectMapper JSON = new ObjectMapper();

  private OrdersOutboxExample() {}

  /**
   * The orders service: its runtime (idem_record, idem_outbox), its table and the idempotent command.
   *
   * @param dataSource its database
   * @return the runtime and the command
   */
  public static OrdersService ordersService(DataSource dataSource) {
    IdemRuntime runtime = IdemRuntime.builder().dataSource(dataSource).maxKeyLength(255).build();
    runtime.createSchema();
    JdbcOrders.createTable(dataSource);
    Orders orders = new Orders_Idempotent(new JdbcOrders(runtime, new OrderEvents_Outbox(runtime)), runtime);
    return new OrdersService(runtime, orders);
  }

  /**
   * The orders service's parts.
   *
   * @param runtime its runtime, which starts the relays
   * @param orders the idempotent command
   */
  public record OrdersService(IdemRuntime runtime, Orders orders) {}

  /**
   * The billing service: its own runtime (record table {@code billing_idem_record}) and tables.
   *
   * @param dataSource its database
   * @return the idempotent consumer command
   */
  public static Billing billingService(DataSource dataSource) {
    IdemRuntime runtime = IdemRuntime.builder().dataSource(dataSource).tableName("billing_idem_record").build();
    runtime.createSchema();
    JdbcBilling.createTables(dataSource);
    return new Billing_Idempotent(new JdbcBilling(runtime, new BillingFlow_Idempotent(runtime)), runtime);
  }

  /**
   * Applies one delivered message: decode, then the idempotent command (which commits before this returns).
   *
   * @param billing the billing service
   * @param messageId the message id
   * @param group the consumer group
   * @param json the message's body
   * @throws IOException if the body is not an OrderCreated
   */
  public static void apply(Billing billing, String messageId, String group, String json) throws IOException {
    billing.onOrderCreated(messageId, group, JSON.readValue(json, OrderCreated.class));
  }

  /**
   * Decodes one delivered message for {@link Billing#onOrdersCreated}, the batch form.
   *
   * @param messageId the message id
   * @param json the message's body
   * @return the delivery
   * @throws IOException if the body is not an OrderCreated
   */
  public static Billing.Delivery delivery(String messageId, String json) throws IOException {
    return new Billing.Delivery(messageId, JSON.readValue(json, OrderCreated.class));
  }

  /**
   * {@code -Dbroker=rabbitmq|kafka} (default rabbitmq; RabbitMQ at {@code -Drabbitmq.host}, default 127.0.0.1,
   * guest/guest; Kafka at {@code -Dkafka.bootstrap} with a topic {@code orders}), {@code -Djdbc.url=} (default
   * PostgreSQL 127.0.0.1:5432/test), {@code -Djdbc.user=}, {@code -Djdbc.password=}, {@code -Dport=} (default 8081).
   *
   * @param args none
   * @throws Exception if a service is unreachable
   */
  @SuppressWarnings("try") // the relay runs while the try's body does
  public static void main(String[] args) throws Exception {
    JdkHttpServer.sendWithoutDelay();
    String broker = System.getProperty("broker", "rabbitmq").toLowerCase(Locale.ROOT);
    String url = System.getProperty("jdbc.url", "jdbc:postgresql://127.0.0.1:5432/test");
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setUsername(System.getProperty("jdbc.user", url.startsWith("jdbc:mariadb:") ? "root" : "postgres"));
    config.setPassword(System.getProperty("jdbc.password", ""));
    config.setMaximumPoolSize(20);
    try (HikariDataSource dataSource = new HikariDataSource(config)) {
      OrdersService orders = ordersService(dataSource);
      Billing billing = billingService(dataSource);
      OutboxPublisher publisher;
      AutoCloseable consumer;
      Connection rabbit = null;
      if (broker.equals("kafka")) {
        String bootstrap = System.getProperty("kafka.bootstrap", "127.0.0.1:9092");
        publisher = KafkaOutboxPublisher.builder(Map.of("bootstrap.servers", bootstrap)).build();
        consumer = IdempotentKafkaConsumer.builder(Map.of("bootstrap.servers", bootstrap, "group.id", BILLING_GROUP,
                "auto.offset.reset", "earliest"), List.of("orders"))
            .start(message -> apply(billing, message.messageId(), message.group(), message.valueText()));
      } else {
        ConnectionFactory factory = new ConnectionFactory();
        factory.setHost(System.getProperty("rabbitmq.host", "127.0.0.1"));
        rabbit = factory.newConnection("orders-example");
        try (Channel channel = rabbit.createChannel()) {
          channel.exchangeDeclare("orders", "topic", true);
          channel.queueDeclare("billing.orders", true, false, false, null);
          channel.queueBind("billing.orders", "orders", "#");
        }
        publisher = RabbitOutboxPublisher.builder(factory).build();
        consumer = IdempotentRabbitConsumer.builder(rabbit, "billing.orders", BILLING_GROUP)
            .start(message -> apply(billing, message.messageId(), message.group(), message.bodyText()));
      }
      try (OrdersApi api = OrdersApi.start(Integer.getInteger("port", 8081), orders.orders());
           OutboxRelay relay = orders.runtime().startOutboxRelay(publisher, OutboxRelayOptions.defaults())) {
        HttpClient client = HttpClient.newHttpClient();
        for (int i = 1; i <= 3; i++) {
          String key = UUID.randomUUID().toString();
          for (int attempt = 1; attempt <= 2; attempt++) { // the second is a client's retry: the same order back
            HttpResponse<String> response = client.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + api.port() + "/orders"))
                .header("Authorization", "Bearer alice").header("Idempotency-Key", key)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"amountCents\": " + (i * 1000) + "}")).build(),
                HttpResponse.BodyHandlers.ofString());
            System.out.println("POST /orders (" + key + ", attempt " + attempt + ") -> " + response.statusCode()
                + " " + response.body());
          }
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline && paidAliceOrders(dataSource) < 3) {
          Thread.sleep(100);
        }
        System.out.println("alice's orders PAID in the billing service: " + paidAliceOrders(dataSource));
      } finally {
        consumer.close();
        publisher.close();
        if (rabbit != null) {
          rabbit.close();
        }
      }
    }
  }

  private static long paidAliceOrders(DataSource dataSource) throws SQLException {
    try (java.sql.Connection connection = dataSource.getConnection();
         PreparedStatement select = connection.prepareStatement("SELECT COUNT(*) FROM billing_orders b"
             + " JOIN shop_orders o ON o.id = b.id WHERE o.client_id = 'alice' AND b.status = 'PAID'");
         ResultSet rs = select.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
