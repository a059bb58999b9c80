-- idem: one row per (scope, idempotency key). MariaDB and MySQL (InnoDB).
-- The runtime substitutes its configured table name for idem_record.
-- Keys are ASCII, so the binary-safe ascii_bin collation keeps the index small and case-sensitive.
CREATE TABLE IF NOT EXISTS idem_record (
  scope        VARCHAR(128) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,  -- the command, e.g. 'Payments.pay'
  idem_key     VARCHAR(255) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,      -- validated key; composite parts joined with '|'
  state        VARCHAR(16)  NOT NULL,  -- 'PENDING' (a command's claim, completed in its transaction) | 'IN_PROGRESS'
                                       -- (CLAIM mode) | 'COMPLETED'
  fingerprint  VARCHAR(64)  NOT NULL,  -- SHA-256 hex of the canonical JSON payload
  result       LONGTEXT     CHARACTER SET utf8mb4 NULL,  -- the result as JSON; NULL for void commands
  error_type   VARCHAR(255) NULL,      -- class of a stored replayOn exception (result then holds its constructor arguments)
  result_shape VARCHAR(64)  NULL,      -- shape of the result type the result was written with (checked on replay);
                                       -- NULL for void commands, failures, batches and records older than the column
  owner_token  VARCHAR(36)  NULL,      -- CLAIM mode: which caller holds an IN_PROGRESS claim (fences completion)
  lease_until  BIGINT       NULL,      -- CLAIM mode: epoch millis until which that claim holds; then it may be taken over
  created_at   BIGINT       NOT NULL,  -- epoch millis (runtime clock) of the first execution
  expires_at   BIGINT       NOT NULL,  -- epoch millis after which the key may run anew and be purged (IN_PROGRESS: lease end + retention)
  PRIMARY KEY (scope, idem_key),
  -- Lets purgeExpired find expired rows without scanning the table.
  INDEX idem_record_expires_idx (expires_at)
) ENGINE = InnoDB;

-- Upgrading a table created before result_shape existed (idem 0.1 before replay fidelity); run once:
--   ALTER TABLE idem_record ADD COLUMN result_shape VARCHAR(64) NULL;
-- Records written before it keep NULL and are replayed without a shape check.
