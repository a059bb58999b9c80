-- idem: the transactional outbox of a RecordLayout.DAY_PARTITIONS runtime (MariaDB 10.6 and later, InnoDB: the relay
-- claims with FOR UPDATE SKIP LOCKED), one row per event written by a generated @OutboxEvent publisher in the caller's
-- transaction; read, published and marked by the relay (IdemRuntime.startOutboxRelay). Partitioned by day of
-- created_at (epoch millis on the database's clock; a day is 86400000): idem adds idem_outbox_pYYYYMMDD ahead of time
-- with the records' days, and a past day goes by DROP PARTITION (or CONVERT PARTITION to the archive) once it holds
-- only SENT rows past their expires_at; a day that still holds a PENDING or PARKED row is kept and reported. The
-- primary key must contain the partition column: (id, created_at). No MAXVALUE partition; idem_outbox_pinit (before
-- 1970-01-02) is there because a range-partitioned table needs one partition from the start. The ordered relays' two
-- tables stay small and unpartitioned.
CREATE TABLE IF NOT EXISTS idem_outbox (
  id              VARCHAR(36)  CHARACTER SET ascii COLLATE ascii_bin NOT NULL,  -- the message id: UUIDv7 text, time-ordered
  destination     VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,  -- exchange, topic or subject
  partition_key   VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,      -- keeps related events in order; NULL: none
  key_hash        INT          NOT NULL,  -- the partition key's hash (the id's without a key): ordered relays own MOD(key_hash, n)
  event_type      VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,  -- the event's name, e.g. 'OrderCreated'
  headers         MEDIUMTEXT   CHARACTER SET utf8mb4 NULL,      -- the event's headers as a JSON object; NULL: none
  payload         LONGTEXT     CHARACTER SET utf8mb4 NOT NULL,  -- the event as JSON
  created_at      BIGINT       NOT NULL,  -- epoch millis on the database's clock: when it was written
  state           VARCHAR(16)  CHARACTER SET ascii NOT NULL,  -- 'PENDING' | 'SENT' | 'PARKED' (see outbox-h2.sql)
  attempts        INT          NOT NULL,  -- publications that ended in RETRY or PARK
  next_attempt_at BIGINT       NOT NULL,  -- PENDING: epoch millis (database clock) from which a relay may claim it
  claim_token     VARCHAR(36)  CHARACTER SET ascii COLLATE ascii_bin NULL,  -- the relay's claim that holds it; fences marking it
  last_error      VARCHAR(1000) CHARACTER SET utf8mb4 NULL,  -- why the last attempt failed; for a PARKED row, why it is parked
  sent_at         BIGINT       NULL,  -- SENT: epoch millis (database clock) of the mark
  expires_at      BIGINT       NULL,  -- SENT: epoch millis after which its day may go; NULL otherwise
  PRIMARY KEY (id, created_at),
  INDEX idem_outbox_claim_idx (state, next_attempt_at),  -- the relay's claim: PENDING rows whose next attempt is due
  INDEX idem_outbox_expires_idx (expires_at),            -- retention: whether a day's rows are past their horizon
  INDEX idem_outbox_key_idx (partition_key, id)          -- ordered relays: the earlier rows of a key
) ENGINE = InnoDB
PARTITION BY RANGE COLUMNS (created_at) (PARTITION idem_outbox_pinit VALUES LESS THAN (86400000));

-- Ordered relays (OutboxRelayOptions.withOrderedPartitions): one row per key-hash partition, owned by one relay at a
-- time under a lease; the epoch grows with every change of owner and fences the owner's marks.
CREATE TABLE IF NOT EXISTS idem_outbox_partition (
  partition_no INT          NOT NULL PRIMARY KEY,
  owner        VARCHAR(36)  CHARACTER SET ascii COLLATE ascii_bin NULL,  -- the owning relay; NULL: free
  epoch        BIGINT       NOT NULL,  -- increased by every takeover
  lease_until  BIGINT       NOT NULL   -- epoch millis (database clock): free for others from then on
) ENGINE = InnoDB;

-- Ordered relays' heartbeats: how many relays share the partitions.
CREATE TABLE IF NOT EXISTS idem_outbox_relay (
  relay_id     VARCHAR(36)  CHARACTER SET ascii COLLATE ascii_bin NOT NULL PRIMARY KEY,
  lease_until  BIGINT       NOT NULL   -- epoch millis (database clock): counted as live until then
) ENGINE = InnoDB;
