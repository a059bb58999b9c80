package dev.idem.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.idem.faults.FaultContract.Tables;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Storms with random cuts: 16 threads, 200 keys each sent 3 times, the proxy cutting about one client packet in 40
 * (before the server got it, or after, losing the reply) and every connection now and then. Every send is retried
 * until it succeeds. Then each key has exactly one business effect and one matching record.
 */
@Timeout(value = 90, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
abstract class StormContract extends FaultContract {

  static final int THREADS = 16;
  static final int KEYS = 200;
  static final int COPIES = 3;
  static final double CUT_PROBABILITY = 0.025;
  private static final Pattern EXECUTION = Pattern.compile("\"execution\":(\\d+)");

  @Override
  protected int poolSize() {
    return THREADS;
  }

  /** Cuts every connection a few times while the storm runs, besides the random cuts. */
  private Runnable cutAllNowAndThen(Storm storm) {
    return () -> {
      for (int i = 0; i < 4 && storm.attempts.get() < storm.calls() * 5L; i++) {
        Storm.pause(400);
        proxy.cutAll();
      }
    };
  }

  @Test
  void transactionalStormWithRandomCutsLeavesExactlyOneEffectAndOneRecordPerKey() throws Exception {
    long seed = System.nanoTime();
    Storm storm = new Storm("tx-", THREADS, KEYS, COPIES, 60);
    proxy.randomCuts(seed, CUT_PROBABILITY);
    storm.run(ledger::post, seed, 80, cutAllNowAndThen(storm));
    proxy.heal();

    assertNoUnexpectedFailures(storm, seed);
    assertEquals(0, storm.gaveUp.get(), "every send succeeded within its retries (seed " + seed + ")");
    Map<String, Integer> rows = Tables.businessRowsByKey(database.dataSource());
    Map<String, Integer> rowExecution = Tables.businessExecutionByKey(database.dataSource());
    Map<String, String> states = Tables.statesByKey(database.dataSource(), POST);
    Map<String, String> results = Tables.resultsByKey(database.dataSource(), POST);
    long doubleExecutions = 0;
    for (String key : storm.allKeys()) {
      int executed = rows.getOrDefault(key, 0);
      if (executed > 1 || storm.returnedExecutions.get(key).size() > 1) {
        doubleExecutions++;
      }
      assertEquals(1, executed, "business rows of " + key + " (seed " + seed + ")");
      assertEquals("COMPLETED", states.get(key), "record of " + key);
      int stored = storedExecution(results.get(key));
      assertEquals(rowExecution.get(key), stored, "the record holds the result of the execution that committed");
      assertEquals(Set.of(stored), storm.returnedExecutions.get(key), "every call got that result");
    }
    long stuck = states.values().stream().filter(state -> !"COMPLETED".equals(state)).count();
    assertEquals(KEYS, states.size());
    summary("TRANSACTIONAL", storm, seed, doubleExecutions, stuck, "");
    assertEquals(0, doubleExecutions);
    assertEquals(0, stuck, "no PENDING or IN_PROGRESS record is left");
    assertTrue(proxy.faultsInjected() > 0, "the storm met faults");
  }

  /**
   * A CLAIM storm with a 2 s lease, which the storm outlasts: a claim whose owner died (its INSERT's reply lost, its
   * body's connection cut) is taken over by a later send once its lease ends. An external effect never happens
   * twice, unless the caller was told it may (an outcome that could not even be recorded as unknown, a lost lease).
   * Afterwards every record is COMPLETED or OUTCOME_UNKNOWN; one still in progress is one whose outcome could not
   * be recorded, and a send after its lease takes it over (nothing is stuck).
   */
  @Test
  void claimStormWithRandomCutsNeverRepeatsAnExternalEffect() throws Exception {
    long seed = System.nanoTime();
    Storm storm = new Storm("claim-", THREADS, KEYS, COPIES, 200);
    proxy.randomCuts(seed, CUT_PROBABILITY);
    storm.run(ledger::chargeWithinStorm, seed, 80, cutAllNowAndThen(storm));
    proxy.heal();
    assertNoUnexpectedFailures(storm, seed);

    // Records still in progress: each must be taken over once its lease ends (none is stuck).
    Map<String, String> states = Tables.statesByKey(database.dataSource(), CHARGE_WITHIN_STORM);
    List<String> inProgress = storm.allKeys().stream().filter(key -> "IN_PROGRESS".equals(states.get(key))).toList();
    if (!inProgress.isEmpty()) {
      Storm.pause(2_100);
    }
    for (String key : inProgress) {
      assertEquals(key, ledger.chargeWithinStorm(key, key.hashCode() & 0xffff).key(), "taken over after its lease");
    }

    Map<String, Integer> rows = Tables.businessRowsByKey(database.dataSource());
    Map<String, Integer> rowExecution = Tables.businessExecutionByKey(database.dataSource());
    Map<String, String> settled = Tables.statesByKey(database.dataSource(), CHARGE_WITHIN_STORM);
    Map<String, String> results = Tables.resultsByKey(database.dataSource(), CHARGE_WITHIN_STORM);
    long doubleExecutions = 0;
    long rerunsAsTold = 0;
    int completed = 0;
    int unknown = 0;
    for (String key : storm.allKeys()) {
      int effects = delegate.externalEffects(key);
      boolean toldItMayRunAgain = storm.outcomeUnrecorded.contains(key) || storm.leaseLost.contains(key);
      if (effects > 1 && toldItMayRunAgain) {
        rerunsAsTold++;
      } else if (effects > 1) {
        doubleExecutions++;
      }
      assertTrue(effects <= 2, key + " ran " + effects + " times (seed " + seed + ")");
      String state = settled.get(key);
      if ("COMPLETED".equals(state)) {
        completed++;
        if (!toldItMayRunAgain) {
          assertEquals(1, effects, "external effects of " + key + " (seed " + seed + ")");
        }
        assertEquals(1, rows.getOrDefault(key, 0), "business rows of " + key);
        assertEquals(rowExecution.get(key), storedExecution(results.get(key)), key + ": the committed execution");
        Set<Integer> returned = storm.returnedExecutions.get(key);
        assertTrue(returned == null || returned.equals(Set.of(rowExecution.get(key))),
            key + ": every successful call got the stored result, got " + returned);
      } else {
        // The body returned (charged), its completion was cut: recorded, and every later call is told so.
        unknown++;
        assertEquals("OUTCOME_UNKNOWN", state, key + " (seed " + seed + ")");
        assertEquals(1, effects, key + " (seed " + seed + ")");
        assertEquals(0, rows.getOrDefault(key, 0), key + ": the body's writes rolled back with the completion");
        assertTrue(storm.outcomeUnknown.contains(key), key + ": a call was told the outcome is unknown");
        assertEquals(null, storm.returnedExecutions.get(key), key + ": no call succeeded");
      }
    }
    long stuck = Tables.inProgressPastLease(database.dataSource(), CHARGE_WITHIN_STORM, Long.MAX_VALUE);
    summary("CLAIM", storm, seed, doubleExecutions, stuck, ", completed " + completed + ", outcome unknown "
        + unknown + ", in progress after the storm and taken over after their lease " + inProgress.size()
        + ", outcome not even recordable " + storm.outcomeUnrecorded.size() + ", lease lost " + storm.leaseLost.size()
        + ", second runs the caller was told of (those two) " + rerunsAsTold);
    assertEquals(0, doubleExecutions, "never two external effects for a key the caller was not warned about");
    assertEquals(0, stuck, "no record left in progress");
    assertEquals(KEYS, completed + unknown);
    assertTrue(completed > KEYS / 2, "most keys completed: " + completed);
  }

  private void summary(String mode, Storm storm, long seed, long doubleExecutions, long stuck, String more) {
    System.out.println("FAULT STORM " + mode + " on " + database().displayName() + ": calls " + storm.calls()
        + " (" + storm.attempts.get() + " attempts, " + storm.expectedFailures.get() + " failed and retried), "
        + "faults injected " + proxy.faultsInjected() + ", double executions " + doubleExecutions
        + ", stuck records " + stuck + more + ", seed " + seed);
  }

  static void assertNoUnexpectedFailures(Storm storm, long seed) {
    if (!storm.unexpected.isEmpty()) {
      List<Throwable> failures = new ArrayList<>(storm.unexpected);
      AssertionError error = new AssertionError(failures.size() + " unexpected failures (seed " + seed + "), first: "
          + failures.get(0));
      failures.stream().limit(5).forEach(error::addSuppressed);
      throw error;
    }
  }

  static int storedExecution(String json) {
    if (json == null) {
      fail("no stored result");
    }
    Matcher matcher = EXECUTION.matcher(json);
    assertTrue(matcher.find(), json);
    return Integer.parseInt(matcher.group(1));
  }
}
