package dev.idem.benchmarks.redis;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import java.sql.SQLException;

/** An order placement that writes one business row in the command's transaction. */
public interface RedisOrders {

  @IdempotentCommand(scope = "bench.redis.place")
  long place(@IdempotencyKey String requestId, String sku, int quantity) throws SQLException;
}
