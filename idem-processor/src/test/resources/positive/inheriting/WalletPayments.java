package com.example.payments;

/** Declares nothing of its own: it gets its implementation from what it inherits. */
public interface WalletPayments extends PaymentCommands {

  /** Nested and inheriting through WalletPayments: implemented as well. */
  interface Refunds extends WalletPayments {
    void refund(String paymentId);
  }
}
