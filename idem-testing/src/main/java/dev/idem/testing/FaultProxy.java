package dev.idem.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A TCP proxy on 127.0.0.1 in front of a database server on 127.0.0.1, which a connection pool connects through so
 * that a test can break the network at chosen moments:
 *
 * <ul>
 *   <li>{@link #loseReplyTo(String)}: the next client packet holding a SQL fragment reaches the server, which
 *       executes it; its reply is dropped and the connection cut (a lost acknowledgement, e.g. of {@code COMMIT});
 *   <li>{@link #cutMidStatement(String)}: the next client packet holding a fragment is cut in half; the server
 *       sees a truncated message and then the end of the connection, so it never executes it;
 *   <li>{@link #cutAll()}: every open connection is cut at once;
 *   <li>{@link #refuseNewConnections(boolean)}: new connections are accepted and closed at once;
 *   <li>{@link #randomCuts(long, double)}: each client packet, with a seeded probability, is either cut before the
 *       server gets it or forwarded and its reply lost.
 * </ul>
 *
 * <p>SQL travels in the clear in both protocols the suites use: PostgreSQL's simple query and extended protocol
 * (Parse carries the statement text; pgjdbc sends {@code COMMIT} as its own query) and MariaDB's
 * {@code COM_QUERY}/{@code COM_STMT_PREPARE} (Connector/J's {@code commit()} is a {@code COM_QUERY "COMMIT"}). A
 * fragment is matched case-sensitively against the bytes of one client read, including the last bytes of the
 * previous read so that a fragment split across two reads still matches.
 *
 * <p>Every control is thread-safe and may be called while connections are open. Threads are bounded: two per
 * connection, at most {@code maxConnections} connections (more are refused as if the proxy refused new ones),
 * plus the acceptor. It only ever listens on and connects to 127.0.0.1.
 */
public final class FaultProxy implements AutoCloseable {

  /** What a fault does, for the counters. */
  public enum Fault {
    /** A reply lost after the server executed the statement. */
    LOST_REPLY,
    /** A connection cut in the middle of a statement. */
    CUT_MID_STATEMENT,
    /** Every open connection cut at once. */
    CUT_ALL,
    /** A new connection refused. */
    REFUSED,
    /** A connection cut at random. */
    RANDOM_CUT
  }

  private static final int BUFFER_SIZE = 64 * 1024;

  /** 127.0.0.1 itself (not "the" loopback address, which may be ::1): the only address listened on or dialled. */
  private static final InetAddress LOOPBACK = loopback();
  private final int targetPort;
  private final ServerSocket listener;
  private final ExecutorService threads;
  private final Semaphore connectionSlots;
  private final Set<Link> links = ConcurrentHashMap.newKeySet();
  private final AtomicReference<byte[]> loseReplyFragment = new AtomicReference<>();
  private final AtomicReference<byte[]> cutFragment = new AtomicReference<>();
  private volatile boolean refusing;
  private volatile double randomCutProbability;
  private Random random = new Random(0); // guarded by this
  private final AtomicLong[] faults = new AtomicLong[Fault.values().length];
  private final AtomicLong accepted = new AtomicLong();
  private final AtomicInteger linkIds = new AtomicInteger();
  private volatile boolean closed;

  private FaultProxy(int targetPort, int maxConnections) throws IOException {
    this.targetPort = targetPort;
    this.listener = new ServerSocket();
    listener.bind(new InetSocketAddress(LOOPBACK, 0), 128);
    this.connectionSlots = new Semaphore(maxConnections);
    AtomicInteger threadIds = new AtomicInteger();
    this.threads = new ThreadPoolExecutor(2 * maxConnections + 1, 2 * maxConnections + 1, 0, TimeUnit.SECONDS,
        new LinkedBlockingQueue<>(), runnable -> {
          Thread thread = new Thread(runnable, "fault-proxy-" + listener.getLocalPort() + "-" + threadIds.incrementAndGet());
          thread.setDaemon(true);
          return thread;
        });
    for (int i = 0; i < faults.length; i++) {
      faults[i] = new AtomicLong();
    }
    threads.execute(this::acceptLoop);
  }

  private static InetAddress loopback() {
    try {
      return InetAddress.getByAddress(new byte[] {127, 0, 0, 1});
    } catch (UnknownHostException e) {
      throw new AssertionError("A literal address is never looked up", e);
    }
  }

  /**
   * Starts a proxy in front of a server on 127.0.0.1.
   *
   * @param targetPort the server's port on 127.0.0.1
   * @param maxConnections how many connections may be open at once (a pool's maximum size, plus a few)
   * @return the running proxy; connect to {@link #port()} on 127.0.0.1
   */
  public static FaultProxy start(int targetPort, int maxConnections) {
    if (targetPort <= 0 || targetPort > 65535 || maxConnections < 1) {
      throw new IllegalArgumentException("targetPort " + targetPort + ", maxConnections " + maxConnections);
    }
    try {
      return new FaultProxy(targetPort, maxConnections);
    } catch (IOException e) {
      throw new UncheckedIOException("Could not listen on 127.0.0.1", e);
    }
  }

  /**
   * Starts a proxy in front of the server a JDBC URL names (which must be on 127.0.0.1 or localhost).
   *
   * @param jdbcUrl e.g. {@link IsolatedDatabase#url()}
   * @param maxConnections as in {@link #start(int, int)}
   * @return the running proxy; {@link #route(String)} gives the URL through it
   */
  public static FaultProxy inFrontOf(String jdbcUrl, int maxConnections) {
    Matcher hostPort =
        Pattern.compile("^jdbc:[a-z]+://(127\\.0\\.0\\.1|localhost):(\\d+)/").matcher(jdbcUrl);
    if (!hostPort.find()) {
      throw new IllegalArgumentException("FaultProxy only proxies servers on 127.0.0.1 with a port in the URL: "
          + jdbcUrl);
    }
    return start(Integer.parseInt(hostPort.group(2)), maxConnections);
  }

  /** @return the port the proxy listens on, on 127.0.0.1 */
  public int port() {
    return listener.getLocalPort();
  }

  /**
   * Rewrites a JDBC URL of a server on 127.0.0.1 (or localhost) so that it connects through this proxy.
   *
   * @param url e.g. {@code jdbc:postgresql://127.0.0.1:5432/test?currentSchema=x}
   * @return the same URL with host and port of the proxy
   */
  public String route(String url) {
    for (String host : new String[] {"127.0.0.1", "localhost"}) {
      String from = "//" + host + ":" + targetPort + "/";
      if (url.contains(from)) {
        return url.replace(from, "//127.0.0.1:" + port() + "/");
      }
    }
    throw new IllegalArgumentException("Not a URL of the server on 127.0.0.1:" + targetPort + ": " + url);
  }

  /**
   * Arms a lost acknowledgement: the next client packet (on any connection) that holds {@code sqlFragment} is
   * forwarded, the server's reply to it is dropped, and that connection is cut once the reply arrived (so the server
   * has executed the statement). One-shot; {@link #faults(Fault)} counts it when it fired.
   *
   * @param sqlFragment text of the statement whose reply is lost
   */
  public void loseReplyTo(String sqlFragment) {
    loseReplyFragment.set(sqlFragment.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Arms a cut mid-statement: the next client packet that holds {@code sqlFragment} is forwarded only in part, and
   * its connection cut. One-shot.
   *
   * @param sqlFragment text of the statement to cut
   */
  public void cutMidStatement(String sqlFragment) {
    cutFragment.set(sqlFragment.getBytes(StandardCharsets.UTF_8));
  }

  /** @return whether an armed {@link #loseReplyTo} or {@link #cutMidStatement} is still waiting for its packet */
  public boolean armed() {
    return loseReplyFragment.get() != null || cutFragment.get() != null;
  }

  /** Disarms {@link #loseReplyTo} and {@link #cutMidStatement} that have not fired. */
  public void disarm() {
    loseReplyFragment.set(null);
    cutFragment.set(null);
  }

  /** Cuts every open connection (both directions, at once). */
  public void cutAll() {
    for (Link link : links) {
      link.cut();
    }
    faults[Fault.CUT_ALL.ordinal()].incrementAndGet();
  }

  /**
   * While {@code refuse}, new connections are accepted and closed at once; open ones keep working.
   *
   * @param refuse whether to refuse new connections
   */
  public void refuseNewConnections(boolean refuse) {
    refusing = refuse;
  }

  /**
   * Cuts client packets at random: each one, with {@code probability}, is dropped with its connection (half the
   * time) or forwarded with its reply lost (the other half). {@code probability} 0 stops it.
   *
   * @param seed the seed of the random choices (print it, to reproduce a run)
   * @param probability per client packet, in [0, 1]
   */
  public void randomCuts(long seed, double probability) {
    if (probability < 0 || probability > 1) {
      throw new IllegalArgumentException("probability " + probability);
    }
    synchronized (this) {
      random = new Random(seed);
    }
    randomCutProbability = probability;
  }

  /** Forwards everything normally again: disarms, stops random cuts and refusing. Open connections stay. */
  public void heal() {
    disarm();
    randomCutProbability = 0;
    refusing = false;
  }

  /** Sets every fault counter to zero (not {@link #connectionsAccepted()}), e.g. between two tests. */
  public void resetCounters() {
    for (AtomicLong count : faults) {
      count.set(0);
    }
  }

  /**
   * How often a fault fired.
   *
   * @param fault the fault
   * @return how often it fired
   */
  public long faults(Fault fault) {
    return faults[fault.ordinal()].get();
  }

  /** @return how often any fault fired (a {@link #cutAll()} counts once) */
  public long faultsInjected() {
    return Arrays.stream(faults).mapToLong(AtomicLong::get).sum();
  }

  /** @return connections accepted so far (refused ones included) */
  public long connectionsAccepted() {
    return accepted.get();
  }

  /** @return connections open now */
  public int openConnections() {
    return links.size();
  }

  /** Stops listening, cuts every connection and stops the threads. */
  @Override
  public void close() {
    closed = true;
    quietlyClose(listener);
    for (Link link : links) {
      link.cut();
    }
    threads.shutdown();
    try {
      if (!threads.awaitTermination(5, TimeUnit.SECONDS)) {
        threads.shutdownNow();
      }
    } catch (InterruptedException e) {
      threads.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }

  private void acceptLoop() {
    while (!closed) {
      Socket client;
      try {
        client = listener.accept();
      } catch (IOException e) {
        if (!closed) {
          System.err.println("FaultProxy on port " + port() + " stopped accepting: " + e);
        }
        return;
      }
      accepted.incrementAndGet();
      if (refusing || !connectionSlots.tryAcquire()) {
        faults[Fault.REFUSED.ordinal()].incrementAndGet();
        quietlyClose(client);
        continue;
      }
      Socket server = new Socket();
      try {
        client.setTcpNoDelay(true);
        server.setTcpNoDelay(true);
        server.connect(new InetSocketAddress(LOOPBACK, targetPort), 5_000);
      } catch (IOException e) {
        // The server is down (e.g. killed on purpose): the client sees its connection closed.
        quietlyClose(server);
        quietlyClose(client);
        connectionSlots.release();
        continue;
      }
      Link link = new Link(linkIds.incrementAndGet(), client, server);
      links.add(link);
      try {
        threads.execute(link::clientToServer);
        threads.execute(link::serverToClient);
      } catch (RejectedExecutionException e) {
        link.cut();
      }
    }
  }

  /** The random choice for one client packet: null to forward it, else the fault. */
  private Fault randomFault() {
    double probability = randomCutProbability;
    if (probability == 0) {
      return null;
    }
    synchronized (this) {
      if (random.nextDouble() >= probability) {
        return null;
      }
      return random.nextBoolean() ? Fault.CUT_MID_STATEMENT : Fault.LOST_REPLY;
    }
  }

  private static boolean matches(byte[] fragment, byte[] tail, int tailLength, byte[] buffer, int length) {
    if (fragment == null) {
      return false;
    }
    byte[] window = new byte[tailLength + length];
    System.arraycopy(tail, 0, window, 0, tailLength);
    System.arraycopy(buffer, 0, window, tailLength, length);
    // A match must end in the new bytes: the tail only completes a fragment split across two reads (an earlier
    // read that held the whole fragment was matched, or not, when it arrived).
    outer:
    for (int start = Math.max(0, tailLength - fragment.length + 1); start + fragment.length <= window.length;
        start++) {
      for (int i = 0; i < fragment.length; i++) {
        if (window[start + i] != fragment[i]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }

  /** Keeps the last bytes seen (at most {@code tail.length}) in {@code tail}; returns how many it holds. */
  private static int keepTail(byte[] tail, int tailLength, byte[] buffer, int read) {
    if (read >= tail.length) {
      System.arraycopy(buffer, read - tail.length, tail, 0, tail.length);
      return tail.length;
    }
    int kept = Math.min(tailLength, tail.length - read);
    System.arraycopy(tail, tailLength - kept, tail, 0, kept);
    System.arraycopy(buffer, 0, tail, kept, read);
    return kept + read;
  }

  private static void quietlyClose(AutoCloseable closeable) {
    try {
      closeable.close();
    } catch (Exception e) {
      // Cutting is the point; a socket that is already closed is fine.
    }
  }

  /** One proxied connection: the client's socket, the server's, and a flag that drops the server's replies. */
  private final class Link {
    private final int id;
    private final Socket client;
    private final Socket server;
    /** Set once a packet whose reply must be lost was forwarded: the next server bytes are dropped, then cut. */
    private volatile boolean dropNextReply;
    private final AtomicInteger cutOnce = new AtomicInteger();

    Link(int id, Socket client, Socket server) {
      this.id = id;
      this.client = client;
      this.server = server;
    }

    void clientToServer() {
      byte[] buffer = new byte[BUFFER_SIZE];
      byte[] tail = new byte[256];
      int tailLength = 0;
      try (InputStream in = client.getInputStream(); OutputStream out = server.getOutputStream()) {
        int read;
        while ((read = in.read(buffer)) >= 0) {
          if (dropNextReply) {
            continue; // the connection is about to be cut; nothing more reaches the server
          }
          byte[] cut = cutFragment.get();
          if (matches(cut, tail, tailLength, buffer, read) && cutFragment.compareAndSet(cut, null)) {
            faults[Fault.CUT_MID_STATEMENT.ordinal()].incrementAndGet();
            cutMidPacket(out, buffer, read);
            return;
          }
          byte[] lose = loseReplyFragment.get();
          if (matches(lose, tail, tailLength, buffer, read) && loseReplyFragment.compareAndSet(lose, null)) {
            faults[Fault.LOST_REPLY.ordinal()].incrementAndGet();
            dropNextReply = true;
            out.write(buffer, 0, read);
            out.flush();
            continue;
          }
          Fault randomFault = randomFault();
          if (randomFault == Fault.CUT_MID_STATEMENT) {
            faults[Fault.RANDOM_CUT.ordinal()].incrementAndGet();
            cutMidPacket(out, buffer, read);
            return;
          }
          if (randomFault == Fault.LOST_REPLY) {
            faults[Fault.RANDOM_CUT.ordinal()].incrementAndGet();
            dropNextReply = true;
          }
          out.write(buffer, 0, read);
          out.flush();
          tailLength = keepTail(tail, tailLength, buffer, read);
        }
      } catch (IOException e) {
        // Cut by us or closed by either side.
      } finally {
        cut();
      }
    }

    private void cutMidPacket(OutputStream out, byte[] buffer, int read) throws IOException {
      // Half of the message (at least one byte short of it): the server waits for the rest and then sees the end.
      out.write(buffer, 0, Math.max(0, read / 2));
      out.flush();
      cut();
    }

    void serverToClient() {
      byte[] buffer = new byte[BUFFER_SIZE];
      try (InputStream in = server.getInputStream(); OutputStream out = client.getOutputStream()) {
        int read;
        while ((read = in.read(buffer)) >= 0) {
          if (dropNextReply) {
            // The server answered, so it executed the statement: the client never learns of it.
            return;
          }
          out.write(buffer, 0, read);
          out.flush();
        }
      } catch (IOException e) {
        // Cut by us or closed by either side.
      } finally {
        cut();
      }
    }

    void cut() {
      if (cutOnce.getAndIncrement() != 0) {
        return;
      }
      // An abortive close (RST) where the socket allows, as a dead network or a killed peer looks to a driver.
      for (Socket socket : new Socket[] {client, server}) {
        try {
          socket.setSoLinger(true, 0);
        } catch (SocketException e) {
          // Already closed.
        }
        quietlyClose(socket);
      }
      links.remove(this);
      connectionSlots.release();
    }

    @Override
    public String toString() {
      return "link " + id;
    }
  }
}
