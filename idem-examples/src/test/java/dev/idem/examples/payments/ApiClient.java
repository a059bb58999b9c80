package dev.idem.examples.payments;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** Talks to the payments API over a real socket, as a client would. */
final class ApiClient {

  private final HttpClient http = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5))
      .build();
  private final URI base;

  ApiClient(int port) {
    this.base = URI.create("http://localhost:" + port);
  }

  static String body(long amountCents, String currency) {
    return "{\"amountCents\": " + amountCents + ", \"currency\": \"" + currency + "\"}";
  }

  /** @param keyField the Idempotency-Key field value as sent (quoted or bare), null for none */
  HttpRequest postRequest(String token, String keyField, String body) {
    HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve("/payments"))
        .timeout(Duration.ofSeconds(30))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body));
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    if (keyField != null) {
      request.header("Idempotency-Key", keyField);
    }
    return request.build();
  }

  HttpResponse<String> post(String token, String keyField, String body) {
    return send(postRequest(token, keyField, body));
  }

  CompletableFuture<HttpResponse<String>> postAsync(String token, String keyField, String body) {
    return http.sendAsync(postRequest(token, keyField, body), HttpResponse.BodyHandlers.ofString());
  }

  HttpResponse<String> get(String token, String path) {
    return send(HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(30))
        .header("Authorization", "Bearer " + token).GET().build());
  }

  private HttpResponse<String> send(HttpRequest request) {
    try {
      return http.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new IllegalStateException(request + " failed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
