package dev.idem.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.h2.jdbcx.JdbcConnectionPool;
import org.junit.jupiter.api.Test;

class OrderServiceExampleTest {

  @Test
  void mainRunsTheReadmeExample() {
    OrderServiceExample.main(new String[0]); // throws if any retry was not idempotent
  }

  @Test
  void retriesCreateOneOrderAndEachGroupProcessesTheMessageOnce() {
    JdbcConnectionPool pool = JdbcConnectionPool.create("jdbc:h2:mem:example-test;DB_CLOSE_DELAY=-1", "sa", "");
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    try {
      OrderServiceExample.Outcome outcome =
          OrderServiceExample.run(pool, new PrintStream(printed, true, StandardCharsets.UTF_8));

      assertEquals(outcome.first(), outcome.retried(), "a retry gets the first order back");
      assertEquals(1, outcome.ordersInTable());
      assertTrue(outcome.reuseRejected(), "a different payload under the same key is rejected");
      assertTrue(outcome.badKeyRejected(), "a malformed key is rejected");
      assertEquals(1, outcome.billingEffects());
      assertEquals(1, outcome.shippingEffects());
      assertTrue(printed.toString(StandardCharsets.UTF_8).contains("orders in table: 1"));
      assertTrue(printed.toString(StandardCharsets.UTF_8).contains("audit applied 3 payment(s)"));
    } finally {
      pool.dispose();
    }
  }
}
