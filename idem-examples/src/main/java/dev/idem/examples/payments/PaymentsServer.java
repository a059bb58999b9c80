package dev.idem.examples.payments;

import com.sun.net.httpserver.HttpServer;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.http.HttpReply;
import dev.idem.http.IdempotentRequests;
import dev.idem.http.jdk.JdkHttpServer;
import dev.idem.http.servlet.ServletHttp;
import dev.idem.runtime.IdemRuntime;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * Runs the example payments API on the JDK's HttpServer (default) or on Jetty 12 with a servlet:
 * <pre>
 * mvn -q -Prun-payments -pl idem-examples -am verify -DskipTests                  # H2 in memory, port 8080
 * ... -Dport=9090 -Dserver=jetty -Djdbc.url=jdbc:postgresql://127.0.0.1/test -Djdbc.user=postgres
 * </pre>
 */
// Jetty's stop() declares Exception, so close() does too (it may be interrupted while stopping): javac's "try" lint.
@SuppressWarnings("try")
public final class PaymentsServer implements AutoCloseable {

  /** The two integrations. */
  public enum Kind {
    /** {@code com.sun.net.httpserver}, through {@link JdkHttpServer}. */
    JDK,
    /** Jakarta Servlet 6 on embedded Jetty 12, through {@link ServletHttp}. */
    JETTY
  }

  /** The largest request body the JDK server's handler reads; a larger one is refused with 413. */
  private static final int MAX_BODY_BYTES = 1 << 20;

  private final AutoCloseable server;
  private final int port;

  private PaymentsServer(AutoCloseable server, int port) {
    this.server = server;
    this.port = port;
  }

  /**
   * Starts the API.
   *
   * @param kind which server
   * @param port the port; 0 picks a free one
   * @param api the API
   * @return the running server
   * @throws Exception if it cannot start
   */
  public static PaymentsServer start(Kind kind, int port, PaymentsApi api) throws Exception {
    return kind == Kind.JDK ? startJdk(port, api) : startJetty(port, api);
  }

  private static PaymentsServer startJdk(int port, PaymentsApi api) throws IOException {
    // Not HttpServer.create: JdkHttpServer.create turns Nagle's algorithm off first, or every request on a keep-alive
    // connection would wait about 40 ms for the client's delayed acknowledgement of the response's headers.
    HttpServer server = JdkHttpServer.create(new InetSocketAddress(port), 0);
    ExecutorService workers = Executors.newFixedThreadPool(16);
    server.setExecutor(workers);
    server.createContext("/", exchange -> {
      // Not getRequestBody().readAllBytes(): that allocates an 8 KiB buffer per request, bodiless ones included.
      byte[] body;
      try {
        body = JdkHttpServer.readBody(exchange, MAX_BODY_BYTES);
      } catch (JdkHttpServer.BodyTooLargeException e) {
        JdkHttpServer.send(exchange, api.bodyTooLarge(e.maxBytes()));
        return;
      }
      HttpReply reply = api.route(exchange.getRequestMethod(), exchange.getRequestURI().getPath(),
          JdkHttpServer.request(exchange), body);
      JdkHttpServer.send(exchange, reply);
    });
    server.start();
    return new PaymentsServer(() -> {
      server.stop(0);
      workers.shutdownNow();
    }, server.getAddress().getPort());
  }

  private static PaymentsServer startJetty(int port, PaymentsApi api) throws Exception {
    Server server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setPort(port);
    server.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler();
    context.addServlet(new ServletHolder(new PaymentsServlet(api)), "/*");
    server.setHandler(context);
    server.start();
    return new PaymentsServer(server::stop, connector.getLocalPort());
  }

  /** The servlet: what an existing servlet application would write. */
  static final class PaymentsServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private final transient PaymentsApi api;

    PaymentsServlet(PaymentsApi api) {
      this.api = api;
    }

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
      byte[] body = request.getInputStream().readAllBytes();
      HttpReply reply = api.route(request.getMethod(), request.getRequestURI(), ServletHttp.request(request), body);
      ServletHttp.send(response, reply);
    }
  }

  /** @return the port it listens on */
  public int port() {
    return port;
  }

  @Override
  public void close() throws Exception {
    server.close();
  }

  /**
   * Wires the API on a database: the runtime, its table and the payments table.
   *
   * @param dataSource the database
   * @param payments the business code, given the runtime
   * @return the API
   */
  public static PaymentsApi api(javax.sql.DataSource dataSource,
                                java.util.function.Function<IdemRuntime, Payments> payments) {
    // The replay cache as large as the runtime's result cache (its entries live only as long as the runtime's).
    return api(dataSource, payments, IdempotentRequests.builder().maxKeyLength(128).replayCache(10_000, 4_096).build());
  }

  /**
   * Wires the API on a database with the given Idempotency-Key handling.
   *
   * @param dataSource the database
   * @param payments the business code, given the runtime
   * @param requests the Idempotency-Key handling (its key length at most 128, see below)
   * @return the API
   */
  public static PaymentsApi api(javax.sql.DataSource dataSource,
                                java.util.function.Function<IdemRuntime, Payments> payments,
                                IdempotentRequests requests) {
    // Keys are the client id, '|' and the header's key (at most 128): room for both.
    IdemRuntime runtime = IdemRuntime.builder().dataSource(dataSource).maxKeyLength(255).build();
    runtime.createSchema();
    JdbcPayments.createTable(dataSource);
    return new PaymentsApi(new Payments_Idempotent(payments.apply(runtime), runtime), requests);
  }

  /**
   * {@code -Dport=} (default 8080), {@code -Dserver=jdk|jetty} (default jdk), {@code -Djdbc.url=} (default H2 in
   * memory), {@code -Djdbc.user=}, {@code -Djdbc.password=}.
   *
   * @param args none
   * @throws Exception if the server cannot start
   */
  public static void main(String[] args) throws Exception {
    // Before any HttpServer of this JVM exists: the JDK reads sun.net.httpserver.nodelay once, when the first one is
    // created (JdkHttpServer.create sets it too; an application creating its HttpServer elsewhere needs this line).
    JdkHttpServer.sendWithoutDelay();
    int port = Integer.getInteger("port", 8080);
    Kind kind = Kind.valueOf(System.getProperty("server", "jdk").toUpperCase(Locale.ROOT));
    String url = System.getProperty("jdbc.url", "jdbc:h2:mem:payments;DB_CLOSE_DELAY=-1");
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setUsername(System.getProperty("jdbc.user", url.startsWith("jdbc:h2:") ? "sa" : null));
    config.setPassword(System.getProperty("jdbc.password", ""));
    config.setMaximumPoolSize(20);
    HikariDataSource dataSource = new HikariDataSource(config);
    PaymentsApi api = api(dataSource, runtime -> new JdbcPayments(runtime, dataSource));
    PaymentsServer server = start(kind, port, api);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        server.close();
      } catch (Exception e) {
        e.printStackTrace();
      }
      dataSource.close();
    }));
    System.out.println("Payments API listening on http://localhost:" + server.port() + "/payments ("
        + kind.name().toLowerCase(Locale.ROOT) + ", " + url + ")");
  }
}
