package dev.idem.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.h2.jdbcx.JdbcConnectionPool;
import org.junit.jupiter.api.Test;

class ScheduledJobExampleTest {

  @Test
  void mainPrintsOneRunPerLockAtLeastForAmongManyFirings() {
    List<String> lines = PrintedBy.main(() -> {
      try {
        ScheduledJobExample.main(new String[0]);
      } catch (InterruptedException e) {
        throw new AssertionError(e);
      }
    });
    assertEquals("== Three instances fire the sales report every 200 ms for 3500 ms ==", lines.get(0));
    List<String> runs = lines.subList(1, lines.size() - 1);
    assertTrue(runs.size() >= 3 && runs.size() <= 4, String.join("\n", lines));
    for (String run : runs) {
      assertTrue(run.matches("instance-[abc] published the report under fencing token \\d+"), run);
    }
    assertTrue(lines.get(lines.size() - 1).matches("fired \\d+ times, ran " + runs.size() + " times, one at a time;"
        + " the report was published " + runs.size() + " times"), lines.get(lines.size() - 1));
  }

  @Test
  void oneInstanceAtATimeRunsTheJobUnderIncreasingFencingTokens() throws InterruptedException {
    JdbcConnectionPool pool = JdbcConnectionPool.create("jdbc:h2:mem:scheduled-jobs-test;DB_CLOSE_DELAY=-1", "sa", "");
    try {
      ScheduledJobExample.Outcome outcome = ScheduledJobExample.run(pool,
          new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), Duration.ofMillis(2_500));
      assertEquals(0, outcome.overlapping());
      assertTrue(outcome.fired() >= 30, "three instances fired every 200 ms: " + outcome.fired());
      // lockAtLeastFor is a second: three runs in 2.5 s at most, however often the instances fire.
      assertTrue(outcome.runs().size() >= 2 && outcome.runs().size() <= 3, outcome.toString());
      for (int i = 1; i < outcome.runs().size(); i++) {
        assertTrue(outcome.runs().get(i).fencingToken() > outcome.runs().get(i - 1).fencingToken(),
            outcome.toString());
      }
      assertEquals(outcome.runs().size(), outcome.reportVersion());
    } finally {
      pool.dispose();
    }
  }
}
