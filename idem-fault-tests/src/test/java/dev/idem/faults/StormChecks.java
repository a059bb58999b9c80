package dev.idem.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.idem.faults.FaultContract.Tables;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyOutcomeUnknownException;
import dev.idem.runtime.IdempotencyRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * What every storm must leave, read from the tables past any proxy, with one summary line per storm on stdout
 * (printed before the assertions, so that a failing run shows its figures and seed too).
 */
final class StormChecks {

  private static final Pattern EXECUTION = Pattern.compile("\"execution\":(\\d+)");

  private StormChecks() {}

  /**
   * A TRANSACTIONAL storm: every key has exactly one business row and one COMPLETED record holding the result of
   * that row's execution, every call got that result, and no PENDING or IN_PROGRESS record is left.
   */
  static void transactional(String label, Storm storm, long seed, long faultsInjected, DataSource direct) {
    assertNoUnexpectedFailures(storm, seed);
    Map<String, Integer> rows = Tables.businessRowsByKey(direct);
    Map<String, Integer> rowExecution = Tables.businessExecutionByKey(direct);
    Map<String, String> states = Tables.statesByKey(direct, FaultContract.POST);
    Map<String, String> results = Tables.resultsByKey(direct, FaultContract.POST);
    long doubleExecutions = storm.allKeys().stream()
        .filter(key -> rows.getOrDefault(key, 0) > 1 || storm.returnedExecutions.getOrDefault(key, Set.of()).size() > 1)
        .count();
    long stuck = states.values().stream().filter(state -> !"COMPLETED".equals(state)).count();
    summary("TRANSACTIONAL " + label, storm, seed, faultsInjected, doubleExecutions, stuck, "");

    assertEquals(0, storm.gaveUp.get(), "every send succeeded within its retries (seed " + seed + ")");
    for (String key : storm.allKeys()) {
      assertEquals(1, rows.getOrDefault(key, 0), "business rows of " + key + " (seed " + seed + ")");
      assertEquals("COMPLETED", states.get(key), "record of " + key);
      int stored = storedExecution(results.get(key));
      assertEquals(rowExecution.get(key), stored, "the record holds the result of the execution that committed");
      assertEquals(Set.of(stored), storm.returnedExecutions.get(key), "every call got that result");
    }
    assertEquals(storm.allKeys().size(), states.size(), "one record per key");
    assertEquals(0, doubleExecutions);
    assertEquals(0, stuck, "no PENDING or IN_PROGRESS record is left");
  }

  /**
   * A CLAIM storm on {@link Ledger#chargeWithinStorm} (2 s lease). Records still in progress afterwards are sent
   * once more after their lease ended: each must be taken over (none is stuck). Then every record is COMPLETED or
   * OUTCOME_UNKNOWN, and an external effect happened twice only for a key whose caller was told it may: its outcome
   * could not even be recorded as unknown, an owner lost its lease, or the commit of its completion failed with
   * nothing recordable ({@link dev.idem.runtime.IdempotencyCommitUnknownException}: "runs the command if it did
   * not" commit).
   */
  static void claim(String label, Storm storm, long seed, long faultsInjected, Ledger ledger,
      RecordingLedger delegate, DataSource direct) {
    assertNoUnexpectedFailures(storm, seed);
    String scope = FaultContract.CHARGE_WITHIN_STORM;
    List<String> inProgress = inProgress(storm, direct, scope);
    if (!inProgress.isEmpty()) {
      Storm.pause(2_100); // their leases end (and idem's background marks of unknown outcomes are done)
    }
    for (String key : inProgress(storm, direct, scope)) {
      try {
        assertEquals(key, ledger.chargeWithinStorm(key, Storm.amountOf(key)).key(), key + ": taken over");
      } catch (IdempotencyOutcomeUnknownException e) {
        storm.outcomeUnknown.add(key); // recorded meanwhile: checked below like the others
      }
    }

    Map<String, Integer> rows = Tables.businessRowsByKey(direct);
    Map<String, Integer> rowExecution = Tables.businessExecutionByKey(direct);
    Map<String, String> settled = Tables.statesByKey(direct, scope);
    Map<String, String> results = Tables.resultsByKey(direct, scope);
    long doubleExecutions = 0;
    long secondRunsAsTold = 0;
    int completed = 0;
    int unknown = 0;
    for (String key : storm.allKeys()) {
      boolean told = toldItMayRunAgain(storm, key);
      int effects = delegate.externalEffects(key);
      if (effects > 1 && told) {
        secondRunsAsTold++;
      } else if (effects > 1) {
        doubleExecutions++;
      }
      if ("COMPLETED".equals(settled.get(key))) {
        completed++;
      } else if ("OUTCOME_UNKNOWN".equals(settled.get(key))) {
        unknown++;
      }
    }
    long stuck = Tables.inProgressPastLease(direct, scope, Long.MAX_VALUE);
    summary("CLAIM " + label, storm, seed, faultsInjected, doubleExecutions, stuck, ", completed " + completed
        + ", outcome unknown " + unknown + ", in progress after the storm and taken over after their lease "
        + inProgress.size() + ", outcome not even recordable " + storm.outcomeUnrecorded.size() + ", lease lost "
        + storm.leaseLost.size() + ", commit unknown " + storm.commitUnknown.size()
        + ", second runs the caller was told of (those three) " + secondRunsAsTold);

    for (String key : storm.allKeys()) {
      int effects = delegate.externalEffects(key);
      boolean told = toldItMayRunAgain(storm, key);
      assertTrue(effects <= (told ? 2 : 1), key + " ran " + effects + " times (seed " + seed + ")");
      String state = settled.get(key);
      if ("COMPLETED".equals(state)) {
        assertEquals(1, rows.getOrDefault(key, 0), "business rows of " + key);
        assertEquals(rowExecution.get(key), storedExecution(results.get(key)), key + ": the committed execution");
        Set<Integer> returned = storm.returnedExecutions.get(key);
        assertTrue(returned == null || returned.equals(Set.of(rowExecution.get(key))),
            key + ": every successful call got the stored result, got " + returned);
      } else {
        // The body returned (charged), its completion failed: recorded, and every later call is told so.
        assertEquals("OUTCOME_UNKNOWN", state, key + " (seed " + seed + ")");
        assertEquals(1, effects, key + " (seed " + seed + ")");
        assertEquals(0, rows.getOrDefault(key, 0), key + ": the body's writes rolled back with the completion");
        assertTrue(storm.outcomeUnknown.contains(key), key + ": a call was told the outcome is unknown");
        assertEquals(null, storm.returnedExecutions.get(key), key + ": no call succeeded");
      }
    }
    assertEquals(0, doubleExecutions, "never two external effects for a key the caller was not warned about");
    assertEquals(0, stuck, "no record left in progress");
    assertTrue(completed > storm.allKeys().size() / 2, "most keys completed: " + completed);
  }

  /**
   * A CLAIM storm on {@link Ledger#chargeParked} (1 s lease, PARK for an ended lease and an undeclared failure): no
   * key's external effect ever happens twice, whatever the caller was told. Records still in progress afterwards
   * are sent once more after their lease ended: each is parked, not taken over. Then every key is COMPLETED or
   * OUTCOME_UNKNOWN (or has no record and never ran); every parked key is listed by inspect and is resolved (the
   * effect happened: its result recorded, and a retry replays it) or forgotten (it did not: a retry runs it).
   */
  static void parked(String label, Storm storm, long seed, long faultsInjected, Ledger ledger,
      RecordingLedger delegate, IdemRuntime runtime, DataSource direct) {
    assertNoUnexpectedFailures(storm, seed);
    String scope = FaultContract.CHARGE_PARKED;
    List<String> inProgress = inProgress(storm, direct, scope);
    if (!inProgress.isEmpty()) {
      Storm.pause(1_100); // their leases end (and idem's background marks of unknown outcomes are done)
    }
    for (String key : inProgress(storm, direct, scope)) {
      assertThrows(IdempotencyOutcomeUnknownException.class, () -> ledger.chargeParked(key, Storm.amountOf(key)),
          key + ": an ended lease parks the key");
    }
    Map<String, String> settled = Tables.statesByKey(direct, scope);
    long repeated = storm.allKeys().stream().filter(key -> delegate.externalEffects(key) > 1).count();
    List<String> parkedKeys = storm.allKeys().stream().filter(key -> "OUTCOME_UNKNOWN".equals(settled.get(key)))
        .toList();
    long completed = storm.allKeys().stream().filter(key -> "COMPLETED".equals(settled.get(key))).count();
    summary("CLAIM PARK " + label, storm, seed, faultsInjected, repeated, 0, ", completed " + completed
        + ", parked " + parkedKeys.size() + " (of them with the effect done "
        + parkedKeys.stream().filter(key -> delegate.externalEffects(key) == 1).count() + "), in progress after"
        + " the storm and parked after their lease " + inProgress.size() + ", lease lost " + storm.leaseLost.size()
        + ", commit unknown " + storm.commitUnknown.size());
    assertEquals(0, repeated, "no external effect repeated (seed " + seed + ")");
    for (String key : storm.allKeys()) {
      String state = settled.get(key);
      assertTrue(state == null || "COMPLETED".equals(state) || "OUTCOME_UNKNOWN".equals(state),
          key + " is " + state + " (seed " + seed + ")");
      if (state == null) {
        assertEquals(0, delegate.externalEffects(key), key + " has no record, so it never ran");
      }
    }
    assertEquals(0, Tables.inProgressPastLease(direct, scope, Long.MAX_VALUE), "no record left in progress");
    // An operator settles each parked key by asking the external system (here: the delegate's count).
    for (String key : parkedKeys) {
      IdempotencyRecord record = runtime.inspect(scope, key).orElseThrow();
      assertEquals(IdempotencyRecord.State.OUTCOME_UNKNOWN, record.state(), key);
      long amount = Storm.amountOf(key);
      if (delegate.externalEffects(key) == 1) {
        assertTrue(runtime.resolve(scope, key, "{\"key\":\"" + key + "\",\"amount\":" + amount
            + ",\"execution\":0}"), key);
        assertEquals(new Ledger.Entry(key, amount, 0), ledger.chargeParked(key, amount), key + " replays");
      } else {
        assertTrue(runtime.forget(scope, key), key);
        assertEquals(key, ledger.chargeParked(key, amount).key(), key + " runs now");
      }
      assertEquals(1, delegate.externalEffects(key), key + ": exactly one effect after settling");
    }
  }

  private static List<String> inProgress(Storm storm, DataSource direct, String scope) {
    Map<String, String> states = Tables.statesByKey(direct, scope);
    return storm.allKeys().stream().filter(key -> "IN_PROGRESS".equals(states.get(key))).toList();
  }

  private static boolean toldItMayRunAgain(Storm storm, String key) {
    return storm.outcomeUnrecorded.contains(key) || storm.leaseLost.contains(key)
        || storm.commitUnknown.contains(key);
  }

  private static void summary(String what, Storm storm, long seed, long faultsInjected, long doubleExecutions,
      long stuck, String more) {
    System.out.println("FAULT STORM " + what + ": calls " + storm.calls() + " (" + storm.attempts.get()
        + " attempts, " + storm.expectedFailures.get() + " failed and retried), faults injected " + faultsInjected
        + ", double executions " + doubleExecutions + ", stuck records " + stuck + more + ", seed " + seed);
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

  /** @return the execution number in a stored {@link Ledger.Entry} */
  static int storedExecution(String json) {
    if (json == null) {
      fail("no stored result");
    }
    Matcher matcher = EXECUTION.matcher(json);
    assertTrue(matcher.find(), json);
    return Integer.parseInt(matcher.group(1));
  }
}
