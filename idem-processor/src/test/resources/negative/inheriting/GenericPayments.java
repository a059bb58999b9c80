package com.example.payments;

/** Inherits a command but cannot be implemented as it stands: a warning that says how, not a broken build. */
public interface GenericPayments<T> extends PaymentCommands {

  T details(String paymentId);
}
