package dev.idem.examples.payments;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.examples.payments.Payments.NewPayment;
import dev.idem.examples.payments.Payments.Payment;
import dev.idem.http.HttpReply;
import dev.idem.http.HttpRequestView;
import dev.idem.http.IdempotentRequests;
import dev.idem.http.RejectedRequestException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Currency;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The example API, whatever the server: {@code POST /payments} and {@code GET /payments/{id}}. The JDK HttpServer
 * and the Jetty servlet adapters in {@link PaymentsServer} only turn their requests into {@link #route} calls.
 */
public final class PaymentsApi {

  private static final Logger LOG = Logger.getLogger(PaymentsApi.class.getName());
  private static final Pattern PAYMENT_PATH = Pattern.compile("/payments/([A-Za-z0-9_]{1,40})");
  private static final Pattern CURRENCY = Pattern.compile("[A-Z]{3}");

  private final Payments payments;
  private final IdempotentRequests requests;
  private final ObjectMapper json = new ObjectMapper();
  /** Request bodies parsed as payments: the tests tell from it that a retry was answered from the replay cache. */
  private final LongAdder bodiesParsed = new LongAdder();

  /**
   * @param payments the idempotent payments ({@code Payments_Idempotent})
   * @param requests the Idempotency-Key handling
   */
  public PaymentsApi(Payments payments, IdempotentRequests requests) {
    this.payments = payments;
    this.requests = requests;
  }

  /**
   * @param method the request method
   * @param path the request path, without query
   * @param request the request's headers
   * @param body the request body
   * @return the response
   */
  public HttpReply route(String method, String path, HttpRequestView request, byte[] body) {
    try {
      if (path.equals("/payments")) {
        return method.equals("POST") ? create(request, body) : notAllowed("POST");
      }
      if (path.equals("/health")) {
        // What a load balancer polls; touches neither the database nor idem (the benchmark's trivial handler).
        return method.equals("GET") ? HttpReply.json(200, "{\"status\":\"UP\"}") : notAllowed("GET");
      }
      Matcher payment = PAYMENT_PATH.matcher(path);
      if (payment.matches()) {
        return method.equals("GET") ? find(request, payment.group(1)) : notAllowed("GET");
      }
      return requests.problem(404, "not-found", "Not found", "No resource at " + path + ".");
    } catch (RuntimeException e) {
      // The claim was released (CLAIM) or rolled back (TRANSACTIONAL): a retry with the same key runs again.
      LOG.log(Level.SEVERE, method + " " + path + " failed", e);
      return requests.problem(500, "internal-error", "Internal server error",
          "The request failed and was not recorded; retry it with the same Idempotency-Key.");
    }
  }

  /**
   * The answer to a request whose body is longer than the server reads.
   *
   * @param maxBytes the server's bound
   * @return a 413 problem response
   */
  public HttpReply bodyTooLarge(int maxBytes) {
    return requests.problem(413, "body-too-large", "Request body too large",
        "The request body is longer than " + maxBytes + " bytes.");
  }

  private HttpReply create(HttpRequestView request, byte[] body) {
    String clientId = clientId(request);
    if (clientId == null) {
      return unauthenticated();
    }
    // The body form of handle: a retry whose body is byte for byte an earlier replay's is answered from idem-http's
    // replay cache, without parsing it again; any other body is parsed and validated here first (400, nothing
    // recorded), then fingerprinted by the runtime.
    return requests.handle(request, clientId, "POST /payments", body, (client, key, payload) -> {
      NewPayment newPayment;
      try {
        newPayment = newPayment(payload);
      } catch (InvalidPaymentException e) {
        throw new RejectedRequestException(
            requests.problem(400, "invalid-payment", "The payment is invalid", e.getMessage()));
      }
      return payments.create(client, key, newPayment);
    }, created -> HttpReply.json(201, write(created)).withHeader("Location", "/payments/" + created.id()));
  }

  private HttpReply find(HttpRequestView request, String id) {
    String clientId = clientId(request);
    if (clientId == null) {
      return unauthenticated();
    }
    return payments.find(clientId, id)
        .map(payment -> HttpReply.json(200, write(payment)))
        .orElseGet(() -> requests.problem(404, "payment-not-found", "Payment not found",
            "No payment " + id + " for this client."));
  }

  /**
   * The example's authentication: a bearer token names the client. The token itself never reaches the database;
   * its hash is the client id, which scopes the client's idempotency keys. A real API takes the client id from its
   * authentication layer (the principal's name).
   */
  private static String clientId(HttpRequestView request) {
    List<String> authorization = request.headerValues("Authorization");
    if (authorization.size() != 1 || !authorization.get(0).startsWith("Bearer ")
        || authorization.get(0).length() <= "Bearer ".length()) {
      return null;
    }
    return clientIdOf(authorization.get(0).substring("Bearer ".length()));
  }

  /**
   * One SHA-256 per thread: {@code MessageDigest.getInstance} looks the algorithm up among the security providers on
   * every call, which cost a replay answered from idem's cache more than the hash itself.
   */
  private static final ThreadLocal<MessageDigest> SHA_256 = ThreadLocal.withInitial(() -> {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  });

  /** A bearer token and its client id. */
  private record TokenClient(String token, String clientId) {}

  /**
   * The last token each thread hashed and its client id: a client sends the same token with every request, and on
   * a replay answered from idem-http's replay cache the hash was the largest part of the router's work. One entry
   * per thread bounds it; a different token simply hashes.
   */
  private static final ThreadLocal<TokenClient> LAST_CLIENT = new ThreadLocal<>();

  /** The client id of a bearer token: {@code client-} and 16 hex digits of its SHA-256. */
  static String clientIdOf(String token) {
    TokenClient last = LAST_CLIENT.get();
    if (last != null && last.token().equals(token)) {
      return last.clientId();
    }
    String clientId = hashedClientId(token);
    LAST_CLIENT.set(new TokenClient(token, clientId));
    return clientId;
  }

  private static String hashedClientId(String token) {
    byte[] hash = SHA_256.get().digest(token.getBytes(StandardCharsets.UTF_8)); // digest() resets it
    return "client-" + HexFormat.of().formatHex(hash, 0, 8);
  }

  private HttpReply unauthenticated() {
    return requests.problem(401, "unauthenticated", "Authentication required",
            "Send Authorization: Bearer <token>; the token identifies the client.")
        .withHeader("WWW-Authenticate", "Bearer");
  }

  private HttpReply notAllowed(String allowed) {
    return requests.problem(405, "method-not-allowed", "Method not allowed", "Use " + allowed + ".")
        .withHeader("Allow", allowed);
  }

  /** @return how many request bodies were parsed as payments */
  long bodiesParsed() {
    return bodiesParsed.sum();
  }

  private NewPayment newPayment(byte[] body) {
    bodiesParsed.increment();
    JsonNode root;
    try {
      root = json.readTree(body);
    } catch (IOException e) {
      throw new InvalidPaymentException("The body is not JSON: send {\"amountCents\": <long>, \"currency\": \"EUR\"}.");
    }
    if (root == null || !root.isObject()) {
      throw new InvalidPaymentException("The body must be a JSON object: {\"amountCents\": <long>, \"currency\": \"EUR\"}.");
    }
    JsonNode amount = root.get("amountCents");
    if (amount == null || !amount.canConvertToExactIntegral() || !amount.canConvertToLong() || amount.asLong() <= 0) {
      throw new InvalidPaymentException("amountCents must be a positive whole number of cents.");
    }
    JsonNode currency = root.get("currency");
    if (currency == null || !currency.isTextual() || !CURRENCY.matcher(currency.asText()).matches()
        || !isIso4217(currency.asText())) {
      throw new InvalidPaymentException("currency must be an ISO 4217 code such as \"EUR\".");
    }
    return new NewPayment(amount.asLong(), currency.asText());
  }

  private static boolean isIso4217(String code) {
    try {
      Currency.getInstance(code);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  private String write(Payment payment) {
    try {
      return json.writeValueAsString(payment);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("A payment always serializes", e);
    }
  }

  /** A request body that is not a valid payment: 400, nothing recorded. */
  private static final class InvalidPaymentException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    InvalidPaymentException(String message) {
      super(message);
    }
  }
}
