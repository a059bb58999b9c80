package dev.idem.redis;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A prefilter of the keys a consumer published, per time window: two Bloom filters, the current window's and the
 * previous one's (entries cannot be removed from a Bloom filter, so a window's filter is dropped whole when the next
 * but one begins). {@link #mightContain} false means "definitely not added in the last one to two windows"; true
 * means only "maybe". Thread-safe, lock-free for adds and reads.
 */
final class RotatingBloomFilter {

  private final int bits;
  private final int hashes;
  private final long windowNanos;
  private volatile Generation current;
  private volatile Generation previous;

  private static final class Generation {
    final long startNanos;
    final AtomicLongArray words;

    Generation(long startNanos, int bits) {
      this.startNanos = startNanos;
      this.words = new AtomicLongArray((bits + 63) / 64);
    }
  }

  /**
   * @param bits the bits of each window's filter
   * @param hashes the hash functions per key
   * @param windowNanos how long a window lasts
   */
  RotatingBloomFilter(int bits, int hashes, long windowNanos) {
    if (bits < 1 || hashes < 1 || windowNanos <= 0) {
      throw new IllegalArgumentException("bits, hashes and window must be positive");
    }
    this.bits = bits;
    this.hashes = hashes;
    this.windowNanos = windowNanos;
    long now = System.nanoTime();
    this.current = new Generation(now, bits);
    this.previous = new Generation(now - windowNanos, bits);
  }

  /**
   * Sizes a filter for {@code expectedPerWindow} keys at {@code falsePositiveRate}.
   *
   * @param expectedPerWindow the keys added per window
   * @param falsePositiveRate between 0 and 1
   * @param windowNanos how long a window lasts
   * @return the filter
   */
  static RotatingBloomFilter sized(long expectedPerWindow, double falsePositiveRate, long windowNanos) {
    double ln2 = Math.log(2);
    long bits = (long) Math.ceil(-expectedPerWindow * Math.log(falsePositiveRate) / (ln2 * ln2));
    int hashes = (int) Math.max(1, Math.round((double) bits / expectedPerWindow * ln2));
    return new RotatingBloomFilter((int) Math.min(Integer.MAX_VALUE - 63, Math.max(64, bits)), hashes, windowNanos);
  }

  void add(String key) {
    Generation generation = rotate();
    long[] hash = hash(key);
    for (int i = 0; i < hashes; i++) {
      int bit = index(hash, i);
      long mask = 1L << (bit & 63);
      int word = bit >>> 6;
      long old;
      do {
        old = generation.words.get(word);
      } while ((old & mask) == 0 && !generation.words.compareAndSet(word, old, old | mask));
    }
  }

  boolean mightContain(String key) {
    Generation generation = rotate();
    long[] hash = hash(key);
    return contains(generation, hash) || contains(previous, hash);
  }

  private boolean contains(Generation generation, long[] hash) {
    for (int i = 0; i < hashes; i++) {
      int bit = index(hash, i);
      if ((generation.words.get(bit >>> 6) & (1L << (bit & 63))) == 0) {
        return false;
      }
    }
    return true;
  }

  /** Starts a new window when the current one is over; the previous window's filter is then dropped. */
  private Generation rotate() {
    Generation generation = current;
    long now = System.nanoTime();
    if (now - generation.startNanos < windowNanos) {
      return generation;
    }
    synchronized (this) {
      generation = current;
      if (now - generation.startNanos >= windowNanos) {
        // A gap of more than one window: the old current is too old to be "previous" as well.
        previous = now - generation.startNanos >= 2 * windowNanos ? new Generation(now - windowNanos, bits)
            : generation;
        generation = new Generation(now, bits);
        current = generation;
      }
      return generation;
    }
  }

  private int index(long[] hash, int i) {
    return (int) Math.floorMod(hash[0] + i * hash[1], (long) bits);
  }

  /** Two 64-bit hashes of the key (Kirsch-Mitzenmacher double hashing), from FNV-1a and a mixed variant. */
  private static long[] hash(String key) {
    byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
    long h1 = 0xcbf29ce484222325L;
    for (byte b : bytes) {
      h1 ^= b & 0xff;
      h1 *= 0x100000001b3L;
    }
    long h2 = mix(h1 ^ 0x9e3779b97f4a7c15L) | 1;
    return new long[] {mix(h1), h2};
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }
}
