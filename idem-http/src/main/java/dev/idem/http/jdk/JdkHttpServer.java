package dev.idem.http.jdk;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.idem.http.HttpReply;
import dev.idem.http.HttpRequestView;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.List;

/**
 * Adapts the JDK's built-in {@code com.sun.net.httpserver} (module {@code jdk.httpserver}, no dependency):
 * <pre>{@code
 * HttpServer server = JdkHttpServer.create(new InetSocketAddress(8080), 0);   // not HttpServer.create: see create
 * ...
 * HttpReply reply = requests.handle(JdkHttpServer.request(exchange), clientId,
 *     (client, key) -> payments.create(client, key, newPayment), payment -> HttpReply.json(201, json(payment)));
 * JdkHttpServer.send(exchange, reply);
 * }</pre>
 */
public final class JdkHttpServer {

  /**
   * The JDK's system property that sets {@code TCP_NODELAY} on every connection its HttpServer accepts. The JDK reads
   * it once, in the static initializer of {@code sun.net.httpserver.ServerConfig}, when the first HttpServer of the
   * JVM is created: setting it later changes nothing.
   */
  public static final String NO_DELAY_PROPERTY = "sun.net.httpserver.nodelay";

  private JdkHttpServer() {}

  /**
   * Creates an unstarted HttpServer that sends each response without waiting: use it instead of
   * {@link HttpServer#create(InetSocketAddress, int)}.
   *
   * <p>Why: the JDK's server writes a response's headers and its body as two TCP segments, and by default (Nagle's
   * algorithm) holds the second until the client acknowledges the first; a keep-alive client, which sends nothing
   * until it has the whole response, delays that acknowledgement (about 40 ms on Linux). Every request on a
   * keep-alive connection then takes about 40 ms however fast idem and the database are (measured with wrk on the
   * example payments API: 180 requests/s at 45 ms, instead of 795/s, and 11,076/s for replays). This sets
   * {@value #NO_DELAY_PROPERTY} to {@code true} (unless the application set it, to either value) before creating
   * the server. Since the JDK reads that property only when its first HttpServer is created, an application that
   * creates another HttpServer earlier, elsewhere, must set the property itself before that ({@code
   * -Dsun.net.httpserver.nodelay=true}, or {@code System.setProperty} first thing in {@code main}).
   *
   * @param address the address to bind, or null to bind later
   * @param backlog the socket backlog; 0 or less for the system's default
   * @return the server, not started
   * @throws IOException if it cannot be created or bound
   */
  public static HttpServer create(InetSocketAddress address, int backlog) throws IOException {
    sendWithoutDelay();
    return HttpServer.create(address, backlog);
  }

  /**
   * Sets {@value #NO_DELAY_PROPERTY} to {@code true} unless it is set: call it before the JVM's first HttpServer is
   * created (see {@link #create}), e.g. first thing in {@code main} of an application that creates its HttpServer
   * itself.
   */
  public static void sendWithoutDelay() {
    if (System.getProperty(NO_DELAY_PROPERTY) == null) {
      System.setProperty(NO_DELAY_PROPERTY, "true");
    }
  }

  /**
   * @param exchange the exchange
   * @return a view of its request headers
   */
  public static HttpRequestView request(HttpExchange exchange) {
    return name -> {
      List<String> values = exchange.getRequestHeaders().get(name); // Headers match names case-insensitively
      return values == null ? List.of() : values;
    };
  }

  private static final byte[] NO_BODY = {};

  /**
   * How much of a refused body {@link #readBody} reads and drops before the 413 is sent: 8 MiB. Reading the rest lets
   * a client that writes its whole body before it reads the answer (as {@code java.net.http.HttpClient} and most
   * others do) get the 413, and keeps the connection; the bound on what is kept in memory is {@code maxBytes}, not
   * this. A body longer than this is not read: the server closes the connection after the 413, and such a client
   * may see the connection reset instead of the answer.
   */
  public static final int REFUSED_BODY_DISCARD_BYTES = 8 << 20;

  /**
   * A request body longer than {@link #readBody}'s bound: answer it with {@code 413 Content Too Large} (the server
   * then drains or drops the rest of the body), or let it propagate and the server closes the connection.
   */
  public static final class BodyTooLargeException extends IOException {
    /** The serial form's version. */
    private static final long serialVersionUID = 1L;
    /** The bound the body exceeded, in bytes. */
    private final int maxBytes;

    BodyTooLargeException(String message, int maxBytes) {
      super(message);
      this.maxBytes = maxBytes;
    }

    /** @return the bound the body exceeded, in bytes */
    public int maxBytes() {
      return maxBytes;
    }
  }

  /**
   * Reads the request body whole: with a {@code Content-Length}, into an array of exactly that length; without one
   * (no body, as on a GET) an empty array, without reading; chunked, to its end. Closes the body stream.
   *
   * <p>Why not {@code getRequestBody().readAllBytes()}: that allocates an 8 KiB buffer for every request, bodiless
   * ones included, and copies a short body out of it; at the HTTP benchmark's rates those buffers were most of the
   * JDK server's allocation per request, and so of its young collections.
   *
   * @param exchange the exchange
   * @param maxBytes the largest body accepted, by its {@code Content-Length} or as read
   * @return the body; an empty array for none
   * @throws BodyTooLargeException if the body is longer than {@code maxBytes} (by its {@code Content-Length}, or as
   *     read when chunked): answer it with 413. The rest of such a body, up to {@link #REFUSED_BODY_DISCARD_BYTES},
   *     has been read and dropped, so that the client gets the answer and the connection goes on
   * @throws IOException if the client went away or sent less than its {@code Content-Length}, or an invalid one
   */
  public static byte[] readBody(HttpExchange exchange, int maxBytes) throws IOException {
    try (InputStream in = exchange.getRequestBody()) {
      Headers headers = exchange.getRequestHeaders();
      String length = headers.getFirst("Content-Length");
      if (length == null || headers.containsKey("Transfer-Encoding")) {
        if (headers.containsKey("Transfer-Encoding")) {
          byte[] body = in.readNBytes(maxBytes);
          if (in.read() >= 0) {
            discard(in, REFUSED_BODY_DISCARD_BYTES);
            throw new BodyTooLargeException("The request body is longer than " + maxBytes + " bytes", maxBytes);
          }
          return body;
        }
        return NO_BODY; // neither: no body (RFC 9112 6.3), and the server reads none
      }
      long declared;
      try {
        declared = Long.parseLong(length.trim());
      } catch (NumberFormatException e) {
        throw new IOException("Invalid Content-Length: " + length, e);
      }
      if (declared < 0) {
        throw new IOException("Invalid Content-Length: " + length);
      }
      if (declared > maxBytes) {
        if (declared <= REFUSED_BODY_DISCARD_BYTES) {
          discard(in, declared);
        }
        throw new BodyTooLargeException("The request body's Content-Length " + declared + " is more than "
            + maxBytes + " bytes", maxBytes);
      }
      if (declared == 0) {
        return NO_BODY;
      }
      byte[] body = new byte[(int) declared];
      int read = in.readNBytes(body, 0, body.length);
      if (read < body.length) {
        throw new IOException("The request body ended after " + read + " of its " + declared + " bytes");
      }
      return body;
    }
  }

  /**
   * Reads and drops up to {@code limit} bytes of a refused body. Without it the JDK drains only 64 KiB when the
   * exchange closes and then closes the connection with the rest unread, which resets it: a client still writing
   * its body then gets the reset, often before it could read the 413 already sent.
   */
  private static void discard(InputStream in, long limit) throws IOException {
    byte[] buffer = new byte[8192];
    long left = limit;
    while (left > 0) {
      int read = in.read(buffer, 0, (int) Math.min(buffer.length, left));
      if (read < 0) {
        return;
      }
      left -= read;
    }
  }

  /**
   * Sends the reply and closes the exchange.
   *
   * @param exchange the exchange
   * @param reply the reply
   * @throws IOException if the client went away
   */
  public static void send(HttpExchange exchange, HttpReply reply) throws IOException {
    Headers headers = exchange.getResponseHeaders();
    reply.forEachHeader(headers::set);
    int length = reply.bodyLength();
    // -1 tells HttpServer there is no body; 0 would mean chunked. A known length: one Content-Length, no chunks.
    exchange.sendResponseHeaders(reply.status(), length == 0 ? -1 : length);
    try (OutputStream out = exchange.getResponseBody()) {
      reply.writeBody(out);
    }
  }
}
