package com.example.fidelity;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

public interface ResultWithoutCreator {

  /** Immutable, with getters, but the constructor's parameter names say nothing about the properties. */
  final class Money {
    private final long amountCents;
    private final String currency;

    public Money(long cents, String code) {
      this.amountCents = cents;
      this.currency = code;
    }

    public long getAmountCents() {
      return amountCents;
    }

    public String getCurrency() {
      return currency;
    }
  }

  @IdempotentCommand(scope = "fidelity.charge")
  Money charge(@IdempotencyKey String requestId);
}
