package dev.idem.http.jdk;

import com.sun.net.httpserver.HttpServer;
import dev.idem.http.HttpReply;
import dev.idem.testing.KeepAliveRequests;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A server from {@link JdkHttpServer#create} answers requests on one keep-alive connection without waiting for the
 * client's delayed acknowledgement of each response's headers (Nagle's algorithm: about 40 ms per request on Linux;
 * issue 26 §5.6).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JdkHttpServerKeepAliveTest {

  private static final int REQUESTS = 200;

  @Test
  void requestsOnOneKeepAliveConnectionDoNotWaitForDelayedAcknowledgements() throws Exception {
    HttpServer server = JdkHttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    ExecutorService workers = Executors.newFixedThreadPool(2);
    server.setExecutor(workers);
    server.createContext("/", exchange -> {
      try (InputStream in = exchange.getRequestBody()) {
        in.readAllBytes();
      }
      JdkHttpServer.send(exchange, HttpReply.json(200, "{\"id\":\"p-1\",\"amountCents\":1250}"));
    });
    server.start();
    try {
      String body = "{\"amountCents\":1250,\"currency\":\"EUR\"}";
      String request = "POST /payments HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
          + "Idempotency-Key: \"k-1\"\r\nContent-Length: " + body.length() + "\r\n\r\n" + body;
      long[] nanos = KeepAliveRequests.sequentialRequests(server.getAddress().getPort(), request, REQUESTS);
      KeepAliveRequests.assertMedianBelow15Ms(nanos);
    } finally {
      server.stop(0);
      workers.shutdownNow();
    }
  }
}
