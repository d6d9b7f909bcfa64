#!/usr/bin/env bash
# A Spring Boot 4 application (src/it/spring-boot/) caching through JCache on hybridcache, configured by
# properties only, run as a real process and driven over HTTP: a hot set of N items (about 1.1 KiB each,
# N=6000: about 6.6 MB) through a 2 MiB DRAM tier, so most cache hits are flash hits; and M customers read
# through Hibernate's second-level cache (hibernate-jcache, the same provider and file; the database is an
# H2 file). Then a clean stop (SIGTERM: Spring closes the CacheManager) and a restart must be warm (no item
# loaded again, no customer read from the database); then kill -9 and a restart must be warm too and
# serve everything correctly. Every response is checked byte for byte.
# Installs jcache (with core) into the local repository first (SKIP_INSTALL=1 skips it).
#   bash src/it/spring-boot.sh            (about 2 minutes)
set -euo pipefail
cd "$(dirname "$0")/../.."
say() { echo "[spring-boot-it] $*"; }
APP=src/it/spring-boot
N=${N:-6000}
M=${M:-2000}
WORK=$APP/target/it
rm -rf "$WORK"; mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
if [ "${SKIP_INSTALL:-0}" != 1 ]; then
  ./mvnw -B -q -pl jcache -am install -DskipTests
fi
./mvnw -B -q -f $APP/pom.xml package
cat > "$WORK/hybridcache.properties" <<PROPS
directory=$WORK/cache
dram-bytes=2m
flash-bytes=64m
segment-bytes=4m
write-buffer-bytes=256k
PROPS
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
URL=http://127.0.0.1:$PORT
PID=
cleanup() { if [ -n "$PID" ] && kill -0 "$PID" 2>/dev/null; then kill -KILL "$PID"; fi; }
trap cleanup EXIT

start() { # $1: run label
  java -Xmx256m -jar $APP/target/app.jar --server.address=127.0.0.1 --server.port=$PORT \
    --spring.cache.jcache.config=file:$WORK/hybridcache.properties \
    --spring.jpa.properties.hibernate.javax.cache.uri=file:$WORK/hybridcache.properties \
    --spring.datasource.url=jdbc:h2:file:$WORK/db/demo --demo.customers=$M > "$WORK/app-$1.log" 2>&1 &
  PID=$!
  for _ in $(seq 1 240); do # readiness: the process answers, or has died
    if curl -sf "$URL/stats" > /dev/null; then return 0; fi
    kill -0 "$PID" 2>/dev/null || { say "FAIL: the application died at start ($1)"; tail -40 "$WORK/app-$1.log"; exit 1; }
    sleep 0.5
  done
  say "FAIL: the application did not answer within 120 s ($1)"; tail -40 "$WORK/app-$1.log"; exit 1
}

stat() { curl -sf "$URL/stats" | python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }

check() { # $1: output file, $2: count, $3: python expression of the line for id i
  python3 - "$1" "$2" "$3" <<'PY'
import sys
lines = open(sys.argv[1]).read().split("\n")[:-1]
n = int(sys.argv[2])
def expected(i):
    return eval(sys.argv[3], {"i": i})
bad = [i for i in range(n) if i >= len(lines) or lines[i] != expected(i)]
if len(lines) != n or bad:
    print("[spring-boot-it] FAIL: %d lines for %d, %d wrong (first %s)" % (len(lines), n, len(bad), bad[:5]))
    sys.exit(1)
PY
}

pass() { # $1: label, $2: first item (default 0), $3: items (default N). One keep-alive connection; checks every line.
  local from=${2:-0} count=${3:-$N}
  curl -sf "$URL/items/[$from-$((from + count - 1))]" > "$WORK/$1.out"
  check "$WORK/$1.out" "$count" '"item-%d-" % (i + '"$from"') + "".join(chr(97 + (i + '"$from"' + j) % 26) for j in range(1000))'
}

customers() { # $1: label. Reads customers 0..M-1; prints "L2-hits SQL-statements" of the pass.
  local hits=$(stat l2Hits) sql=$(stat sqlStatements)
  curl -sf "$URL/customers/[0-$((M - 1))]" > "$WORK/$1.out"
  check "$WORK/$1.out" "$M" '"customer-%d-" % i + "n" * 200'
  echo "$(( $(stat l2Hits) - hits )) $(( $(stat sqlStatements) - sql ))"
}

l2row() { say "$(printf '%-34s L2 hits %6s of %s, SQL statements %s' "$1" "$2" "$M" "$3")"; }

row() { printf '[spring-boot-it] %-34s loads %6s  flash hits %6s  DRAM hits %6s  flash entries %6s\n' \
  "$1" "$(stat loads)" "$(stat flashHits)" "$(stat dramHits)" "$(stat flashEntries)"; }

start first
pass first-pass;  row "first pass (cold: every item loaded)"
[ "$(stat loads)" = "$N" ] || { say "FAIL: the cold pass loaded $(stat loads) items, not $N"; exit 1; }
pass second-pass; row "second pass (from the cache)"
[ "$(stat loads)" = "$N" ] || { say "FAIL: the second pass loaded again: $(stat loads) loads"; exit 1; }
[ "$(stat flashHits)" -gt $((N / 2)) ] || { say "FAIL: only $(stat flashHits) flash hits for a hot set > DRAM"; exit 1; }
read -r H Q <<< "$(customers customers-first)"; l2row "customers, first pass" "$H" "$Q"
read -r H Q <<< "$(customers customers-second)"; l2row "customers, second pass" "$H" "$Q"
[ "$H" = "$M" ] && [ "$Q" = 0 ] || { say "FAIL: the second pass was not served by the L2 cache"; exit 1; }

kill -TERM "$PID"; wait "$PID" || true; PID=
start clean-restart
pass after-clean-stop; row "after a clean stop (SIGTERM)"
[ "$(stat loads)" = 0 ] || { say "FAIL: not warm after a clean stop: $(stat loads) items loaded again"; exit 1; }
[ "$(stat flashHits)" -gt $((N / 2)) ] || { say "FAIL: only $(stat flashHits) flash hits after the restart"; exit 1; }
read -r H Q <<< "$(customers customers-after-clean-stop)"; l2row "customers after a clean stop" "$H" "$Q"
[ "$H" = "$M" ] && [ "$Q" = 0 ] || { say "FAIL: the L2 cache was not warm after a clean stop"; exit 1; }

# 1000 new items just before the kill: dirty in DRAM, some written to flash, the rest lost with the process
pass new-items "$N" 1000; row "1000 new items, then kill -9"
kill -KILL "$PID"; wait "$PID" 2>/dev/null || true; PID=
start kill-restart
pass after-kill 0 $((N + 1000)); row "after kill -9 (all $((N + 1000)) items)"
LOADS=$(stat loads)
[ "$LOADS" -le 1000 ] || { say "FAIL: not warm after kill -9: $LOADS items loaded again (only new ones may be)"; exit 1; }
[ "$(stat flashHits)" -gt $((N / 2)) ] || { say "FAIL: only $(stat flashHits) flash hits after kill -9"; exit 1; }
read -r H Q <<< "$(customers customers-after-kill)"; l2row "customers after kill -9" "$H" "$Q"
[ "$H" -ge $((M * 9 / 10)) ] || { say "FAIL: the L2 cache was not warm after kill -9: $H hits of $M"; exit 1; }

kill -TERM "$PID"; wait "$PID" || true; PID=
say "OK: $N items and $M customers, every response correct; warm after a clean stop and after kill -9"
