package com.example.jobs;

import dev.idem.SingleFlight;

public interface SingleFlightAtLeastNotBelowAtMost {

  @SingleFlight(lockAtMostFor = "PT1M", lockAtLeastFor = "PT5M")
  void nightlyReport();
}
