#!/bin/bash
# Private PostgreSQL 15 and MariaDB servers on an ext4 file system mounted WITHOUT `discard` (ext4's and XFS's
# default), for RetentionBenchmark's day drops: the development machine's root file system is mounted with `discard`,
# which makes every extent a dropped partition frees a synchronous TRIM (docs/benchmarks.md, "Where the drop's time
# goes"). Needs root and a free loop device; the image is sparse and removed by `stop`.
#
#   idem-benchmarks/scripts/nodiscard-servers.sh start-postgresql   # port 55433, then:
#   mvn -B -q -Pbench -pl idem-benchmarks -am verify -DskipTests \
#     -Dbench.mainClass=dev.idem.benchmarks.retention.RetentionBenchmark -Didem.bench.databases=PostgreSQL \
#     -Didem.postgresql.url=jdbc:postgresql://127.0.0.1:55433/test
#   idem-benchmarks/scripts/nodiscard-servers.sh start-mariadb      # port 33307, then the same with
#     -Didem.bench.databases=MariaDB -Didem.mariadb.url=jdbc:mariadb://127.0.0.1:33307/test
#   idem-benchmarks/scripts/nodiscard-servers.sh stop               # stops both, unmounts, removes the image
#
# Both servers take the shared servers' settings that matter here: PostgreSQL autovacuum off, shared_buffers 128MB,
# max_wal_size 1GB; MariaDB its defaults (a 128 MB buffer pool, O_DIRECT) with the Debian package's character set.
set -euo pipefail
IMAGE=${IDEM_NODISCARD_IMAGE:-/work/idem-nodiscard.img}
MOUNT=${IDEM_NODISCARD_MOUNT:-/mnt/idem-nodiscard}
PG_BIN=${IDEM_PG_BIN:-/usr/lib/postgresql/15/bin}

mount_file_system() {
  if ! findmnt -n "$MOUNT" >/dev/null; then
    truncate -s 40G "$IMAGE"
    mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0,nodiscard "$IMAGE"
    mkdir -p "$MOUNT"
    mount -o loop,nodiscard "$IMAGE" "$MOUNT"
  fi
  echo "mounted: $(findmnt -no SOURCE,OPTIONS "$MOUNT")"
}

case "${1:-}" in
start-postgresql)
  mount_file_system
  mkdir -p "$MOUNT/postgresql" && chown postgres:postgres "$MOUNT/postgresql"
  su postgres -c "$PG_BIN/initdb -D $MOUNT/postgresql -A trust -U postgres" >/dev/null
  cat >> "$MOUNT/postgresql/postgresql.conf" <<CONF
port = 55433
listen_addresses = '127.0.0.1'
unix_socket_directories = '/tmp'
autovacuum = off
shared_buffers = 128MB
max_wal_size = 1GB
CONF
  su postgres -c "$PG_BIN/pg_ctl -D $MOUNT/postgresql -l $MOUNT/postgresql/server.log -w start"
  psql -h 127.0.0.1 -p 55433 -U postgres -c "CREATE ROLE root SUPERUSER LOGIN" -c "CREATE DATABASE test OWNER root"
  ;;
start-mariadb)
  mount_file_system
  mkdir -p "$MOUNT/mariadb" && chown mysql:mysql "$MOUNT/mariadb"
  mariadb-install-db --user=mysql --datadir="$MOUNT/mariadb" --auth-root-authentication-method=normal \
    --skip-test-db >/dev/null
  /usr/sbin/mariadbd --no-defaults --user=mysql --datadir="$MOUNT/mariadb" --socket=/tmp/idem-nodiscard.sock \
    --pid-file=/tmp/idem-nodiscard-mariadb.pid --bind-address=127.0.0.1 --port=33307 --skip-name-resolve \
    --character-set-server=utf8mb4 --collation-server=utf8mb4_general_ci --log-error="$MOUNT/mariadb/error.log" &
  for _ in $(seq 1 60); do
    mariadb -S /tmp/idem-nodiscard.sock -uroot -e "SELECT 1" >/dev/null 2>&1 && break
    sleep 1
  done
  mariadb -S /tmp/idem-nodiscard.sock -uroot -e "CREATE USER IF NOT EXISTS root@'127.0.0.1';
    GRANT ALL ON *.* TO root@'127.0.0.1' WITH GRANT OPTION; CREATE DATABASE IF NOT EXISTS test"
  ;;
stop)
  if [ -f "$MOUNT/postgresql/postmaster.pid" ]; then
    su postgres -c "$PG_BIN/pg_ctl -D $MOUNT/postgresql -m fast -w stop" || true
  fi
  if [ -f /tmp/idem-nodiscard-mariadb.pid ]; then
    pid=$(cat /tmp/idem-nodiscard-mariadb.pid)
    kill "$pid" || true
    while kill -0 "$pid" 2>/dev/null; do sleep 1; done
  fi
  umount "$MOUNT" 2>/dev/null || true
  rm -f "$IMAGE"
  ;;
*)
  echo "usage: $0 start-postgresql | start-mariadb | stop" >&2
  exit 2
  ;;
esac
