package com.example.fidelity;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

public interface ResultComputedGetter {

  /** getTotal() is written but has nothing to be read back into. */
  class Invoice {
    private long netCents;
    private long taxCents;

    public long getNetCents() {
      return netCents;
    }

    public void setNetCents(long netCents) {
      this.netCents = netCents;
    }

    public long getTaxCents() {
      return taxCents;
    }

    public void setTaxCents(long taxCents) {
      this.taxCents = taxCents;
    }

    public long getTotal() {
      return netCents + taxCents;
    }
  }

  @IdempotentCommand(scope = "fidelity.invoice")
  Invoice invoice(@IdempotencyKey String requestId);
}
