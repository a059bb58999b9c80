package dev.idem.examples.orders;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import dev.idem.brokers.testing.KafkaTestBroker;
import dev.idem.examples.orders.OrdersOutboxExample.OrdersService;
import dev.idem.kafka.IdempotentKafkaConsumer;
import dev.idem.kafka.KafkaOutboxPublisher;
import dev.idem.rabbitmq.IdempotentRabbitConsumer;
import dev.idem.rabbitmq.RabbitOutboxPublisher;
import dev.idem.runtime.OutboxMessage;
import dev.idem.runtime.OutboxPublisher;
import dev.idem.runtime.OutboxRelay;
import dev.idem.runtime.OutboxRelayOptions;
import dev.idem.runtime.PublishOutcome;
import dev.idem.testing.FaultProxy;
import dev.idem.testing.IsolatedDatabase;
import dev.idem.testing.TestDatabase;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The outbox's whole flow under faults, counted: orders posted by an HTTP client that retries on its (short)
 * timeout, so retries race first calls; the relay killed after the broker confirmed a batch and before it marked it
 * (another relay publishes the rows again after the claim lease); the broker's connections cut (RabbitMQ, through a
 * {@link FaultProxy}; the shared server itself is never restarted) or the broker restarted (Kafka, in this JVM, same
 * port and logs); the consumer killed after its commit and before its ack or offset commit. Every order must end
 * PAID in the billing service exactly once, every event be applied once, every outbox row be SENT.
 */
class OrdersOutboxFaultTest {

  private static final int ORDERS = 300;
  private static final int CLIENT_THREADS = 8;
  private static final int RELAY_KILLS = 2;
  private static final int CONSUMER_CRASHES = 3;

  enum Broker { RABBITMQ, KAFKA }

  static Stream<Arguments> combinations() {
    return Stream.of(TestDatabase.POSTGRESQL, TestDatabase.MARIADB)
        .flatMap(database -> Stream.of(Broker.values()).map(broker -> Arguments.of(database, broker)));
  }

  @ParameterizedTest(name = "{0} + {1}")
  @MethodSource("combinations")
  void everyOrderIsPaidExactlyOnceThroughRelayBrokerAndConsumerFaults(TestDatabase database, Broker broker)
      throws Exception {
    try (IsolatedDatabase db = IsolatedDatabase.open(database);
         Bus bus = broker == Broker.RABBITMQ ? new RabbitBus() : new KafkaBus()) {
      DataSource dataSource = db.dataSource();
      OrdersService orders = OrdersOutboxExample.ordersService(dataSource);
      Billing billing = OrdersOutboxExample.billingService(dataSource);

      // The consumer: crashes after the commit of every 60th message, CONSUMER_CRASHES times; restarted by the watchdog.
      AtomicInteger handled = new AtomicInteger();
      AtomicInteger crashes = new AtomicInteger();
      Bus.Handler handler = (messageId, group, json) -> {
        OrdersOutboxExample.apply(billing, messageId, group, json);
        if (handled.incrementAndGet() % 60 == 0 && crashes.get() < CONSUMER_CRASHES) {
          crashes.incrementAndGet();
          throw new Error("simulated crash of the consumer after its commit, before its ack");
        }
      };
      // The relays: one killed after the broker confirmed its batch and before it marks it, RELAY_KILLS times; one
      // plain. A dead relay is replaced by the watchdog.
      OutboxPublisher publisher = bus.publisher();
      AtomicInteger relayKills = new AtomicInteger();
      OutboxPublisher killing = messages -> {
        List<PublishOutcome> outcomes = publisher.publish(messages);
        boolean confirmed = outcomes.stream().allMatch(o -> o.status() == PublishOutcome.Status.SENT);
        outcomes.stream().filter(o -> o.status() != PublishOutcome.Status.SENT).findFirst()
            .ifPresent(o -> System.err.println("relay-killed's publisher: " + o));
        // Every confirmed batch until RELAY_KILLS: with the plain relay beside it and batches claimed ahead, every
        // second one left the killed relay too few batches on a fast run to die RELAY_KILLS times.
        if (confirmed && !messages.isEmpty() && relayKills.get() < RELAY_KILLS) {
          relayKills.incrementAndGet();
          throw new Error("simulated death of the relay between the broker's confirmation and the mark");
        }
        return outcomes;
      };
      OutboxRelayOptions options = OutboxRelayOptions.defaults().withBatchSize(20)
          .withPollInterval(Duration.ofMillis(50)).withClaimLease(Duration.ofSeconds(3))
          .withBackoff(Duration.ofMillis(200), Duration.ofSeconds(2));
      // The plain relay starts when the killed one has died its last time: it is the "another relay" that takes
      // rows after the lease, beside the restarted killed relay.
      OutboxRelay[] relays = {orders.runtime().startOutboxRelay(killing, options.withName("relay-killed")), null};
      Bus.Consumer[] consumer = {bus.startConsumer(handler)};
      AtomicInteger consumerRestarts = new AtomicInteger();
      ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor();
      watchdog.scheduleWithFixedDelay(() -> {
        try {
          if (!relays[0].isRunning()) {
            // The plain relay joins once the killed one has died RELAY_KILLS times: before that, the killed relay
            // (restarted) is alone, so it meets the next batch and dies again, however fast the plain one would
            // have been (CI saw the plain relay take every row left after the first death).
            if (relays[1] == null && relayKills.get() >= RELAY_KILLS) {
              relays[1] = orders.runtime().startOutboxRelay(publisher, options.withName("relay-plain"));
            }
            relays[0].close();
            relays[0] = orders.runtime().startOutboxRelay(killing, options.withName("relay-killed"));
          }
          if (!consumer[0].isRunning()) {
            consumer[0].close();
            consumer[0] = bus.startConsumer(handler);
            consumerRestarts.incrementAndGet();
          }
        } catch (Exception e) {
          System.err.println("watchdog: " + e); // the next round tries again (e.g. the broker is restarting)
        }
      }, 100, 100, TimeUnit.MILLISECONDS);

      Map<String, Long> orderIdByKey = new ConcurrentHashMap<>();
      AtomicInteger clientTimeouts = new AtomicInteger();
      try (OrdersApi api = OrdersApi.start(0, orders.orders())) {
        ExecutorService clients = Executors.newFixedThreadPool(CLIENT_THREADS);
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        URI uri = URI.create("http://127.0.0.1:" + api.port() + "/orders");
        List<Future<?>> posted = new ArrayList<>();
        for (int i = 0; i < ORDERS; i++) {
          String key = UUID.randomUUID().toString();
          long amount = 100 + i;
          posted.add(clients.submit(() -> {
            orderIdByKey.put(key, post(http, uri, key, amount, clientTimeouts));
            return null;
          }));
        }
        while (orderIdByKey.size() < ORDERS / 3) {
          Thread.sleep(10);
        }
        bus.fault(); // while orders are still being created and published
        for (Future<?> f : posted) {
          f.get(5, TimeUnit.MINUTES);
        }
        clients.shutdown();
      }

      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(4);
      while (System.nanoTime() < deadline && (count(dataSource, "SELECT COUNT(DISTINCT message_id) FROM billing_charges")
          < ORDERS || count(dataSource, "SELECT COUNT(*) FROM idem_outbox WHERE state <> 'SENT'") > 0)) {
        Thread.sleep(200);
      }
      // Let the redeliveries that the faults caused arrive (they must change nothing).
      Thread.sleep(3_000);
      watchdog.shutdownNow();
      watchdog.awaitTermination(10, TimeUnit.SECONDS);
      for (OutboxRelay relay : relays) {
        if (relay != null) {
          relay.close();
        }
      }
      consumer[0].close();
      publisher.close();

      System.out.printf("%s + %s: %d orders, %d client timeouts or dropped connections (retried), %d relay kills, %d consumer crashes"
              + " (%d restarts), %d messages handled%n", database, broker, ORDERS, clientTimeouts.get(),
          relayKills.get(), crashes.get(), consumerRestarts.get(), handled.get());
      // The faults happened: otherwise this test would prove nothing.
      assertEquals(RELAY_KILLS, relayKills.get(), "relay kills");
      assertEquals(CONSUMER_CRASHES, crashes.get(), "consumer crashes");
      assertTrue(bus.faults() >= 1, "broker faults");
      // No duplicate orders: one per key, and each key's retries got that one back.
      assertEquals(ORDERS, orderIdByKey.size());
      assertEquals(ORDERS, count(dataSource, "SELECT COUNT(*) FROM shop_orders"));
      assertEquals(ORDERS, count(dataSource, "SELECT COUNT(DISTINCT idempotency_key) FROM shop_orders"));
      for (Map.Entry<String, Long> entry : orderIdByKey.entrySet()) {
        assertEquals(1, count(dataSource, "SELECT COUNT(*) FROM shop_orders WHERE idempotency_key = '"
            + entry.getKey() + "' AND id = " + entry.getValue()), "order of key " + entry.getKey());
      }
      // Every event written once, published and marked SENT; none parked or pending.
      assertEquals(ORDERS, count(dataSource, "SELECT COUNT(*) FROM idem_outbox"));
      assertEquals(ORDERS, count(dataSource, "SELECT COUNT(*) FROM idem_outbox WHERE state = 'SENT'"));
      // Every event applied exactly once: one charge per message id and per order, each one the transition.
      assertEquals(ORDERS, count(dataSource, "SELECT COUNT(*) FROM billing_charges"));
      assertEquals(ORDERS, count(dataSource, "SELECT COUNT(DISTINCT message_id) FROM billing_charges"));
      assertEquals(ORDERS, count(dataSource, "SELECT COUNT(DISTINCT order_id) FROM billing_charges"));
      assertEquals(ORDERS, count(dataSource, "SELECT COUNT(*) FROM billing_charges c JOIN idem_outbox o"
          + " ON o.id = c.message_id"));
      assertEquals(ORDERS, count(dataSource, "SELECT COUNT(*) FROM billing_charges WHERE transition = 'APPLIED'"));
      // Every order PAID in the billing service.
      assertEquals(ORDERS, count(dataSource, "SELECT COUNT(*) FROM billing_orders b JOIN shop_orders o"
          + " ON o.id = b.id WHERE b.status = 'PAID'"));
      assertEquals(ORDERS, count(dataSource, "SELECT COUNT(*) FROM billing_orders"));
    }
  }

  /**
   * POSTs until a 201, retrying with the same key on a timeout (the first call may still be running), a dropped
   * connection, 409 or 5xx.
   */
  private static long post(HttpClient http, URI uri, String key, long amount, AtomicInteger timeouts)
      throws Exception {
    for (int attempt = 1; attempt <= 200; attempt++) {
      HttpRequest request = HttpRequest.newBuilder(uri).timeout(Duration.ofMillis(150))
          .header("Authorization", "Bearer client-" + (amount % 7)).header("Idempotency-Key", key)
          .header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString("{\"amountCents\": " + amount + "}")).build();
      try {
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() == 201) {
          String body = response.body();
          int start = body.indexOf("\"id\":") + 5;
          int end = body.indexOf(',', start);
          return Long.parseLong(body.substring(start, end).trim());
        }
        if (response.statusCode() != 409 && response.statusCode() < 500) {
          throw new AssertionError("POST /orders answered " + response.statusCode() + ": " + response.body());
        }
      } catch (java.net.http.HttpTimeoutException e) {
        timeouts.incrementAndGet();
      } catch (IOException e) {
        // A connection closed under the client (e.g. a keep-alive one the server dropped after a timed-out call).
        timeouts.incrementAndGet();
      }
      Thread.sleep(20);
    }
    throw new AssertionError("POST /orders with key " + key + " never succeeded");
  }

  private static long count(DataSource dataSource, String sql) throws SQLException {
    try (java.sql.Connection connection = dataSource.getConnection();
         PreparedStatement select = connection.prepareStatement(sql);
         ResultSet rs = select.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** One broker, its publisher, its consumer and its fault. */
  private interface Bus extends AutoCloseable {
    /** What the consumer does with one message. */
    interface Handler {
      void handle(String messageId, String group, String json) throws Exception;
    }

    OutboxPublisher publisher();

    /** A running consumer. */
    interface Consumer extends AutoCloseable {
      boolean isRunning();

      @Override
      void close();
    }

    Consumer startConsumer(Handler handler) throws Exception;

    void fault() throws Exception;

    int faults();
  }

  /** RabbitMQ: the shared server, reached through a proxy that cuts every connection for the fault. */
  private static final class RabbitBus implements Bus {
    private final FaultProxy proxy;
    private final ConnectionFactory direct = factory(5672);
    private final ConnectionFactory proxied;
    private final String exchange = "idem-test-orders-" + UUID.randomUUID();
    private final String queue = "idem-test-billing-" + UUID.randomUUID();
    private final List<Connection> connections = new ArrayList<>();
    private final AtomicInteger faults = new AtomicInteger();
    private final RabbitOutboxPublisher publisher;

    RabbitBus() throws Exception {
      int port = Integer.getInteger("idem.rabbitmq.port", 5672);
      try (Connection admin = factory(port).newConnection("idem-tests-admin"); Channel channel = admin.createChannel()) {
        channel.exchangeDeclare(exchange, "topic", true);
        channel.queueDeclare(queue, true, false, false, null);
        channel.queueBind(queue, exchange, "#");
      } catch (IOException | TimeoutException e) {
        if (Boolean.getBoolean("idem.requireDatabases")) {
          throw new AssertionError("RabbitMQ is not usable: " + e, e);
        }
        System.err.println("*** SKIPPING RabbitMQ: " + e + " ***");
        Assumptions.abort("RabbitMQ is not usable: " + e);
      }
      proxy = FaultProxy.start(port, 64);
      proxied = factory(proxy.port());
      publisher = RabbitOutboxPublisher.builder(proxied).exchange(message -> exchange)
          .confirmTimeout(Duration.ofSeconds(3)).build();
    }

    private static ConnectionFactory factory(int port) {
      ConnectionFactory factory = new ConnectionFactory();
      factory.setHost(System.getProperty("idem.rabbitmq.host", "127.0.0.1"));
      factory.setPort(port);
      factory.setUsername(System.getProperty("idem.rabbitmq.user", "guest"));
      factory.setPassword(System.getProperty("idem.rabbitmq.password", "guest"));
      factory.setConnectionTimeout(3_000);
      factory.setAutomaticRecoveryEnabled(false); // a lost connection is a dead consumer, restarted by the watchdog
      return factory;
    }

    @Override
    public OutboxPublisher publisher() {
      return publisher;
    }

    @Override
    public Consumer startConsumer(Handler handler) throws Exception {
      Connection connection = proxied.newConnection("idem-tests-billing");
      synchronized (connections) {
        connections.add(connection);
      }
      IdempotentRabbitConsumer consumer = IdempotentRabbitConsumer.builder(connection, queue,
              OrdersOutboxExample.BILLING_GROUP).retryBackoff(Duration.ofMillis(100))
          .start(message -> handler.handle(message.messageId(), message.group(), message.bodyText()));
      return new Consumer() {
        @Override
        public void close() {
          consumer.close();
          try {
            connection.abort(1_000);
          } catch (RuntimeException ignored) {
            // already gone
          }
        }

        @Override
        public boolean isRunning() {
          return consumer.isRunning() && connection.isOpen();
        }
      };
    }

    @Override
    public void fault() {
      proxy.cutAll();
      faults.incrementAndGet();
    }

    @Override
    public int faults() {
      return faults.get();
    }

    @Override
    public void close() throws Exception {
      publisher.close();
      proxy.close();
      try (Connection admin = direct.newConnection("idem-tests-admin"); Channel channel = admin.createChannel()) {
        channel.queueDelete(queue);
        channel.exchangeDelete(exchange);
      }
    }
  }

  /** Kafka: a KRaft broker in this JVM, restarted on the same port and log directory for the fault. */
  private static final class KafkaBus implements Bus {
    private final KafkaTestBroker broker = KafkaTestBroker.start();
    private final String topic = "orders-" + UUID.randomUUID();
    private final String group = OrdersOutboxExample.BILLING_GROUP;
    private final KafkaOutboxPublisher publisher;
    private final AtomicInteger faults = new AtomicInteger();

    KafkaBus() {
      broker.createTopic(topic, 4);
      publisher = KafkaOutboxPublisher.builder(Map.of("bootstrap.servers", broker.bootstrapServers()))
          .topic(message -> topic).timeout(Duration.ofSeconds(5)).build();
    }

    @Override
    public OutboxPublisher publisher() {
      return publisher;
    }

    @Override
    public Consumer startConsumer(Handler handler) {
      IdempotentKafkaConsumer consumer = IdempotentKafkaConsumer.builder(Map.of(
                  "bootstrap.servers", broker.bootstrapServers(), "group.id", group,
                  "auto.offset.reset", "earliest", "session.timeout.ms", "10000"), List.of(topic))
          .retryBackoff(Duration.ofMillis(100))
          .start(message -> handler.handle(message.messageId(), message.group(), message.valueText()));
      return new Consumer() {
        @Override
        public void close() {
          consumer.close();
        }

        @Override
        public boolean isRunning() {
          return consumer.isRunning();
        }
      };
    }

    @Override
    public void fault() {
      broker.restart();
      faults.incrementAndGet();
    }

    @Override
    public int faults() {
      return faults.get();
    }

    @Override
    public void close() {
      publisher.close();
      broker.close();
    }
  }
}
