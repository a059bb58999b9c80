package com.example.jobs;

import dev.idem.SingleFlight;

public interface SingleFlightNameDuplicate {

  @SingleFlight(name = "reports")
  void nightlyReport();

  @SingleFlight(name = "reports", lockAtMostFor = "PT5M")
  void weeklyReport();
}
