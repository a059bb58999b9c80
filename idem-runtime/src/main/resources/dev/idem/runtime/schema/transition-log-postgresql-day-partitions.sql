-- idem: the transition log partitioned by day (RecordLayout.DAY_PARTITIONS), PostgreSQL 14 and later. One row per
-- applied @StateTransition that is logged; written in the transition's own transaction. Its days are partitions
-- idem_transition_log_pYYYYMMDD by range of applied_at (a day's epoch millis), made ahead of time with the record
-- table's and dropped once older than Builder.keepTransitionLogFor (kept for ever without it). The primary key
-- holds the partition column, as PostgreSQL requires; the id alone stays unique by its sequence.
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
