package dev.idem.http.jdk;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.sun.net.httpserver.HttpServer;
import dev.idem.http.HttpReply;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link JdkHttpServer#readBody}: the body by its Content-Length, none without one, chunked to its end, bounded. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JdkHttpServerReadBodyTest {

  private HttpServer server;
  private ExecutorService workers;

  @BeforeEach
  void start() throws IOException {
    server = JdkHttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    workers = Executors.newFixedThreadPool(2);
    server.setExecutor(workers);
    // Echoes the body it read, prefixed by its length, so that the test sees exactly what readBody returned.
    server.createContext("/", exchange -> {
      byte[] body;
      try {
        body = JdkHttpServer.readBody(exchange, 16);
      } catch (JdkHttpServer.BodyTooLargeException e) {
        JdkHttpServer.send(exchange, HttpReply.of(413, "text/plain",
            ("too large: " + e.maxBytes()).getBytes(StandardCharsets.ISO_8859_1)));
        return;
      }
      byte[] echo = (body.length + ":" + new String(body, StandardCharsets.ISO_8859_1))
          .getBytes(StandardCharsets.ISO_8859_1);
      JdkHttpServer.send(exchange, HttpReply.of(200, "text/plain", echo));
    });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
    workers.shutdownNow();
  }

  @Test
  void aBodyIsReadByItsContentLengthAndTheConnectionKeepsGoing() throws IOException {
    try (Socket socket = connect()) {
      assertEquals("5:hello", exchange(socket, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"));
      assertEquals("0:", exchange(socket, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
      assertEquals("0:", exchange(socket, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"));
      assertEquals("3:abc", exchange(socket, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc"));
    }
  }

  @Test
  void aChunkedBodyIsReadToItsEnd() throws IOException {
    try (Socket socket = connect()) {
      assertEquals("7:abcdefg", exchange(socket, "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
          + "3\r\nabc\r\n4\r\ndefg\r\n0\r\n\r\n"));
    }
  }

  @Test
  void aBodyLongerThanTheBoundIsRefusedAndTheConnectionKeepsGoing() throws IOException {
    try (Socket socket = connect()) {
      assertEquals("too large: 16", exchange(socket, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 17\r\n\r\n"
          + "01234567890123456"));
      assertEquals("2:ok", exchange(socket, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nok"));
    }
    try (Socket socket = connect()) {
      assertEquals("too large: 16", exchange(socket, "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
          + "\r\n11\r\n01234567890123456\r\n0\r\n\r\n"));
      assertEquals("2:ok", exchange(socket, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nok"));
    }
  }

  /**
   * A refused body much longer than what the JDK drains by itself (64 KiB), written whole before the answer is read,
   * as HttpClient does: without readBody reading and dropping it, the server closes the connection with most of it
   * unread, and the client's write or read fails with a reset instead of getting the 413.
   */
  @Test
  void aLongRefusedBodyIsReadAndDroppedSoThatTheClientGetsThe413AndTheConnectionGoesOn() throws IOException {
    String megabyte = "x".repeat(1 << 20);
    try (Socket socket = connect()) {
      assertEquals("too large: 16", exchange(socket, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: "
          + megabyte.length() + "\r\n\r\n" + megabyte));
      assertEquals("2:ok", exchange(socket, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nok"));
    }
    try (Socket socket = connect()) {
      assertEquals("too large: 16", exchange(socket, "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
          + "\r\n" + Integer.toHexString(megabyte.length()) + "\r\n" + megabyte + "\r\n0\r\n\r\n"));
      assertEquals("2:ok", exchange(socket, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nok"));
    }
  }

  private Socket connect() throws IOException {
    Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.getAddress().getPort());
    socket.setSoTimeout(20_000);
    return socket;
  }

  /** Sends the request and returns the response's body, or null if the server closed the connection instead. */
  private static String exchange(Socket socket, String request) throws IOException {
    OutputStream out = socket.getOutputStream();
    out.write(request.getBytes(StandardCharsets.ISO_8859_1));
    out.flush();
    InputStream in = socket.getInputStream();
    StringBuilder head = new StringBuilder();
    while (!head.toString().endsWith("\r\n\r\n")) {
      int c = in.read();
      if (c < 0) {
        return null;
      }
      head.append((char) c);
    }
    int length = 0;
    for (String line : head.toString().split("\r\n")) {
      if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
        length = Integer.parseInt(line.substring("content-length:".length()).trim());
      }
    }
    return new String(in.readNBytes(length), StandardCharsets.ISO_8859_1);
  }
}
