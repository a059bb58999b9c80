package dev.idem.runtime.internal;

import java.util.Arrays;

/**
 * A bounded, thread-safe cache of committed completed records, so that retries of a completed command are answered
 * without a database round trip. Holding only completed records keeps it correct across runtime instances: such a
 * record changes only after it expired, and an expired entry is never returned. Segmented, so that threads replaying
 * different keys rarely wait for each other.
 *
 * <p>Every committed completed record the executors see comes through {@link #put}, so it is also where they reach
 * the {@link FrontTierGate}: a put publishes to the front tier, an evict forgets there. An entry pushed out to make
 * room is not forgotten there: the record is unchanged, only this JVM stops holding it.
 *
 * <p>Layout and policy. Most calls are first executions, which pay a miss before the claim and a put after the
 * commit; so those two must touch little memory the call has not touched already. (As a {@code LinkedHashMap} in
 * access order the miss probed a cold bucket and the put's eviction walked the eldest entry and its list neighbours:
 * about 5% of a first execution's CPU on H2, profiled 2026-12-03.) Each segment is set-associative: a key maps to
 * one bucket of {@link #WAYS} slots whose tags (the keys' hashes) sit next to each other in an {@code int[]}, so a miss
 * reads those 32 bytes and nothing else, and an entry is read only when its tag matches. A put that finds its bucket
 * full evicts within the bucket by second chance (CLOCK): a hit sets its slot's referenced bit (in the tag), and the
 * bucket's hand skips a referenced slot once, clearing the bit, and takes the first slot not referenced since. Keys
 * stored and never replayed go first, in the order they came; a key replayed again and again stays, as under LRU,
 * with no list to relink on every hit and put. What this gives up against LRU: a key can be pushed out of a full
 * bucket while others have room (rare with 8 ways), and an expired entry's slot is reused only when the hand
 * reaches it (checking expiry while choosing would read the cold entries again). Neither is a contract: the cache
 * only saves round trips.
 */
final class CompletedRecordCache {

  private static final int SEGMENTS = 16;
  /** Slots per bucket: 8 tags are 32 bytes, one cache line or two. */
  private static final int WAYS = 8;
  /** A slot's tag: 0 is empty; else its key's hash with bit 0 set (occupied) and bit 1 the referenced mark. */
  private static final int OCCUPIED = 1;
  private static final int REFERENCED = 2;

  private static final class Entry {
    final String scope;
    final String key;
    final CompletedRecord record;

    Entry(String scope, String key, CompletedRecord record) {
      this.scope = scope;
      this.key = key;
      this.record = record;
    }
  }

  /** One lock's share of the table; every method is called holding the segment's monitor. */
  private static final class Segment {
    final int ways;
    final int buckets;
    final int[] tags;
    final Entry[] entries;
    /** Per bucket, the slot (0 to ways - 1) its clock hand looks at next. */
    final byte[] hands;

    Segment(int ways, int buckets) {
      this.ways = ways;
      this.buckets = buckets;
      this.tags = new int[buckets * ways];
      this.entries = new Entry[buckets * ways];
      this.hands = new byte[buckets];
    }

    /** The key's slot in the bucket starting at {@code start}, or -1. */
    int find(int start, int tag, String scope, String key) {
      for (int slot = start, end = start + ways; slot < end; slot++) {
        if ((tags[slot] & ~REFERENCED) == tag) {
          Entry entry = entries[slot];
          if (entry.key.equals(key) && entry.scope.equals(scope)) {
            return slot;
          }
        }
      }
      return -1;
    }

    /**
     * Whether the bucket may hold the tag, read without the segment's monitor: false only if no slot held it in some
     * recent state of the bucket. A miss (every first execution, before its claim) then takes no lock: at 8 threads
     * on 2 cores the monitor was where idem CLAIM's callers queued behind a preempted holder most after the owner
     * token's SecureRandom (JFR, H2, 2026-12-03). Racing a put, it may miss a record just stored, which costs that call
     * a read of the database, never a wrong answer: a hit is always decided under the monitor.
     */
    boolean mayHold(int start, int tag) {
      for (int slot = start, end = start + ways; slot < end; slot++) {
        if ((tags[slot] & ~REFERENCED) == tag) {
          return true;
        }
      }
      return false;
    }

    /** The key's unexpired record, marked referenced; null on a miss, and an expired one is dropped. */
    CompletedRecord get(int start, int tag, String scope, String key, long now) {
      int slot = find(start, tag, scope, key);
      if (slot < 0) {
        return null;
      }
      CompletedRecord record = entries[slot].record;
      if (record.isExpiredAt(now)) {
        remove(slot);
        return null;
      }
      tags[slot] |= REFERENCED;
      return record;
    }

    void put(int start, int bucket, int tag, Entry entry) {
      int free = -1;
      for (int slot = start, end = start + ways; slot < end; slot++) {
        int held = tags[slot];
        if ((held & ~REFERENCED) == tag && entries[slot].key.equals(entry.key) && entries[slot].scope.equals(entry.scope)) {
          free = slot; // the same key: replace its record in place
          break;
        }
        if (held == 0 && free < 0) {
          free = slot;
        }
      }
      int slot = free >= 0 ? free : victim(start, bucket);
      tags[slot] = tag;
      entries[slot] = entry;
    }

    /** Second chance: the first slot from the hand on that is not referenced, clearing the marks it passes. */
    private int victim(int start, int bucket) {
      int hand = hands[bucket];
      while ((tags[start + hand] & REFERENCED) != 0) {
        tags[start + hand] &= ~REFERENCED;
        hand = hand + 1 == ways ? 0 : hand + 1;
      }
      hands[bucket] = (byte) (hand + 1 == ways ? 0 : hand + 1);
      return start + hand;
    }

    void remove(int slot) {
      tags[slot] = 0;
      entries[slot] = null;
    }

    void clear() {
      Arrays.fill(tags, 0);
      Arrays.fill(entries, null);
      Arrays.fill(hands, (byte) 0);
    }
  }

  private final Segment[] segments;
  /** Buckets over all segments: bucket b is the segment b % segments' bucket b / segments. */
  private final int buckets;
  private final FrontTierGate frontTier;

  /** @param maxEntries the most records kept; 0 disables the cache */
  CompletedRecordCache(int maxEntries) {
    this(maxEntries, null);
  }

  /**
   * @param maxEntries the most records kept (rounded down to whole buckets, so up to {@code WAYS - 1} fewer); 0
   *     disables the cache
   * @param frontTier where committed records are also published, or null
   */
  CompletedRecordCache(int maxEntries, FrontTierGate frontTier) {
    this.frontTier = frontTier;
    if (maxEntries <= 0) {
      this.segments = null;
      this.buckets = 0;
      return;
    }
    // Buckets are dealt to the segments in turn, so that every bucket is equally likely whatever the division leaves.
    int ways = Math.min(WAYS, maxEntries);
    this.buckets = maxEntries / ways;
    int segmentCount = Math.min(SEGMENTS, buckets);
    this.segments = new Segment[segmentCount];
    for (int i = 0; i < segmentCount; i++) {
      segments[i] = new Segment(ways, (buckets - i + segmentCount - 1) / segmentCount);
    }
  }

  boolean isEnabled() {
    return segments != null;
  }

  /** How many slots the cache has: at most the maxEntries it was made with. */
  int capacity() {
    int capacity = 0;
    if (segments != null) {
      for (Segment segment : segments) {
        capacity += segment.tags.length;
      }
    }
    return capacity;
  }

  /** How many entries it holds, expired ones included (for tests). */
  int size() {
    int size = 0;
    if (segments != null) {
      for (Segment segment : segments) {
        synchronized (segment) {
          for (int tag : segment.tags) {
            size += tag == 0 ? 0 : 1;
          }
        }
      }
    }
    return size;
  }

  /** The unexpired record of the key, or null; an expired one is dropped. */
  CompletedRecord get(String scope, String key, long now) {
    if (segments == null) {
      return null;
    }
    int hash = hash(scope, key);
    int global = bucketOf(hash);
    Segment segment = segments[global % segments.length];
    int bucket = global / segments.length;
    int start = bucket * segment.ways;
    int tag = tagOf(hash);
    if (!segment.mayHold(start, tag)) {
      return null;
    }
    synchronized (segment) {
      return segment.get(start, tag, scope, key, now);
    }
  }

  /**
   * Whether the key still maps to this very record (the same instance), unexpired at {@code now}: what a
   * {@link dev.idem.runtime.ReplayValidity} of a cached replay asks. An expired record is dropped, as in {@link #get};
   * a replay asking counts as a use of the entry, as a hit does.
   */
  boolean stillHolds(String scope, String key, CompletedRecord record, long now) {
    if (segments == null) {
      return false;
    }
    int hash = hash(scope, key);
    int global = bucketOf(hash);
    Segment segment = segments[global % segments.length];
    int bucket = global / segments.length;
    synchronized (segment) {
      return segment.get(bucket * segment.ways, tagOf(hash), scope, key, now) == record;
    }
  }

  /** Call only once the record is committed. */
  void put(String scope, String key, CompletedRecord record) {
    if (frontTier != null) {
      frontTier.publish(scope, key, record);
    }
    if (segments == null) {
      return;
    }
    int hash = hash(scope, key);
    int global = bucketOf(hash);
    Segment segment = segments[global % segments.length];
    int bucket = global / segments.length;
    Entry entry = new Entry(scope, key, record);
    synchronized (segment) {
      segment.put(bucket * segment.ways, bucket, tagOf(hash), entry);
    }
  }

  /** Forgets one key's record (an operator deleted or resolved it). */
  void evict(String scope, String key) {
    if (frontTier != null) {
      frontTier.forget(scope, key);
    }
    if (segments == null) {
      return;
    }
    int hash = hash(scope, key);
    int global = bucketOf(hash);
    Segment segment = segments[global % segments.length];
    int bucket = global / segments.length;
    synchronized (segment) {
      int slot = segment.find(bucket * segment.ways, tagOf(hash), scope, key);
      if (slot >= 0) {
        segment.remove(slot);
      }
    }
  }

  void clear() {
    if (segments == null) {
      return;
    }
    for (Segment segment : segments) {
      synchronized (segment) {
        segment.clear();
      }
    }
  }

  /**
   * The scope's hash is scrambled before it meets the key's: with {@code 31 * scope + key}, as String hashes go,
   * scopes and keys that differ in their last characters ({@code thread-4}/{@code key-430}) sum to the same hash
   * often enough to overflow a bucket.
   */
  private static int hash(String scope, String key) {
    return (scope.hashCode() * 0x9E3779B9) ^ key.hashCode();
  }

  /** The tag never equals 0 (empty) and carries no referenced mark. */
  private static int tagOf(int hash) {
    return (hash & ~(OCCUPIED | REFERENCED)) | OCCUPIED;
  }

  /** The bucket from the top bits of a multiplicative hash (the best mixed), scaled by a multiply: no power of two. */
  private int bucketOf(int hash) {
    return (int) (((hash * 0x9E3779B9) & 0xFFFF_FFFFL) * buckets >>> 32);
  }
}
