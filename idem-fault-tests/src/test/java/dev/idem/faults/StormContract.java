package dev.idem.faults;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Storms with random cuts: 16 threads, 200 keys each sent 3 times, the proxy cutting about one client packet in 40
 * (before the server got it, or after, losing the reply) and every connection now and then. Every send is retried
 * until it succeeds (see {@link Storm}); {@link StormChecks} says what the tables must hold then.
 */
@Timeout(value = 90, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
abstract class StormContract extends FaultContract {

  static final int THREADS = 16;
  static final int KEYS = 200;
  static final int COPIES = 3;
  static final double CUT_PROBABILITY = 0.025;

  @Override
  protected int poolSize() {
    return THREADS;
  }

  /** Cuts every connection a few times while the storm runs, besides the random cuts. */
  private Runnable cutAllNowAndThen() {
    return () -> {
      for (int i = 0; i < 4; i++) {
        Storm.pause(400);
        proxy.cutAll();
      }
    };
  }

  @Test
  void transactionalStormWithRandomCutsLeavesExactlyOneEffectAndOneRecordPerKey() throws Exception {
    long seed = System.nanoTime();
    Storm storm = new Storm("tx-", THREADS, KEYS, COPIES, 60);
    proxy.randomCuts(seed, CUT_PROBABILITY);
    storm.run(ledger::post, seed, 80, cutAllNowAndThen());
    proxy.heal();
    assertTrue(proxy.faultsInjected() > 0, "the storm met faults");
    StormChecks.transactional("on " + database().displayName(), storm, seed, proxy.faultsInjected(),
        database.dataSource());
  }

  @Test
  void parkingClaimStormWithRandomCutsRepeatsNoExternalEffectAndParksResolvableKeys() throws Exception {
    long seed = System.nanoTime();
    // The storm of issue 24: 8 threads, 100 keys, a 1 s lease, connections cut at random.
    Storm storm = new Storm("park-", 8, 100, COPIES, 200);
    proxy.randomCuts(seed, CUT_PROBABILITY);
    storm.run(ledger::chargeParked, seed, 80, cutAllNowAndThen());
    proxy.heal();
    // The settling below runs through the runtime, as an operator's would: on connections opened after the cuts.
    pool.getHikariPoolMXBean().softEvictConnections();
    assertTrue(proxy.faultsInjected() > 0, "the storm met faults");
    StormChecks.parked("on " + database().displayName(), storm, seed, proxy.faultsInjected(), ledger, delegate,
        runtime, database.dataSource());
  }

  @Test
  void claimStormWithRandomCutsNeverRepeatsAnExternalEffect() throws Exception {
    long seed = System.nanoTime();
    Storm storm = new Storm("claim-", THREADS, KEYS, COPIES, 200);
    proxy.randomCuts(seed, CUT_PROBABILITY);
    storm.run(ledger::chargeWithinStorm, seed, 80, cutAllNowAndThen());
    proxy.heal();
    assertTrue(proxy.faultsInjected() > 0, "the storm met faults");
    StormChecks.claim("on " + database().displayName(), storm, seed, proxy.faultsInjected(), ledger, delegate,
        database.dataSource());
  }
}
