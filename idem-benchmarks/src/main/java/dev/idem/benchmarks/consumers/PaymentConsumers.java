package dev.idem.benchmarks.consumers;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import java.util.List;

/** The consumer the benchmark drives, once per message and in batches; idem generates its wrapper. */
public interface PaymentConsumers {

  record Payment(String messageId, long orderId, long amountCents) {}

  @IdempotentCommand(scope = "bench.payment", retention = "P15D")
  void onPayment(@IdempotencyKey("messageId") Payment payment, @IdempotencyKey String group);

  @IdempotentCommand(scope = "bench.payments", retention = "P15D")
  void onPayments(@IdempotencyKey("messageId") List<Payment> batch, @IdempotencyKey String group);
}
