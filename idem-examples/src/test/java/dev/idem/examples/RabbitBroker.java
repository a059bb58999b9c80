package dev.idem.examples;

import com.rabbitmq.client.AMQP;
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
 * A connection to the RabbitMQ test broker, with queues of unique names that {@link #close()} deletes: several
 * people run the suites against the same broker at once.
 *
 * <p>If the broker is unreachable the calling tests are skipped (loudly, on stderr), unless the system property
 * {@code idem.requireDatabases} is {@code true}, as on CI, where they fail. Coordinates can be overridden with
 * {@code idem.rabbitmq.host}, {@code idem.rabbitmq.port}, {@code idem.rabbitmq.user}, {@code idem.rabbitmq.password}.
 */
final class RabbitBroker implements AutoCloseable {

  private final Connection connection;
  private final Channel admin;
  private final List<String> queues = new ArrayList<>();

  private RabbitBroker(Connection connection, Channel admin) {
    this.connection = connection;
    this.admin = admin;
  }

  static RabbitBroker connect() {
    ConnectionFactory factory = new ConnectionFactory();
    factory.setHost(System.getProperty("idem.rabbitmq.host", "127.0.0.1"));
    factory.setPort(Integer.getInteger("idem.rabbitmq.port", 5672));
    factory.setUsername(System.getProperty("idem.rabbitmq.user", "guest"));
    factory.setPassword(System.getProperty("idem.rabbitmq.password", "guest"));
    factory.setConnectionTimeout(3_000);
    String where = "RabbitMQ at " + factory.getHost() + ":" + factory.getPort();
    try {
      Connection connection = factory.newConnection("idem-tests");
      return new RabbitBroker(connection, connection.createChannel());
    } catch (IOException | TimeoutException e) {
      String reason = where + " is not usable: " + e;
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

  /** Declares a durable queue with a unique name, deleted by {@link #close()}. */
  String declareQueue() throws IOException {
    String queue = "idem-test-" + UUID.randomUUID();
    admin.queueDeclare(queue, true, false, false, null);
    queues.add(queue);
    return queue;
  }

  /** Publishes with the AMQP message-id property, which the consumer deduplicates by. */
  void publish(String queue, String messageId, byte[] body) throws IOException {
    admin.basicPublish("", queue, new AMQP.BasicProperties.Builder().messageId(messageId).build(), body);
  }

  /** Messages in the queue ready for delivery (not counting delivered, unacked ones). */
  long readyMessages(String queue) throws IOException {
    return admin.queueDeclarePassive(queue).getMessageCount();
  }

  @Override
  public void close() throws IOException {
    try {
      for (String queue : queues) {
        admin.queueDelete(queue);
      }
    } finally {
      connection.close();
    }
  }
}
