-- idem V5 for RecordLayout.DAY_PARTITIONS (PostgreSQL 14 and later): idem_outbox becomes partitioned by the day of
-- created_at, as schema/outbox-postgresql-day-partitions.sql makes it, so that sent rows go by whole days with the
-- records' partition maintenance instead of row by row. V4's table is copied into a partitioned one with a partition
-- idem_outbox_pYYYYMMDD for every day from its oldest row's (or yesterday) to the coming week, in this one
-- transaction: writers and relays wait for it, and no row is lost or sent twice (claims and marks keep their columns).
LOCK TABLE idem_outbox IN ACCESS EXCLUSIVE MODE;

CREATE TABLE idem_outbox_partitioned (
  id              VARCHAR(36)  NOT NULL,
  destination     VARCHAR(255) NOT NULL,
  partition_key   VARCHAR(255) NULL,
  key_hash        INT          NOT NULL,
  event_type      VARCHAR(255) NOT NULL,
  headers         TEXT NULL,
  payload         TEXT NOT NULL,
  created_at      BIGINT       NOT NULL,
  state           VARCHAR(16)  NOT NULL,
  attempts        INT          NOT NULL,
  next_attempt_at BIGINT       NOT NULL,
  claim_token     VARCHAR(36)  NULL,
  last_error      VARCHAR(1000) NULL,
  sent_at         BIGINT       NULL,
  expires_at      BIGINT       NULL
) PARTITION BY RANGE (created_at);

DO $$
DECLARE
  today BIGINT := floor(extract(epoch FROM clock_timestamp()) * 1000 / 86400000);
  first_day BIGINT;
BEGIN
  SELECT LEAST(COALESCE(min(created_at) / 86400000, today - 1), today - 1) INTO first_day FROM idem_outbox;
  FOR day IN first_day .. today + 7 LOOP
    EXECUTE format('CREATE TABLE idem_outbox_p%s PARTITION OF idem_outbox_partitioned FOR VALUES FROM (%s) TO (%s)',
        to_char(DATE '1970-01-01' + day, 'YYYYMMDD'), day::bigint * 86400000, (day::bigint + 1) * 86400000);
  END LOOP;
END $$;

INSERT INTO idem_outbox_partitioned (id, destination, partition_key, key_hash, event_type, headers, payload, created_at,
    state, attempts, next_attempt_at, claim_token, last_error, sent_at, expires_at)
  SELECT id, destination, partition_key, key_hash, event_type, headers, payload, created_at, state, attempts,
      next_attempt_at, claim_token, last_error, sent_at, expires_at FROM idem_outbox;
DROP TABLE idem_outbox;
ALTER TABLE idem_outbox_partitioned RENAME TO idem_outbox;

-- The keys and indexes of schema/outbox-postgresql-day-partitions.sql, under their names there.
ALTER TABLE idem_outbox ADD CONSTRAINT idem_outbox_pkey PRIMARY KEY (id, created_at);
CREATE INDEX IF NOT EXISTS idem_outbox_claim_idx ON idem_outbox (state, next_attempt_at);
CREATE INDEX IF NOT EXISTS idem_outbox_expires_idx ON idem_outbox (expires_at);
CREATE INDEX IF NOT EXISTS idem_outbox_key_idx ON idem_outbox (partition_key, id);
