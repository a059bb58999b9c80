package dev.idem.examples;

import dev.idem.examples.OrderService.CreateOrder;
import dev.idem.examples.OrderService.Order;
import dev.idem.examples.PaymentEvents.OrderPaid;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyKeyReusedException;
import dev.idem.runtime.InvalidIdempotencyKeyException;
import java.io.PrintStream;
import java.util.List;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcConnectionPool;

/**
 * Runs the order service and the payment consumer on embedded H2 and shows what retries do:
 * {@code mvn -q -Prun-example -pl idem-examples -am verify -DskipTests}.
 */
public final class OrderServiceExample {

  /** What the run observed; the example's test asserts on it. */
  public record Outcome(Order first, Order retried, long ordersInTable, boolean reuseRejected,
                        boolean badKeyRejected, long billingEffects, long shippingEffects) {}

  public static void main(String[] args) {
    JdbcConnectionPool pool = JdbcConnectionPool.create("jdbc:h2:mem:orders;DB_CLOSE_DELAY=-1", "sa", "");
    try {
      Outcome outcome = run(pool, System.out);
      if (outcome.ordersInTable() != 1 || outcome.billingEffects() != 1 || outcome.shippingEffects() != 1) {
        throw new IllegalStateException("retries were not idempotent: " + outcome);
      }
    } finally {
      pool.dispose();
    }
  }

  public static Outcome run(DataSource dataSource, PrintStream out) {
    IdemRuntime runtime = IdemRuntime.builder().dataSource(dataSource).build();
    runtime.createSchema();
    JdbcOrderService business = new JdbcOrderService(runtime);
    JdbcOrderService.createTables(runtime);

    // Plain `new`: the generated wrappers take the business implementation and the runtime.
    OrderService orders = new OrderService_Idempotent(business, runtime);
    PaymentEvents payments = new PaymentEvents_Idempotent(business, runtime);

    out.println("== Creating an order, then retrying the same request (a gateway timed out) ==");
    CreateOrder command = new CreateOrder("customer-42", "sku-espresso", 2, 1_250);
    Order first = orders.createOrder("req-7f3a", command);
    Order retried = orders.createOrder("req-7f3a", command);
    out.printf("first call : %s%nretry      : %s%norders in table: %d%n", first, retried, orders.countOrders());

    out.println("== The same request id with a different payload is an error, not a silent replay ==");
    boolean reuseRejected = false;
    try {
      orders.createOrder("req-7f3a", new CreateOrder("customer-42", "sku-espresso", 3, 1_250));
    } catch (IdempotencyKeyReusedException e) {
      reuseRejected = true;
      out.println("rejected: " + e.getMessage());
    }

    out.println("== A malformed key is rejected before any database access ==");
    boolean badKeyRejected = false;
    try {
      orders.createOrder("req 7f3a; DROP TABLE orders", command);
    } catch (InvalidIdempotencyKeyException e) {
      badKeyRejected = true;
      out.println("rejected: " + e.getMessage());
    }

    out.println("== A payment message delivered twice to two consumer groups ==");
    OrderPaid paid = new OrderPaid("msg-0001", first.orderId(), first.totalCents());
    for (int delivery = 1; delivery <= 2; delivery++) {
      payments.onOrderPaid(paid, "billing");
      payments.onOrderPaid(paid, "shipping");
    }
    long billing = business.paymentEffects("billing", first.orderId());
    long shipping = business.paymentEffects("shipping", first.orderId());
    out.printf("billing applied it %d time(s), shipping %d time(s)%n", billing, shipping);

    out.println("== A batch redelivered with one new message: only the new one reaches the business code ==");
    OrderPaid second = new OrderPaid("msg-0002", first.orderId(), 1);
    payments.onOrdersPaid(List.of(paid, second), "audit");
    payments.onOrdersPaid(List.of(paid, second, new OrderPaid("msg-0003", first.orderId(), 1)), "audit");
    out.printf("audit applied %d payment(s) for 3 distinct messages in 5 deliveries%n",
        business.paymentEffects("audit", first.orderId()));

    return new Outcome(first, retried, orders.countOrders(), reuseRejected, badKeyRejected, billing, shipping);
  }

  private OrderServiceExample() {}
}
