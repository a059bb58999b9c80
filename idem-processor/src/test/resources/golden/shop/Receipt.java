package shop;

public record Receipt(String orderId, long totalCents) {}
