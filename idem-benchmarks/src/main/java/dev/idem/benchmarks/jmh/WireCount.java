package dev.idem.benchmarks.jmh;

import java.util.ArrayList;
import java.util.List;

/**
 * {@link WireProbe}'s counting socket for other benchmarks: a connection made through {@link #SOCKET_FACTORY} (the
 * drivers' {@code socketFactory} option) counts round trips and decodes the protocol messages it sends while
 * recording. One recording at a time, on one thread.
 */
public final class WireCount {

  /** The value of the drivers' {@code socketFactory} URL option. */
  public static final String SOCKET_FACTORY = WireProbe.CountingSocketFactory.class.getName();

  /** What a recording saw: round trips (a read after a write) and the client's protocol messages, in order. */
  public record Recorded(long roundTrips, List<String> messages) {}

  private WireCount() {}

  public static void start() {
    synchronized (WireProbe.messages) {
      WireProbe.messages.clear();
    }
    WireProbe.roundTrips.set(0);
    WireProbe.recording = true;
  }

  public static Recorded stop() {
    WireProbe.recording = false;
    synchronized (WireProbe.messages) {
      return new Recorded(WireProbe.roundTrips.get(), new ArrayList<>(WireProbe.messages));
    }
  }
}
