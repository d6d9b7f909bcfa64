#!/usr/bin/env bash
# A Spring Boot 4 application (src/it/spring-boot/) caching through JCache on hybridcache, configured by
# properties only, run as a real process and driven over HTTP: a hot set of N items (about 1.1 KiB each,
# N=6000: about 6.6 MB) through a 2 MiB DRAM tier, so most cache hits are flash hits; and M customers (two
# purchases each) in PostgreSQL 15 (a throwaway cluster, src/it/postgres-lib.sh) read through Hibernate's
# second-level cache (hibernate-jcache, the same provider and file): the entity, collection and query-results
# regions, the update-timestamps region declared store-by-reference (never evicted, never expires); two
# application threads updating and reading one customer must never read a stale revision. Then a clean stop
# (SIGTERM: Spring closes the CacheManager) and a restart must be warm (no item loaded again, no customer or
# purchase read from the database); then kill -9 and a restart must be warm too and serve everything
# correctly, the raced customer at its last committed revision. Every response is checked byte for byte.
# Prints the L2 hit ratio and the database queries the caches saved.
# Installs jcache (with core) into the local repository first (SKIP_INSTALL=1 skips it).
#   bash src/it/spring-boot.sh            (about 3 minutes)
set -euo pipefail
cd "$(dirname "$0")/../.."
source src/it/postgres-lib.sh
say() { echo "[spring-boot-it] $*"; }
APP=src/it/spring-boot
N=${N:-6000}
M=${M:-2000}
ROUNDS=${ROUNDS:-200}
WORK=$APP/target/it
rm -rf "$WORK"; mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
PG_WORK=$(mktemp -d /tmp/hybridcache-it-spring-pg.XXXXXX) # traversable by the postgres user
chmod 755 "$PG_WORK"
if [ "${SKIP_INSTALL:-0}" != 1 ]; then
  ./mvnw -B -q -pl jcache -am install -DskipTests
fi
./mvnw -B -q -f $APP/pom.xml package
# the provider runs on the Caffeine Spring Boot's dependency management brings, not the one it is built with
CAFFEINE=$(unzip -l $APP/target/app.jar | grep -o 'BOOT-INF/lib/caffeine-[0-9][^/]*\.jar' | head -1)
[ -n "$CAFFEINE" ] || { say "FAIL: no Caffeine in the application"; exit 1; }
say "Caffeine in the application: ${CAFFEINE#BOOT-INF/lib/} (Spring Boot's managed version; the library is built with $(sed -n 's|.*<caffeine.version>\(.*\)</caffeine.version>.*|\1|p' pom.xml))"
cat > "$WORK/hybridcache.properties" <<PROPS
directory=$WORK/cache
dram-bytes=2m
flash-bytes=64m
segment-bytes=4m
write-buffer-bytes=256k
# declared caches (created with the manager): Spring's items (Long keys, String values: fast codecs), and
# Hibernate's update-timestamps region on the heap (never evicted, never expires) with the query-results
# region emptied at each start (its entries are only as good as the timestamps they are checked against)
cache.items.key-type=java.lang.Long
cache.items.value-type=java.lang.String
cache.default-update-timestamps-region.store-by-reference=true
cache.default-query-results-region.clear-on-start=true
# the entity and collection regions Hibernate creates on demand: warm across restarts (without warm=true a
# cache created on demand starts empty at each start)
cache.demo.Customer.warm=true
cache.demo.Customer.purchases.warm=true
cache.demo.Purchase.warm=true
PROPS
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
URL=http://127.0.0.1:$PORT
PID=
cleanup() {
  if [ -n "$PID" ] && kill -0 "$PID" 2>/dev/null; then kill -KILL "$PID"; fi
  pg_stop; rm -rf "$PG_WORK"
}
trap cleanup EXIT
pg_install
pg_start "$PG_WORK" demo
say "PostgreSQL 15 on 127.0.0.1:$PG_PORT"

start() { # $1: run label
  java -Xmx256m -jar $APP/target/app.jar --server.address=127.0.0.1 --server.port=$PORT \
    --spring.cache.jcache.config=file:$WORK/hybridcache.properties \
    --spring.jpa.properties.hibernate.javax.cache.uri=file:$WORK/hybridcache.properties \
    --spring.datasource.url=jdbc:postgresql://127.0.0.1:$PG_PORT/demo --spring.datasource.username=postgres \
    --demo.customers=$M > "$WORK/app-$1.log" 2>&1 &
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

NAME='"customer-%d-" % i + "n" * 200'
PURCHASES='"2 purchases, %d cents" % (3 * i)'
customers() { # $1: label, $2: path after /customers/ID ("" for the entity, /purchases, /by-query), $3: expected
  # line (python, of i). Reads customers 0..M-1; prints "L2-hits query-cache-hits SQL-statements" of the pass.
  local hits=$(stat l2Hits) qhits=$(stat queryCacheHits) sql=$(stat sqlStatements)
  curl -sf "$URL/customers/[0-$((M - 1))]$2" > "$WORK/$1.out"
  check "$WORK/$1.out" "$M" "$3"
  echo "$(( $(stat l2Hits) - hits )) $(( $(stat queryCacheHits) - qhits )) $(( $(stat sqlStatements) - sql ))"
}

l2row() { say "$(printf '%-40s L2 hits %6s, query cache hits %6s of %s, SQL statements %s' "$1" "$2" "$3" "$M" "$4")"; }

hibernate_passes() { # $1: label; $2: 1 if the query-results region is warm. Entity, collection, query; checks SQL 0.
  local H Q S
  read -r H Q S <<< "$(customers "$1-entity" "" "$NAME")"; l2row "customers (entity), $1" "$H" "$Q" "$S"
  [ "$H" = "$M" ] && [ "$S" = 0 ] || { say "FAIL: the entity region did not serve every customer ($1)"; exit 1; }
  read -r H Q S <<< "$(customers "$1-purchases" /purchases "$PURCHASES")"; l2row "purchases (collection), $1" "$H" "$Q" "$S"
  [ "$H" -ge $((3 * M)) ] && [ "$S" = 0 ] || { say "FAIL: the collection region did not serve every customer's purchases ($1)"; exit 1; }
  if [ "$2" = 1 ]; then
    read -r H Q S <<< "$(customers "$1-query" /by-query "$NAME")"; l2row "name by query, $1" "$H" "$Q" "$S"
    [ "$Q" = "$M" ] && [ "$S" = 0 ] || { say "FAIL: the query-results region did not serve every query ($1)"; exit 1; }
  fi
}

race() { # $1: label. Two application threads on customer M: ROUNDS updates against a reader; no stale read.
  curl -sf "$URL/race/$M?rounds=$ROUNDS" > "$WORK/$1.json"
  python3 - "$WORK/$1.json" "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print("[spring-boot-it] %-40s %d updates, %d reads (entity, collection, query), %d stale; L2 hits %d, misses %d, query cache hits %d"
      % ("race, " + sys.argv[2], r["rounds"], r["reads"], r["staleReads"], r["l2Hits"], r["l2Misses"], r["queryCacheHits"]))
want = "race-%d" % r["expected"]
bad = []
if r["staleReads"] != 0: bad.append("%d stale reads" % r["staleReads"])
if r["reads"] == 0: bad.append("the reader read nothing")
if r["l2Hits"] == 0: bad.append("no L2 hit during the race")
if r["name"] != want or r["nameByQuery"] != want or r["purchases"] != r["expected"]:
    bad.append("after the race: %s / %s / %d purchases, expected %s and %d" % (r["name"], r["nameByQuery"], r["purchases"], want, r["expected"]))
if bad:
    print("[spring-boot-it] FAIL: " + "; ".join(bad)); sys.exit(1)
PY
}

summary() { # the whole run's L2 hit ratio and the database queries the second-level and query caches saved
  curl -sf "$URL/stats" | python3 -c "
import json, sys
s = json.load(sys.stdin)
if s['timestampsStoreByValue'] is not False or not s['timestampsEternal']:
    print('[spring-boot-it] FAIL: the update-timestamps region is not on the heap and eternal: %s' % s); sys.exit(1)
h, m, q = s['l2Hits'], s['l2Misses'], s['queryCacheHits']
print('[spring-boot-it] %-40s L2 hit ratio %.3f (%d hits, %d misses); database queries saved %d (L2 hits + %d query cache hits), SQL statements run %d'
      % ('$1', h / max(1, h + m), h, m, h + q, q, s['sqlStatements']))
"
}

first_second() { # $1: label, $2: items. Requests items for one second right after a restart (one keep-alive
  # connection); checks every complete line and prints how many were served and the share served by the cache.
  local loads=$(stat loads) out="$WORK/$1-first-second.out"
  curl -s --max-time 1 "$URL/items/[0-$(($2 - 1))]" > "$out" || true
  local served=$(python3 - "$out" <<'PY'
import sys
text = open(sys.argv[1]).read()
lines = text.split("\n")[:-1]  # complete lines only
for i, line in enumerate(lines):
    if line != "item-%d-" % i + "".join(chr(97 + (i + j) % 26) for j in range(1000)):
        print("[spring-boot-it] FAIL: wrong item %d in the first second" % i, file=sys.stderr); sys.exit(1)
print(len(lines))
PY
)
  local missed=$(( $(stat loads) - loads ))
  say "$(printf '%-34s %6s items served in the first second, hit ratio %s' "$1" "$served" \
    "$(python3 -c "print('%.3f' % (($served - $missed) / max(1, $served)))")")"
  [ "$served" -gt 0 ] || { say "FAIL: nothing served in the first second after the restart ($1)"; exit 1; }
}

row() { printf '[spring-boot-it] %-34s loads %6s  flash hits %6s  DRAM hits %6s  flash entries %6s\n' \
  "$1" "$(stat loads)" "$(stat flashHits)" "$(stat dramHits)" "$(stat flashEntries)"; }

start first
pass first-pass;  row "first pass (cold: every item loaded)"
[ "$(stat loads)" = "$N" ] || { say "FAIL: the cold pass loaded $(stat loads) items, not $N"; exit 1; }
FLASH_BEFORE=$(stat flashHits) # the engine's counters are of all its caches: Hibernate's seeding counted too
pass second-pass; row "second pass (from the cache)"
[ "$(stat loads)" = "$N" ] || { say "FAIL: the second pass loaded again: $(stat loads) loads"; exit 1; }
[ $(( $(stat flashHits) - FLASH_BEFORE )) -gt $((N / 2)) ] || { say "FAIL: only $(( $(stat flashHits) - FLASH_BEFORE )) flash hits for a hot set > DRAM"; exit 1; }
read -r H Q S <<< "$(customers first-entity "" "$NAME")"; l2row "customers (entity), first pass" "$H" "$Q" "$S"
read -r H Q S <<< "$(customers first-purchases /purchases "$PURCHASES")"; l2row "purchases (collection), first pass" "$H" "$Q" "$S"
read -r H Q S <<< "$(customers first-query /by-query "$NAME")"; l2row "name by query, first pass" "$H" "$Q" "$S"
[ "$S" -ge "$M" ] || { say "FAIL: the first query pass ran $S SQL statements, fewer than its $M queries"; exit 1; }
hibernate_passes "second pass" 1
race first
# the race updated the Customer table: every cached query on it is older than its update timestamp now
read -r H Q S <<< "$(customers race-query /by-query "$NAME")"; l2row "name by query, after the race" "$H" "$Q" "$S"
[ "$Q" = 0 ] && [ "$S" -ge "$M" ] || { say "FAIL: the race's updates did not invalidate the cached query results"; exit 1; }
hibernate_passes "after the race, again" 1
summary "first run"

kill -TERM "$PID"; wait "$PID" || true; PID=
start clean-restart
first_second "first second after a clean stop" "$N"
pass after-clean-stop; row "after a clean stop (SIGTERM)"
[ "$(stat loads)" = 0 ] || { say "FAIL: not warm after a clean stop: $(stat loads) items loaded again"; exit 1; }
[ "$(stat flashHits)" -gt $((N / 2)) ] || { say "FAIL: only $(stat flashHits) flash hits after the restart"; exit 1; }
hibernate_passes "after a clean stop" 0
read -r H Q S <<< "$(customers clean-query /by-query "$NAME")"; l2row "name by query, after a clean stop" "$H" "$Q" "$S"
[ "$Q" = 0 ] || { say "FAIL: the query-results region (clear-on-start) served $Q queries of the last run"; exit 1; }
hibernate_passes "after a clean stop, again" 1
race "after a clean stop"

# 1000 new items just before the kill: dirty in DRAM, some written to flash, the rest lost with the process
pass new-items "$N" 1000; row "1000 new items, then kill -9"
kill -KILL "$PID"; wait "$PID" 2>/dev/null || true; PID=
start kill-restart
first_second "first second after kill -9" "$((N + 1000))"
pass after-kill 0 $((N + 1000)); row "after kill -9 (all $((N + 1000)) items)"
LOADS=$(stat loads)
[ "$LOADS" -le 1000 ] || { say "FAIL: not warm after kill -9: $LOADS items loaded again (only new ones may be)"; exit 1; }
[ "$(stat flashHits)" -gt $((N / 2)) ] || { say "FAIL: only $(stat flashHits) flash hits after kill -9"; exit 1; }
read -r H Q S <<< "$(customers kill-entity "" "$NAME")"; l2row "customers (entity) after kill -9" "$H" "$Q" "$S"
[ "$H" -ge $((M * 9 / 10)) ] || { say "FAIL: the L2 cache was not warm after kill -9: $H hits of $M"; exit 1; }
read -r H Q S <<< "$(customers kill-purchases /purchases "$PURCHASES")"; l2row "purchases (collection) after kill -9" "$H" "$Q" "$S"
RACED=$(curl -sf "$URL/customers/$M")
[ "$RACED" = "race-$((2 * ROUNDS))" ] || { say "FAIL: after kill -9 the raced customer reads $RACED, not race-$((2 * ROUNDS))"; exit 1; }
race "after kill -9"
summary "after kill -9 (this process)"

kill -TERM "$PID"; wait "$PID" || true; PID=
say "OK: $N items and $M customers (entity, collection, query), every response correct, no stale read in 3 races; warm after a clean stop and after kill -9"
