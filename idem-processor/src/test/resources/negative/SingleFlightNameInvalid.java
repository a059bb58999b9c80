package com.example.jobs;

import dev.idem.SingleFlight;

public interface SingleFlightNameInvalid {

  @SingleFlight(name = " nightly")
  void nightlyReport();
}
