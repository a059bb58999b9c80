package dev.idem.http;

import dev.idem.runtime.ReplayValidity;

/**
 * The rendered responses of replays, so that a retry whose body is byte for byte the body of a verified replay is
 * answered without parsing its body, fingerprinting its payload or reading the stored result back. An entry is only
 * ever made from a replay the runtime served from its local cache (a committed, completed record whose payload
 * fingerprint matched that body), and is only used while the runtime's {@link ReplayValidity} says that very record
 * is still cached and unexpired: so it can never outlive the runtime's own cache entry, its expiry, or an operator's
 * release, resolve or forget through the runtime. Bounded by entries and by the bytes of one entry. Segmented like
 * the runtime's cache, so that threads replaying different keys rarely wait.
 *
 * <p>Layout and policy, as the runtime's completed-record cache: each segment is set-associative, a key mapping to
 * one bucket of {@link #WAYS} slots whose tags (the keys' hashes) sit next to each other in an {@code int[]}; a full
 * bucket evicts by second chance (CLOCK): a hit sets its slot's referenced bit, the bucket's hand skips a referenced
 * slot once, clearing the bit, and takes the first slot not referenced since. So a hit writes one bit of an
 * {@code int[]} and no reference. (As a {@code LinkedHashMap} in access order every hit relinked its entry to the
 * list's tail: reference writes into old-generation entries that the garbage collector's write barrier and its
 * young collections then paid for: replays under the HTTP benchmark's load had young pauses three times those of
 * {@code GET /health}, and the relinking itself was 4% of a JDK-server replay's samples, profiled with JFR
 * 2026-12-03.) What this gives up against LRU: a key can be pushed out of a full bucket while others have room.
 */
final class ReplayCache {

  private static final int SEGMENTS = 16;
  /** Slots per bucket. */
  private static final int WAYS = 8;
  /** A slot's tag: 0 is empty; else its key's hash with bit 0 set (occupied) and bit 1 the referenced mark. */
  private static final int OCCUPIED = 1;
  private static final int REFERENCED = 2;

  /** One verified replay: the request body it was verified with and the response rendered from it. */
  static final class Entry {
    final Key key;
    final byte[] requestBody;
    final HttpReply reply;
    final ReplayValidity validity;

    Entry(Key key, byte[] requestBody, HttpReply reply, ReplayValidity validity) {
      this.key = key;
      this.requestBody = requestBody;
      this.reply = reply;
      this.validity = validity;
    }
  }

  /** The operation, the client and the key; the hash computed once. */
  static final class Key {
    private final String operation;
    private final String clientId;
    private final String key;
    private final int hash;

    Key(String operation, String clientId, String key) {
      this.operation = operation;
      this.clientId = clientId;
      this.key = key;
      // The operation's and client's hash scrambled before they meet the key's, as in the runtime's cache: with
      // plain 31-multipliers, keys that differ in their last characters collide across clients often enough to
      // overflow a bucket.
      this.hash = ((31 * operation.hashCode() + clientId.hashCode()) * 0x9E3779B9) ^ key.hashCode();
    }

    @Override
    public int hashCode() {
      return hash;
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof Key that && hash == that.hash && key.equals(that.key)
          && clientId.equals(that.clientId) && operation.equals(that.operation);
    }
  }

  /** One lock's share of the table; every method is called holding the segment's monitor. */
  private static final class Segment {
    final int ways;
    final int[] tags;
    final Entry[] entries;
    /** Per bucket, the slot (0 to ways - 1) its clock hand looks at next. */
    final byte[] hands;

    Segment(int ways, int buckets) {
      this.ways = ways;
      this.tags = new int[buckets * ways];
      this.entries = new Entry[buckets * ways];
      this.hands = new byte[buckets];
    }

    /** The key's slot in the bucket starting at {@code start}, or -1. */
    int find(int start, int tag, Key key) {
      for (int slot = start, end = start + ways; slot < end; slot++) {
        if ((tags[slot] & ~REFERENCED) == tag && entries[slot].key.equals(key)) {
          return slot;
        }
      }
      return -1;
    }

    void put(int start, int bucket, int tag, Entry entry) {
      int free = -1;
      for (int slot = start, end = start + ways; slot < end; slot++) {
        int held = tags[slot];
        if ((held & ~REFERENCED) == tag && entries[slot].key.equals(entry.key)) {
          free = slot; // the same key: replace its entry in place
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
  }

  private final Segment[] segments;
  /** Buckets over all segments: bucket b is the segment b % segments' bucket b / segments. */
  private final int buckets;
  private final int maxEntryBytes;

  /**
   * @param maxEntries the most entries kept (rounded down to whole buckets, so up to {@code WAYS - 1} fewer); 0
   *     disables the cache
   * @param maxEntryBytes the most bytes of request body, response body and header fields one entry may hold
   */
  ReplayCache(int maxEntries, int maxEntryBytes) {
    this.maxEntryBytes = maxEntryBytes;
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

  /** The key's entry, marked referenced, or null. */
  Entry get(Key key) {
    int global = bucketOf(key);
    Segment segment = segments[global % segments.length];
    int start = global / segments.length * segment.ways;
    int tag = tagOf(key);
    synchronized (segment) {
      int slot = segment.find(start, tag, key);
      if (slot < 0) {
        return null;
      }
      segment.tags[slot] |= REFERENCED;
      return segment.entries[slot];
    }
  }

  /**
   * Keeps a verified replay, unless it is larger than one entry may be; then any older entry of the key goes, so
   * that the key is answered by the runtime from then on.
   */
  void put(Key key, byte[] requestBody, HttpReply reply, ReplayValidity validity) { // requestBody: kept, not copied
    long bytes = (long) requestBody.length + reply.bodyLength() + reply.headerChars();
    if (bytes > maxEntryBytes) {
      remove(key, null);
      return;
    }
    Entry entry = new Entry(key, requestBody, reply, validity); // the caller's copy, made before the command ran
    int global = bucketOf(key);
    Segment segment = segments[global % segments.length];
    int bucket = global / segments.length;
    synchronized (segment) {
      segment.put(bucket * segment.ways, bucket, tagOf(key), entry);
    }
  }

  /** Removes the key's entry if it is {@code expected} (any entry when null). */
  void remove(Key key, Entry expected) {
    int global = bucketOf(key);
    Segment segment = segments[global % segments.length];
    int start = global / segments.length * segment.ways;
    synchronized (segment) {
      int slot = segment.find(start, tagOf(key), key);
      if (slot >= 0 && (expected == null || segment.entries[slot] == expected)) {
        segment.tags[slot] = 0;
        segment.entries[slot] = null;
      }
    }
  }

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

  /** The bucket from the top bits of a multiplicative hash (the best mixed), scaled by a multiply: no power of two. */
  private int bucketOf(Key key) {
    return (int) (((key.hashCode() * 0x9E3779B9) & 0xFFFF_FFFFL) * buckets >>> 32);
  }

  /** The tag never equals 0 (empty) and carries no referenced mark. */
  private static int tagOf(Key key) {
    return (key.hashCode() & ~(OCCUPIED | REFERENCED)) | OCCUPIED;
  }
}
