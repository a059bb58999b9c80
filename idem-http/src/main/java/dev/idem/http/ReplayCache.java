package dev.idem.http;

import dev.idem.runtime.ReplayValidity;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The rendered responses of replays, so that a retry whose body is byte for byte the body of a verified replay is
 * answered without parsing its body, fingerprinting its payload or reading the stored result back. An entry is only
 * ever made from a replay the runtime served from its local cache (a committed, completed record whose payload
 * fingerprint matched that body), and is only used while the runtime's {@link ReplayValidity} says that very record
 * is still cached and unexpired: so it can never outlive the runtime's own cache entry, its expiry, or an operator's
 * release, resolve or forget through the runtime. Bounded by entries (least recently used first) and by the bytes
 * of one entry. Segmented like the runtime's cache, so that threads replaying different keys rarely wait.
 */
final class ReplayCache {

  private static final int SEGMENTS = 16;

  /** One verified replay: the request body it was verified with and the response rendered from it. */
  static final class Entry {
    final byte[] requestBody;
    final HttpReply reply;
    final ReplayValidity validity;

    Entry(byte[] requestBody, HttpReply reply, ReplayValidity validity) {
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
      this.hash = (31 * operation.hashCode() + clientId.hashCode()) * 31 + key.hashCode();
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

  private static final class Segment extends LinkedHashMap<Key, Entry> {
    private static final long serialVersionUID = 1L;
    private final int capacity;

    Segment(int capacity) {
      super(16, 0.75f, true);
      this.capacity = capacity;
    }

    @Override
    protected boolean removeEldestEntry(Map.Entry<Key, Entry> eldest) {
      return size() > capacity;
    }
  }

  private final Segment[] segments;
  private final int maxEntryBytes;

  /**
   * @param maxEntries the most entries kept; 0 disables the cache
   * @param maxEntryBytes the most bytes of request body, response body and header fields one entry may hold
   */
  ReplayCache(int maxEntries, int maxEntryBytes) {
    this.maxEntryBytes = maxEntryBytes;
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

  Entry get(Key key) {
    Segment segment = segmentOf(key);
    synchronized (segment) {
      return segment.get(key);
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
    Entry entry = new Entry(requestBody, reply, validity); // the caller's copy, made before the command ran
    Segment segment = segmentOf(key);
    synchronized (segment) {
      segment.put(key, entry);
    }
  }

  /** Removes the key's entry if it is {@code expected} (any entry when null). */
  void remove(Key key, Entry expected) {
    Segment segment = segmentOf(key);
    synchronized (segment) {
      if (expected == null) {
        segment.remove(key);
      } else {
        segment.remove(key, expected);
      }
    }
  }

  int size() {
    int size = 0;
    if (segments != null) {
      for (Segment segment : segments) {
        synchronized (segment) {
          size += segment.size();
        }
      }
    }
    return size;
  }

  /** The high bits of a multiplicative hash, as in the runtime's cache: the segment's map indexes by the low bits. */
  private Segment segmentOf(Key key) {
    int spread = key.hashCode() * 0x9E3779B9;
    return segments[(spread >>> 16) % segments.length];
  }
}
