#!/usr/bin/env bash
# One real Cassandra 5.0.9 node with hybridcache's row cache provider in lib/ (built from Maven),
# driven with cqlsh (PyPI) and with the project's CQL YCSB binding; checks that `nodetool info`'s
# row cache figures come from our provider, that writes, TRUNCATE and nodetool cache commands reach
# it, and that the provider's JMX bean is there. Exits non-zero on the first failed check.
#
#   src/it/cassandra-node.sh            (about 1.5 min; the node is stopped on exit)
#
# Idempotent: every run makes a fresh node under target/cassandra-it/nodes/node.
set -euo pipefail
# shellcheck source=src/it/cassandra.sh
source "$(dirname "${BASH_SOURCE[0]}")/cassandra.sh"

NODE=node
ADDRESS=127.0.0.1
ROW_CACHE_MIB=4
RECORDS=${HC_IT_RECORDS:-6000}
hc_fresh_run

hc_start "$NODE" "$ADDRESS" hybrid "$ROW_CACHE_MIB" "${HC_IT_HEAP:-512M}"
LOG=$HC_IT/nodes/$NODE/logs/system.log
hc_check "the node made its row cache with our provider" grep -q "hybridcache row cache: DRAM $ROW_CACHE_MIB MiB" "$LOG"

# --- cqlsh: reads fill and hit the cache, a write invalidates ---
STATEMENTS=$HC_IT/nodes/$NODE/it.cql
{
  echo "CREATE KEYSPACE it WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};"
  echo "CREATE TABLE it.kv (k int PRIMARY KEY, v text) WITH caching = {'keys': 'ALL', 'rows_per_partition': 'ALL'};"
  for k in $(seq 1 100); do echo "INSERT INTO it.kv (k, v) VALUES ($k, 'v$k');"; done
  for round in 1 2 3; do
    for k in $(seq 1 100); do echo "SELECT v FROM it.kv WHERE k = $k;"; done
  done
} > "$STATEMENTS"
hc_cqlsh "$ADDRESS" -f "$STATEMENTS" > "$HC_IT/nodes/$NODE/cqlsh.out"
hc_check "cqlsh read back every value 3 times" test "$(grep -cE '^ +v[0-9]+$' "$HC_IT/nodes/$NODE/cqlsh.out")" -eq 300
hc_log "nodetool info: $(hc_row_cache_info "$NODE")"
hc_check "row cache capacity is row_cache_size" test "$(hc_row_cache_figure "$NODE" capacity)" = "$ROW_CACHE_MIB MiB"
hc_check "100 partitions cached" test "$(hc_row_cache_figure "$NODE" entries)" -ge 100
hc_check "200 row cache hits" test "$(hc_row_cache_figure "$NODE" hits)" -ge 200
hc_check "our DRAM tier served them (JMX DramHits >= 200)" test "$(hc_nodetool "$NODE" sjk mx \
  -b 'io.hybridcache:type=HybridCache,name="cassandra-row-cache"' -mg -f DramHits | tail -1)" -ge 200

OUT=$(hc_cqlsh "$ADDRESS" -e "SELECT v FROM it.kv WHERE k = 7; UPDATE it.kv SET v = 'new7' WHERE k = 7; SELECT v FROM it.kv WHERE k = 7; SELECT v FROM it.kv WHERE k = 7;")
hc_check "a write is visible to the next reads" test "$(grep -cE '^ +new7$' <<< "$OUT")" -eq 2

# --- YCSB over the project's CQL binding: load, then workload B; every read must succeed ---
BENCH=$(hc_bench_jar)
hc_cqlsh "$ADDRESS" -e "CREATE KEYSPACE ycsb WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}; \
  CREATE TABLE ycsb.usertable (y_id text PRIMARY KEY, field0 text, field1 text, field2 text, field3 text, field4 text, \
  field5 text, field6 text, field7 text, field8 text, field9 text) WITH caching = {'keys': 'ALL', 'rows_per_partition': 'ALL'};"
HITS_BEFORE=$(hc_row_cache_figure "$NODE" hits)
for phase in load run; do
  flag=-load
  [ "$phase" = run ] && flag=-t
  "$HC_JAVA" -Xmx256m -cp "$BENCH" site.ycsb.Client $flag -db io.hybridcache.bench.cassandra.CqlDB \
    -P "$HC_ROOT/src/workloads/workloadb" -p recordcount="$RECORDS" -p operationcount=$((RECORDS * 2)) \
    -p cql.hosts="$ADDRESS:$HC_NATIVE_PORT" -threads 4 -s > "$HC_IT/nodes/$NODE/ycsb-$phase.out" \
    2> "$HC_IT/nodes/$NODE/ycsb-$phase.err"
  grep -E '^\[(OVERALL|READ|UPDATE|INSERT)\], (Throughput|Operations|Return=)' "$HC_IT/nodes/$NODE/ycsb-$phase.out" >&2
  hc_check "YCSB $phase: no failed operation" test "$(grep -c 'Return=ERROR\|Return=NOT_FOUND' "$HC_IT/nodes/$NODE/ycsb-$phase.out")" -eq 0
done
hc_log "nodetool info: $(hc_row_cache_info "$NODE")"
hc_check "YCSB reads were row cache hits" test "$(hc_row_cache_figure "$NODE" hits)" -gt $((HITS_BEFORE + RECORDS / 2))
hc_log "JMX: $(hc_nodetool "$NODE" sjk mx -b 'io.hybridcache:type=HybridCache,name="cassandra-row-cache"' -mg \
  -f FlashEntries | tail -1) flash entries, app write amplification $(hc_nodetool "$NODE" sjk mx \
  -b 'io.hybridcache:type=HybridCache,name="cassandra-row-cache"' -mg -f AppWriteAmplification | tail -1)"
hc_check "partitions beyond the 4 MiB DRAM tier went to flash (JMX FlashEntries > 0)" test "$(hc_nodetool "$NODE" sjk mx \
  -b 'io.hybridcache:type=HybridCache,name="cassandra-row-cache"' -mg -f FlashEntries | tail -1)" -gt 0

# --- TRUNCATE and nodetool's cache commands reach the provider ---
hc_cqlsh "$ADDRESS" -e "TRUNCATE ycsb.usertable;"
OUT=$(hc_cqlsh "$ADDRESS" -e "SELECT count(*) FROM ycsb.usertable WHERE y_id = 'user1';")
hc_check "TRUNCATE: nothing served from the cache" grep -qE '^ +0$' <<< "$OUT"
# TRUNCATE is lazy (a table floor, no flash scan): the old entries stay counted until read or reclaimed,
# but none is served
OUT=$(hc_cqlsh "$ADDRESS" -e "SELECT y_id FROM ycsb.usertable WHERE y_id IN ('user1', 'user2', 'user3', 'user10', 'user100');")
hc_check "TRUNCATE: no partition of the table served afterwards" grep -q '(0 rows)' <<< "$OUT"
hc_nodetool "$NODE" setcachecapacity 16 2 0
hc_check "nodetool setcachecapacity resized our DRAM tier" test "$(hc_row_cache_figure "$NODE" capacity)" = "2 MiB"
hc_nodetool "$NODE" invalidaterowcache
hc_check "nodetool invalidaterowcache emptied both tiers" test "$(hc_row_cache_figure "$NODE" entries)" -eq 0
hc_check "no error in the node's log" test "$(grep -c '^ERROR' "$LOG")" -eq 0
hc_log "PASS: single node"
