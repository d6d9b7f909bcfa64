#!/usr/bin/env bash
# A 3-node Cassandra 5.0.9 cluster on 127.0.0.1, 127.0.0.2, 127.0.0.3, every node with hybridcache's
# row cache provider, a keyspace with replication factor 3. Each round writes new values through one
# node at QUORUM and reads them back through the two others at QUORUM, twice (the second read is
# served by the row caches); every value must be the one last written. Then checks that each node's
# row cache figures in `nodetool info` come from our provider and saw hits. Then a small rolling
# restart with `start=warm`: c2 drained and stopped, c3 killed with -9, while new values are written;
# c2 must come back warm (its flash tier kept), c3 cold, and every QUORUM read through them current.
#
#   src/it/cassandra-cluster.sh         (about 4 min; the nodes are stopped on exit)
set -euo pipefail
# shellcheck source=src/it/cassandra.sh
source "$(dirname "${BASH_SOURCE[0]}")/cassandra.sh"

ADDRESSES=(127.0.0.1 127.0.0.2 127.0.0.3)
TOKENS=(-9223372036854775808 -3074457345618258603 3074457345618258602)
SEEDS="127.0.0.1:$HC_STORAGE_PORT"
ROUNDS=${HC_IT_ROUNDS:-4}
KEYS=${HC_IT_KEYS:-60}
hc_fresh_run

hc_lib
export HC_START=warm # from the first start: a run that started cold does not close at the end of its drain
for i in 0 1 2; do
  hc_configure "c$((i + 1))" "${ADDRESSES[$i]}" hybrid 8 "$SEEDS" "${TOKENS[$i]}"
done
for i in 0 1 2; do
  hc_start_node "c$((i + 1))" "${HC_IT_HEAP:-384M}"
done

# bounded wait for the ring: three nodes Up/Normal
for _ in $(seq 1 60); do
  [ "$(hc_nodetool c1 status 2>/dev/null | grep -c '^UN')" -eq 3 ] && break
  sleep 1
done
hc_check "3 nodes up and normal" test "$(hc_nodetool c1 status | grep -c '^UN')" -eq 3

hc_cqlsh 127.0.0.1 -e "CREATE KEYSPACE itc WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}; \
  CREATE TABLE itc.kv (k int PRIMARY KEY, v text) WITH caching = {'keys': 'ALL', 'rows_per_partition': 'ALL'};"

KEY_LIST=$(seq -s, 0 $((KEYS - 1)))
for round in $(seq 1 "$ROUNDS"); do
  writer=$(( (round - 1) % 3 ))
  statements=$HC_IT/nodes/c1/round-$round.cql
  {
    echo "CONSISTENCY QUORUM;"
    for k in $(seq 0 $((KEYS - 1))); do echo "INSERT INTO itc.kv (k, v) VALUES ($k, 'r$round-k$k');"; done
  } > "$statements"
  hc_cqlsh "${ADDRESSES[$writer]}" -f "$statements" > /dev/null
  for reader in 0 1 2; do
    [ "$reader" = "$writer" ] && continue
    OUT=$(hc_cqlsh "${ADDRESSES[$reader]}" -e "CONSISTENCY QUORUM; SELECT k, v FROM itc.kv WHERE k IN ($KEY_LIST); SELECT k, v FROM itc.kv WHERE k IN ($KEY_LIST);")
    echo "$OUT" > "$HC_IT/nodes/c1/round-$round-read-$reader.out"
    good=$(grep -cE "^ +[0-9]+ \| +r$round-k[0-9]+ *$" <<< "$OUT" || true)
    wrong=$(grep -E '^ +[0-9]+ \| +r[0-9]+-k[0-9]+ *$' <<< "$OUT" | awk -v r="r$round-" '{ split($3, a, "k"); if ($3 != r "k" $1) print }' | head -3)
    hc_check "round $round: written via ${ADDRESSES[$writer]}, read twice at QUORUM via ${ADDRESSES[$reader]}: $good of $((2 * KEYS)) values current" \
      test "$good" -eq $((2 * KEYS)) -a -z "$wrong"
  done
done

for i in 1 2 3; do
  hc_log "c$i nodetool info: $(hc_row_cache_info "c$i")"
  hc_check "c$i made its row cache with our provider" grep -q "hybridcache row cache: DRAM 8 MiB" "$HC_IT/nodes/c$i/logs/system.log"
  hc_check "c$i row cache capacity is its row_cache_size" test "$(hc_row_cache_figure "c$i" capacity)" = "8 MiB"
  hc_check "c$i row cache served hits" test "$(hc_row_cache_figure "c$i" hits)" -gt 0
  hc_check "c$i no error in its log" test "$(grep -c '^ERROR' "$HC_IT/nodes/c$i/logs/system.log")" -eq 0
done
# --- a rolling restart: c2 drained + stopped, c3 killed with -9; writes go on through c1 meanwhile ---
write_round() { # ROUND VIA_ADDRESS
  local f=$HC_IT/nodes/c1/round-$1.cql
  { echo "CONSISTENCY QUORUM"; for k in $(seq 0 $((KEYS - 1))); do echo "INSERT INTO itc.kv (k, v) VALUES ($k, 'r$1-k$k');"; done; } > "$f"
  hc_cqlsh "$2" -f "$f" > /dev/null
}
read_current() { # ROUND VIA_ADDRESS WHAT
  local out good
  out=$(hc_cqlsh "$2" -e "CONSISTENCY QUORUM; SELECT k, v FROM itc.kv WHERE k IN ($KEY_LIST); SELECT k, v FROM itc.kv WHERE k IN ($KEY_LIST);")
  good=$(grep -cE "^ +[0-9]+ \| +r$1-k[0-9]+ *$" <<< "$out" || true)
  hc_check "$3: $good of $((2 * KEYS)) values current at QUORUM via $2" test "$good" -eq $((2 * KEYS))
}
hc_nodetool c2 drain
hc_stop c2
write_round drain 127.0.0.1
hc_restart c2 8 warm "${HC_IT_HEAP:-384M}"
hc_check "c2 came back warm after its drain" grep -q "start=warm: flash tier kept" "$HC_IT/nodes/c2/logs/system.log"
read_current drain 127.0.0.2 "after c2's drain and restart"
hc_kill c3
write_round kill 127.0.0.1
hc_restart c3 8 warm "${HC_IT_HEAP:-384M}"
hc_check "c3 came back cold after kill -9 (cassandra.md, point 5)" grep -q "start=warm: flash tier emptied" "$HC_IT/nodes/c3/logs/system.log"
read_current kill 127.0.0.3 "after c3's kill -9 and restart"
for i in 2 3; do
  hc_check "c$i no error in its log after the restart" test "$(grep -c '^ERROR' "$HC_IT/nodes/c$i/logs/system.log")" -eq 0
done
hc_log "PASS: 3-node cluster, RF 3, QUORUM, a rolling restart (drain, kill -9)"
