package shop;

import dev.idem.ExpiredLease;
import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import dev.idem.Mode;
import dev.idem.OnBusy;
import dev.idem.SingleFlight;
import java.util.Optional;

/** Scheduled jobs that run on one instance at a time. */
public interface Jobs {

  @SingleFlight(name = "shop.nightly-report", lockAtMostFor = "PT10M", lockAtLeastFor = "PT30S")
  void nightlyReport();

  @SingleFlight(lockAtMostFor = "PT1M", onBusy = OnBusy.WAIT, waitTimeout = "PT20S")
  Optional<Receipt> settle(String day);

  /** A CLAIM command that parks its key rather than repeat an external effect. */
  @IdempotentCommand(mode = Mode.CLAIM, onExpiredLease = ExpiredLease.PARK)
  String payOut(@IdempotencyKey String payoutId);

  /** Not annotated: forwarded. */
  int pending();
}
