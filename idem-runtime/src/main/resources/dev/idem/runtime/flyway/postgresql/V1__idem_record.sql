-- idem: one row per (scope, idempotency key). PostgreSQL.
-- The runtime substitutes its configured table name for idem_record.
CREATE TABLE IF NOT EXISTS idem_record (
  scope        VARCHAR(128) NOT NULL,  -- the command, e.g. 'Payments.pay'; namespace of the keys
  idem_key     VARCHAR(255) NOT NULL,  -- validated key; parts of composite keys joined with '|'
  state        VARCHAR(16)  NOT NULL,  -- 'PENDING' (a command's claim, completed in its transaction) | 'IN_PROGRESS'
                                       -- (CLAIM mode) | 'COMPLETED'
  fingerprint  VARCHAR(64)  NOT NULL,  -- SHA-256 hex of the canonical JSON payload
  result       TEXT         NULL,      -- the result as JSON; NULL for void commands
  error_type   VARCHAR(255) NULL,      -- class of a stored replayOn exception (result then holds its constructor arguments)
  result_shape VARCHAR(64)  NULL,      -- shape of the result type the result was written with (checked on replay);
                                       -- NULL for void commands, failures, batches and records older than the column
  owner_token  VARCHAR(36)  NULL,      -- CLAIM mode: which caller holds an IN_PROGRESS claim (fences completion)
  lease_until  BIGINT       NULL,      -- CLAIM mode: epoch millis until which that claim holds; then it may be taken over
  created_at   BIGINT       NOT NULL,  -- epoch millis (runtime clock) of the first execution
  expires_at   BIGINT       NOT NULL,  -- epoch millis after which the key may run anew and be purged (IN_PROGRESS: lease end + retention)
  PRIMARY KEY (scope, idem_key)
);

-- Lets purgeExpired find expired rows without scanning the table.
CREATE INDEX IF NOT EXISTS idem_record_expires_idx ON idem_record (expires_at);

-- Upgrading a table created before result_shape existed (idem 0.1 before replay fidelity); run once:
--   ALTER TABLE idem_record ADD COLUMN result_shape VARCHAR(64) NULL;
-- Records written before it keep NULL and are replayed without a shape check.
