package shop;

import dev.idem.OnBusy;
import dev.idem.SingleFlight;
import java.util.Optional;

/** Scheduled jobs that run on one instance at a time. */
public interface Jobs {

  @SingleFlight(name = "shop.nightly-report", lockAtMostFor = "PT10M", lockAtLeastFor = "PT30S")
  void nightlyReport();

  @SingleFlight(lockAtMostFor = "PT1M", onBusy = OnBusy.WAIT, waitTimeout = "PT20S")
  Optional<Receipt> settle(String day);

  /** Not annotated: forwarded. */
  int pending();
}
