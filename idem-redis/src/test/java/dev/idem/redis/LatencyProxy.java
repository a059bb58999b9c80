package dev.idem.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** A loopback TCP proxy that delays every reply by a settable time: a slow Redis, or a slow network to it. */
final class LatencyProxy implements AutoCloseable {

  private final ServerSocket listener;
  private final int targetPort;
  private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
    Thread thread = new Thread(r, "latency-proxy");
    thread.setDaemon(true);
    return thread;
  });
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  private volatile long delayMillis;

  LatencyProxy(int targetPort) throws IOException {
    this.targetPort = targetPort;
    this.listener = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"));
    threads.execute(this::accept);
  }

  int port() {
    return listener.getLocalPort();
  }

  void delay(long millis) {
    this.delayMillis = millis;
  }

  private void accept() {
    while (!listener.isClosed()) {
      try {
        Socket client = listener.accept();
        Socket server = new Socket();
        server.connect(new InetSocketAddress("127.0.0.1", targetPort));
        client.setTcpNoDelay(true);
        server.setTcpNoDelay(true);
        sockets.add(client);
        sockets.add(server);
        threads.execute(() -> pump(client, server, false));
        threads.execute(() -> pump(server, client, true));
      } catch (IOException e) {
        return;
      }
    }
  }

  private void pump(Socket from, Socket to, boolean delayed) {
    byte[] buffer = new byte[16 * 1024];
    try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
      int read;
      while ((read = in.read(buffer)) >= 0) {
        long delay = delayMillis;
        if (delayed && delay > 0) {
          Thread.sleep(delay);
        }
        out.write(buffer, 0, read);
        out.flush();
      }
    } catch (IOException | InterruptedException e) {
      // a side closed
    } finally {
      closeQuietly(from);
      closeQuietly(to);
    }
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException ignored) {
      // closing
    }
  }

  @Override
  public void close() throws IOException {
    listener.close();
    sockets.forEach(LatencyProxy::closeQuietly);
    threads.shutdownNow();
  }
}
