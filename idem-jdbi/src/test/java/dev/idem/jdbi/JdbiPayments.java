package dev.idem.jdbi;

import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Jdbi;

/**
 * The delegate, as an application writes it with JDBI: it knows nothing of idem. Its nested {@code jdbi.withHandle}
 * gets the handle of the JDBI transaction the caller opened, so that its writes and idem's record share it.
 */
final class JdbiPayments implements Payments {

  private final Jdbi jdbi;
  final AtomicInteger executions = new AtomicInteger();

  JdbiPayments(Jdbi jdbi) {
    this.jdbi = jdbi;
  }

  @Override
  public long pay(String requestId, String account, long amountCents) {
    executions.incrementAndGet();
    return jdbi.withHandle(handle -> {
      handle.createUpdate("INSERT INTO payments (request_id, account, amount) VALUES (:id, :account, :amount)")
          .bind("id", requestId).bind("account", account).bind("amount", amountCents).execute();
      handle.createUpdate("UPDATE accounts SET balance = balance + :amount WHERE id = :account")
          .bind("account", account).bind("amount", amountCents).execute();
      return handle.createQuery("SELECT balance FROM accounts WHERE id = :account").bind("account", account)
          .mapTo(Long.class).one();
    });
  }
}
