#!/usr/bin/env bash
# The two gaps of the clean-drain warm start (start=warm), on one real Cassandra 5.0.9 node that is
# drained, stopped and started again with its data and flash tier kept (src/site/cassandra.md, point 5):
#   0. a clean restart with the provider comes back warm and serves the cached partitions;
#   1. a run without the provider in between (row_cache_size: 0: Cassandra's NopCacheProvider) that
#      overwrites partitions: the next start=warm start must be cold and read the new values;
#   2. writes while the table's caching does not cache rows (ALTER to keys only, overwrite, ALTER back to
#      rows ALL), then drain and a warm restart: the new values, within the run and after the restart.
# Exits non-zero on the first failed check.
#
#   src/it/cassandra-warm-gaps.sh       (about 3 min: five starts of the node; it is stopped on exit)
#
# Idempotent: every run makes a fresh node under target/cassandra-it/nodes/warm.
set -euo pipefail
# shellcheck source=src/it/cassandra.sh
source "$(dirname "${BASH_SOURCE[0]}")/cassandra.sh"

NODE=warm
ADDRESS=127.0.0.1
ROW_CACHE_MIB=16
DIR=$HC_IT/nodes/$NODE
LOG=$DIR/logs/system.log
hc_fresh_run

# The log lines of the current run of the node (system.log is appended to across restarts).
run_log() { tail -n +"$((LOG_FROM + 1))" "$LOG"; }
run_log_has() { grep -q -- "$1" < <(run_log); } # not a pipe: grep -q would end tail with SIGPIPE (pipefail)
mark_log() { LOG_FROM=$( [ -f "$LOG" ] && wc -l < "$LOG" || echo 0); }

# The values of partitions FROM..TO, one a line, in key order (read with cqlsh).
read_values() { # FROM TO
  local k stmts=$DIR/read.cql
  : > "$stmts"
  for k in $(seq "$1" "$2"); do echo "SELECT v FROM gaps.kv WHERE k = $k;" >> "$stmts"; done
  hc_cqlsh "$ADDRESS" -f "$stmts" | grep -E '^ +[a-z]+[0-9]+$' | tr -d ' '
}

# The expected values PREFIX<k> for k in FROM..TO, one a line.
expect_values() { # PREFIX FROM TO
  local k
  for k in $(seq "$2" "$3"); do echo "$1$k"; done
}

# Checks that partitions FROM..TO read as PREFIX<k>; on failure, shows the first difference.
check_values() { # DESCRIPTION PREFIX FROM TO
  local got want
  got=$(read_values "$3" "$4")
  want=$(expect_values "$2" "$3" "$4")
  if [ "$got" = "$want" ]; then
    hc_log "ok: $1"
  else
    diff <(echo "$want") <(echo "$got") | head -5 >&2 || true
    hc_fail "$1 (left: expected, right: read)"
  fi
}

write_values() { # PREFIX FROM TO
  local k stmts=$DIR/write.cql
  : > "$stmts"
  for k in $(seq "$2" "$3"); do echo "UPDATE gaps.kv SET v = '$1$k' WHERE k = $k;" >> "$stmts"; done
  hc_cqlsh "$ADDRESS" -f "$stmts" > /dev/null
}

drain_and_stop() {
  hc_nodetool "$NODE" drain
  hc_stop "$NODE" # a kill after its 30 s would make the next start cold: the checks below tell
}

started_warm() { run_log_has 'hybridcache row cache: DRAM .*start=warm: flash tier kept'; }
started_cold() { run_log_has 'hybridcache row cache: DRAM .*start=warm: flash tier emptied'; }

# --- first run: the provider, start=warm (cold: no marker yet); fill the cache ---
hc_lib
hc_configure "$NODE" "$ADDRESS" hybrid "$ROW_CACHE_MIB" "$ADDRESS:$HC_STORAGE_PORT" -9223372036854775808
sed -i -E 's/^start=.*/start=warm/' "$DIR/conf/hybridcache.properties"
mark_log
hc_start_node "$NODE" "${HC_IT_HEAP:-512M}"
hc_check "the node made its row cache with our provider" run_log_has "hybridcache row cache: DRAM $ROW_CACHE_MIB MiB"
hc_cqlsh "$ADDRESS" -e "CREATE KEYSPACE gaps WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}; \
  CREATE TABLE gaps.kv (k int PRIMARY KEY, v text) WITH caching = {'keys': 'ALL', 'rows_per_partition': 'ALL'};"
write_values a 1 50
check_values "first run: written values read back (and cached)" a 1 50
check_values "first run: read again" a 1 50
hc_check "first run: 50 partitions in the row cache" test "$(hc_row_cache_figure "$NODE" entries)" -ge 50
drain_and_stop
hc_check "first run: closed cleanly at the drain (marker written)" test -f "$DIR/flash/cassandra-warm-start"

# --- 0: a clean restart with the provider comes back warm ---
mark_log
hc_restart "$NODE" "$ROW_CACHE_MIB" warm "${HC_IT_HEAP:-512M}"
hc_check "clean restart: started warm (flash tier kept)" started_warm
check_values "clean restart: the values" a 1 50
hc_check "clean restart: served from the kept flash tier (50 row cache hits)" \
  test "$(hc_row_cache_figure "$NODE" hits)" -ge 50
drain_and_stop

# --- 1: a run without the provider (row_cache_size: 0) overwrites partitions 1..10 ---
mark_log
hc_restart "$NODE" 0 warm "${HC_IT_HEAP:-512M}"
hc_check "row_cache_size 0: the provider is not made" test "$(run_log | grep -c 'hybridcache row cache: DRAM')" -eq 0
write_values b 1 10
check_values "row_cache_size 0: the new values" b 1 10
drain_and_stop
hc_check "the clean-close marker of the provider's last run is still there" test -f "$DIR/flash/cassandra-warm-start"
mark_log
hc_restart "$NODE" "$ROW_CACHE_MIB" warm "${HC_IT_HEAP:-512M}"
hc_check "after a run without the provider: started cold" started_cold
hc_check "after a run without the provider: the log says why" run_log_has 'the live sstables are not those of the clean close'
check_values "after a run without the provider: the overwritten partitions read new" b 1 10
check_values "after a run without the provider: the others" a 11 50

# --- 2: writes while the table does not cache rows ---
check_values "gap 2: cache partitions 20..29 again" a 20 29
hc_cqlsh "$ADDRESS" -e "ALTER TABLE gaps.kv WITH caching = {'keys': 'ALL', 'rows_per_partition': 'NONE'};"
write_values c 20 29
hc_cqlsh "$ADDRESS" -e "ALTER TABLE gaps.kv WITH caching = {'keys': 'ALL', 'rows_per_partition': 'ALL'};"
check_values "gap 2, same run: partitions 20..24 read new after caching is back on" c 20 24
drain_and_stop
mark_log
hc_restart "$NODE" "$ROW_CACHE_MIB" warm "${HC_IT_HEAP:-512M}"
hc_check "gap 2: the restart is warm" started_warm
check_values "gap 2, after a warm restart: partitions 25..29 (not read since) read new" c 25 29
check_values "gap 2, after a warm restart: partitions 20..24" c 20 24
check_values "gap 2, after a warm restart: the others" a 11 19
hc_check "no error in the node's log" test "$(grep -c '^ERROR' "$LOG")" -eq 0
hc_log "PASS: warm start gaps"
