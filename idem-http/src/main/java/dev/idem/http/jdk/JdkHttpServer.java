package dev.idem.http.jdk;

import com.sun.net.httpserver.HttpExchange;
import dev.idem.http.HttpReply;
import dev.idem.http.HttpRequestView;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.Map;

/**
 * Adapts the JDK's built-in {@code com.sun.net.httpserver} (module {@code jdk.httpserver}, no dependency):
 * <pre>{@code
 * HttpReply reply = requests.handle(JdkHttpServer.request(exchange), clientId,
 *     (client, key) -> payments.create(client, key, newPayment), payment -> HttpReply.json(201, json(payment)));
 * JdkHttpServer.send(exchange, reply);
 * }</pre>
 */
public final class JdkHttpServer {

  private JdkHttpServer() {}

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

  /**
   * Sends the reply and closes the exchange.
   *
   * @param exchange the exchange
   * @param reply the reply
   * @throws IOException if the client went away
   */
  public static void send(HttpExchange exchange, HttpReply reply) throws IOException {
    for (Map.Entry<String, String> header : reply.headers().entrySet()) {
      exchange.getResponseHeaders().set(header.getKey(), header.getValue());
    }
    byte[] body = reply.body();
    // -1 tells HttpServer there is no body; 0 would mean chunked.
    exchange.sendResponseHeaders(reply.status(), body.length == 0 ? -1 : body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }
}
