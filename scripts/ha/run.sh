#!/usr/bin/env bash
# `npm run test:ha` (DESIGN.md §16, docs/ha.md): builds a three-node PostgreSQL 15 cluster on this
# machine from Debian's packages — Patroni with etcd, synchronous replication, HAProxy routing to
# the leader — runs the gateway (2 serve + 1 worker) against HAProxy, kills the primary's
# postmaster twice under load (scripts/ha/run.ts) and checks that nothing was lost or doubled.
# Everything lives under a fresh temp dir on free ports; all of it is torn down on exit.
# Test-only: `trust` authentication on 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT="$PWD"

PG_BIN="${PG_BIN:-/usr/lib/postgresql/15/bin}"
# Runs as the postgres OS user in the same process (no fork in between: the recorded pid is the program).
AS_POSTGRES="setpriv --reuid=postgres --regid=postgres --init-groups env HOME=/var/lib/postgresql USER=postgres LOGNAME=postgres"
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# --- packages -------------------------------------------------------------------------------
missing=()
command -v patroni >/dev/null 2>&1 || missing+=(patroni)
command -v etcd >/dev/null 2>&1 || missing+=(etcd-server)
command -v haproxy >/dev/null 2>&1 || missing+=(haproxy)
/usr/bin/python3 -c 'import etcd' >/dev/null 2>&1 || missing+=(python3-etcd)
[ -x "$PG_BIN/postgres" ] || missing+=(postgresql-15)
if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing ${missing[*]}…"
  as_root apt-get update -q
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
fi
id postgres >/dev/null 2>&1 || { echo "no postgres OS user (installed by postgresql-common)" >&2; exit 1; }

# --- the gateway's build ----------------------------------------------------------------------
node scripts/build.mjs --if-stale

# --- temp dir, ports ---------------------------------------------------------------------------
HA_DIR="$(mktemp -d /tmp/pix-ha.XXXXXX)"
chmod 755 "$HA_DIR"
PIDS="$HA_DIR/pids"
: >"$PIDS"
# Eleven distinct free ports, held together while chosen.
read -r -a PORTS <<<"$(/usr/bin/python3 -c '
import socket
s = [socket.socket() for _ in range(11)]
for x in s: x.bind(("127.0.0.1", 0))
print(" ".join(str(x.getsockname()[1]) for x in s))
for x in s: x.close()')"
ETCD_CLIENT=${PORTS[0]}
ETCD_PEER=${PORTS[1]}
HAPROXY_PORT=${PORTS[2]}
HAPROXY_STATS=${PORTS[3]}
PG_PORTS=("${PORTS[4]}" "${PORTS[5]}" "${PORTS[6]}")
REST_PORTS=("${PORTS[7]}" "${PORTS[8]}" "${PORTS[9]}")
RECEIVER_PORT=${PORTS[10]}

# --- teardown, even on failure ----------------------------------------------------------------
alive() { kill -0 "$1" 2>/dev/null; }
postmaster_pid() { [ -f "$1/postmaster.pid" ] && head -n 1 "$1/postmaster.pid" || true; }
teardown() {
  local status=$?
  trap - EXIT INT TERM
  echo "== teardown =="
  # Gateway processes and the runner's children first (the runner stops them itself; this is for a crash).
  while read -r kind pid; do
    case "$kind" in gateway) alive "$pid" && kill -TERM -- "-$pid" 2>/dev/null || true ;; esac
  done <"$PIDS"
  # Patroni stops its PostgreSQL on SIGTERM.
  while read -r kind pid; do
    case "$kind" in patroni | haproxy) alive "$pid" && kill -TERM -- "-$pid" 2>/dev/null || true ;; esac
  done <"$PIDS"
  for _ in $(seq 1 60); do
    local left=0
    while read -r kind pid; do case "$kind" in patroni | haproxy | gateway) alive "$pid" && left=1 ;; esac; done <"$PIDS"
    [ $left = 0 ] && break
    sleep 0.5
  done
  # Whatever is still there: each remaining process we started, and each node's postmaster, by pid.
  while read -r kind pid; do alive "$pid" && case "$kind" in patroni | haproxy | gateway) echo "$kind $pid did not stop in 30 s: killed" ;; esac; done <"$PIDS"
  while read -r kind pid; do
    case "$kind" in patroni | haproxy | gateway) alive "$pid" && kill -KILL -- "-$pid" 2>/dev/null || true ;; esac
  done <"$PIDS"
  for n in 1 2 3; do
    pm="$(postmaster_pid "$HA_DIR/node$n/data")"
    if [ -n "$pm" ] && alive "$pm" && grep -qa "$HA_DIR/node$n/data" "/proc/$pm/cmdline" 2>/dev/null; then kill -KILL "$pm" 2>/dev/null || true; fi
  done
  while read -r kind pid; do
    case "$kind" in etcd) alive "$pid" && kill -TERM -- "-$pid" 2>/dev/null || true ;; esac
  done <"$PIDS"
  for _ in $(seq 1 20); do
    local etcd_left=0
    while read -r kind pid; do case "$kind" in etcd) alive "$pid" && etcd_left=1 ;; esac; done <"$PIDS"
    [ $etcd_left = 0 ] && break
    sleep 0.25
  done
  while read -r kind pid; do alive "$pid" && echo "$kind $pid did not stop: killed" && kill -KILL -- "-$pid" 2>/dev/null || true; done <"$PIDS"
  if [ $status -ne 0 ] && [ -z "${HA_KEEP:-}" ]; then
    mkdir -p "$ROOT/bench/results/ha-logs"
    cp "$HA_DIR"/*.log "$ROOT/bench/results/ha-logs/" 2>/dev/null || true
    echo "logs of the failed run kept in bench/results/ha-logs/"
  fi
  if [ -n "${HA_KEEP:-}" ]; then echo "kept $HA_DIR"; else rm -rf "$HA_DIR"; fi
  exit $status
}
trap teardown EXIT
trap 'exit 130' INT TERM

start_bg() { # kind logfile command…: starts in its own session, records kind and pid
  local kind=$1 log=$2
  shift 2
  setsid "$@" >>"$log" 2>&1 </dev/null &
  echo "$kind $!" >>"$PIDS"
}

# --- etcd ---------------------------------------------------------------------------------------
mkdir -p "$HA_DIR/etcd"
chown postgres:postgres "$HA_DIR/etcd"
chmod 700 "$HA_DIR/etcd"
start_bg etcd "$HA_DIR/etcd.log" $AS_POSTGRES etcd --name etcd1 --data-dir "$HA_DIR/etcd/data" \
  --listen-client-urls "http://127.0.0.1:$ETCD_CLIENT" --advertise-client-urls "http://127.0.0.1:$ETCD_CLIENT" \
  --listen-peer-urls "http://127.0.0.1:$ETCD_PEER" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER" \
  --initial-cluster "etcd1=http://127.0.0.1:$ETCD_PEER" --initial-cluster-state new --enable-v2=true \
  --heartbeat-interval 250 --election-timeout 2500
for i in $(seq 1 120); do
  curl -fsS "http://127.0.0.1:$ETCD_CLIENT/health" 2>/dev/null | grep -q '"health":"true"' && break
  [ "$i" = 120 ] && { echo "etcd did not become healthy" >&2; tail -n 30 "$HA_DIR/etcd.log" >&2; exit 1; }
  sleep 0.5
done
echo "etcd on 127.0.0.1:$ETCD_CLIENT"

# --- Patroni nodes --------------------------------------------------------------------------------
for n in 1 2 3; do
  node="$HA_DIR/node$n"
  mkdir -p "$node"
  cat >"$node/patroni.yml" <<YAML
scope: pixgw-ha
namespace: /pix-ha/
name: node$n
log:
  level: INFO
restapi:
  listen: 127.0.0.1:${REST_PORTS[$((n - 1))]}
  connect_address: 127.0.0.1:${REST_PORTS[$((n - 1))]}
etcd:
  host: 127.0.0.1:$ETCD_CLIENT
bootstrap:
  dcs:
    ttl: 15
    loop_wait: 2
    retry_timeout: 5
    maximum_lag_on_failover: 16777216
    # A crashed primary is failed over at once instead of being restarted in place (300 s by default).
    primary_start_timeout: 0
    synchronous_mode: true
    synchronous_node_count: 1
    postgresql:
      use_pg_rewind: true
      use_slots: true
      remove_data_directory_on_rewind_failure: true
      remove_data_directory_on_diverged_timelines: true
      parameters:
        max_connections: 200
        wal_level: replica
        hot_standby: 'on'
        synchronous_commit: 'on'
        wal_keep_size: 256MB
        wal_log_hints: 'on'
        max_wal_senders: 10
        max_replication_slots: 10
        shared_buffers: 64MB
        fsync: 'on'
  initdb:
    - encoding: UTF8
    - locale: C.UTF-8
    - data-checksums
    - auth: trust
  # Test-only: trust on the loopback.
  pg_hba:
    - local all all trust
    - host replication all 127.0.0.1/32 trust
    - host all all 127.0.0.1/32 trust
postgresql:
  listen: 127.0.0.1:${PG_PORTS[$((n - 1))]}
  connect_address: 127.0.0.1:${PG_PORTS[$((n - 1))]}
  data_dir: $node/data
  bin_dir: $PG_BIN
  pgpass: $node/pgpass
  authentication:
    superuser:
      username: postgres
    replication:
      username: postgres
    rewind:
      username: postgres
  parameters:
    unix_socket_directories: '$node'
    logging_collector: 'off'
  pg_hba:
    - local all all trust
    - host replication all 127.0.0.1/32 trust
    - host all all 127.0.0.1/32 trust
  basebackup:
    - checkpoint: fast
tags:
  nofailover: false
  noloadbalance: false
  clonefrom: false
  nosync: false
YAML
  chown -R postgres:postgres "$node"
  chmod 700 "$node"
done

start_patroni() { start_bg patroni "$HA_DIR/node$1.log" $AS_POSTGRES patroni "$HA_DIR/node$1/patroni.yml"; }
start_patroni 1
# The first node bootstraps (initdb); the others clone it once it leads.
cluster() { curl -fsS "http://127.0.0.1:${REST_PORTS[0]}/cluster" 2>/dev/null || true; }
for i in $(seq 1 240); do
  curl -fsS -o /dev/null "http://127.0.0.1:${REST_PORTS[0]}/primary" 2>/dev/null && break
  [ "$i" = 240 ] && { echo "node1 did not become the leader" >&2; tail -n 40 "$HA_DIR/node1.log" >&2; exit 1; }
  sleep 0.5
done
start_patroni 2
start_patroni 3
for i in $(seq 1 360); do
  c="$(cluster)"
  running=$(grep -o '"state": *"\(running\|streaming\)"' <<<"$c" | wc -l || true)
  sync=$(grep -o '"role": *"sync_standby"' <<<"$c" | wc -l || true)
  [ "$running" -ge 3 ] && [ "$sync" -ge 1 ] && break
  [ "$i" = 360 ] && { echo "the replicas did not join with a synchronous standby:" >&2; echo "$c" >&2; tail -n 20 "$HA_DIR"/node*.log >&2; exit 1; }
  sleep 0.5
done
echo "Patroni cluster up (3 nodes, a synchronous standby)"

# --- HAProxy -------------------------------------------------------------------------------------
cat >"$HA_DIR/haproxy.cfg" <<CFG
global
    maxconn 2000
defaults
    mode tcp
    timeout connect 2s
    timeout client 30m
    timeout server 30m
    timeout check 2s
listen stats
    mode http
    bind 127.0.0.1:$HAPROXY_STATS
    stats enable
    stats uri /
listen postgres_primary
    bind 127.0.0.1:$HAPROXY_PORT
    option httpchk GET /primary
    http-check expect status 200
    default-server inter 1s fastinter 500ms downinter 1s fall 2 rise 1 on-marked-down shutdown-sessions
    server node1 127.0.0.1:${PG_PORTS[0]} maxconn 200 check port ${REST_PORTS[0]}
    server node2 127.0.0.1:${PG_PORTS[1]} maxconn 200 check port ${REST_PORTS[1]}
    server node3 127.0.0.1:${PG_PORTS[2]} maxconn 200 check port ${REST_PORTS[2]}
CFG
haproxy -c -f "$HA_DIR/haproxy.cfg" >/dev/null
start_bg haproxy "$HA_DIR/haproxy.log" haproxy -db -f "$HA_DIR/haproxy.cfg"
for i in $(seq 1 120); do
  "$PG_BIN/psql" -h 127.0.0.1 -p "$HAPROXY_PORT" -U postgres -d postgres -Atqc 'select 1' >/dev/null 2>&1 && break
  [ "$i" = 120 ] && { echo "HAProxy does not reach the leader" >&2; cat "$HA_DIR/haproxy.log" >&2; exit 1; }
  sleep 0.5
done
"$PG_BIN/psql" -h 127.0.0.1 -p "$HAPROXY_PORT" -U postgres -d postgres -qc 'CREATE DATABASE pixgw'
echo "HAProxy on 127.0.0.1:$HAPROXY_PORT → the leader"

cat >"$HA_DIR/cluster.json" <<JSON
{
  "dir": "$HA_DIR",
  "pidsFile": "$PIDS",
  "haproxyPort": $HAPROXY_PORT,
  "receiverPort": $RECEIVER_PORT,
  "databaseUrl": "postgres://postgres@127.0.0.1:$HAPROXY_PORT/pixgw",
  "nodes": [
    { "name": "node1", "restPort": ${REST_PORTS[0]}, "pgPort": ${PG_PORTS[0]}, "dataDir": "$HA_DIR/node1/data" },
    { "name": "node2", "restPort": ${REST_PORTS[1]}, "pgPort": ${PG_PORTS[1]}, "dataDir": "$HA_DIR/node2/data" },
    { "name": "node3", "restPort": ${REST_PORTS[2]}, "pgPort": ${PG_PORTS[2]}, "dataDir": "$HA_DIR/node3/data" }
  ]
}
JSON

# --- the load, the kills and the checks ------------------------------------------------------------
node --import tsx scripts/ha/run.ts "$HA_DIR/cluster.json"
