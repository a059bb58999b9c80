-- idem: the transactional outbox of a RecordLayout.DAY_PARTITIONS runtime (PostgreSQL 14 and later), one row per
-- event written by a generated @OutboxEvent publisher in the caller's transaction; read, published and marked by the
-- relay (IdemRuntime.startOutboxRelay). Its days are partitions idem_outbox_pYYYYMMDD by range of created_at (a
-- day's epoch millis on the database's clock), made ahead of time with the record table's; a past day goes whole
-- (DETACH CONCURRENTLY, then DROP or archive) once it holds only SENT rows past their expires_at: a day that still
-- holds a PENDING or PARKED row is kept and reported. The primary key holds the partition column, as PostgreSQL
-- requires; the id alone stays unique (a UUIDv7 made by idem). The ordered relays' two tables stay small and
-- unpartitioned.
CREATE TABLE IF NOT EXISTS idem_outbox (
  id              VARCHAR(36)  NOT NULL,              -- the message id: UUIDv7 text, time-ordered, never reused
  destination     VARCHAR(255) NOT NULL,              -- exchange, topic or subject
  partition_key   VARCHAR(255) NULL,                  -- keeps related events in order; NULL: none
  key_hash        INT          NOT NULL,              -- the partition key's hash (the id's without a key): ordered
                                                      -- relays own the rows of MOD(key_hash, partitions)
  event_type      VARCHAR(255) NOT NULL,              -- the event's name, e.g. 'OrderCreated'
  headers         TEXT NULL,                          -- the event's headers as a JSON object; NULL: none
  payload         TEXT NOT NULL,                     -- the event as JSON
  created_at      BIGINT       NOT NULL,              -- epoch millis on the database's clock: when it was written
  state           VARCHAR(16)  NOT NULL,              -- 'PENDING' (to publish) | 'SENT' (confirmed) | 'PARKED' (never again
                                                      -- without an operator: IdemAdmin.requeueOutboxEvent)
  attempts        INT          NOT NULL,              -- publications that ended in RETRY or PARK
  next_attempt_at BIGINT       NOT NULL,              -- PENDING: epoch millis (database clock) from which a relay may claim
                                                      -- it: after a backoff, or when a relay's claim lease ends
  claim_token     VARCHAR(36)  NULL,                  -- the relay's claim that holds it; fences marking it
  last_error      VARCHAR(1000) NULL,                 -- why the last attempt failed; for a PARKED row, why it is parked
  sent_at         BIGINT       NULL,                  -- SENT: epoch millis (database clock) of the mark
  expires_at      BIGINT       NULL,                  -- SENT: epoch millis after which its day may go; NULL otherwise
  PRIMARY KEY (id, created_at)
) PARTITION BY RANGE (created_at);

-- The relay's claim: PENDING rows whose next attempt is due, oldest first.
CREATE INDEX IF NOT EXISTS idem_outbox_claim_idx ON idem_outbox (state, next_attempt_at);
-- Retention: whether a day's rows are all past their horizon, read from each partition's index.
CREATE INDEX IF NOT EXISTS idem_outbox_expires_idx ON idem_outbox (expires_at);
-- Ordered relays: the earlier rows of a key.
CREATE INDEX IF NOT EXISTS idem_outbox_key_idx ON idem_outbox (partition_key, id);

-- Ordered relays (OutboxRelayOptions.withOrderedPartitions): one row per key-hash partition, owned by one relay at a
-- time under a lease; the epoch grows with every change of owner and fences the owner's marks.
CREATE TABLE IF NOT EXISTS idem_outbox_partition (
  partition_no INT          NOT NULL PRIMARY KEY,
  owner        VARCHAR(36)  NULL,      -- the owning relay; NULL: free
  epoch        BIGINT       NOT NULL,  -- increased by every takeover
  lease_until  BIGINT       NOT NULL   -- epoch millis (database clock): free for others from then on
);

-- Ordered relays' heartbeats: how many relays share the partitions.
CREATE TABLE IF NOT EXISTS idem_outbox_relay (
  relay_id     VARCHAR(36)  NOT NULL PRIMARY KEY,
  lease_until  BIGINT       NOT NULL   -- epoch millis (database clock): counted as live until then
);
