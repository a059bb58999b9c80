package shop;

import java.util.List;

public record PlaceOrder(String customerId, List<String> skus) {}
