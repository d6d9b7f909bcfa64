#!/usr/bin/env bash
# End-to-end proof of the Mongo bridge on a real MongoDB-wire server other than the in-process one:
#   1. builds FerretDB v1.24.2 from the Go module proxy (go mod download + CGO_ENABLED=0 go build; about
#      3 minutes cold, then cached in ~/.cache/hybridcache-it),
#   2. starts a throwaway PostgreSQL 15 cluster under a temporary directory (as the postgres user when
#      run as root) and FerretDB on it, both on free loopback ports,
#   3. runs the mongo-bridge JUnit tests against it (-Dhybridcache.mongo.uri),
#   4. runs YCSB workloads B and C direct to FerretDB and through the bridge (same harness), and prints
#      throughput and read p99 of each (JSON in target/it-mongo/).
# Everything it started is stopped and its temporary directory removed on exit, failure included.
# Run from anywhere: bash src/it/mongo-ferretdb.sh   (env: IT_RECORDS, IT_OPERATIONS, IT_THREADS)
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
FERRET_VERSION=v1.24.2
CACHE=${HYBRIDCACHE_IT_CACHE:-${HOME:-/root}/.cache/hybridcache-it}
FERRET_BIN=$CACHE/ferretdb-$FERRET_VERSION/ferretdb
OUT=$ROOT/target/it-mongo
RECORDS=${IT_RECORDS:-2000}
OPERATIONS=${IT_OPERATIONS:-10000}
THREADS=${IT_THREADS:-4}
source "$ROOT/src/it/postgres-lib.sh"

log() { echo "it-mongo: $*" >&2; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

WORK=$(mktemp -d /tmp/hybridcache-it-mongo.XXXXXX)
chmod 755 "$WORK"
FERRET_PID=
cleanup() {
  set +e
  if [ -n "$FERRET_PID" ]; then kill "$FERRET_PID" 2>/dev/null; wait "$FERRET_PID" 2>/dev/null; fi
  pg_stop
  rm -rf "$WORK"
}
trap cleanup EXIT

# ---- tools ----
pg_install || exit 3
command -v go >/dev/null || { log "go is needed to build FerretDB (not on PATH)"; exit 3; }

# ---- FerretDB, built once ----
if [ ! -x "$FERRET_BIN" ]; then
  log "building FerretDB $FERRET_VERSION from the Go module proxy (cached in $CACHE)"
  mkdir -p "$WORK/gomod" "$(dirname "$FERRET_BIN")"
  SRC_DIR=$(cd "$WORK/gomod" && go mod download -json "github.com/FerretDB/FerretDB@$FERRET_VERSION" \
    | python3 -c 'import json, sys; print(json.load(sys.stdin)["Dir"])')
  cp -r "$SRC_DIR" "$WORK/ferretdb-src" && chmod -R u+w "$WORK/ferretdb-src"
  echo "$FERRET_VERSION" > "$WORK/ferretdb-src/build/version/version.txt"
  (cd "$WORK/ferretdb-src" && CGO_ENABLED=0 GOFLAGS=-buildvcs=false go build -o "$FERRET_BIN.tmp" ./cmd/ferretdb)
  mv "$FERRET_BIN.tmp" "$FERRET_BIN"
fi
log "$("$FERRET_BIN" --version 2>&1 | head -1)"

# ---- PostgreSQL 15, throwaway cluster ----
pg_start "$WORK" ferretdb
log "PostgreSQL 15 on 127.0.0.1:$PG_PORT"

# ---- FerretDB on it ----
FERRET_PORT=$(free_port)
mkdir -p "$WORK/ferret-state"
"$FERRET_BIN" --handler=postgresql --postgresql-url="postgres://postgres@127.0.0.1:$PG_PORT/ferretdb" \
  --listen-addr="127.0.0.1:$FERRET_PORT" --debug-addr="127.0.0.1:$(free_port)" --telemetry=disable \
  --state-dir="$WORK/ferret-state" --log-level=warn >"$WORK/ferretdb.log" 2>&1 &
FERRET_PID=$!
for _ in $(seq 1 150); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$FERRET_PORT") 2>/dev/null; then break; fi
  kill -0 "$FERRET_PID" 2>/dev/null || { cat "$WORK/ferretdb.log" >&2; log "FerretDB exited"; exit 1; }
  sleep 0.2 # polling a port that is not open yet
done
URI="mongodb://127.0.0.1:$FERRET_PORT/"
log "FerretDB $FERRET_VERSION at $URI"

# ---- the bridge's JUnit tests against FerretDB ----
log "mongo-bridge tests against FerretDB"
./mvnw -B -q -pl mongo-bridge -am test -Dhybridcache.mongo.uri="$URI" \
  -Dtest='CachedCollectionTest,ConsistencyTest,ServerRoundTripTest,BadInputTest' -Dsurefire.failIfNoSpecifiedTests=false

# ---- YCSB B and C, direct vs through the bridge ----
if [ ! -f bench/target/hybridcache-bench.jar ]; then
  ./mvnw -B -q -DskipTests package
fi
mkdir -p "$OUT"
for w in b c; do
  for db in mongo mongo-bridge; do
    log "YCSB workload $w, --db $db, $RECORDS records, $OPERATIONS operations"
    java -jar bench/target/hybridcache-bench.jar ycsb --db "$db" --mongo-uri "${URI}ycsb" \
      --workload "src/workloads/workload$w" --records "$RECORDS" --operations "$OPERATIONS" --threads "$THREADS" \
      --index heap --status-interval 30 --dir "$WORK/ycsb-$db" --json "$OUT/ycsb-$w-$db.json" >"$OUT/ycsb-$w-$db.txt" 2>"$OUT/ycsb-$w-$db.log" \
      || { tail -30 "$OUT/ycsb-$w-$db.log" >&2; exit 1; }
  done
done
python3 - "$OUT" <<'PY'
import json, sys, os
out = sys.argv[1]
print("%-9s %-13s %14s %14s %12s %10s" % ("workload", "db", "throughput/s", "read p50 us", "read p99 us", "hit ratio"))
for w in "bc":
    for db in ("mongo", "mongo-bridge"):
        j = json.load(open(os.path.join(out, "ycsb-%s-%s.json" % (w, db))))
        hit = j.get("hit_ratio")
        print("%-9s %-13s %14.0f %14s %12s %10s" % (w.upper(), db, j["throughput_ops"], j["read_p50_us"], j["read_p99_us"],
              "-" if hit is None else "%.3f" % hit))
print("server:", json.load(open(os.path.join(out, "ycsb-b-mongo.json")))["server"])
PY
log "done; figures in $OUT"
