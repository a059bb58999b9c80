package dev.idem.examples.orders;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.idem.examples.orders.Orders.NewOrder;
import dev.idem.examples.orders.Orders.Order;
import dev.idem.http.HttpReply;
import dev.idem.http.HttpRequestView;
import dev.idem.http.IdempotentRequests;
import dev.idem.http.jdk.JdkHttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.regex.Pattern;

/**
 * The orders service's HTTP API on the JDK's HttpServer: {@code POST /orders} with {@code Authorization: Bearer
 * <client>} and an {@code Idempotency-Key}; body {@code {"amountCents": 1200}}; 201 with the order.
 */
public final class OrdersApi implements AutoCloseable {

  private static final Logger LOG = Logger.getLogger(OrdersApi.class.getName());
  private static final Pattern CLIENT = Pattern.compile("[A-Za-z0-9_-]{1,40}");
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpServer server;
  private final ExecutorService workers;

  private OrdersApi(HttpServer server, ExecutorService workers) {
    this.server = server;
    this.workers = workers;
  }

  /**
   * Starts the API.
   *
   * @param port the port, 0 for a free one
   * @param orders the idempotent orders ({@code Orders_Idempotent})
   * @return the running API
   * @throws IOException if the server cannot listen
   */
  public static OrdersApi start(int port, Orders orders) throws IOException {
    IdempotentRequests requests = IdempotentRequests.builder().maxKeyLength(128).build();
    HttpServer server = JdkHttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
    ExecutorService workers = Executors.newFixedThreadPool(16);
    server.setExecutor(workers);
    server.createContext("/", exchange -> {
      byte[] body;
      try (InputStream in = exchange.getRequestBody()) {
        body = in.readAllBytes();
      }
      JdkHttpServer.send(exchange, route(orders, requests, exchange.getRequestMethod(),
          exchange.getRequestURI().getPath(), JdkHttpServer.request(exchange), body));
    });
    server.start();
    return new OrdersApi(server, workers);
  }

  static HttpReply route(Orders orders, IdempotentRequests requests, String method, String path,
                         HttpRequestView request, byte[] body) {
    if (!path.equals("/orders")) {
      return requests.problem(404, "not-found", "Not found", "No resource at " + path + ".");
    }
    if (!method.equals("POST")) {
      return requests.problem(405, "method-not-allowed", "Method not allowed", "Use POST.").withHeader("Allow", "POST");
    }
    List<String> authorization = request.headerValues("Authorization");
    if (authorization.size() != 1 || !authorization.get(0).startsWith("Bearer ")
        || !CLIENT.matcher(authorization.get(0).substring("Bearer ".length())).matches()) {
      return requests.problem(401, "unauthenticated", "Authentication required",
          "Send Authorization: Bearer <client>, the client's name ([A-Za-z0-9_-], at most 40 characters).");
    }
    String clientId = authorization.get(0).substring("Bearer ".length());
    long amountCents;
    try {
      JsonNode amount = JSON.readTree(body).get("amountCents");
      if (amount == null || !amount.canConvertToExactIntegral() || amount.asLong() <= 0) {
        throw new IOException("no positive amountCents");
      }
      amountCents = amount.asLong();
    } catch (IOException | RuntimeException e) {
      return requests.problem(400, "invalid-order", "The order is invalid",
          "Send {\"amountCents\": <positive whole number of cents>}.");
    }
    try {
      return requests.handle(request, clientId, (client, key) -> orders.create(client, key, new NewOrder(amountCents)),
          created -> HttpReply.json(201, write(created)));
    } catch (RuntimeException e) {
      // Rolled back: no order, no event; a retry with the same key runs again.
      LOG.log(Level.WARNING, "POST /orders failed", e);
      return requests.problem(500, "internal-error", "Internal server error",
          "The order was not created; retry with the same Idempotency-Key.");
    }
  }

  private static String write(Order order) {
    try {
      return JSON.writeValueAsString(order);
    } catch (IOException e) {
      throw new IllegalStateException("an order always serializes", e);
    }
  }

  /** @return the port the API listens on */
  public int port() {
    return server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
    workers.shutdownNow();
  }
}
