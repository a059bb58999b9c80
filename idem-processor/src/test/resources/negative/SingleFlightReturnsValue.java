package com.example.jobs;

import dev.idem.SingleFlight;

public interface SingleFlightReturnsValue {

  @SingleFlight
  int nightlyReport();
}
