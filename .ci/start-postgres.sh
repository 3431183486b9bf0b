#!/usr/bin/env bash
# Start a private PostgreSQL server on 127.0.0.1 for the test suite and print, on stdout only,
#   export EXECUGRAPH_TEST_PG_URL=postgresql://execugraph:<password>@127.0.0.1:<port>/execugraph
#   export EXECUGRAPH_TEST_PG_STARTED=1    (0 when a running server was reused: leave it running)
# so that CI can `eval "$(bash .ci/start-postgres.sh)"`. Everything else goes to stderr.
#
# Installs Debian's `postgresql` package when the server binaries are missing and we are root.
# The cluster lives in $EXECUGRAPH_PG_DIR (default /tmp/execugraph-ci-postgres), listens on loopback
# only, on $EXECUGRAPH_PG_PORT (default 55432, or the next free port), runs with durability off
# (it holds throwaway test data), and is reused when already running.
#   bash .ci/start-postgres.sh --stop    stops it and deletes its files.
set -euo pipefail

PGDIR="${EXECUGRAPH_PG_DIR:-/tmp/execugraph-ci-postgres}"
PORT="${EXECUGRAPH_PG_PORT:-55432}"
ROLE=execugraph
PASSWORD=eg-ci-7b3f0d2e
DBNAME=execugraph

log() { echo "start-postgres: $*" >&2; }
is_root() { [ "$(id -u)" = 0 ]; }
find_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }
# initdb and the server refuse to run as root: run them as `postgres` then.
as_pg() { if is_root; then runuser -u postgres -- "$@"; else "$@"; fi; }
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

BIN="$(find_bin)"

if [ "${1:-}" = "--stop" ] || [ "${1:-}" = "stop" ]; then
    if [ -n "$BIN" ] && [ -f "$PGDIR/data/postmaster.pid" ]; then
        as_pg "$BIN/pg_ctl" -D "$PGDIR/data" -m fast -w stop >&2 || true
    fi
    rm -rf "$PGDIR"
    log "stopped and removed $PGDIR"
    exit 0
fi

if [ -z "$BIN" ] || [ ! -x "$BIN/initdb" ]; then
    if ! is_root; then
        log "PostgreSQL server binaries not found under /usr/lib/postgresql/*/bin."
        log "Install them with: sudo apt-get install -y postgresql   (then run this again)"
        exit 1
    fi
    log "installing postgresql with apt-get"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq postgresql >&2
    BIN="$(find_bin)"
    [ -n "$BIN" ] || { log "apt-get installed postgresql but no server binaries appeared"; exit 1; }
fi

if is_root; then
    id postgres >/dev/null 2>&1 || { log "no 'postgres' user to run the server as (the postgresql package creates it)"; exit 1; }
    SUPERUSER=postgres
else
    SUPERUSER="$(id -un)"
fi

mkdir -p "$PGDIR"
if is_root; then chown postgres "$PGDIR"; fi

if as_pg "$BIN/pg_ctl" -D "$PGDIR/data" status >/dev/null 2>&1; then
    PORT="$(cat "$PGDIR/port")"
    log "reusing the server already running on 127.0.0.1:$PORT"
    STARTED=0
else
    STARTED=1
    if [ ! -f "$PGDIR/data/PG_VERSION" ]; then
        log "initialising a cluster in $PGDIR/data"
        as_pg "$BIN/initdb" -D "$PGDIR/data" -U "$SUPERUSER" -E UTF8 --no-sync \
            --auth-local=trust --auth-host=scram-sha-256 >&2
    fi
    while port_busy "$PORT"; do PORT=$((PORT + 1)); done
    echo "$PORT" >"$PGDIR/port"
    log "starting on 127.0.0.1:$PORT (log: $PGDIR/server.log)"
    as_pg "$BIN/pg_ctl" -D "$PGDIR/data" -l "$PGDIR/server.log" -w -t 60 start \
        -o "-p $PORT -k $PGDIR -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" >&2 \
        || { log "server failed to start:"; tail -n 30 "$PGDIR/server.log" >&2 || true; exit 1; }
fi

psql_admin() { as_pg "$BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$PGDIR" -p "$PORT" -U "$SUPERUSER" -d postgres "$@"; }
# CREATEDB: the test fixtures give every test its own fresh database.
psql_admin -c "DO \$\$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$ROLE') THEN
    CREATE ROLE $ROLE LOGIN CREATEDB PASSWORD '$PASSWORD';
  ELSE
    ALTER ROLE $ROLE LOGIN CREATEDB PASSWORD '$PASSWORD';
  END IF;
END \$\$;" >&2
# pg_signal_backend: DROP DATABASE ... WITH (FORCE) in the tests' teardown may meet an autovacuum worker on it.
psql_admin -c "GRANT pg_signal_backend TO $ROLE" >&2
if [ "$(psql_admin -tAc "SELECT 1 FROM pg_database WHERE datname = '$DBNAME'")" != "1" ]; then
    psql_admin -c "CREATE DATABASE $DBNAME OWNER $ROLE" >&2
fi

echo "export EXECUGRAPH_TEST_PG_URL=postgresql://$ROLE:$PASSWORD@127.0.0.1:$PORT/$DBNAME"
echo "export EXECUGRAPH_TEST_PG_STARTED=$STARTED"
