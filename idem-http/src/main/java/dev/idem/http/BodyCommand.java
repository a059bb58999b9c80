package dev.idem.http;

import dev.idem.runtime.IdempotentResult;

/**
 * The application's call of its idempotent command for a request whose payload is its body: parses and validates
 * {@code body}, then calls the generated method with the client and the key. Used with
 * {@link IdempotentRequests#handle(HttpRequestView, String, String, byte[], BodyCommand, java.util.function.Function)},
 * which skips this call when it answers a retry from its replay cache. A body that is not a valid payload is
 * refused by throwing {@link RejectedRequestException} before calling idem, so that nothing is recorded.
 *
 * @param <T> the command's stored result
 * @param <X> a checked exception the command may throw (a business failure); {@code RuntimeException} if none
 */
@FunctionalInterface
public interface BodyCommand<T, X extends Exception> {

  /**
   * @param clientId the authenticated client, as passed to {@code handle}
   * @param idempotencyKey the key from the header, unquoted
   * @param body the request body, as passed to {@code handle}; do not change it
   * @return the generated method's result
   * @throws X the command's business failure, passed through to the caller of {@code handle}
   * @throws RejectedRequestException if the body is not a valid payload
   */
  IdempotentResult<T> run(String clientId, String idempotencyKey, byte[] body) throws X;
}
