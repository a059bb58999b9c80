package docs.prelude;

public record PayRequest(String account, long amountCents) {}
