package com.example.shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import java.io.InputStream;

public interface ReturnsInputStream {

  @IdempotentCommand
  InputStream exportOrders(@IdempotencyKey String exportId);
}
