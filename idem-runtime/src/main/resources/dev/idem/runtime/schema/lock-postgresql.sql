-- idem: single-flight locks (PostgreSQL), one row per lock name (@SingleFlight, IdemRuntime.singleFlight). Rows are
-- never deleted: the fencing token must keep increasing across every acquisition of the name.
CREATE TABLE IF NOT EXISTS idem_lock (
  name         VARCHAR(255) NOT NULL PRIMARY KEY,  -- the lock's name
  owner_token  VARCHAR(64)  NULL,                  -- the last holder's random token; NULL once released with a lockAtLeastFor
  lease_until  BIGINT       NOT NULL,              -- epoch millis on the database's clock: free from then on
  fence        BIGINT       NOT NULL,              -- the fencing token: increased by every acquisition
  locked_at    BIGINT       NOT NULL,              -- epoch millis on the database's clock: the last acquisition
  locked_by    VARCHAR(255) NOT NULL               -- who took it last (host and process), for operators
);
