package com.example.jobs;

import dev.idem.SingleFlight;

public interface SingleFlightWaitTimeoutWithoutWait {

  @SingleFlight(waitTimeout = "PT30S")
  void nightlyReport();
}
