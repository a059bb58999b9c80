package dev.idem.benchmarks.retention;

import dev.idem.runtime.RecordLayout;
import java.time.Duration;
import java.time.Instant;

/**
 * The records the benchmark fills a table with, the same on every database: {@link #DAYS} days of
 * {@link #perDay()} first executions each, record {@code n = day * perDay + j} created at {@code j / perDay} of its
 * day, keyed like a consumer's message ({@code <UUID>|billing}), with a SHA-256 fingerprint and a result of about 40
 * characters of JSON.
 *
 * <p>The keys are made so that a fill in primary-key order is possible and yet no day owns a part of the key space:
 * the first 15 hex digits of the UUID are {@code j * 2^60 / perDay} (every day's keys spread evenly over the whole
 * key space, as random UUIDs do), the 16th is the day (unique keys across days), and the last 16 come from an MD5 of
 * {@code n}. Ordered by {@code (j, day)}, record by record, the keys ascend; the benchmark's random UUID keys land
 * evenly between them, in every day's partition as in one table.
 *
 * <p>{@link #withTimeKeys()}: the keys of a command whose keys carry their time ({@code keyTime = UUID_V7},
 * {@link KeyTimedPayments}): each a UUIDv7 of the record's first execution (the first 12 hex digits its millis, then
 * the version {@code 7}, 3 hex digits of an MD5 of {@code n}, the variant {@code 8} and 15 more of the MD5), so that
 * its time lies in its day, as a producer's message id made when the action was first asked for; in their own scope
 * ({@link #TIME_SCOPE}), which is {@link KeyTimedPayments#pay}'s. Ordered by {@code n} (day, then time) the keys
 * ascend.
 */
final class RecordFill {

  /** The scope of {@link Payments#pay}: the fill's records and the measured claims share the primary key's range. */
  static final String SCOPE = "payments.order-paid";
  /** The scope of {@link KeyTimedPayments#pay}, whose keys carry their time: a scope is one command's. */
  static final String TIME_SCOPE = "payments.order-paid.v7";
  /** The consumer group: the key's second part. */
  static final String GROUP = "billing";
  static final int DAYS = 15;
  static final long DAY_MILLIS = Duration.ofDays(1).toMillis();
  /** Midnight UTC: the fill's days line up with the partitions. */
  static final Instant NOW = Instant.parse("2030-06-16T00:00:00Z");
  /**
   * Records expire 14 days after their first execution ({@link Payments#pay}'s retention), so that at {@link #NOW}
   * exactly the oldest day expired.
   */
  static final Duration WINDOW = Duration.ofDays(DAYS - 1);

  private final long perDay;
  private final boolean timeKeys;

  /** @param rows the records wanted; rounded up to whole days of equal size */
  RecordFill(long rows) {
    this(rows, false);
  }

  private RecordFill(long rows, boolean timeKeys) {
    if (rows < DAYS) {
      throw new IllegalArgumentException("The fill needs at least one record a day (" + DAYS + "), got " + rows);
    }
    this.perDay = (rows + DAYS - 1) / DAYS;
    this.timeKeys = timeKeys;
  }

  /** @return the same records keyed by UUIDv7s of their first execution, in {@link #TIME_SCOPE} */
  RecordFill withTimeKeys() {
    return new RecordFill(rows(), true);
  }

  /** @return whether the keys are UUIDv7s carrying their record's time (else spread over the key space) */
  boolean timeKeys() {
    return timeKeys;
  }

  /** @return the scope of the records: the measured command's */
  String scope() {
    return timeKeys ? TIME_SCOPE : SCOPE;
  }

  /** @return records of each day */
  long perDay() {
    return perDay;
  }

  /** @return records in all */
  long rows() {
    return perDay * DAYS;
  }

  /** @return epoch millis of the first day's midnight: {@link #DAYS} days before {@link #NOW} */
  long firstDayMillis() {
    return NOW.toEpochMilli() - DAYS * DAY_MILLIS;
  }

  /** @return the first day's bucket (UTC days since 1970-01-01), as idem computes a record's bucket */
  int firstBucket() {
    return Math.toIntExact(firstDayMillis() / DAY_MILLIS);
  }

  /** @return what one step of {@code j} adds to the first 15 hex digits of a key: 2^60 / perDay */
  long keyStep() {
    return (1L << 60) / perDay;
  }

  /** @return milliseconds between two records of a day: a day / perDay */
  double spacingMillis() {
    return (double) DAY_MILLIS / perDay;
  }

  /** @return the dedup window in millis: expires_at - created_at */
  long windowMillis() {
    return WINDOW.toMillis();
  }

  /** @return the columns the fill writes, in the order of both databases' SELECTs */
  static String columns(RecordLayout layout) {
    return "(scope, idem_key, state, fingerprint, result, result_shape, created_at, expires_at"
        + (layout == RecordLayout.DAY_PARTITIONS ? ", bucket)" : ")");
  }
}
