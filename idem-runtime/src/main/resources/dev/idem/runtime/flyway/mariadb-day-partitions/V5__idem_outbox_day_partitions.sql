-- idem V5 for RecordLayout.DAY_PARTITIONS (MariaDB 10.6 and later): idem_outbox becomes partitioned by the day of
-- created_at, as schema/outbox-mariadb-day-partitions.sql makes it, so that sent rows go by whole days with the
-- records' partition maintenance instead of row by row. V4's table is copied into a partitioned one: its rows from
-- before today go to yesterday's partition (a range partition holds everything below its bound; the maintenance drops
-- it only once every row in it is SENT and past its expiry, whatever day it was written), then today and the coming
-- week. MariaDB's DDL is not transactional: run it while no relay runs and no event is written.
RENAME TABLE idem_outbox TO idem_outbox_v4;

CREATE TABLE idem_outbox (
  id              VARCHAR(36)  CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  destination     VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  partition_key   VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
  key_hash        INT          NOT NULL,
  event_type      VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  headers         MEDIUMTEXT   CHARACTER SET utf8mb4 NULL,
  payload         LONGTEXT     CHARACTER SET utf8mb4 NOT NULL,
  created_at      BIGINT       NOT NULL,
  state           VARCHAR(16)  CHARACTER SET ascii NOT NULL,
  attempts        INT          NOT NULL,
  next_attempt_at BIGINT       NOT NULL,
  claim_token     VARCHAR(36)  CHARACTER SET ascii COLLATE ascii_bin NULL,
  last_error      VARCHAR(1000) CHARACTER SET utf8mb4 NULL,
  sent_at         BIGINT       NULL,
  expires_at      BIGINT       NULL,
  PRIMARY KEY (id, created_at),
  INDEX idem_outbox_claim_idx (state, next_attempt_at),
  INDEX idem_outbox_expires_idx (expires_at),
  INDEX idem_outbox_key_idx (partition_key, id)
) ENGINE = InnoDB
PARTITION BY RANGE COLUMNS (created_at) (PARTITION idem_outbox_pinit VALUES LESS THAN (86400000));

SET @idem_today = CAST(FLOOR(UNIX_TIMESTAMP(NOW(3)) * 1000 / 86400000) AS SIGNED);
SET @idem_days = (WITH RECURSIVE days (d) AS (SELECT @idem_today - 1 UNION ALL SELECT d + 1 FROM days
    WHERE d < @idem_today + 7)
  SELECT GROUP_CONCAT(CONCAT('PARTITION idem_outbox_p', DATE_FORMAT(DATE_ADD('1970-01-01', INTERVAL d DAY), '%Y%m%d'),
      ' VALUES LESS THAN (', CAST((d + 1) * 86400000 AS SIGNED), ')') ORDER BY d SEPARATOR ', ') FROM days);
SET @idem_ddl = CONCAT('ALTER TABLE idem_outbox ADD PARTITION (', @idem_days, ')');
PREPARE idem_add_days FROM @idem_ddl;
EXECUTE idem_add_days;
DEALLOCATE PREPARE idem_add_days;

INSERT INTO idem_outbox (id, destination, partition_key, key_hash, event_type, headers, payload, created_at, state,
    attempts, next_attempt_at, claim_token, last_error, sent_at, expires_at)
  SELECT id, destination, partition_key, key_hash, event_type, headers, payload, created_at, state, attempts,
      next_attempt_at, claim_token, last_error, sent_at, expires_at FROM idem_outbox_v4;
DROP TABLE idem_outbox_v4;
