package com.example.jobs;

import dev.idem.SingleFlight;

public interface SingleFlightDurationInvalid {

  @SingleFlight(lockAtMostFor = "10 minutes")
  void nightlyReport();
}
