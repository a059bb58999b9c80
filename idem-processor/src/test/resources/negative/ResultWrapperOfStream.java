package com.example.shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import dev.idem.runtime.IdempotentResult;
import java.util.stream.Stream;

public interface ResultWrapperOfStream {

  @IdempotentCommand
  IdempotentResult<Stream<String>> exportOrders(@IdempotencyKey String exportId);
}
