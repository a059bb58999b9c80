package dev.idem.examples;

import dev.idem.SingleFlight;

/** A scheduled job every instance fires, and one instance at a time runs. */
public interface ReportJobs {

  /**
   * Publishes the sales report. Held at least a second, so that an instance whose timer fires a moment after
   * another's finished does not publish it again.
   */
  @SingleFlight(name = "reports.sales", lockAtMostFor = "PT1M", lockAtLeastFor = "PT1S")
  void publishSalesReport();
}
