package dev.idem.examples.payments;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.testing.DatabaseContract;
import dev.idem.testing.TestDatabase;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The example server as a separate process, started with its own {@code main}, killed with SIGKILL and started
 * again on the same database: a completed key still replays, from the table.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
abstract class PaymentsServerRestartTest extends DatabaseContract {

  private static final Pattern LISTENING = Pattern.compile("listening on http://localhost:(\\d+)/payments");

  /** The JDBC URL, user and password of the database both processes use. */
  protected abstract List<String> jdbcProperties() throws Exception;

  @Override
  protected void prepare() {}

  @Test
  void aKilledAndRestartedServerStillReplaysACompletedKey() throws Exception {
    String token = "token-" + UUID.randomUUID();
    String key = "\"" + UUID.randomUUID() + "\"";
    String body = ApiClient.body(3100, "EUR");

    String created;
    Child first = Child.start(jdbcProperties());
    try {
      HttpResponse<String> response = new ApiClient(first.port).post(token, key, body);
      assertEquals(201, response.statusCode(), response.body());
      assertFalse(response.headers().firstValue("Idempotent-Replayed").isPresent());
      created = response.body();
    } finally {
      first.kill();
    }

    Child second = Child.start(jdbcProperties());
    try {
      ApiClient client = new ApiClient(second.port);
      HttpResponse<String> replay = client.post(token, key, body);
      assertEquals(201, replay.statusCode(), replay.body());
      assertEquals(created, replay.body());
      assertEquals("true", replay.headers().firstValue("Idempotent-Replayed").orElseThrow());
      assertEquals(created, client.get(token, "/payments/" + PaymentsApiContractTest.idOf(created)).body());
    } finally {
      second.kill();
    }
  }

  /** A server process: {@code java -cp <this test's class path> PaymentsServer}, on a free port. */
  private static final class Child {
    final Process process;
    final int port;

    private Child(Process process, int port) {
      this.process = process;
      this.port = port;
    }

    static Child start(List<String> jdbcProperties) throws Exception {
      List<String> command = new ArrayList<>(List.of(
          Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-cp", System.getProperty("java.class.path"), "-Dport=0"));
      command.addAll(jdbcProperties);
      command.add(PaymentsServer.class.getName());
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      CompletableFuture<Integer> port = CompletableFuture.supplyAsync(() -> {
        try (BufferedReader out = new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
          String line;
          Integer found = null;
          StringBuilder seen = new StringBuilder();
          while ((line = out.readLine()) != null) {
            if (found == null) {
              seen.append(line).append('\n');
              Matcher listening = LISTENING.matcher(line);
              if (listening.find()) {
                found = Integer.parseInt(listening.group(1));
                return found; // the rest of the output is not needed; the pipe closes with the process
              }
            }
          }
          throw new IllegalStateException("The server exited before listening:\n" + seen);
        } catch (java.io.IOException e) {
          throw new IllegalStateException(e);
        }
      });
      try {
        return new Child(process, port.get(60, TimeUnit.SECONDS));
      } catch (Exception e) {
        process.destroyForcibly();
        throw e;
      }
    }

    void kill() throws InterruptedException {
      process.destroyForcibly(); // SIGKILL: no shutdown hook, no clean close
      assertTrue(process.waitFor(30, TimeUnit.SECONDS), "the server process ended");
    }
  }
}
