package dev.idem.http;

import dev.idem.runtime.IdempotentResult;

/**
 * The application's call of its idempotent command, given the client and the key from the header. Pass both to the
 * command as its key parts ({@code @IdempotencyKey String clientId, @IdempotencyKey String idempotencyKey}), so
 * that two clients choosing the same key value never share a record.
 *
 * @param <T> the command's stored result
 * @param <X> a checked exception the command may throw (a business failure); {@code RuntimeException} if none
 */
@FunctionalInterface
public interface KeyedCommand<T, X extends Exception> {

  /**
   * @param clientId the authenticated client, as passed to {@link IdempotentRequests#handle}
   * @param idempotencyKey the key from the header, unquoted
   * @return the generated method's result
   * @throws X the command's business failure, passed through to the caller of {@code handle}
   */
  IdempotentResult<T> run(String clientId, String idempotencyKey) throws X;
}
