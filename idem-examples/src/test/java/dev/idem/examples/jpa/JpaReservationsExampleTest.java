package dev.idem.examples.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.idem.runtime.TransitionResult;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.h2.jdbcx.JdbcConnectionPool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JpaReservationsExampleTest {

  @Test
  void theGuiceWiredJpaServiceRecordsOnceReplaysAndKeepsTheManagedEntityCurrent() {
    JdbcConnectionPool pool = JdbcConnectionPool.create("jdbc:h2:mem:jpa-example-test;DB_CLOSE_DELAY=-1", "sa", "");
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    try {
      JpaReservationsExample.Outcome outcome =
          JpaReservationsExample.run(pool, new PrintStream(printed, true, StandardCharsets.UTF_8));

      assertEquals(outcome.first(), outcome.retry(), "the retry replays the first result");
      assertEquals(1, outcome.bodyRuns(), "the JPA delegate ran once");
      assertEquals(1, outcome.rows(), "one reservation row");
      assertEquals(TransitionResult.APPLIED, outcome.confirmed());
      assertEquals(ReservationStatus.CONFIRMED, outcome.managedStatus(), "the managed entity was refreshed");
      assertEquals(1, outcome.managedVersion());
      assertEquals(TransitionResult.ALREADY_APPLIED, outcome.confirmedAgain());
      assertEquals(List.of(
          "== A guest books; the gateway times out and the client retries with the same request id ==",
          "first call: reservation 1 for ada, 3 nights",
          "retry     : reservation 1 (replayed: the body ran 1 time, 1 reservation row)",
          "== The hotel confirms it inside a JPA transaction that holds the entity ==",
          "confirm   : APPLIED; the managed entity is CONFIRMED, version 1",
          "confirm again: ALREADY_APPLIED (no effect)"),
          printed.toString(StandardCharsets.UTF_8).lines().toList());
    } finally {
      pool.dispose();
    }
  }
}
