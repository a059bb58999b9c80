package docs.prelude;

public record Reserve(String guest, int nights) {}
