package com.example.shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import java.util.Iterator;

public interface ReturnsIterator {

  @IdempotentCommand
  Iterator<String> exportOrders(@IdempotencyKey String exportId);
}
