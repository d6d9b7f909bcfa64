#!/usr/bin/env bash
# A Spring Boot 4 application (src/it/spring-boot/) caching through JCache on hybridcache with the starter
# (hybridcache-spring-boot-starter), configured by application.properties only (hybridcache.jcache.*: no provider
# class name, no provider file), run as a real process and driven over HTTP: a hot set of N items (about 1.1 KiB each,
# N=6000: about 6.6 MB) through a 2 MiB DRAM tier, so most cache hits are flash hits; and M customers (two
# purchases each) in PostgreSQL 15 (a throwaway cluster, src/it/postgres-lib.sh) read through Hibernate's
# second-level cache (hibernate-jcache, handed the same CacheManager by the starter): the entity, collection and query-results
# regions, the update-timestamps region declared store-by-reference (never evicted, never expires); two
# application threads updating and reading one customer must never read a stale revision. Then a clean stop
# (SIGTERM: Spring closes the CacheManager) and a restart must be warm (no item loaded again, no customer or
# purchase read from the database); then kill -9 and a restart must be warm too and serve everything
# correctly, the raced customer at its last committed revision. Every response is checked byte for byte.
# The starter's actuator health indicator must say UP and its flash-hit meter must move.
# Prints the L2 hit ratio and the database queries the caches saved.
# Installs the BOM, jcache and the starter (with core) into the local repository first (SKIP_INSTALL=1 skips it).
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
  ./mvnw -B -q -pl bom,jcache,spring-boot-starter -am install -DskipTests
fi
./mvnw -B -q -f $APP/pom.xml package
# the provider runs on the Caffeine Spring Boot's dependency management brings, not the one it is built with
CAFFEINE=$(unzip -l $APP/target/app.jar | grep -o 'BOOT-INF/lib/caffeine-[0-9][^/]*\.jar' | head -1)
[ -n "$CAFFEINE" ] || { say "FAIL: no Caffeine in the application"; exit 1; }
say "Caffeine in the application: ${CAFFEINE#BOOT-INF/lib/} (Spring Boot's managed version; the library is built with $(sed -n 's|.*<caffeine.version>\(.*\)</caffeine.version>.*|\1|p' pom.xml))"
# The starter configures the provider from application.properties alone: no provider class name, no provider file
if grep -nE 'HybridCachingProvider|spring\.cache\.jcache\.(provider|config)|hibernate\.javax\.cache\.(provider|uri)' \
    $APP/src/main/resources/application.properties; then
  say "FAIL: application.properties names the provider or a provider file (the starter needs neither)"; exit 1
fi
# This run's settings beside application.properties (hybridcache.jcache.*, on the command line): the directory
# (none: a private one per process) and the cache-version
SETTINGS=(--hybridcache.jcache.directory="$WORK/cache" --hybridcache.jcache.cache-version=1)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
PORT=$(free_port)
URL=http://127.0.0.1:$PORT
PID=
PIDS=() # every application process started, for the cleanup
APP_ARGS=() # arguments of every later start (the deploy adds one)
cleanup() {
  for p in "${PIDS[@]}"; do if kill -0 "$p" 2>/dev/null; then kill -KILL "$p"; fi; done
  pg_stop; rm -rf "$PG_WORK"
}
trap cleanup EXIT
pg_install
pg_start "$PG_WORK" demo
say "PostgreSQL 15 on 127.0.0.1:$PG_PORT"

launch() { # $1: run label, $2: port; more: application arguments. The cache settings are SETTINGS. Sets LAUNCHED (its pid).
  java -Xmx256m -jar $APP/target/app.jar --server.address=127.0.0.1 --server.port=$2 "${SETTINGS[@]}" \
    --spring.datasource.url=jdbc:postgresql://127.0.0.1:$PG_PORT/demo --spring.datasource.username=postgres \
    --demo.customers=$M "${APP_ARGS[@]}" "${@:3}" > "$WORK/app-$1.log" 2>&1 &
  LAUNCHED=$!
  PIDS+=("$LAUNCHED")
}

ready() { # $1: run label, $2: port, $3: pid. Readiness: the process answers, or has died.
  for _ in $(seq 1 240); do
    if curl -sf "http://127.0.0.1:$2/stats" > /dev/null; then return 0; fi
    kill -0 "$3" 2>/dev/null || { say "FAIL: the application died at start ($1)"; tail -40 "$WORK/app-$1.log"; exit 1; }
    sleep 0.5
  done
  say "FAIL: the application did not answer within 120 s ($1)"; tail -40 "$WORK/app-$1.log"; exit 1
}

start() { # $1: run label; more: application arguments of this start only
  launch "$1" "$PORT" "${@:2}"; PID=$LAUNCHED
  ready "$1" "$PORT" "$PID"
}

stop() { kill -TERM "$1"; wait "$1" || true; } # a clean stop (Spring closes the CacheManager)

stat() { curl -sf "${2:-$URL}/stats" | python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }

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

pass() { # $1: label, $2: first item (default 0), $3: items (default N); the instance at AT (default URL). One
  # keep-alive connection; checks every line.
  local from=${2:-0} count=${3:-$N}
  curl -sf "${AT:-$URL}/items/[$from-$((from + count - 1))]" > "$WORK/$1.out" || { say "FAIL: a request failed ($1)"; exit 1; }
  check "$WORK/$1.out" "$count" '"item-%d-" % (i + '"$from"') + "".join(chr(97 + (i + '"$from"' + j) % 26) for j in range(1000))'
}

NAME='"customer-%d-" % i + "n" * 200'
PURCHASES='"2 purchases, %d cents" % (3 * i)'
customers() { # $1: label, $2: path after /customers/ID ("" for the entity, /purchases, /by-query), $3: expected
  # line (python, of i). Reads customers 0..M-1; sets H Q S: the pass's L2 hits, query cache hits, SQL statements.
  local hits=$(stat l2Hits) qhits=$(stat queryCacheHits) sql=$(stat sqlStatements)
  curl -sf "$URL/customers/[0-$((M - 1))]$2" > "$WORK/$1.out" || { say "FAIL: a request failed ($1)"; exit 1; }
  check "$WORK/$1.out" "$M" "$3"
  H=$(( $(stat l2Hits) - hits )); Q=$(( $(stat queryCacheHits) - qhits )); S=$(( $(stat sqlStatements) - sql ))
}

labels() { # $1: label. Reads labels 0..99 (en) through the two-argument @Cacheable; checks every line.
  curl -sf "$URL/labels/[0-99]/en" > "$WORK/$1.out" || { say "FAIL: a request failed ($1)"; exit 1; }
  check "$WORK/$1.out" 100 '"label-%d-en" % i'
}

l2row() { say "$(printf '%-40s L2 hits %6s, query cache hits %6s of %s, SQL statements %s' "$1" "$2" "$3" "$M" "$4")"; }

hibernate_passes() { # $1: label; $2: 1 if the query-results region is warm. Entity, collection, query; checks SQL 0.
  local H Q S
  customers "$1-entity" "" "$NAME"; l2row "customers (entity), $1" "$H" "$Q" "$S"
  [ "$H" = "$M" ] && [ "$S" = 0 ] || { say "FAIL: the entity region did not serve every customer ($1)"; exit 1; }
  customers "$1-purchases" /purchases "$PURCHASES"; l2row "purchases (collection), $1" "$H" "$Q" "$S"
  [ "$H" -ge $((3 * M)) ] && [ "$S" = 0 ] || { say "FAIL: the collection region did not serve every customer's purchases ($1)"; exit 1; }
  if [ "$2" = 1 ]; then
    customers "$1-query" /by-query "$NAME"; l2row "name by query, $1" "$H" "$Q" "$S"
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
if s['hibernateOnSpringsManager'] is not True:
    print('[spring-boot-it] FAIL: Hibernate was not handed Spring\'s JCache manager by the starter: %s' % s); sys.exit(1)
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
# the starter's actuator health indicator and engine meters (the flash hits of the passes above)
HEALTH=$(curl -sf "$URL/actuator/health/hybridcache")
python3 - "$HEALTH" <<'PY' || exit 1
import json, sys
h = json.loads(sys.argv[1])
if h.get("status") != "UP" or h.get("details", {}).get("degraded") is not False or h["details"].get("flashEntries", 0) <= 0:
    print("[spring-boot-it] FAIL: /actuator/health/hybridcache is not UP with a flash tier in service: %s" % h); sys.exit(1)
PY
FLASH_METER=$(curl -sf "$URL/actuator/metrics/hybridcache.jcache.gets?tag=tier:flash" | python3 -c "import json,sys; print(int(json.load(sys.stdin)['measurements'][0]['value']))")
[ "$FLASH_METER" -ge "$(stat flashHits)" ] || { say "FAIL: the meter hybridcache.jcache.gets{tier=flash} reads $FLASH_METER, below the engine's $(stat flashHits) flash hits"; exit 1; }
say "OK: /actuator/health/hybridcache is UP (flash tier in service); hybridcache.jcache.gets{tier=flash} = $FLASH_METER"
labels first-labels; labels first-labels-again
[ "$(stat labelLoads)" = 100 ] || { say "FAIL: 100 labels (SimpleKey keys, demo.Label values) loaded $(stat labelLoads) times, not 100"; exit 1; }
say "OK: 100 labels cached through the serial-filter allow-list (SimpleKey keys, Java-serialized demo.Label values)"
customers first-entity "" "$NAME"; l2row "customers (entity), first pass" "$H" "$Q" "$S"
customers first-purchases /purchases "$PURCHASES"; l2row "purchases (collection), first pass" "$H" "$Q" "$S"
customers first-query /by-query "$NAME"; l2row "name by query, first pass" "$H" "$Q" "$S"
[ "$S" -ge "$M" ] || { say "FAIL: the first query pass ran $S SQL statements, fewer than its $M queries"; exit 1; }
hibernate_passes "second pass" 1
race first
# the race updated the Customer table: every cached query on it is older than its update timestamp now
customers race-query /by-query "$NAME"; l2row "name by query, after the race" "$H" "$Q" "$S"
[ "$Q" = 0 ] && [ "$S" -ge "$M" ] || { say "FAIL: the race's updates did not invalidate the cached query results"; exit 1; }
hibernate_passes "after the race, again" 1
summary "first run"

stop "$PID"; PID=
start clean-restart
first_second "first second after a clean stop" "$N"
pass after-clean-stop; row "after a clean stop (SIGTERM)"
[ "$(stat loads)" = 0 ] || { say "FAIL: not warm after a clean stop: $(stat loads) items loaded again"; exit 1; }
[ "$(stat flashHits)" -gt $((N / 2)) ] || { say "FAIL: only $(stat flashHits) flash hits after the restart"; exit 1; }
labels clean-labels
[ "$(stat labelLoads)" = 0 ] || { say "FAIL: not warm after a clean stop: $(stat labelLoads) labels loaded again"; exit 1; }
hibernate_passes "after a clean stop" 0
customers clean-query /by-query "$NAME"; l2row "name by query, after a clean stop" "$H" "$Q" "$S"
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
customers kill-entity "" "$NAME"; l2row "customers (entity) after kill -9" "$H" "$Q" "$S"
[ "$H" -ge $((M * 9 / 10)) ] || { say "FAIL: the L2 cache was not warm after kill -9: $H hits of $M"; exit 1; }
customers kill-purchases /purchases "$PURCHASES"; l2row "purchases (collection) after kill -9" "$H" "$Q" "$S"
RACED=$(curl -sf "$URL/customers/$M")
[ "$RACED" = "race-$((2 * ROUNDS))" ] || { say "FAIL: after kill -9 the raced customer reads $RACED, not race-$((2 * ROUNDS))"; exit 1; }
race "after kill -9"
summary "after kill -9 (this process)"


# A deploy: a clean stop; while the application is down a migration changes every customer's name (as a Flyway
# script at start-up or another service would) and the new build caches its entities in another shape
# (hibernate.cache.use_structured_entries: maps, not Hibernate's entry objects, so an old entry read by it fails
# the request); hybridcache.jcache.cache-version bumped (DEPLOY_CACHE_VERSION=1 keeps it: the check must fail).
# After the restart no old entry is served: every item and label is loaded again, every customer is read from
# SQL once (the new name), then from the L2 cache in the new shape; nothing is logged at WARN or ERROR.
stop "$PID"; PID=
pg_as "$PG_BIN/psql" -h 127.0.0.1 -p "$PG_PORT" -U postgres -d demo -qc \
  "update customer set name = 'customer-' || id || '-' || repeat('m', 200) where id < $M" > /dev/null
SETTINGS=(--hybridcache.jcache.directory="$WORK/cache" --hybridcache.jcache.cache-version="${DEPLOY_CACHE_VERSION:-2}")
APP_ARGS+=(--spring.jpa.properties.hibernate.cache.use_structured_entries=true)
NAME='"customer-%d-" % i + "m" * 200'
start deploy
customers deploy-entity "" "$NAME"; l2row "customers (entity), after the deploy" "$H" "$Q" "$S"
[ "$H" = 0 ] && [ "$S" -ge "$M" ] || { say "FAIL: after the deploy $H customers came from the L2 cache, $S SQL statements: not every one read from SQL"; exit 1; }
pass after-deploy; row "after the deploy (cache-version bumped)"
[ "$(stat loads)" = "$N" ] || { say "FAIL: after the deploy $(stat loads) items were loaded, not $N: the items cache did not start empty"; exit 1; }
labels deploy-labels
[ "$(stat labelLoads)" = 100 ] || { say "FAIL: after the deploy $(stat labelLoads) labels were loaded, not 100"; exit 1; }
customers deploy-purchases /purchases "$PURCHASES"; l2row "purchases (collection), after the deploy" "$H" "$Q" "$S"
customers deploy-query /by-query "$NAME"; l2row "name by query, after the deploy" "$H" "$Q" "$S"
[ "$Q" = 0 ] || { say "FAIL: after the deploy the query-results region served $Q queries of the last version"; exit 1; }
hibernate_passes "after the deploy, again" 1
if grep -E ' (WARN|ERROR) ' "$WORK/app-deploy.log"; then say "FAIL: the deployed application logged the above"; exit 1; fi
say "OK: deploy (cache-version 1 -> ${DEPLOY_CACHE_VERSION:-2}, structured entries, $M names migrated while down): every cache started empty, no old entry or shape served, no WARN or ERROR"

# A prefixed region set-up (hibernate.cache.region_prefix=someprefix: every region is someprefix.NAME): the
# update-timestamps region is still found by the end of its name (on the heap, eternal: summary checks it) and
# no stale value or query result is served under a writer.
stop "$PID"; PID=
start prefixed --spring.jpa.properties.hibernate.cache.region_prefix=someprefix
[ "$(stat timestampsRegion)" = someprefix.default-update-timestamps-region ] || { say "FAIL: /stats looked up $(stat timestampsRegion)"; exit 1; }
customers prefixed-entity "" "$NAME"; l2row "customers (entity), prefixed, cold" "$H" "$Q" "$S"
[ "$H" = 0 ] || { say "FAIL: the prefixed entity region (a new cache) served $H customers"; exit 1; }
customers prefixed-purchases /purchases "$PURCHASES"; l2row "purchases (collection), prefixed, cold" "$H" "$Q" "$S"
customers prefixed-query /by-query "$NAME"; l2row "name by query, prefixed, cold" "$H" "$Q" "$S"
hibernate_passes "prefixed regions" 1
race "prefixed regions"
customers prefixed-race-query /by-query "$NAME"; l2row "name by query, prefixed, after the race" "$H" "$Q" "$S"
[ "$Q" = 0 ] && [ "$S" -ge "$M" ] || { say "FAIL: with region_prefix the race's updates did not invalidate the cached query results"; exit 1; }
summary "prefixed regions"
say "OK: region_prefix=someprefix: $(stat timestampsRegion) on the heap and eternal, no stale read, cached queries invalidated by the writer"

# Two instances of the application on one host with default settings (no hybridcache.jcache.directory):
# both start, share nothing (an item loaded through one is loaded again by the other), and each one's private
# directory (named in its log, 0700) is gone after a clean stop.
stop "$PID"; PID=
SETTINGS=(--hybridcache.jcache.cache-version=2)
PORT_B=$(free_port)
launch instance-a "$PORT"; PID=$LAUNCHED
launch instance-b "$PORT_B"; PID_B=$LAUNCHED
ready instance-a "$PORT" "$PID"; ready instance-b "$PORT_B" "$PID_B"
URL_B=http://127.0.0.1:$PORT_B
private_dir() { sed -n 's/.*: directory \([^ ]*\) (private to this manager.*/\1/p' "$WORK/app-$1.log" | head -1; }
DIR_A=$(private_dir instance-a); DIR_B=$(private_dir instance-b)
[ -n "$DIR_A" ] && [ -n "$DIR_B" ] && [ "$DIR_A" != "$DIR_B" ] || { say "FAIL: private directories '$DIR_A' and '$DIR_B'"; exit 1; }
for d in "$DIR_A" "$DIR_B"; do
  [ "$(command stat -c %a "$d")" = 700 ] || { say "FAIL: $d has mode $(command stat -c %a "$d"), not 700"; exit 1; }
done
AT=$URL pass instance-a-items 0 500; AT=$URL_B pass instance-b-items 0 500
AT=$URL pass instance-a-again 0 500; AT=$URL_B pass instance-b-again 0 500
LA=$(stat loads); LB=$(stat loads "$URL_B")
say "two instances, default settings: instance A loaded $LA of 500 items (twice read), instance B $LB; directories $DIR_A, $DIR_B"
[ "$LA" = 500 ] && [ "$LB" = 500 ] || { say "FAIL: the two instances shared items (each must load all 500 once)"; exit 1; }
stop "$PID"; PID=; stop "$PID_B"
[ ! -e "$DIR_A" ] && [ ! -e "$DIR_B" ] || { say "FAIL: a private directory is left after a clean stop: $(ls -d "$DIR_A" "$DIR_B" 2>/dev/null)"; exit 1; }
say "OK: two instances with default settings both started, shared nothing, and their private directories are gone after a clean stop"

say "OK: $N items, 100 labels and $M customers (entity, collection, query), every response correct, no stale read in 4 races; warm after a clean stop and after kill -9; a deploy serves no old entry; region_prefix keeps the timestamps region; two default instances share nothing"
