-- idem V2 for RecordLayout.DAY_PARTITIONS: the same statements as schema/transition-log-postgresql-day-partitions.sql.
CREATE SEQUENCE IF NOT EXISTS idem_transition_log_id_seq;

CREATE TABLE IF NOT EXISTS idem_transition_log (
  id               BIGINT       NOT NULL DEFAULT nextval('idem_transition_log_id_seq'),
  transition_name  VARCHAR(255) NOT NULL,  -- e.g. 'OrderFlow.pay'
  entity           VARCHAR(255) NOT NULL,  -- the JPA entity name, e.g. 'Order'
  entity_id        VARCHAR(255) NOT NULL,  -- the id as text
  from_state       VARCHAR(255) NULL,      -- the state left
  to_state         VARCHAR(255) NOT NULL,  -- the state entered
  applied_at       BIGINT       NOT NULL,  -- epoch millis (runtime clock)
  PRIMARY KEY (id, applied_at)
) PARTITION BY RANGE (applied_at);

-- The history of one entity: WHERE entity = ? AND entity_id = ? ORDER BY id.
CREATE INDEX IF NOT EXISTS idem_transition_log_entity_idx ON idem_transition_log (entity, entity_id);
