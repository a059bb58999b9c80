package dev.idem.runtime;

/**
 * How idem lays out its record table; chosen with {@link IdemRuntime.Builder#layout(RecordLayout)}.
 */
public enum RecordLayout {

  /**
   * One table, unique on (scope, key), purged by bounded {@code DELETE}s on its expiry index. Every database; the
   * default.
   */
  ONE_TABLE,

  /**
   * A table partitioned by the day of each record's first execution (UTC, database time), unique on (scope, key,
   * day); retention drops whole days instead of deleting rows. Claims serialize per key (PostgreSQL: a
   * transaction-scoped advisory lock; MariaDB: a named lock around the probe and the insert) and probe the dedup
   * window's days before inserting into today's, so that uniqueness across days holds by construction. PostgreSQL
   * and MariaDB (H2 keeps one table). Days are created ahead of time by the scheduled
   * purge ({@link IdemRuntime.Builder#purgeEvery}) and by {@link IdemRuntime#createSchema()} and
   * {@link IdemRuntime#premakePartitions()}.
   */
  DAY_PARTITIONS
}
