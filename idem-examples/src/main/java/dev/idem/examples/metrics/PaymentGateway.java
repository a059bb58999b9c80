package dev.idem.examples.metrics;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import dev.idem.Mode;

/**
 * A command with an effect outside the database: a card charge at a payment provider. CLAIM mode commits the claim
 * before the provider is called; a declined card is a business outcome that every retry gets again.
 */
public interface PaymentGateway {

  /** A card the provider refused; retrying the same charge must not ask again. */
  final class CardDeclinedException extends Exception {
    private static final long serialVersionUID = 1L;
    private final String declineCode;

    public CardDeclinedException(String message, String declineCode) {
      super(message);
      this.declineCode = declineCode;
    }

    public String declineCode() {
      return declineCode;
    }
  }

  @IdempotentCommand(scope = "payments.charge", mode = Mode.CLAIM, lease = "PT30S",
      replayOn = CardDeclinedException.class)
  String charge(@IdempotencyKey String paymentId, String card, long amountCents) throws CardDeclinedException;
}
