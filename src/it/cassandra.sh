#!/usr/bin/env bash
# Real Cassandra 5.0.9 nodes on this machine with the hybridcache row cache provider in lib/.
#
# Sourced by cassandra-node.sh and cassandra-cluster.sh (functions hc_*), and a command line:
#   src/it/cassandra.sh lib                      build the node lib/ from Maven Central (once)
#   src/it/cassandra.sh start NAME ADDRESS PROVIDER ROW_CACHE_MIB [HEAP] [SEEDS] [TOKEN]
#        PROVIDER: hybrid (our jar in lib/) or ohc (Cassandra's default OHCProvider)
#   src/it/cassandra.sh restart NAME ROW_CACHE_MIB START [HEAP]   again, data and flash kept (START cold|warm)
#   src/it/cassandra.sh stop NAME | stop-all
#   src/it/cassandra.sh kill NAME                kill -9, as a crash (the next restart finds what the kill left)
#   src/it/cassandra.sh nodetool NAME ARGS...    e.g. nodetool n1 info
#   src/it/cassandra.sh cqlsh ADDRESS ARGS...    cqlsh from PyPI in a venv under the work dir
#
# Everything lives under $HC_IT_DIR (default target/cassandra-it): lib/, venv/, nodes/NAME/{conf,lib,
# data,flash,logs}. Ports: CQL $HC_NATIVE_PORT (19042) on each node's address, storage
# $HC_STORAGE_PORT (17000), JMX 17199 + 100 x (last octet - 1) on 127.0.0.1. Flash tier: HC_FLASH_SIZE,
# HC_SEGMENT_SIZE, HC_DIRECT_IO (true), HC_START (cold); Cassandra's saved row cache: HC_ROW_CACHE_SAVE_PERIOD (0s = off)
# and HC_ROW_CACHE_KEYS_TO_SAVE (100000); HC_DYNAMIC_SNITCH (true/false: Cassandra's, default true); node: HC_NODE_MEMORY (a memory cgroup), HC_EXTRA_JVM_OPTS,
# HC_DATA_DIR (the node's storage directory: data, commitlog, hints, saved caches; default
# nodes/NAME/data; an existing directory, e.g. a mount, kept as it is) and HC_CGROUPS (cgroup
# directories, space-separated, that the node joins before it starts, e.g. a blkio throttle).
set -euo pipefail

HC_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HC_IT=${HC_IT_DIR:-$HC_ROOT/target/cassandra-it}
HC_LIB=$HC_IT/lib
HC_CONF=$HC_ROOT/src/conf/cassandra
HC_NATIVE_PORT=${HC_NATIVE_PORT:-19042}
HC_STORAGE_PORT=${HC_STORAGE_PORT:-17000}
HC_CQLSH_VERSION=6.2.2
HC_JAVA=${JAVA_HOME:+$JAVA_HOME/bin/}java

hc_log() { echo "[cassandra-it] $*" >&2; }
hc_fail() { echo "[cassandra-it] FAIL: $*" >&2; exit 1; }

# Runs CONDITION...; logs "ok: DESCRIPTION" or fails the script with it.
hc_check() { # DESCRIPTION CONDITION...
  local what=$1
  shift
  if "$@"; then hc_log "ok: $what"; else hc_fail "$what"; fi
}

# For a test script: stops nodes left by an earlier run now, and this run's nodes on exit.
hc_fresh_run() {
  trap 'hc_stop_all' EXIT
  hc_stop_all
}

# The shaded provider jar, built if missing.
hc_plugin_jar() {
  local jar
  jar=$(ls "$HC_ROOT"/cassandra-plugin/target/hybridcache-cassandra-*.jar 2>/dev/null | grep -v -- '-sources\.jar\|-javadoc\.jar\|original-' | head -1 || true)
  if [ -z "$jar" ]; then
    hc_log "building the provider jar"
    (cd "$HC_ROOT" && ./mvnw -B -q -pl cassandra-plugin -am package -DskipTests) >&2
    jar=$(ls "$HC_ROOT"/cassandra-plugin/target/hybridcache-cassandra-*.jar | grep -v -- '-sources\.jar\|-javadoc\.jar\|original-' | head -1)
  fi
  echo "$jar"
}

# The bench jar (YCSB with our CQL binding), built if missing.
hc_bench_jar() {
  local jar=$HC_ROOT/bench/target/hybridcache-bench.jar
  if [ ! -f "$jar" ]; then
    hc_log "building the bench jar"
    (cd "$HC_ROOT" && ./mvnw -B -q -pl bench -am package -DskipTests) >&2
  fi
  echo "$jar"
}

# Cassandra's lib/: cassandra-all 5.0.9 and its runtime dependencies, copied by Maven (idempotent).
hc_lib() {
  if [ -f "$HC_LIB/.complete" ]; then
    return
  fi
  hc_log "building a Cassandra node lib/ in $HC_LIB (mvn dependency:copy-dependencies of cassandra-all)"
  rm -rf "$HC_LIB.tmp"
  (cd "$HC_ROOT" && ./mvnw -B -q -f src/it/cassandra-lib/pom.xml org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies \
      -DincludeScope=runtime -DoutputDirectory="$HC_LIB.tmp") >&2
  rm -rf "$HC_LIB"
  mv "$HC_LIB.tmp" "$HC_LIB"
  touch "$HC_LIB/.complete"
  hc_log "lib/ has $(ls "$HC_LIB" | grep -c '\.jar$') jars"
}

hc_jvm_opts() {
  grep -v '^#' "$HC_CONF/jvm17.options" | grep -v '^[[:space:]]*$'
}

hc_jmx_port() { # ADDRESS
  echo $((17199 + 100 * (${1##*.} - 1)))
}

hc_port_open() { # ADDRESS PORT
  (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null
}

# Writes a node's conf/ and lib/ (a fresh node every time).
hc_configure() { # NAME ADDRESS PROVIDER ROW_CACHE_MIB SEEDS TOKEN
  local name=$1 address=$2 provider=$3 mib=$4 seeds=$5 token=$6
  local dir=$HC_IT/nodes/$name class
  case "$provider" in
    hybrid) class=io.hybridcache.cassandra.HybridRowCacheProvider ;;
    ohc) class=org.apache.cassandra.cache.OHCProvider ;;
    *) hc_fail "provider must be hybrid or ohc, was $provider" ;;
  esac
  rm -rf "$dir"
  mkdir -p "$dir/conf" "$dir/lib" "$dir/logs" "$dir/flash"
  if [ -n "${HC_DATA_DIR:-}" ]; then
    [ -d "$HC_DATA_DIR" ] || hc_fail "HC_DATA_DIR $HC_DATA_DIR is not a directory"
    echo "$HC_DATA_DIR" > "$dir/datadir"
  else
    mkdir -p "$dir/data"
    echo "$dir/data" > "$dir/datadir"
  fi
  sed -e "s|@CLUSTER@|${HC_CLUSTER:-hybridcache-it}|" -e "s|@TOKEN@|$token|" -e "s|@SEEDS@|$seeds|" \
      -e "s|@ADDRESS@|$address|g" -e "s|@STORAGE_PORT@|$HC_STORAGE_PORT|" -e "s|@NATIVE_PORT@|$HC_NATIVE_PORT|" \
      -e "s|@ROW_CACHE_CLASS@|$class|" -e "s|@ROW_CACHE_MIB@|$mib|" \
      -e "s|^row_cache_save_period: .*|row_cache_save_period: ${HC_ROW_CACHE_SAVE_PERIOD:-0s}|" \
      -e "s|^row_cache_keys_to_save: .*|row_cache_keys_to_save: ${HC_ROW_CACHE_KEYS_TO_SAVE:-100000}|" \
      -e "s|@MEMTABLE_MIB@|${HC_MEMTABLE_MIB:-64}|" -e "s|@KEY_CACHE_MIB@|${HC_KEY_CACHE_MIB:-16}|" \
      "$HC_CONF/cassandra.yaml.template" > "$dir/conf/cassandra.yaml"
  if [ -n "${HC_DYNAMIC_SNITCH:-}" ]; then # true or false: Cassandra's dynamic snitch (its default: true)
    case "$HC_DYNAMIC_SNITCH" in true|false) ;; *) hc_fail "HC_DYNAMIC_SNITCH must be true or false, was $HC_DYNAMIC_SNITCH";; esac
    echo "dynamic_snitch: $HC_DYNAMIC_SNITCH" >> "$dir/conf/cassandra.yaml"
  fi
  cp "$HC_CONF/logback.xml" "$dir/conf/logback.xml"
  ln -s "$HC_LIB"/*.jar "$dir/lib/"
  if [ "$provider" = hybrid ]; then
    cp "$(hc_plugin_jar)" "$dir/lib/"
    cat > "$dir/conf/hybridcache.properties" <<EOF
# beside cassandra.yaml: found by the provider without a system property
directory=$dir/flash
flash_size=${HC_FLASH_SIZE:-512MiB}
segment_size=${HC_SEGMENT_SIZE:-8MiB}
write_buffer_size=1MiB
admission=accept-all
direct_io=${HC_DIRECT_IO:-true}
start=${HC_START:-cold}
EOF
  fi
  echo "$address" > "$dir/address"
}

# A memory cgroup (v1 or v2) below ours limited to BYTES, for a node whose page cache must not hold
# the whole data set; prints its directory, or nothing (with a warning) where cgroups are not writable.
hc_memory_cgroup() { # NAME BYTES
  local base dir
  if [ -d /sys/fs/cgroup/memory ]; then
    base=/sys/fs/cgroup/memory$(awk -F: '$2 == "memory" {print $3}' /proc/self/cgroup)
  else
    base=/sys/fs/cgroup$(awk -F: '$1 == "0" {print $3}' /proc/self/cgroup)
  fi
  dir=$base/hybridcache-$1
  if mkdir -p "$dir" 2>/dev/null && { echo "$2" > "$dir/memory.limit_in_bytes" || echo "$2" > "$dir/memory.max"; } 2>/dev/null; then
    echo "$dir"
  else
    hc_log "WARNING: cannot make a memory cgroup under $base: $1 runs without a memory limit"
  fi
}

# Starts a configured node and waits (bounded) for its CQL port. With HC_NODE_MEMORY (e.g. 1400M)
# the node runs in a memory cgroup of that size: heap, off-heap and the page cache of its SSTables.
hc_start_node() { # NAME HEAP
  local name=$1 heap=${2:-512M}
  local dir=$HC_IT/nodes/$name address cgroup=''
  if [ -n "${HC_NODE_MEMORY:-}" ]; then
    cgroup=$(hc_memory_cgroup "$name" "$HC_NODE_MEMORY")
    [ -n "$cgroup" ] && hc_log "$name: memory cgroup $cgroup limited to $HC_NODE_MEMORY"
  fi
  address=$(cat "$dir/address")
  if hc_port_open "$address" "$HC_NATIVE_PORT"; then
    hc_fail "$address:$HC_NATIVE_PORT is already taken (another node running? src/it/cassandra.sh stop-all)"
  fi
  local -a opts
  mapfile -t opts < <(hc_jvm_opts)
  # shellcheck disable=SC2086
  local g
  for g in ${HC_CGROUPS:-}; do
    [ -f "$g/cgroup.procs" ] || hc_fail "HC_CGROUPS: $g is not a cgroup directory"
  done
  ( if [ -n "$cgroup" ]; then echo "$BASHPID" > "$cgroup/cgroup.procs"; fi
    for g in ${HC_CGROUPS:-}; do echo "$BASHPID" > "$g/cgroup.procs"; done
    exec setsid "$HC_JAVA" -Xms"$heap" -Xmx"$heap" "${opts[@]}" ${HC_EXTRA_JVM_OPTS:-} \
    -Dcassandra.config="file://$dir/conf/cassandra.yaml" -Dcassandra.storagedir="$(cat "$dir/datadir")" \
    -Dcassandra.logdir="$dir/logs" -Dlogback.configurationFile="$dir/conf/logback.xml" \
    -Dcassandra.jmx.local.port="$(hc_jmx_port "$address")" -Dcassandra-foreground=yes \
    -Dcassandra.skip_wait_for_gossip_to_settle=0 -Dcassandra.ring_delay_ms=1000 \
    -cp "$dir/conf:$dir/lib/*" org.apache.cassandra.service.CassandraDaemon ) \
    > "$dir/logs/stdout.log" 2>&1 < /dev/null &
  echo $! > "$dir/pid"
  local pid=$! waited=0
  hc_log "$name: started pid $pid on $address (heap $heap), waiting for CQL on port $HC_NATIVE_PORT"
  until hc_port_open "$address" "$HC_NATIVE_PORT"; do
    if ! kill -0 "$pid" 2>/dev/null; then
      tail -n 30 "$dir/logs/system.log" "$dir/logs/stdout.log" >&2 || true
      hc_fail "$name exited during start-up"
    fi
    if [ "$waited" -ge "${HC_START_TIMEOUT:-180}" ]; then
      tail -n 30 "$dir/logs/system.log" >&2 || true
      hc_fail "$name did not open CQL within ${HC_START_TIMEOUT:-180}s"
    fi
    sleep 1
    waited=$((waited + 1))
  done
  hc_log "$name: up after ${waited}s"
}

hc_start() { # NAME ADDRESS PROVIDER ROW_CACHE_MIB [HEAP] [SEEDS] [TOKEN]
  hc_lib
  hc_configure "$1" "$2" "$3" "$4" "${6:-$2:$HC_STORAGE_PORT}" "${7:--9223372036854775808}"
  hc_start_node "$1" "${5:-512M}"
}

# Starts a node configured earlier again, keeping its data and flash tier: ROW_CACHE_MIB (0: Cassandra uses
# its NopCacheProvider, not ours) and the provider's START (cold | warm).
hc_restart() { # NAME ROW_CACHE_MIB START [HEAP]
  local dir=$HC_IT/nodes/$1
  [ -f "$dir/conf/cassandra.yaml" ] || hc_fail "$1 was never configured"
  sed -i -E "s/^row_cache_size: .*/row_cache_size: $2MiB/" "$dir/conf/cassandra.yaml"
  if [ -f "$dir/conf/hybridcache.properties" ]; then
    sed -i -E "s/^start=.*/start=$3/" "$dir/conf/hybridcache.properties"
  fi
  hc_start_node "$1" "${4:-512M}"
}

hc_stop() { # NAME
  local dir=$HC_IT/nodes/$1 pid
  [ -f "$dir/pid" ] || return 0
  pid=$(cat "$dir/pid")
  rm -f "$dir/pid"
  if kill "$pid" 2>/dev/null; then
    for _ in $(seq 1 30); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 1
    done
    if kill -0 "$pid" 2>/dev/null; then
      kill -9 "$pid" 2>/dev/null || true
      hc_log "$1: killed"
    else
      hc_log "$1: stopped"
    fi
  fi
  local cg
  for cg in $(find /sys/fs/cgroup -maxdepth 4 -type d -name "hybridcache-$1" 2>/dev/null); do
    rmdir "$cg" 2>/dev/null || true
  done
}

# kill -9 (a crash): waits, bounded, until the process is gone; keeps data, flash and the cgroups.
hc_kill() { # NAME
  local dir=$HC_IT/nodes/$1 pid
  [ -f "$dir/pid" ] || hc_fail "$1 has no pid file: not running"
  pid=$(cat "$dir/pid")
  rm -f "$dir/pid"
  kill -9 "$pid" 2>/dev/null || true
  for _ in $(seq 1 300); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -0 "$pid" 2>/dev/null && hc_fail "$1 (pid $pid) still runs 30 s after kill -9"
  hc_log "$1: killed with -9"
}

hc_stop_all() {
  local d
  for d in "$HC_IT"/nodes/*/; do
    [ -d "$d" ] && hc_stop "$(basename "$d")"
  done
  return 0
}

hc_nodetool() { # NAME ARGS...
  local name=$1
  shift
  local -a opts
  mapfile -t opts < <(hc_jvm_opts)
  mkdir -p "$HC_IT/tools-logs"
  "$HC_JAVA" -Xmx128m "${opts[@]}" -Dcassandra.logdir="$HC_IT/tools-logs" \
    -Dlogback.configurationFile="$HC_CONF/logback.xml" -cp "$HC_LIB/*" org.apache.cassandra.tools.NodeTool \
    -h 127.0.0.1 -p "$(hc_jmx_port "$(cat "$HC_IT/nodes/$name/address")")" "$@"
}

hc_cqlsh() { # ADDRESS ARGS...
  local address=$1
  shift
  if [ ! -x "$HC_IT/venv/bin/cqlsh" ]; then
    hc_log "installing cqlsh $HC_CQLSH_VERSION from PyPI into $HC_IT/venv"
    rm -rf "$HC_IT/venv"
    python3 -m venv "$HC_IT/venv"
    "$HC_IT/venv/bin/pip" install -q "cqlsh==$HC_CQLSH_VERSION" >&2
  fi
  "$HC_IT/venv/bin/cqlsh" "$address" "$HC_NATIVE_PORT" --request-timeout=30 "$@"
}

# The row cache line of `nodetool info`, e.g. "Row Cache : entries 120, size 150.2 KiB, capacity 32 MiB, 240 hits, ...".
hc_row_cache_info() { # NAME
  hc_nodetool "$1" info | grep '^Row Cache'
}

# One number from the row cache line: entries | hits | requests.
hc_row_cache_figure() { # NAME FIELD
  local line
  line=$(hc_row_cache_info "$1")
  case "$2" in
    entries) sed -E 's/.*entries ([0-9]+).*/\1/' <<< "$line" ;;
    hits) sed -E 's/.* ([0-9]+) hits.*/\1/' <<< "$line" ;;
    requests) sed -E 's/.* ([0-9]+) requests.*/\1/' <<< "$line" ;;
    capacity) sed -E 's/.*capacity ([^,]+),.*/\1/' <<< "$line" ;;
  esac
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  cmd=${1:-}
  shift || true
  case "$cmd" in
    lib) hc_lib ;;
    start) hc_start "$@" ;;
    restart) hc_restart "$@" ;;
    stop) hc_stop "$1" ;;
    stop-all) hc_stop_all ;;
    kill) hc_kill "$1" ;;
    nodetool) hc_nodetool "$@" ;;
    cqlsh) hc_cqlsh "$@" ;;
    *) sed -n '2,21p' "$0"; exit 2 ;;
  esac
fi
