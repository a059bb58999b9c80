package dev.idem;

/**
 * Where a command's idempotency records live; see {@link IdempotentCommand#store()}.
 */
public enum Store {

  /**
   * The database's {@code idem_record} (the default): the record is written in a database transaction, and its unique
   * key is the authority. A Redis front tier, where the runtime has one, only answers duplicates faster.
   */
  DATABASE,

  /**
   * Redis only, for work whose owners accept a rare repeat (notifications, marketing messages, anti-double-click on
   * non-financial actions): the key is claimed with {@code SET NX PX} on the Redis server's clock, completed and
   * released by compare-and-set on the claim's owner token, and replayed from Redis. No database round trip. The
   * command runs again if Redis loses the claim or the outcome: a failover before the write reached a replica, an
   * eviction under {@code maxmemory}, or a body that outlives its {@code lease}. Requires {@code mode = Mode.CLAIM}
   * and a runtime built with a record store ({@code idem-redis}'s {@code RedisRecordStore}).
   */
  REDIS
}
