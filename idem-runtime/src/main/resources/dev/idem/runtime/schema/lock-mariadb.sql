-- idem: single-flight locks (MariaDB and MySQL, InnoDB), one row per lock name (@SingleFlight, IdemRuntime.singleFlight). Rows are
-- never deleted: the fencing token must keep increasing across every acquisition of the name.
CREATE TABLE IF NOT EXISTS idem_lock (
  name         VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL PRIMARY KEY,  -- the lock's name
  owner_token  VARCHAR(64)  CHARACTER SET ascii COLLATE ascii_bin NULL,                  -- the last holder's random token; NULL once released with a lockAtLeastFor
  lease_until  BIGINT       NOT NULL,              -- epoch millis on the database's clock: free from then on
  fence        BIGINT       NOT NULL,              -- the fencing token: increased by every acquisition
  locked_at    BIGINT       NOT NULL,              -- epoch millis on the database's clock: the last acquisition
  locked_by    VARCHAR(255) CHARACTER SET utf8mb4 NOT NULL               -- who took it last (host and process), for operators
) ENGINE = InnoDB;
