package com.example.shop.generated;

public record GeneratedReceipt(String cartId) {}
