package com.example.shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

public interface GenericInterface<C> {

  @IdempotentCommand
  String handle(@IdempotencyKey String messageId, C command);
}
