-- idem: the transition log (MariaDB and MySQL, InnoDB), one row per applied @StateTransition that is
-- logged (log = true, or IdemRuntime.builder().logTransitions(true)). Written in the transition's own transaction.
CREATE TABLE IF NOT EXISTS idem_transition_log (
  id               BIGINT       NOT NULL AUTO_INCREMENT,
  transition_name  VARCHAR(255) CHARACTER SET utf8mb4 NOT NULL,  -- e.g. 'OrderFlow.pay'
  entity           VARCHAR(255) CHARACTER SET utf8mb4 NOT NULL,  -- the JPA entity name, e.g. 'Order'
  entity_id        VARCHAR(255) CHARACTER SET utf8mb4 NOT NULL,  -- the id as text
  from_state       VARCHAR(255) CHARACTER SET utf8mb4 NULL,      -- the state left
  to_state         VARCHAR(255) CHARACTER SET utf8mb4 NOT NULL,  -- the state entered
  applied_at       BIGINT       NOT NULL,                        -- epoch millis (runtime clock)
  PRIMARY KEY (id),
  -- The history of one entity: WHERE entity = ? AND entity_id = ? ORDER BY id.
  INDEX idem_transition_log_entity_idx (entity, entity_id)
) ENGINE = InnoDB;
