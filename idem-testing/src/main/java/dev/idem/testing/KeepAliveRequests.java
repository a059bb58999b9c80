package dev.idem.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;

/**
 * A keep-alive HTTP/1.1 client on a raw socket that times each request, for tests of servers that must not stall a
 * keep-alive connection (Nagle's algorithm against the client's delayed ACK: about 40 ms a request on Linux).
 * java.net.http's client would hide which connection it uses.
 */
public final class KeepAliveRequests {

  private KeepAliveRequests() {}

  /**
   * Fails unless the median round trip is below 15 ms.
   *
   * @param nanos each request's round trip, from {@link #sequentialRequests}
   */
  public static void assertMedianBelow15Ms(long[] nanos) {
    long[] sorted = nanos.clone();
    Arrays.sort(sorted);
    double medianMillis = sorted[sorted.length / 2] / 1e6;
    assertTrue(medianMillis < 15, String.format(Locale.ROOT, "median %.1f ms per request on one keep-alive"
        + " connection (max %.1f ms): the server waits on Nagle's algorithm for the client's delayed ACK",
        medianMillis, sorted[sorted.length - 1] / 1e6));
  }

  /**
   * Writes {@code request} {@code count} times over one connection, each after the previous response was read whole,
   * as a keep-alive client does; fails unless each answer is a 2xx.
   *
   * @param port the server's port on the loopback address
   * @param request one whole HTTP/1.1 request, headers and body
   * @param count how many times to send it
   * @return each round trip's duration in nanoseconds
   * @throws IOException if the connection fails or closes
   */
  public static long[] sequentialRequests(int port, String request, int count) throws IOException {
    byte[] bytes = request.getBytes(StandardCharsets.UTF_8);
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
      socket.setTcpNoDelay(true); // the client's writes never wait: only the server's can
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      InputStream in = new BufferedInputStream(socket.getInputStream());
      long[] nanos = new long[count];
      for (int i = 0; i < count; i++) {
        long start = System.nanoTime();
        out.write(bytes);
        out.flush();
        String status = readResponse(in);
        nanos[i] = System.nanoTime() - start;
        assertEquals("HTTP/1.1 2", status.substring(0, 10), status);
      }
      return nanos;
    }
  }

  /** Reads one response with a Content-Length body; returns its status line. */
  private static String readResponse(InputStream in) throws IOException {
    String status = line(in);
    int length = 0;
    for (String header = line(in); !header.isEmpty(); header = line(in)) {
      if (header.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
        length = Integer.parseInt(header.substring("content-length:".length()).trim());
      }
    }
    if (in.readNBytes(length).length != length) {
      throw new EOFException("the connection closed in a response body");
    }
    return status;
  }

  private static String line(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    for (int b = in.read(); b != '\n'; b = in.read()) {
      if (b < 0) {
        throw new EOFException("the connection closed in a response head");
      }
      if (b != '\r') {
        line.write(b);
      }
    }
    return line.toString(StandardCharsets.ISO_8859_1);
  }
}
