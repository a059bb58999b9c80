package com.example.shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import java.util.stream.Stream;

public interface ReturnsStream {

  @IdempotentCommand
  Stream<String> exportOrders(@IdempotencyKey String exportId);
}
