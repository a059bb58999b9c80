package com.example.fidelity;

import com.fasterxml.jackson.annotation.JsonIgnore;
import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

public interface ResultJsonIgnoreGetter {

  /** Read back through its constructor, which takes the property that @JsonIgnore on its getter leaves out. */
  final class Voucher {
    private final String code;
    private final long cents;

    public Voucher(String code, long cents) {
      this.code = code;
      this.cents = cents;
    }

    public String getCode() {
      return code;
    }

    @JsonIgnore
    public long getCents() {
      return cents;
    }
  }

  @IdempotentCommand(scope = "fidelity.issue")
  Voucher issue(@IdempotencyKey String requestId);
}
