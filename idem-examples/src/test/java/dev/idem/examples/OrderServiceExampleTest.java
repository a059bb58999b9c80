package dev.idem.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.h2.jdbcx.JdbcConnectionPool;
import org.junit.jupiter.api.Test;

class OrderServiceExampleTest {

  @Test
  void mainPrintsWhatTheReadmeShows() {
    List<String> lines = PrintedBy.main(() -> OrderServiceExample.main(new String[0]));

    assertEquals("== Creating an order, then retrying the same request (a gateway timed out) ==", lines.get(0));
    assertTrue(lines.get(1).startsWith("first call : "), lines.get(1));
    assertEquals(lines.get(1).substring("first call : ".length()), lines.get(2).substring("retry      : ".length()),
        "the retry prints the first call's order");
    assertEquals("orders in table: 1", lines.get(3));
    assertEquals("== The same request id with a different payload is an error, not a silent replay ==",
        lines.get(4));
    assertTrue(lines.get(5).startsWith("rejected: ") && lines.get(5).contains("req-7f3a"), lines.get(5));
    assertEquals("== A malformed key is rejected before any database access ==", lines.get(6));
    assertTrue(lines.get(7).startsWith("rejected: "), lines.get(7));
    assertEquals("== A payment message delivered twice to two consumer groups ==", lines.get(8));
    assertEquals("billing applied it 1 time(s), shipping 1 time(s)", lines.get(9));
    assertEquals("== A batch redelivered with one new message: only the new one reaches the business code ==",
        lines.get(10));
    assertEquals("audit applied 3 payment(s) for 3 distinct messages in 5 deliveries", lines.get(11));
    assertEquals(12, lines.size(), String.join("\n", lines));
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
