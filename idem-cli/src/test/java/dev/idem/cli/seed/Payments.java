package dev.idem.cli.seed;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import dev.idem.Mode;

/** The commands the CLI's tests run to seed real records (compiled with idem's processor, so with a manifest). */
public interface Payments {

  /** A charge at a gateway: CLAIM, so a result too large to store leaves an OUTCOME_UNKNOWN record. */
  @IdempotentCommand(scope = "Payments.charge", mode = Mode.CLAIM, lease = "PT30S")
  Receipt charge(@IdempotencyKey String orderId, long amountCents, String memo);

  /** A CLAIM command whose body the tests hold, with a short lease: an IN_PROGRESS claim whose lease ends. */
  @IdempotentCommand(scope = "Payments.ship", mode = Mode.CLAIM, lease = "PT1S")
  String ship(@IdempotencyKey String parcelId);

  /** A transactional command whose records expire at once, for purge. */
  @IdempotentCommand(scope = "Payments.ping", retention = "PT1S")
  String ping(@IdempotencyKey String pingId);

  /** What a charge returns. */
  record Receipt(String chargeId, long amountCents, Status status, String memo) {}

  /** A charge's status. */
  enum Status { CAPTURED, DECLINED }
}
