package dev.idem.runtime.internal;

import dev.idem.runtime.IdemRuntime;
import java.lang.System.Logger.Level;

/**
 * One command's recent share of calls that found their key already completed (retries), and from it whether a call
 * should read the key's record before claiming it, as {@code lookupFirst} does, without the user choosing.
 *
 * <p>Claiming first is cheapest for a first execution: the claim is the first statement of the transaction that
 * does the work. A retry of a completed key then pays the claim, a read and a commit, where one read in auto-commit
 * would answer it. Which is cheaper depends on the share of retries: the read pays off above about one call in
 * three. So each command keeps an exponentially weighted share of its calls that replayed a record the database
 * holds (a call answered by the local cache or the front tier never gets here, so a cache that absorbs the retries
 * keeps the command claiming first), reads first once that share passes {@link #READ_FIRST_ABOVE}, and claims first
 * again once it falls below {@link #CLAIM_FIRST_BELOW}; the gap between the two keeps a mix near the break-even
 * from switching back and forth. Both ways decide alike (the read only ever answers with a committed, unexpired,
 * completed record, which never changes before it expires; everything else goes on to the claim), so this chooses
 * a cost, never an outcome. Every call is observed in either way, a read-first one included, so the share follows
 * the workload whichever way the command is going.
 *
 * <p>Updated without synchronisation by every caller of the command: a lost update between racing threads moves
 * the share a little less than it would have, which only delays a switch by a call or two, and steady traffic of
 * one kind writes nothing (the share is already at its bound). That keeps the hot path at a read and a compare.
 */
final class RetryShare {

  private static final System.Logger LOG = System.getLogger(IdemRuntime.class.getName());

  /** The share's fixed-point one: shares are in 1/65,536ths. */
  static final int ONE = 1 << 16;
  /** Each call moves the share 1/16 of the way to 0 or 1: about 16 calls of memory. */
  private static final int WEIGHT_SHIFT = 4;
  /** Read first once more than half of the recent calls were retries (the read pays off above about a third). */
  static final int READ_FIRST_ABOVE = ONE / 2;
  /** Claim first again once fewer than a quarter of the recent calls were. */
  static final int CLAIM_FIRST_BELOW = ONE / 4;

  private final String scope;
  private int share;
  private boolean readFirst;

  RetryShare(String scope) {
    this.scope = scope;
  }

  /** @return whether the command's next call should read its key's record before claiming it */
  boolean readFirst() {
    return readFirst;
  }

  /**
   * Counts one call that reached the database.
   *
   * @param retry whether the call found its key completed (a replay of the stored outcome, or a payload refused as
   *     another than the key's): the calls one read would have answered
   */
  void observe(boolean retry) {
    int before = share;
    int target = retry ? ONE : 0;
    if (before == target) {
      return;
    }
    int step = (target - before) >> WEIGHT_SHIFT;
    // Near the bound the step rounds to nothing: land on the bound, so a steady workload stops writing.
    int after = step == 0 ? target : before + step;
    share = after;
    if (!readFirst && after > READ_FIRST_ABOVE) {
      readFirst = true;
      LOG.log(Level.DEBUG, () -> scope + ": most recent calls are retries; reading each key's record before"
          + " claiming it");
    } else if (readFirst && after < CLAIM_FIRST_BELOW) {
      readFirst = false;
      LOG.log(Level.DEBUG, () -> scope + ": most recent calls are first executions; claiming each key first");
    }
  }

  /** @return the current share of retries, in 1/{@link #ONE}ths (tests) */
  int share() {
    return share;
  }
}
