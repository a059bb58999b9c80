package dev.idem.examples.orders;

/**
 * The event the orders service announces once an order committed.
 *
 * @param orderId the order's id
 * @param clientId the client who ordered
 * @param amountCents the amount to charge
 */
public record OrderCreated(long orderId, String clientId, long amountCents) {}
