package dev.idem.brokers.testing;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.Feature;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * A single-node Kafka (KRaft, broker and controller in one server) running in the test's JVM, on free ports of
 * 127.0.0.1, with its logs in a temporary directory that {@link #close()} deletes. No Docker: the broker is Maven
 * Central's {@code kafka_2.13} and {@code kafka-server} on the test class path (declare them in test scope; this
 * module marks them optional).
 *
 * <p>Start one per test class: it takes a few seconds. Topics are made with {@link #createTopic(String, int)};
 * automatic topic creation is off, so a topic the test did not make does not exist.
 */
public final class KafkaTestBroker implements AutoCloseable {

  private final Path directory;
  private final Properties properties;
  private volatile KafkaRaftServer server;
  private final int port;
  private final Admin admin;

  private KafkaTestBroker(Path directory, Properties properties, KafkaRaftServer server, int port) {
    this.directory = directory;
    this.properties = properties;
    this.server = server;
    this.port = port;
    this.admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers()));
  }

  /**
   * Formats a log directory and starts the server; returns once it accepts connections.
   *
   * @return the running broker
   */
  public static KafkaTestBroker start() {
    Path directory;
    try {
      directory = Files.createTempDirectory("idem-kafka-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    int port = freePort();
    int controllerPort = freePort();
    String logs = directory.resolve("logs").toString();
    Properties properties = new Properties();
    properties.put("process.roles", "broker,controller");
    properties.put("node.id", "1");
    properties.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
    properties.put("listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
    properties.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
    properties.put("controller.listener.names", "CONTROLLER");
    properties.put("inter.broker.listener.name", "PLAINTEXT");
    properties.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
    properties.put("log.dirs", logs);
    properties.put("num.partitions", "1");
    properties.put("auto.create.topics.enable", "false");
    properties.put("offsets.topic.replication.factor", "1");
    properties.put("offsets.topic.num.partitions", "1");
    properties.put("transaction.state.log.replication.factor", "1");
    properties.put("transaction.state.log.min.isr", "1");
    properties.put("share.coordinator.state.topic.replication.factor", "1");
    properties.put("share.coordinator.state.topic.min.isr", "1");
    properties.put("group.initial.rebalance.delay.ms", "0");
    properties.put("log.flush.interval.messages", "1000000");
    try {
      new Formatter()
          .setPrintStream(new PrintStream(PrintStream.nullOutputStream()))
          .setNodeId(1)
          .setClusterId(Uuid.randomUuid().toString())
          .setDirectories(List.of(logs))
          .setMetadataLogDirectory(logs)
          .setReleaseVersion(MetadataVersion.latestProduction())
          .setSupportedFeatures(Feature.PRODUCTION_FEATURES)
          .setControllerListenerName("CONTROLLER")
          .run();
    } catch (Exception e) {
      deleteQuietly(directory);
      throw new IllegalStateException("could not format the Kafka test broker's log directory " + logs, e);
    }
    KafkaRaftServer server = new KafkaRaftServer(new KafkaConfig(properties, false), Time.SYSTEM);
    server.startup();
    awaitPort(port);
    KafkaTestBroker broker = new KafkaTestBroker(directory, properties, server, port);
    broker.awaitReady();
    return broker;
  }

  /**
   * Stops the broker and starts it again on the same ports and log directory, as a broker restarted by its operator:
   * topics, records and committed offsets survive; clients see their connections drop and reconnect. Returns once it
   * accepts connections again.
   */
  public synchronized void restart() {
    server.shutdown();
    server.awaitShutdown();
    KafkaRaftServer restarted = new KafkaRaftServer(new KafkaConfig(properties, false), Time.SYSTEM);
    restarted.startup();
    server = restarted;
    awaitPort(port);
    awaitReady();
  }

  /** @return the {@code bootstrap.servers} of this broker */
  public String bootstrapServers() {
    return "127.0.0.1:" + port;
  }

  /** @return the port the broker listens on */
  public int port() {
    return port;
  }

  /**
   * Creates a topic and waits until it exists.
   *
   * @param name the topic's name
   * @param partitions how many partitions it has
   */
  public void createTopic(String name, int partitions) {
    try {
      admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
      awaitLeaders(name, partitions);
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("could not create topic " + name, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating topic " + name, e);
    }
  }

  /**
   * The controller acknowledges a new topic before the broker's metadata has every partition's leader: a producer that
   * writes at once may find a partition without one and, on a loaded machine, let its batch expire. Tests start
   * writing only once the broker itself reports a leader for every partition.
   */
  private void awaitLeaders(String name, int partitions) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      try {
        TopicDescription topic = admin.describeTopics(List.of(name)).allTopicNames().get(5, TimeUnit.SECONDS).get(name);
        if (topic.partitions().size() == partitions
            && topic.partitions().stream().allMatch(partition -> partition.leader() != null
                && !partition.leader().isEmpty())) {
          return;
        }
      } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
        // not visible yet: the deadline below decides
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("topic " + name + " has no leader for every partition after 30 s");
      }
      Thread.sleep(50);
    }
  }

  private void awaitReady() {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      try {
        admin.describeCluster().nodes().get(5, TimeUnit.SECONDS);
        return;
      } catch (Exception e) {
        if (System.nanoTime() > deadline) {
          close();
          throw new IllegalStateException("the Kafka test broker did not become ready", e);
        }
      }
    }
  }

  /** Stops the broker and deletes its logs. */
  @Override
  public void close() {
    try {
      admin.close();
      server.shutdown();
      server.awaitShutdown();
    } finally {
      deleteQuietly(directory);
    }
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void awaitPort(int port) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
        return;
      } catch (IOException e) {
        try {
          Thread.sleep(50);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted while waiting for the Kafka test broker", interrupted);
        }
      }
    }
    throw new IllegalStateException("the Kafka test broker did not listen on port " + port + " within 60 s");
  }

  private static void deleteQuietly(Path directory) {
    try (Stream<Path> paths = Files.walk(directory)) {
      paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    } catch (IOException | UncheckedIOException e) {
      // a temporary directory: the system cleans it eventually
    }
  }
}
