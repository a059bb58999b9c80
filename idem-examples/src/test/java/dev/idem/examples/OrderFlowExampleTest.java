package dev.idem.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.runtime.TransitionResult;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.h2.jdbcx.JdbcConnectionPool;
import org.junit.jupiter.api.Test;

class OrderFlowExampleTest {

  @Test
  void mainPrintsWhatTheReadmeShows() {
    List<String> lines = PrintedBy.main(() -> OrderFlowExample.main(new String[0]));

    assertEquals(List.of(
        "== The payment provider calls back \"paid\" twice ==",
        "first callback   : APPLIED",
        "repeated callback: ALREADY_APPLIED (no effect)",
        "== The warehouse ships, the carrier delivers; a late \"paid\" is still harmless ==",
        "ship: shipped now",
        "late paid callback: ALREADY_APPLIED",
        "== A stale \"back to PROCESSING\" callback arrives =="), lines.subList(0, 7), String.join("\n", lines));
    assertTrue(lines.get(7).startsWith("rejected: ") && lines.get(7).contains("FINISHED"), lines.get(7));
    assertEquals(List.of(
        "order 1001 is FINISHED (version 3)",
        "transition log:",
        "  OrderFlow.markPaid: CREATED -> PAID",
        "  OrderFlow.ship: PAID -> SHIPPED",
        "  OrderFlow.finish: SHIPPED -> FINISHED",
        "alarms: [OrderFlow.startProcessing rejected for PurchaseOrder 1001 in FINISHED]"),
        lines.subList(8, lines.size()), String.join("\n", lines));
  }

  @Test
  void aRepeatedPaymentHasNoEffectAndAStaleCallbackIsRejected() {
    JdbcConnectionPool pool = JdbcConnectionPool.create("jdbc:h2:mem:order-flow-test;DB_CLOSE_DELAY=-1", "sa", "");
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    try {
      OrderFlowExample.Outcome outcome =
          OrderFlowExample.run(pool, new PrintStream(printed, true, StandardCharsets.UTF_8));

      assertEquals(TransitionResult.APPLIED, outcome.firstPayment());
      assertEquals(TransitionResult.ALREADY_APPLIED, outcome.repeatedPayment());
      assertTrue(outcome.staleRejected());
      assertEquals(OrderStatus.FINISHED, outcome.finalStatus());
      assertEquals(3, outcome.finalVersion(), "paid, shipped, finished: three updates, no more");
      assertEquals(List.of("OrderFlow.markPaid: CREATED -> PAID", "OrderFlow.ship: PAID -> SHIPPED",
          "OrderFlow.finish: SHIPPED -> FINISHED"), outcome.log());
      assertEquals(List.of("OrderFlow.startProcessing rejected for PurchaseOrder 1001 in FINISHED"),
          outcome.alarms());
      assertTrue(printed.toString(StandardCharsets.UTF_8).contains("repeated callback: ALREADY_APPLIED"));
    } finally {
      pool.dispose();
    }
  }

  @Test
  void theProcessorDrewTheStateMachine() throws IOException {
    try (InputStream in = OrderFlowExampleTest.class.getResourceAsStream("OrderFlow_PurchaseOrder.mmd")) {
      String diagram = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      assertTrue(diagram.contains("stateDiagram-v2\n"), diagram);
      assertTrue(diagram.contains("    PROCESSING --> PAID : markPaid\n"), diagram);
      assertTrue(diagram.contains("    SHIPPED --> FINISHED : finish\n"), diagram);
    }
  }
}
