package dev.idem.testing;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * A PostgreSQL server of the test's own, so that a test may kill it: {@code initdb} into a temporary directory, the
 * postmaster on a free port of 127.0.0.1 with its socket in that directory (never the shared server on 5432).
 * {@link #kill()} is {@code kill -9} of the postmaster; {@link #restart()} starts it again on the same data
 * directory, which runs crash recovery. {@link #close()} (and a shutdown hook, should the JVM end first) stops it
 * and deletes the directory.
 *
 * <p>Run as root, every PostgreSQL program runs as the {@code postgres} user ({@code runuser}), since PostgreSQL
 * refuses to run as root. The binaries are looked up in the system property {@code idem.postgresBin}, else the
 * newest {@code /usr/lib/postgresql/<version>/bin}. Where {@code initdb} is absent the calling test is skipped
 * (loudly, on stderr), unless {@code idem.requireDatabases} is {@code true} or the environment says {@code CI=true},
 * where it fails.
 */
public final class PrivatePostgres implements AutoCloseable {

  /** The superuser initdb creates; trust authentication on 127.0.0.1. */
  public static final String USER = "postgres";

  private static final long READY_TIMEOUT_MILLIS = 60_000;

  private final Path bin;
  private final Path directory;
  private final Path data;
  private final Path log;
  private final int port;
  private final Thread shutdownHook;
  private volatile Process postmaster;

  private PrivatePostgres(Path bin, Path directory, int port) {
    this.bin = bin;
    this.directory = directory;
    this.data = directory.resolve("data");
    this.log = directory.resolve("postgres.log");
    this.port = port;
    this.shutdownHook = new Thread(this::stopAndDelete, "private-postgres-" + port + "-cleanup");
  }

  /**
   * Initializes and starts a private server, waiting until it accepts connections.
   *
   * @return the running server; close it to stop it and delete its files
   */
  public static PrivatePostgres start() {
    Path bin = binaries().orElse(null);
    if (bin == null) {
      unavailable("no PostgreSQL binaries (initdb) in -Didem.postgresBin or /usr/lib/postgresql/*/bin");
    }
    PrivatePostgres server;
    try {
      server = new PrivatePostgres(bin, Files.createTempDirectory("idem-private-pg"), freePort());
    } catch (IOException e) {
      throw new UncheckedIOException("Could not create the private PostgreSQL's directory", e);
    }
    Runtime.getRuntime().addShutdownHook(server.shutdownHook);
    try {
      server.initdb();
      server.launch();
      return server;
    } catch (RuntimeException | Error e) {
      server.close();
      throw e;
    }
  }

  /** @return the port on 127.0.0.1 */
  public int port() {
    return port;
  }

  /** @return a JDBC URL of the server's {@code postgres} database, over TCP on 127.0.0.1 */
  public String url() {
    return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
  }

  /** @return the data directory (in the temporary directory) */
  public Path dataDirectory() {
    return data;
  }

  /** @return whether the postmaster this object started is alive */
  public boolean running() {
    Process process = postmaster;
    return process != null && process.isAlive();
  }

  /**
   * {@code kill -9} of the postmaster, as a crash: its backends notice their parent is gone and exit, open
   * transactions are lost, committed ones are in the WAL. Returns once the postmaster is dead.
   */
  public void kill() {
    long pid = postmasterPid();
    ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
    waitForExit(pid, 10_000);
    // The runuser wrapper, if any, has lost its child; running() asks the wrapper, so wait for it to be gone too
    // (destroyForcibly only sends the signal).
    reap(postmaster);
  }

  /**
   * Starts the server again on the same data directory (crash recovery after {@link #kill()}), waiting until it
   * accepts connections. Orphaned backends of a killed postmaster may hold its shared memory for a moment: the start
   * is retried until they are gone.
   */
  public void restart() {
    if (running()) {
      throw new IllegalStateException("The private PostgreSQL on port " + port + " is still running");
    }
    launch();
  }

  /** Stops the server (fast shutdown, then kill) and deletes its directory. */
  @Override
  public void close() {
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException e) {
      // The JVM is shutting down: the hook runs the same cleanup.
    }
    stopAndDelete();
  }

  private synchronized void stopAndDelete() {
    try {
      if (Files.exists(data.resolve("postmaster.pid"))) {
        long pid = postmasterPid();
        run(List.of("kill", "-INT", Long.toString(pid)), 10_000, false); // fast shutdown: rolls back, ends clients
        if (!waitForExit(pid, 10_000)) {
          ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
          waitForExit(pid, 5_000);
        }
      }
    } catch (RuntimeException e) {
      System.err.println("Stopping the private PostgreSQL on port " + port + ": " + e.getMessage());
    }
    try {
      reap(postmaster);
    } catch (RuntimeException e) {
      System.err.println("Stopping the private PostgreSQL on port " + port + ": " + e.getMessage());
    }
    try (Stream<Path> files = Files.walk(directory)) {
      files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    } catch (IOException e) {
      System.err.println("Could not delete " + directory + ": " + e.getMessage());
    }
  }

  private void initdb() {
    if (asRoot()) {
      run(List.of("chown", USER, directory.toString()), 10_000, true);
    }
    run(asPostgres(bin.resolve("initdb").toString(), "-D", data.toString(), "-U", USER, "-A", "trust",
        "-E", "UTF8", "--locale=C", "--no-sync"), 120_000, true);
  }

  private void launch() {
    long deadline = System.currentTimeMillis() + READY_TIMEOUT_MILLIS;
    while (true) {
      ProcessBuilder builder = new ProcessBuilder(asPostgres(bin.resolve("postgres").toString(),
          "-D", data.toString(), "-p", Integer.toString(port), "-k", directory.toString(),
          "-c", "listen_addresses=127.0.0.1", "-c", "max_connections=60", "-c", "shared_buffers=16MB",
          "-c", "autovacuum=off"));
      builder.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
      try {
        postmaster = builder.start();
      } catch (IOException e) {
        throw new UncheckedIOException("Could not start " + builder.command(), e);
      }
      if (awaitReady(deadline)) {
        return;
      }
      if (postmaster.isAlive() || System.currentTimeMillis() > deadline) {
        postmaster.destroyForcibly();
        throw new IllegalStateException("The private PostgreSQL on port " + port + " did not start; its log:\n"
            + logTail());
      }
      // It exited at once, e.g. "pre-existing shared memory block is still in use" by a dying backend: again.
      sleep(200);
    }
  }

  /** @return true once the server accepts a connection; false if the postmaster exited */
  private boolean awaitReady(long deadline) {
    while (System.currentTimeMillis() < deadline) {
      if (!postmaster.isAlive()) {
        return false;
      }
      try (Connection connection = DriverManager.getConnection(url() + "?connectTimeout=2", USER, "")) {
        if (connection.isValid(2)) {
          return true;
        }
      } catch (SQLException e) {
        // Not yet (starting up, or in crash recovery).
      }
      sleep(100);
    }
    return false;
  }

  private long postmasterPid() {
    try {
      // postmaster.pid's first line is the postmaster's process id.
      return Long.parseLong(Files.readAllLines(data.resolve("postmaster.pid"), StandardCharsets.UTF_8).get(0).strip());
    } catch (IOException | RuntimeException e) {
      throw new IllegalStateException("No postmaster.pid in " + data + ": is the private PostgreSQL running?", e);
    }
  }

  /** Kills the process this object started and waits (up to 10 s) until it has exited. */
  private static void reap(Process process) {
    if (process == null) {
      return;
    }
    process.destroyForcibly();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException("The private PostgreSQL's process " + process.pid() + " outlived kill -9 by 10 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while waiting for the private PostgreSQL to exit", e);
    }
  }

  private static boolean waitForExit(long pid, long timeoutMillis) {
    Optional<ProcessHandle> handle = ProcessHandle.of(pid);
    if (handle.isEmpty()) {
      return true;
    }
    try {
      handle.get().onExit().get(timeoutMillis, TimeUnit.MILLISECONDS);
      return true;
    } catch (Exception e) {
      return !handle.get().isAlive();
    }
  }

  private String logTail() {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  private static List<String> asPostgres(String... command) {
    List<String> full = new ArrayList<>();
    if (asRoot()) {
      full.addAll(List.of("runuser", "-u", USER, "--"));
    }
    full.addAll(List.of(command));
    return full;
  }

  private static boolean asRoot() {
    return "root".equals(System.getProperty("user.name"));
  }

  private void run(List<String> command, long timeoutMillis, boolean mustSucceed) {
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
      if (!process.waitFor(timeoutMillis, TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException(command + " did not finish in " + timeoutMillis + " ms");
      }
      if (mustSucceed && process.exitValue() != 0) {
        throw new IllegalStateException(command + " failed (exit " + process.exitValue() + "):\n" + logTail());
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Could not run " + command, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while running " + command, e);
    }
  }

  private static Optional<Path> binaries() {
    String configured = System.getProperty("idem.postgresBin");
    if (configured != null && !configured.isBlank()) {
      return Optional.of(Paths.get(configured)).filter(path -> Files.isExecutable(path.resolve("initdb")));
    }
    File[] versions = new File("/usr/lib/postgresql").listFiles();
    if (versions == null) {
      return Optional.empty();
    }
    return Stream.of(versions)
        .map(version -> version.toPath().resolve("bin"))
        .filter(path -> Files.isExecutable(path.resolve("initdb")) && Files.isExecutable(path.resolve("postgres")))
        .max(Comparator.comparing(PrivatePostgres::majorVersion));
  }

  private static int majorVersion(Path bin) {
    try {
      return Integer.parseInt(bin.getParent().getFileName().toString());
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket()) {
      socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      return socket.getLocalPort();
    }
  }

  private static void unavailable(String reason) {
    String message = "A private PostgreSQL cannot be started: " + reason;
    if (Boolean.getBoolean("idem.requireDatabases") || "true".equalsIgnoreCase(System.getenv("CI"))) {
      throw new AssertionError(message + " (idem.requireDatabases=true or CI=true, so this fails instead of skipping)");
    }
    System.err.println("*** SKIPPING private PostgreSQL tests: " + message + " ***");
    Assumptions.abort(message);
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted", e);
    }
  }

  @Override
  public String toString() {
    return "private PostgreSQL on 127.0.0.1:" + port + " (" + directory + ")";
  }
}
