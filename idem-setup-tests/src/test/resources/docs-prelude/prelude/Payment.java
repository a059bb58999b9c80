package docs.prelude;

public record Payment(String id, long amountCents, String currency) {}
