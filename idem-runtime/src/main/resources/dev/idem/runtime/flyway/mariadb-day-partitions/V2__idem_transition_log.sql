-- idem V2 for RecordLayout.DAY_PARTITIONS: the same statements as schema/transition-log-mariadb-day-partitions.sql.
-- idem: the transition log of a RecordLayout.DAY_PARTITIONS runtime (MariaDB 10.6 and later, InnoDB), partitioned
-- by day of applied_at (epoch millis; a day is 86400000) so that old days go by DROP PARTITION (keepTransitionLogFor).
-- The primary key must contain the partition column: (id, applied_at), id still from AUTO_INCREMENT. No MAXVALUE
-- partition; idem adds idem_transition_log_pYYYYMMDD ahead of time with the records' days. idem_transition_log_pinit
-- (before 1970-01-02) is there because a range-partitioned table needs one partition from the start.
-- A log a one-table runtime created earlier is not partitioned and is left as it is.
CREATE TABLE IF NOT EXISTS idem_transition_log (
  id               BIGINT       NOT NULL AUTO_INCREMENT,
  transition_name  VARCHAR(255) CHARACTER SET utf8mb4 NOT NULL,  -- e.g. 'OrderFlow.pay'
  entity           VARCHAR(255) CHARACTER SET utf8mb4 NOT NULL,  -- the JPA entity name, e.g. 'Order'
  entity_id        VARCHAR(255) CHARACTER SET utf8mb4 NOT NULL,  -- the id as text
  from_state       VARCHAR(255) CHARACTER SET utf8mb4 NULL,      -- the state left
  to_state         VARCHAR(255) CHARACTER SET utf8mb4 NOT NULL,  -- the state entered
  applied_at       BIGINT       NOT NULL,                        -- epoch millis (runtime clock)
  PRIMARY KEY (id, applied_at),
  -- The history of one entity: WHERE entity = ? AND entity_id = ? ORDER BY id.
  INDEX idem_transition_log_entity_idx (entity, entity_id)
) ENGINE = InnoDB
PARTITION BY RANGE COLUMNS (applied_at) (PARTITION idem_transition_log_pinit VALUES LESS THAN (86400000));
