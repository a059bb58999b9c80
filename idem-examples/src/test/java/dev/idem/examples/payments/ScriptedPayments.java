package dev.idem.examples.payments;

import dev.idem.runtime.IdempotentResult;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** The real {@link JdbcPayments} with switches a test can flip: fail, or hold the request in flight. */
final class ScriptedPayments implements Payments {

  private final Payments real;
  final AtomicInteger executions = new AtomicInteger();
  volatile boolean failNext;
  volatile CountDownLatch entered;
  volatile CountDownLatch release;

  ScriptedPayments(Payments real) {
    this.real = real;
  }

  @Override
  public IdempotentResult<Payment> create(String clientId, String idempotencyKey, NewPayment payment) {
    executions.incrementAndGet();
    if (failNext) {
      failNext = false;
      throw new IllegalStateException("payment gateway unreachable");
    }
    CountDownLatch hold = release;
    if (hold != null) {
      entered.countDown();
      try {
        if (!hold.await(20, TimeUnit.SECONDS)) {
          throw new IllegalStateException("the test never released the request");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
    return real.create(clientId, idempotencyKey, payment);
  }

  @Override
  public Optional<Payment> find(String clientId, String id) {
    return real.find(clientId, id);
  }
}
