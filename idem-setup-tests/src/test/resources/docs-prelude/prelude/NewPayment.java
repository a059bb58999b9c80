package docs.prelude;

public record NewPayment(long amountCents, String currency) {}
