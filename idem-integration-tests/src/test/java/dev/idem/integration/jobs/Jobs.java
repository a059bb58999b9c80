package dev.idem.integration.jobs;

import dev.idem.SingleFlight;

/** The jobs the child JVMs of {@link SingleFlightAcrossJvmsTest} fire: generated single-flight wrappers. */
public interface Jobs {

  /** Fired every 200 ms by each of three JVMs: a short body, held at least 500 ms. */
  @SingleFlight(name = "it.fire", lockAtMostFor = "PT10S", lockAtLeastFor = "PT0.5S")
  void fire();

  /** Never ends by itself: the test kills its JVM with SIGKILL. */
  @SingleFlight(name = "it.hang", lockAtMostFor = "PT3S")
  void hang();

  /** Paused with SIGSTOP past its lease, then resumed: writes late, fenced. */
  @SingleFlight(name = "it.pause", lockAtMostFor = "PT2S")
  void pause();
}
