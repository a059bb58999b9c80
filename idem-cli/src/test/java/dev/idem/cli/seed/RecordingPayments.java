package dev.idem.cli.seed;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** The tests' implementation: counts its calls; {@code ship} waits for the test to let it go. */
public final class RecordingPayments implements Payments {

  public final AtomicInteger charges = new AtomicInteger();
  public final CountDownLatch shipping = new CountDownLatch(1);
  public final CountDownLatch letShip = new CountDownLatch(1);

  @Override
  public Receipt charge(String orderId, long amountCents, String memo) {
    charges.incrementAndGet();
    return new Receipt("ch_" + orderId, amountCents, Status.CAPTURED, memo);
  }

  @Override
  public String ship(String parcelId) {
    shipping.countDown();
    try {
      letShip.await(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return "shipped " + parcelId;
  }

  @Override
  public String ping(String pingId) {
    return "pong " + pingId;
  }
}
