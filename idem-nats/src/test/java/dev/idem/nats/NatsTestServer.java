package dev.idem.nats;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Assumptions;

/**
 * The shared NATS JetStream at 127.0.0.1:4222, with streams of unique names that {@link #close()} deletes.
 * Unreachable, the tests are skipped, unless {@code idem.requireDatabases} is true (CI).
 */
final class NatsTestServer implements AutoCloseable {

  static final String URL = System.getProperty("idem.nats.url", "nats://127.0.0.1:4222");

  private final Connection connection;
  private final JetStreamManagement management;
  private final List<String> streams = new ArrayList<>();

  private NatsTestServer(Connection connection) throws IOException {
    this.connection = connection;
    this.management = connection.jetStreamManagement();
  }

  static Options.Builder options() {
    return Options.builder().server(URL).connectionTimeout(Duration.ofSeconds(3));
  }

  static NatsTestServer connect() {
    try {
      return new NatsTestServer(Nats.connect(options().build()));
    } catch (IOException | InterruptedException e) {
      String reason = "NATS at " + URL + " is not usable: " + e;
      if (Boolean.getBoolean("idem.requireDatabases")) {
        throw new AssertionError(reason + " (idem.requireDatabases=true, so this fails instead of skipping)", e);
      }
      System.err.println("*** SKIPPING NATS tests: " + reason + " ***");
      Assumptions.abort(reason);
      throw new AssertionError("unreachable");
    }
  }

  Connection connection() {
    return connection;
  }

  JetStreamManagement management() {
    return management;
  }

  /** @return a new stream's name; its one subject is {@link #subjectOf(String)} */
  String createStream() throws IOException, JetStreamApiException {
    String id = UUID.randomUUID().toString().replace("-", "");
    String stream = "IDEM_TEST_" + id;
    management.addStream(StreamConfiguration.builder().name(stream).subjects(subjectOf(stream))
        .storageType(StorageType.Memory).build());
    streams.add(stream);
    return stream;
  }

  static String subjectOf(String stream) {
    return "idem-test." + stream.substring("IDEM_TEST_".length());
  }

  static String streamOf(String subject) {
    return "IDEM_TEST_" + subject.substring("idem-test.".length());
  }

  @Override
  public void close() throws InterruptedException {
    try {
      for (String stream : streams) {
        try {
          management.deleteStream(stream);
        } catch (IOException | JetStreamApiException e) {
          System.err.println("could not delete stream " + stream + ": " + e);
        }
      }
    } finally {
      connection.close();
    }
  }
}
