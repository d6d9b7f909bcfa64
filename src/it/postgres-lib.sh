# A throwaway PostgreSQL 15 cluster for the integration scripts (sourced, not run):
#   pg_install            installs postgresql-15 (Debian, as root) if its server binaries are missing
#   pg_start DIR DB       initdb in DIR/pg (DIR must be traversable by the postgres user), start it on a free
#                         loopback port (PG_PORT), create database DB; fsync off: it is thrown away
#   pg_stop               stops it (immediate), if started
# As root the cluster runs as the postgres user (runuser), as PostgreSQL requires.
PG_BIN=/usr/lib/postgresql/15/bin
PG_DIR=
PG_PORT=
pg_as() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
pg_install() {
  [ -x "$PG_BIN/initdb" ] && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing postgresql-15 (Debian)" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15 >/dev/null
  else
    echo "PostgreSQL 15 server binaries missing ($PG_BIN) and cannot install them" >&2; return 3
  fi
}
pg_start() {
  PG_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  mkdir -p "$1/pg" "$1/sock"
  if [ "$(id -u)" = 0 ]; then chown postgres "$1/pg" "$1/sock"; fi
  pg_as "$PG_BIN/initdb" -D "$1/pg" -U postgres -A trust --no-sync >"$1/initdb.log" 2>&1 \
    || { cat "$1/initdb.log" >&2; return 1; }
  pg_as "$PG_BIN/pg_ctl" -D "$1/pg" -w -t 60 -l "$1/pg/server.log" \
    -o "-p $PG_PORT -k $1/sock -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off" start >/dev/null
  PG_DIR=$1/pg
  pg_as "$PG_BIN/createdb" -h 127.0.0.1 -p "$PG_PORT" -U postgres "$2"
}
pg_stop() {
  if [ -n "$PG_DIR" ]; then pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR" -m immediate stop >/dev/null 2>&1; PG_DIR=; fi
}
