package dev.idem.redis;

import io.lettuce.core.RedisURI;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A redis-server of the test's own on a free port (the shared one at 6379 is never stopped): started, stopped with
 * SIGKILL and started again empty (no persistence), so that a test can take Redis away mid-run.
 */
final class PrivateRedis implements AutoCloseable {

  private final int port;
  private final List<String> extraArguments;
  private final Path directory;
  private Process process;

  PrivateRedis(String... extraArguments) throws IOException {
    this.port = freePort();
    this.extraArguments = List.of(extraArguments);
    this.directory = Files.createTempDirectory("idem-redis-");
  }

  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  int port() {
    return port;
  }

  RedisURI uri() {
    return RedisURI.create("redis://127.0.0.1:" + port);
  }

  /** Starts the server (empty) and waits until it accepts connections. */
  PrivateRedis start() throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("redis-server", "--port", Integer.toString(port),
        "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", directory.toString()));
    command.addAll(extraArguments);
    process = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(directory.resolve("redis.log").toFile()).start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < deadline) {
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
        return this;
      } catch (IOException notYet) {
        if (!process.isAlive()) {
          throw new IllegalStateException("redis-server exited: " + Files.readString(directory.resolve("redis.log")));
        }
        Thread.sleep(20);
      }
    }
    throw new IllegalStateException("redis-server did not start on port " + port);
  }

  /** SIGKILL: the server vanishes as in a crash, with everything it held. */
  void kill() throws InterruptedException {
    if (process != null) {
      process.destroyForcibly();
      process.waitFor(20, TimeUnit.SECONDS);
      process = null;
    }
  }

  @Override
  public void close() throws InterruptedException, IOException {
    kill();
    try (var files = Files.list(directory)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        Files.deleteIfExists(file);
      }
    }
    Files.deleteIfExists(directory);
  }
}
