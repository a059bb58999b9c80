package docs.prelude;

public record Receipt(String paymentId, long amountCents) {}
