package dev.idem.faults;

import dev.idem.ExpiredLease;
import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import dev.idem.Mode;
import dev.idem.UndeclaredFailure;

/** The service the fault suite drives through its generated {@code Ledger_Idempotent}, as users do. */
public interface Ledger {

  /**
   * What a posting returns. {@code execution} numbers the delegate's executions, so that a replay is told apart from
   * a second execution and a record from the business row it belongs to.
   */
  record Entry(String key, long amount, int execution) {}

  /** All in the database: the business row, the claim and the result commit together. */
  @IdempotentCommand
  Entry post(@IdempotencyKey String key, long amount);

  /** An external effect (counted in memory) plus a business row; the lease outlasts every test. */
  @IdempotentCommand(mode = Mode.CLAIM, lease = "PT60S")
  Entry charge(@IdempotencyKey String key, long amount);

  /** The same with a lease that a storm outlasts, so that claims whose owner died are taken over in it. */
  @IdempotentCommand(mode = Mode.CLAIM, lease = "PT2S")
  Entry chargeWithinStorm(@IdempotencyKey String key, long amount);

  /**
   * At most once (issue 24): a 1 s lease, and both a lease that ends without an outcome and an undeclared failure
   * park the key as OUTCOME_UNKNOWN instead of letting a retry run the body again.
   */
  @IdempotentCommand(mode = Mode.CLAIM, lease = "PT1S", onExpiredLease = ExpiredLease.PARK,
      onUndeclaredFailure = UndeclaredFailure.PARK)
  Entry chargeParked(@IdempotencyKey String key, long amount);

  /** The same with a lease short enough for a test to outlast it. */
  @IdempotentCommand(mode = Mode.CLAIM, lease = "PT0.4S")
  Entry chargeBriefly(@IdempotencyKey String key, long amount);
}
