-- idem V1 for RecordLayout.DAY_PARTITIONS (PostgreSQL 14+): the same statements as schema/postgresql-day-partitions.sql.
-- Flyway makes no partition: the runtime makes today's and the coming days' (premakePartitions(), the scheduled purge).
-- The columns are those of postgresql.sql plus bucket. Every unique key of a partitioned table must contain the
-- partition column, so the primary key is (scope, idem_key, bucket): uniqueness of a key across days comes from the
-- claim, which serializes per key with an advisory lock and probes the dedup window's days before inserting.
-- There is no DEFAULT partition: a day without a partition refuses its claims (SQLState 23514) instead of silently
-- filling a table nobody drops. idem creates day partitions ahead of time, named idem_record_pYYYYMMDD
-- (createSchema, premakePartitions and the scheduled purge), and drops or archives past ones.
CREATE TABLE IF NOT EXISTS idem_record (
  scope        VARCHAR(128) NOT NULL,  -- the command, e.g. 'Payments.pay'; namespace of the keys
  idem_key     VARCHAR(255) NOT NULL,  -- validated key; parts of composite keys joined with '|'
  state        VARCHAR(16)  NOT NULL,  -- 'PENDING' | 'IN_PROGRESS' | 'COMPLETED' | 'OUTCOME_UNKNOWN' (see postgresql.sql)
  fingerprint  VARCHAR(64)  NOT NULL,  -- SHA-256 hex of the canonical JSON payload
  result       TEXT         NULL,      -- the result as JSON; NULL for void commands
  error_type   VARCHAR(255) NULL,      -- class of a stored replayOn exception (result then holds its constructor arguments)
  result_shape VARCHAR(64)  NULL,      -- shape of the result type the result was written with (checked on replay)
  owner_token  VARCHAR(36)  NULL,      -- CLAIM mode: which caller holds an IN_PROGRESS claim (fences completion)
  lease_until  BIGINT       NULL,      -- CLAIM mode: epoch millis until which that claim holds
  created_at   BIGINT       NOT NULL,  -- epoch millis (database time) of the first execution
  expires_at   BIGINT       NOT NULL,  -- epoch millis when the dedup window ends: the key may then run anew
  bucket       INT          NOT NULL,  -- the day of created_at: epoch millis / 86400000 (UTC days since 1970-01-01)
  PRIMARY KEY (scope, idem_key, bucket)
) PARTITION BY RANGE (bucket);

-- Lets partition maintenance see, per day, whether every record is past its archive horizon (max(expires_at)).
CREATE INDEX IF NOT EXISTS idem_record_expires_idx ON idem_record (expires_at);
