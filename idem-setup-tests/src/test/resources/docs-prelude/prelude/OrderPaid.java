package docs.prelude;

public record OrderPaid(String messageId, long orderId, long amountCents) {}
