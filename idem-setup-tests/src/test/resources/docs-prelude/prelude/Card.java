package docs.prelude;

public record Card(String number, String holder) {}
