package dev.idem.http;

import java.util.Objects;

/**
 * Thrown by a {@link BodyCommand} that refuses the request before running the idempotent command (its body is not a
 * valid payload): {@code handle} answers with {@link #reply()}, and nothing is recorded or cached under the key.
 */
public final class RejectedRequestException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** The response to send; an HttpReply is immutable, and this exception is never serialized. */
  private final transient HttpReply reply;

  /** @param reply the response to send, e.g. {@link IdempotentRequests#problem} with status 400 */
  public RejectedRequestException(HttpReply reply) {
    super(Objects.requireNonNull(reply, "reply").toString(), null, false, false);
    this.reply = reply;
  }

  /** @return the response to send */
  public HttpReply reply() {
    return reply;
  }
}
