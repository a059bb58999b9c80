package docs.prelude;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import dev.idem.http.IdempotentRequests;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyListener;
import dev.idem.runtime.TransactionBinding;
import dev.idem.runtime.TransitionListener;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import javax.sql.DataSource;

/**
 * What the docs' statement blocks may use without declaring it: each block's statements are the body of a method of
 * a subclass. Compiled, never run.
 */
public abstract class DocsPrelude {
  protected IdemRuntime runtime;
  protected DataSource dataSource;
  protected IdempotencyListener myMetricsListener;
  protected TransitionListener myAlarms;
  protected ObjectMapper myMapper;
  protected TransactionBinding binding;
  protected MeterRegistry meterRegistry;
  protected EntityManagerFactory entityManagerFactory;

  protected Payments payments;
  protected String requestId;
  protected PayRequest request;
  protected String clientId;
  protected String key;
  protected NewPayment newPayment;
  protected IdempotentRequests requests;
  protected HttpExchange exchange;

  /** The application's JSON rendering of a payment. */
  protected String json(Payment payment) {
    return "{\"id\":\"" + payment.id() + "\"}";
  }

  /** The application's own lookup of the thread's EntityManager (a container's, a thread-local). */
  protected EntityManager currentEntityManager() {
    return null;
  }
}
