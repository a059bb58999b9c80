package com.example.shop;

import dev.idem.IdempotencyKey;

public class KeyWithoutCommandOnClass {

  public String cancelOrder(@IdempotencyKey String orderId) {
    return orderId;
  }
}
