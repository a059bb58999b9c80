package dev.idem.examples.payments;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import dev.idem.Mode;
import dev.idem.runtime.IdempotentResult;
import java.util.Optional;

/**
 * The payments of the example HTTP API. {@code create} is keyed by the authenticated client and the request's
 * {@code Idempotency-Key}, so that two clients choosing the same key value never share a payment. It is a
 * {@code CLAIM} command, as a call to a payment gateway would be: a concurrent retry is told at once that the first
 * request is still in flight (409) instead of waiting on a database lock.
 */
public interface Payments {

  /** What a client asks for. */
  record NewPayment(long amountCents, String currency) {}

  /** A created payment, as stored and as rendered. */
  record Payment(String id, long amountCents, String currency) {}

  /**
   * Creates a payment once per client and key; a retry gets the same payment back, marked as a replay.
   *
   * @param clientId the authenticated client
   * @param idempotencyKey the request's Idempotency-Key
   * @param payment what to create
   * @return the payment
   */
  @IdempotentCommand(scope = "payments.create", mode = Mode.CLAIM, lease = "PT10S", retention = "P1D")
  IdempotentResult<Payment> create(@IdempotencyKey String clientId, @IdempotencyKey String idempotencyKey,
                                   NewPayment payment);

  /**
   * @param clientId the authenticated client; other clients' payments are not found
   * @param id the payment's id
   * @return the payment, if it belongs to the client
   */
  Optional<Payment> find(String clientId, String id);
}
