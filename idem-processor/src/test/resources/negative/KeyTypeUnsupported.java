package com.example.shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import java.time.Instant;

public interface KeyTypeUnsupported {

  @IdempotentCommand
  void closeDay(@IdempotencyKey Instant businessDay, String till);
}
