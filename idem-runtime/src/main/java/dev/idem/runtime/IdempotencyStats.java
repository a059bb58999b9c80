package dev.idem.runtime;

import java.time.Instant;
import java.util.List;

/**
 * What idem's table holds, as {@link IdemAdmin#stats(int)} counts it: records per scope and state, the oldest and
 * newest, the claims whose lease has ended and every record whose outcome is unknown. Times are the database's.
 *
 * @param table the table counted
 * @param measuredAt the database's time of the count (leases ended before it, records expired by it)
 * @param groups the count per scope and state, by scope then state
 * @param oldest when the oldest record was created; null if the table is empty
 * @param newest when the newest record was created; null if the table is empty
 * @param expiredLeases {@code IN_PROGRESS} records whose lease ended before {@code measuredAt} (a caller died or is
 *     stuck; the next call with the key takes it over), oldest lease first, at most the limit asked for
 * @param outcomeUnknown {@code OUTCOME_UNKNOWN} records, oldest first, at most the limit asked for: each needs an
 *     operator ({@link IdemAdmin#resolve}, {@link IdemAdmin#release}) or waits for its retention to end
 * @param truncated whether a list was cut at the limit (the counts in {@code groups} are complete)
 */
public record IdempotencyStats(String table, Instant measuredAt, List<Group> groups, Instant oldest, Instant newest,
                               List<Key> expiredLeases, List<Key> outcomeUnknown, boolean truncated) {

  /**
   * Copies the lists.
   *
   * @param table the table counted
   * @param measuredAt the database's time of the count
   * @param groups the count per scope and state
   * @param oldest the oldest record's creation, or null
   * @param newest the newest record's creation, or null
   * @param expiredLeases the claims whose lease ended
   * @param outcomeUnknown the records whose outcome is unknown
   * @param truncated whether a list was cut
   */
  public IdempotencyStats {
    groups = List.copyOf(groups);
    expiredLeases = List.copyOf(expiredLeases);
    outcomeUnknown = List.copyOf(outcomeUnknown);
  }

  /** @return the number of records in the table */
  public long total() {
    return groups.stream().mapToLong(Group::count).sum();
  }

  /**
   * The records of one scope in one state.
   *
   * @param scope the command's scope
   * @param state the state as stored ({@code COMPLETED}, {@code IN_PROGRESS}, ...; a state this version does not know
   *     is counted as it is written)
   * @param count how many
   * @param oldest the oldest one's creation
   * @param newest the newest one's creation
   * @param expired how many of them have passed their retention (the next purge deletes them)
   */
  public record Group(String scope, String state, long count, Instant oldest, Instant newest, long expired) {}

  /**
   * One record an operator should look at.
   *
   * @param scope the command's scope
   * @param key the composed idempotency key
   * @param ownerToken the claim's owner token
   * @param createdAt when the key was first claimed
   * @param leaseUntil {@code IN_PROGRESS}: when its lease ended; null otherwise
   * @param problem {@code OUTCOME_UNKNOWN}: what failed when its outcome was to be recorded; null otherwise
   */
  public record Key(String scope, String key, String ownerToken, Instant createdAt, Instant leaseUntil,
                    String problem) {}
}
