-- idem V6: releases of single-flight locks as marks (see schema/lock-mariadb.sql).
-- idem: single-flight lock releases (MariaDB and MySQL), one row per lock name: the last release, as long as it names
-- the lock's current owner token. A MEMORY table, so that a release does not wait for InnoDB's redo log flush; it
-- comes back empty after a server restart, and every lease then ends at its lockAtMostFor, as if never released
-- (later, never twice). Rows take max_heap_table_size (16 MB by default: about 14,000 lock names); past that,
-- releases update idem_lock instead.
CREATE TABLE IF NOT EXISTS idem_lock_release (
  name         VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL PRIMARY KEY,  -- the lock's name
  owner_token  VARCHAR(64)  CHARACTER SET ascii COLLATE ascii_bin NOT NULL,                  -- the released lease's owner token
  free_from    BIGINT       NOT NULL               -- epoch millis on the database's clock: the lock is free from then on
) ENGINE = MEMORY;
