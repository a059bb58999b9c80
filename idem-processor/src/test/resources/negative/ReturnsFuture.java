package com.example.shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import java.util.concurrent.CompletableFuture;

public interface ReturnsFuture {

  @IdempotentCommand
  CompletableFuture<String> exportOrders(@IdempotencyKey String exportId);
}
