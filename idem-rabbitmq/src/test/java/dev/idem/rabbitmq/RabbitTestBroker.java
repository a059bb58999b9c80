package dev.idem.rabbitmq;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Assumptions;

/**
 * The shared RabbitMQ at 127.0.0.1:5672 (guest/guest), with exchanges and queues of unique names that
 * {@link #close()} deletes. Unreachable, the tests are skipped, unless {@code idem.requireDatabases} is true (CI).
 */
final class RabbitTestBroker implements AutoCloseable {

  private final Connection connection;
  private final Channel admin;
  private final List<String> queues = new ArrayList<>();
  private final List<String> exchanges = new ArrayList<>();

  private RabbitTestBroker(Connection connection) throws IOException {
    this.connection = connection;
    this.admin = connection.createChannel();
  }

  static ConnectionFactory factory() {
    ConnectionFactory factory = new ConnectionFactory();
    factory.setHost(System.getProperty("idem.rabbitmq.host", "127.0.0.1"));
    factory.setPort(Integer.getInteger("idem.rabbitmq.port", 5672));
    factory.setUsername(System.getProperty("idem.rabbitmq.user", "guest"));
    factory.setPassword(System.getProperty("idem.rabbitmq.password", "guest"));
    factory.setConnectionTimeout(3_000);
    return factory;
  }

  static RabbitTestBroker connect() {
    ConnectionFactory factory = factory();
    try {
      return new RabbitTestBroker(factory.newConnection("idem-rabbitmq-tests"));
    } catch (IOException | TimeoutException e) {
      String reason = "RabbitMQ at " + factory.getHost() + ":" + factory.getPort() + " is not usable: " + e;
      if (Boolean.getBoolean("idem.requireDatabases")) {
        throw new AssertionError(reason + " (idem.requireDatabases=true, so this fails instead of skipping)", e);
      }
      System.err.println("*** SKIPPING RabbitMQ tests: " + reason + " ***");
      Assumptions.abort(reason);
      throw new AssertionError("unreachable");
    }
  }

  Connection connection() {
    return connection;
  }

  Channel admin() {
    return admin;
  }

  String declareQueue() throws IOException {
    String queue = "idem-test-" + UUID.randomUUID();
    admin.queueDeclare(queue, true, false, false, null);
    queues.add(queue);
    return queue;
  }

  /** A topic exchange with no queue bound. */
  String declareExchange() throws IOException {
    String exchange = "idem-test-x-" + UUID.randomUUID();
    admin.exchangeDeclare(exchange, "topic", true);
    exchanges.add(exchange);
    return exchange;
  }

  long readyMessages(String queue) throws IOException {
    return admin.queueDeclarePassive(queue).getMessageCount();
  }

  @Override
  public void close() throws IOException, TimeoutException {
    try {
      for (String queue : queues) {
        admin.queueDelete(queue);
      }
      for (String exchange : exchanges) {
        admin.exchangeDelete(exchange);
      }
    } finally {
      connection.close();
    }
  }
}
