package dev.idem.runtime.internal;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A bounded, thread-safe, least-recently-used cache of committed completed records, so that retries of a completed
 * command are answered without a database round trip. Holding only completed records keeps it correct across
 * runtime instances: such a record changes only after it expired, and an expired entry is never returned.
 * Segmented, so that threads replaying different keys rarely wait for each other.
 *
 * <p>Every committed completed record the executors see comes through {@link #put}, so it is also where they reach
 * the {@link FrontTierGate}: a put publishes to the front tier, an evict forgets there.
 */
final class CompletedRecordCache {

  private static final int SEGMENTS = 16;

  /**
   * Hand-written rather than a record: a record's equals and hashCode go through ObjectMethods' method handles, and
   * with a new key String per lookup (composed per call) they were the largest part of a cache hit's own cost
   * (profiled with JFR under the HTTP benchmark's replays). The hash is computed once per lookup and kept.
   */
  private static final class Key {
    private final String scope;
    private final String key;
    private final int hash;

    Key(String scope, String key) {
      this.scope = scope;
      this.key = key;
      this.hash = 31 * scope.hashCode() + key.hashCode();
    }

    @Override
    public int hashCode() {
      return hash;
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof Key that && hash == that.hash && key.equals(that.key) && scope.equals(that.scope);
    }
  }

  /** One LRU map per segment; a plain lock is cheaper here than a concurrent map plus an eviction order. */
  private static final class Segment extends LinkedHashMap<Key, CompletedRecord> {
    private static final long serialVersionUID = 1L;
    private final int capacity;

    Segment(int capacity) {
      super(16, 0.75f, true);
      this.capacity = capacity;
    }

    @Override
    protected boolean removeEldestEntry(Map.Entry<Key, CompletedRecord> eldest) {
      return size() > capacity;
    }
  }

  private final Segment[] segments;
  private final FrontTierGate frontTier;

  /** @param maxEntries the most records kept; 0 disables the cache */
  CompletedRecordCache(int maxEntries) {
    this(maxEntries, null);
  }

  /**
   * @param maxEntries the most records kept; 0 disables the cache
   * @param frontTier where committed records are also published, or null
   */
  CompletedRecordCache(int maxEntries, FrontTierGate frontTier) {
    this.frontTier = frontTier;
    if (maxEntries <= 0) {
      this.segments = null;
      return;
    }
    int segmentCount = Math.min(SEGMENTS, maxEntries);
    this.segments = new Segment[segmentCount];
    for (int i = 0; i < segmentCount; i++) {
      segments[i] = new Segment(Math.max(1, maxEntries / segmentCount));
    }
  }

  boolean isEnabled() {
    return segments != null;
  }

  /** The unexpired record of the key, or null; an expired one is dropped. */
  CompletedRecord get(String scope, String key, long now) {
    if (segments == null) {
      return null;
    }
    Key cacheKey = new Key(scope, key);
    Segment segment = segmentOf(cacheKey);
    synchronized (segment) {
      CompletedRecord record = segment.get(cacheKey);
      if (record != null && record.isExpiredAt(now)) {
        segment.remove(cacheKey);
        return null;
      }
      return record;
    }
  }

  /**
   * Whether the key still maps to this very record (the same instance), unexpired at {@code now}: what a
   * {@link dev.idem.runtime.ReplayValidity} of a cached replay asks. An expired record is dropped, as in {@link #get}.
   */
  boolean stillHolds(String scope, String key, CompletedRecord record, long now) {
    if (segments == null) {
      return false;
    }
    Key cacheKey = new Key(scope, key);
    Segment segment = segmentOf(cacheKey);
    synchronized (segment) {
      CompletedRecord held = segment.get(cacheKey);
      if (held == null) {
        return false;
      }
      if (held.isExpiredAt(now)) {
        segment.remove(cacheKey);
        return false;
      }
      return held == record;
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
    Key cacheKey = new Key(scope, key);
    Segment segment = segmentOf(cacheKey);
    synchronized (segment) {
      segment.put(cacheKey, record);
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
    Key cacheKey = new Key(scope, key);
    Segment segment = segmentOf(cacheKey);
    synchronized (segment) {
      segment.remove(cacheKey);
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
   * Picks the segment from the high bits of a multiplicative hash: the segment's own HashMap indexes its buckets by
   * the low bits of the same hashCode, so choosing the segment by those too would leave all but 1/16 of every
   * segment's buckets empty (and turn the used ones into trees).
   */
  private Segment segmentOf(Key key) {
    int spread = key.hashCode() * 0x9E3779B9;
    return segments[(spread >>> 16) % segments.length];
  }
}
