-- idem V1 for RecordLayout.DAY_PARTITIONS (MariaDB 10.6+): the same statements as schema/mariadb-day-partitions.sql.
-- Flyway makes only the initial partition (days before 1970-01-02); the runtime adds today's and the coming days'
-- (premakePartitions(), createSchema(), the scheduled purge).
-- idem: records partitioned by day (RecordLayout.DAY_PARTITIONS). MariaDB 10.6 and later (InnoDB).
-- The runtime substitutes its configured table name for idem_record.
-- The columns are those of mariadb.sql plus bucket. Every unique key of a partitioned table must contain the
-- partition column, so the primary key is (scope, idem_key, bucket): uniqueness of a key across days comes from the
-- claim, which serializes per key with a named lock (GET_LOCK, released when the claim's statements are done) and
-- probes the dedup window's days with a locking read before inserting.
-- There is no MAXVALUE partition: a day above the last partition refuses its claims (ER_NO_PARTITION_FOR_GIVEN_VALUE,
-- 1526) instead of silently filling a partition nobody drops. idem adds day partitions ahead of time, named
-- idem_record_pYYYYMMDD, each VALUES LESS THAN the next day (createSchema, premakePartitions and the scheduled
-- purge), and drops or archives past ones. A table partitioned by range needs one partition from the start:
-- idem_record_pinit takes the days before 1970-01-02, which no claim writes; idem leaves it alone.
CREATE TABLE IF NOT EXISTS idem_record (
  scope        VARCHAR(128) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,  -- the command, e.g. 'Payments.pay'
  idem_key     VARCHAR(255) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,      -- validated key; composite parts joined with '|'
  state        VARCHAR(16)  NOT NULL,  -- 'PENDING' | 'IN_PROGRESS' | 'COMPLETED' | 'OUTCOME_UNKNOWN' (see mariadb.sql)
  fingerprint  VARCHAR(64)  NOT NULL,  -- SHA-256 hex of the canonical JSON payload
  result       LONGTEXT     CHARACTER SET utf8mb4 NULL,  -- the result as JSON; NULL for void commands
  error_type   VARCHAR(255) NULL,      -- class of a stored replayOn exception (result then holds its constructor arguments)
  result_shape VARCHAR(64)  NULL,      -- shape of the result type the result was written with (checked on replay)
  owner_token  VARCHAR(36)  NULL,      -- CLAIM mode: which caller holds an IN_PROGRESS claim (fences completion)
  lease_until  BIGINT       NULL,      -- CLAIM mode: epoch millis until which that claim holds
  created_at   BIGINT       NOT NULL,  -- epoch millis (database time) of the first execution
  expires_at   BIGINT       NOT NULL,  -- epoch millis when the dedup window ends: the key may then run anew
  bucket       INT          NOT NULL,  -- the day of created_at: epoch millis / 86400000 (UTC days since 1970-01-01)
  PRIMARY KEY (scope, idem_key, bucket),
  -- Lets partition maintenance see, per day, whether every record is past its archive horizon (max(expires_at)).
  INDEX idem_record_expires_idx (expires_at)
) ENGINE = InnoDB
PARTITION BY RANGE COLUMNS (bucket) (PARTITION idem_record_pinit VALUES LESS THAN (1));
