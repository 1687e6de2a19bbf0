#!/usr/bin/env bash
# Point-in-time recovery drill (docs/operations.md "Backups and point-in-time recovery"):
# `bash scripts/ha/pitr.sh`, as root; about 2 minutes. PostgreSQL's tools run as the postgres OS
# user, as in scripts/ha/run.sh.
#
# A throwaway PostgreSQL 15 cluster in a temp dir, on free ports, archives its WAL with
# `archive_command` (a copy that is flushed, then renamed) and `archive_timeout`; pg_receivewal
# streams the same WAL to a second folder. Under a steady insert load (pgbench, one row per commit,
# each with its time and a sequence number; pgbench logs when each commit was acknowledged), a base
# backup is taken (pg_basebackup), a target time is noted, and the primary is lost: SIGKILL to the
# postmaster and all its processes at once, as a machine that loses power. Its data folder is then
# treated as gone. Three restores of the base backup follow, one after the other:
#   A. to the target time, from the archive (recovery_target_time);
#   B. to the latest WAL in the archive (the primary lost, no standby);
#   C. to the latest WAL in the archive and pg_receivewal's folder.
# For each: RTO = wall time from the start of the restore (copying the base backup) to the server
# accepting writes; RPO = the newest row present against the target (A) or against the last commit
# the client saw acknowledged (B, C). Everything is removed on exit (PITR_KEEP=1 keeps the temp dir).
#
# PITR_ARCHIVE_TIMEOUT (seconds, default 60): the target is noted timeout/3 after the base backup and
# the primary is lost 1.5 × timeout after it, so one archive_timeout switch happens in between.
set -euo pipefail

PG_BIN="${PG_BIN:-/usr/lib/postgresql/15/bin}"
ARCHIVE_TIMEOUT="${PITR_ARCHIVE_TIMEOUT:-60}"
RATE=100       # drill commits per second
SCALE=10       # pgbench tables of about 160 MB, so the base backup is not empty
if ! [[ "$ARCHIVE_TIMEOUT" =~ ^[0-9]+$ ]] || [ "$ARCHIVE_TIMEOUT" -lt 6 ]; then
  echo "PITR_ARCHIVE_TIMEOUT must be a whole number of seconds, at least 6" >&2
  exit 2
fi

# PostgreSQL refuses to run as root: its tools run as the postgres OS user.
if [ "$(id -u)" = 0 ]; then
  AS_PG=(setpriv --reuid=postgres --regid=postgres --init-groups env HOME=/var/lib/postgresql USER=postgres LOGNAME=postgres)
elif [ "$(id -un)" = postgres ]; then
  AS_PG=(env)
else
  echo "run as root (or as the postgres user): bash scripts/ha/pitr.sh" >&2
  exit 1
fi

# --- packages (Debian's only) -------------------------------------------------------------------
missing=()
for tool in postgres initdb pg_ctl psql pg_basebackup pg_receivewal pgbench; do
  [ -x "$PG_BIN/$tool" ] || { missing+=(postgresql-15); break; }
done
command -v python3 >/dev/null 2>&1 || missing+=(python3-minimal)
if [ ${#missing[@]} -gt 0 ]; then
  [ "$(id -u)" = 0 ] || { echo "missing ${missing[*]}: run as root to install them" >&2; exit 1; }
  echo "Installing ${missing[*]}…"
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
fi
id postgres >/dev/null 2>&1 || { echo "no postgres OS user (installed by postgresql-common)" >&2; exit 1; }

pg() { "${AS_PG[@]}" "$PG_BIN/$1" "${@:2}"; }
sql() { # port statement: one line per row, fields separated by |
  local port=$1
  shift
  pg psql -X -h 127.0.0.1 -p "$port" -U postgres -d postgres -Atq -v ON_ERROR_STOP=1 -c "$*"
}
now() { date +%s.%N; }
calc() { awk "BEGIN { printf \"$1\", ${*:2} }"; } # calc FORMAT EXPRESSION…
sleep_until() { # an epoch time
  local left
  left="$(calc %.2f "$1 - $(now)")"
  case "$left" in -*) ;; *) sleep "$left" ;; esac
}
alive() { kill -0 "$1" 2>/dev/null; }
# The postmaster of a data folder, when it runs (checked against its command line).
postmaster_of() {
  local data=$1 pid
  [ -f "$data/postmaster.pid" ] || return 0
  pid="$(head -n 1 "$data/postmaster.pid")"
  if [ -n "$pid" ] && alive "$pid" && grep -qa -- "$data" "/proc/$pid/cmdline" 2>/dev/null; then echo "$pid"; fi
}
kill_cluster() { # data folder: SIGKILL to the postmaster and all its processes at once
  local pm
  pm="$(postmaster_of "$1")"
  [ -n "$pm" ] || return 0
  # shellcheck disable=SC2046 # one pid per word
  kill -KILL "$pm" $(cat "/proc/$pm/task/$pm/children" 2>/dev/null) 2>/dev/null || true
}

T_START="$(now)"

# --- temp dir, ports, teardown ------------------------------------------------------------------
DIR="$(mktemp -d /tmp/pix-pitr.XXXXXX)"
chmod 755 "$DIR"
BG_PIDS=()
teardown() {
  local status=$?
  trap - EXIT INT TERM
  for pid in "${BG_PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for data in "$DIR"/primary "$DIR"/restore-*; do
    [ -d "$data" ] || continue
    [ -n "$(postmaster_of "$data")" ] || continue
    pg pg_ctl stop -D "$data" -m immediate -w -t 10 >/dev/null 2>&1 || true
    kill_cluster "$data"
  done
  for pid in "${BG_PIDS[@]}"; do
    for _ in $(seq 1 20); do alive "$pid" || break; sleep 0.25; done
    if alive "$pid"; then kill -KILL "$pid" 2>/dev/null || true; fi
  done
  if [ $status -ne 0 ]; then
    echo "== the drill failed (exit $status); last lines of the server logs:" >&2
    for log in "$DIR"/*.log; do [ -f "$log" ] && { echo "-- $log" >&2; tail -n 15 "$log" >&2; }; done
  fi
  if [ -n "${PITR_KEEP:-}" ]; then echo "kept $DIR"; else rm -rf "$DIR"; fi
  exit $status
}
trap teardown EXIT
trap 'exit 130' INT TERM

read -r -a PORTS <<<"$(python3 -c '
import socket
s = [socket.socket() for _ in range(4)]
for x in s: x.bind(("127.0.0.1", 0))
print(" ".join(str(x.getsockname()[1]) for x in s))
for x in s: x.close()')"
PRIMARY_PORT=${PORTS[0]}
ARCHIVE="$DIR/archive"   # what archive_command ships: the base of every restore
STREAM="$DIR/stream"     # what pg_receivewal receives
mkdir -p "$ARCHIVE" "$STREAM"

# archive_command: the segment is copied, flushed to disk, then renamed, so the archive never holds
# a partial file; a segment already there is accepted only if identical (a retry after a crash).
cat >"$DIR/archive-wal" <<'SH'
#!/bin/sh
# archive-wal ARCHIVE_DIR %p %f
set -e
dest="$1/$3"
if [ -f "$dest" ]; then exec cmp -s "$2" "$dest"; fi
cp "$2" "$dest.part"
sync "$dest.part"
mv "$dest.part" "$dest"
echo "$(date +%s.%N) $3" >>"$1.log"
SH
chmod 755 "$DIR/archive-wal"
chown -R postgres:postgres "$DIR"

# --- the primary --------------------------------------------------------------------------------
echo "== primary: PostgreSQL 15 on 127.0.0.1:$PRIMARY_PORT, WAL archived (archive_timeout ${ARCHIVE_TIMEOUT}s) and streamed"
pg initdb -D "$DIR/primary" -U postgres --auth=trust --data-checksums --encoding=UTF8 --locale=C.UTF-8 >"$DIR/initdb.out"
cat >>"$DIR/primary/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $PRIMARY_PORT
unix_socket_directories = '$DIR'
timezone = 'UTC'
logging_collector = off
wal_level = replica
max_wal_senders = 5
fsync = on
synchronous_commit = on
archive_mode = on
archive_command = '$DIR/archive-wal $ARCHIVE %p %f'
archive_timeout = $ARCHIVE_TIMEOUT
CONF
pg pg_ctl start -D "$DIR/primary" -l "$DIR/primary.log" -w -t 60 >/dev/null
sql "$PRIMARY_PORT" "CREATE TABLE drill (seq bigint PRIMARY KEY, at timestamptz NOT NULL)"
pg pgbench -h 127.0.0.1 -p "$PRIMARY_PORT" -U postgres -i -s "$SCALE" -q postgres >"$DIR/pgbench-init.out" 2>&1

# pg_receivewal on its own slot: the primary keeps the WAL it has not received.
pg pg_receivewal -h 127.0.0.1 -p "$PRIMARY_PORT" -U postgres --slot=pitr_drill --create-slot --if-not-exists >/dev/null 2>&1
pg pg_receivewal -h 127.0.0.1 -p "$PRIMARY_PORT" -U postgres --slot=pitr_drill -D "$STREAM" --synchronous --no-loop >"$DIR/receivewal.log" 2>&1 &
BG_PIDS+=("$!")

# --- the load: one row per commit, its sequence number and time; pgbench logs each acknowledgement ---
cat >"$DIR/drill.sql" <<'SQL'
\set n :n + 1
INSERT INTO drill (seq, at) VALUES (:n, clock_timestamp());
SQL
chown postgres:postgres "$DIR/drill.sql"
LOAD_SECONDS=$((ARCHIVE_TIMEOUT * 3 / 2 + 60))
pg pgbench -h 127.0.0.1 -p "$PRIMARY_PORT" -U postgres -n -c 1 -j 1 -R "$RATE" -T "$LOAD_SECONDS" -D n=0 \
  -f "$DIR/drill.sql" -l --log-prefix="$DIR/acks" postgres >"$DIR/load.out" 2>&1 &
LOAD_PID=$!
BG_PIDS+=("$LOAD_PID")
sleep 2

# --- the base backup, under load ------------------------------------------------------------------
t0="$(now)"
pg pg_basebackup -h 127.0.0.1 -p "$PRIMARY_PORT" -U postgres -D "$DIR/base" -X stream -c fast
t_backup="$(now)"
BACKUP_SECONDS="$(calc %.1f "$t_backup - $t0")"
BACKUP_MB="$(du -sm "$DIR/base" | cut -f1)"
echo "   base backup: $BACKUP_MB MB in $BACKUP_SECONDS s"
# A burst of updates (pgbench's TPC-B-like script, as fast as it goes) gives every restore some WAL
# to replay, so the replay rate is measured too.
pg pgbench -h 127.0.0.1 -p "$PRIMARY_PORT" -U postgres -n -b tpcb-like -c 2 -j 2 -T 5 postgres >"$DIR/burst.out" 2>&1
BURST_TPS="$(awk '/^tps/ { printf "%d", $3; exit }' "$DIR/burst.out")"

# --- the target, then the loss -------------------------------------------------------------------
sleep_until "$(calc %.3f "$t_backup + $ARCHIVE_TIMEOUT / 3")"
IFS='|' read -r TARGET TARGET_EPOCH <<<"$(sql "$PRIMARY_PORT" "SELECT t, extract(epoch FROM t) FROM (SELECT clock_timestamp() AS t) now")"
echo "   target time: $TARGET"
sleep_until "$(calc %.3f "$t_backup + $ARCHIVE_TIMEOUT * 1.5")"
alive "$LOAD_PID" || { echo "the load stopped before the primary was lost:" >&2; cat "$DIR/load.out" >&2; exit 1; }
t_loss="$(now)"
kill_cluster "$DIR/primary"
echo "   primary lost (SIGKILL to every process) at +$(calc %.1f "$t_loss - $t_backup") s after the base backup"
for _ in $(seq 1 40); do alive "$LOAD_PID" || break; sleep 0.25; done
wait "$LOAD_PID" 2>/dev/null || true

ACKS="$(ls "$DIR"/acks.*)"
# The commits the client saw acknowledged: "seq time" (pgbench's log: client, transaction number from
# 1, which is the row's seq, latency, script, epoch seconds, microseconds of the acknowledgement).
awk '$3 ~ /^[0-9]+$/ { printf "%d %d.%06d\n", $2, $5, $6 }' "$ACKS" >"$DIR/acked"
ACKED_LAST_SEQ="$(tail -n 1 "$DIR/acked" | cut -d' ' -f1)"
ACKED_LAST_AT="$(tail -n 1 "$DIR/acked" | cut -d' ' -f2)"
ack_of() { awk -v s="$1" '$1 == s { print $2 }' "$DIR/acked"; }
LAST_ARCHIVED="$(tail -n 1 "$ARCHIVE.log" 2>/dev/null || true)"
[ -n "$LAST_ARCHIVED" ] || { echo "nothing was archived" >&2; exit 1; }
LAST_ARCHIVED_AT="${LAST_ARCHIVED%% *}"
SEGMENTS="$(wc -l <"$ARCHIVE.log")"

# --- the restores ---------------------------------------------------------------------------------
# restore NAME PORT RESTORE_COMMAND [TARGET]: the base backup copied to a new data folder, recovery
# settings added, the server started; returns once it accepts writes. Sets RTO, COPY_S, RECOVERY_S.
restore() {
  local name=$1 port=$2 command=$3 target=${4:-} data="$DIR/restore-$1" start copied ready
  start="$(now)"
  "${AS_PG[@]}" cp -a "$DIR/base" "$data"
  copied="$(now)"
  {
    echo "port = $port"
    echo "archive_mode = off" # the drill's restores do not add to the archive
    echo "restore_command = '$command'"
    [ -z "$target" ] || echo "recovery_target_time = '$target'"
    echo "recovery_target_action = 'promote'"
  } | "${AS_PG[@]}" tee -a "$data/postgresql.auto.conf" >/dev/null
  "${AS_PG[@]}" touch "$data/recovery.signal"
  pg pg_ctl start -D "$data" -l "$DIR/restore-$name.log" >/dev/null
  for i in $(seq 1 1200); do
    [ "$(sql "$port" 'SELECT pg_is_in_recovery()' 2>/dev/null || true)" = f ] && break
    [ "$i" = 1200 ] && { echo "restore $name: the server did not accept writes within 120 s" >&2; exit 1; }
    sleep 0.1
  done
  ready="$(now)"
  RTO="$(calc %.1f "$ready - $start")"
  COPY_S="$(calc %.1f "$copied - $start")"
  RECOVERY_S="$(calc %.1f "$ready - $copied")"
  # The WAL replayed: from the base backup's start to where redo ended (the server's log), and how long redo took.
  local from to
  from="$(awk '/^START WAL LOCATION:/ { print $4 }' "$DIR/base/backup_label")"
  to="$(grep -o 'redo done at [0-9A-F]*/[0-9A-F]*' "$DIR/restore-$name.log" | awk '{ print $4 }')"
  REPLAY_MB="$(sql "$port" "SELECT round(pg_wal_lsn_diff('$to', '$from') / 1048576)")"
  REPLAY_S="$(grep -o 'redo done at .*elapsed: [0-9.]* s' "$DIR/restore-$name.log" | awk '{ print $(NF - 1) }')"
  sql "$port" "CREATE TABLE restore_check (x int)" # writes are accepted
}
# The drill table after a restore: "count max_seq newest_epoch".
state_of() { sql "$1" "SELECT count(*), max(seq), extract(epoch FROM max(at)) FROM drill" | tr '|' ' '; }
check_complete() { # name port: no gap in the sequence, the pgbench tables whole
  local rows max accounts
  read -r rows max _ <<<"$(state_of "$2")"
  [ "$rows" = "$max" ] || { echo "restore $1: $rows rows but seq reaches $max (a gap)" >&2; exit 1; }
  accounts="$(sql "$2" "SELECT count(*) FROM pgbench_accounts")"
  [ "$accounts" = $((SCALE * 100000)) ] || { echo "restore $1: pgbench_accounts has $accounts rows" >&2; exit 1; }
}
stop() { pg pg_ctl stop -D "$DIR/restore-$1" -m fast -w -t 30 >/dev/null; }

from_archive="cp $ARCHIVE/%f %p"

echo "== A: restore to the target time, from the archive"
restore a "${PORTS[1]}" "$from_archive" "$TARGET"
check_complete a "${PORTS[1]}"
read -r _ A_SEQ A_NEWEST <<<"$(state_of "${PORTS[1]}")"
A_RTO=$RTO A_COPY=$COPY_S A_RECOVERY=$RECOVERY_S A_WAL=$REPLAY_MB A_REDO=$REPLAY_S
# Every commit acknowledged at or before the target is there; the next row committed after it.
A_ACKED_BEFORE="$(awk -v t="$TARGET_EPOCH" '$2 <= t { s = $1 } END { print s + 0 }' "$DIR/acked")"
[ "$A_SEQ" -ge "$A_ACKED_BEFORE" ] || { echo "A: a commit acknowledged before the target is missing (seq $A_ACKED_BEFORE)" >&2; exit 1; }
NEXT_ACK="$(ack_of $((A_SEQ + 1)))"
if [ -z "$NEXT_ACK" ] || ! awk -v a="$NEXT_ACK" -v t="$TARGET_EPOCH" 'BEGIN { exit !(a > t) }'; then
  echo "A: the row after the newest restored one was not committed after the target" >&2
  exit 1
fi
A_GAP="$(calc %.1f "($TARGET_EPOCH - $A_NEWEST) * 1000")"
awk -v g="$A_GAP" 'BEGIN { exit !(g >= 0) }' || { echo "A: a row newer than the target was restored" >&2; exit 1; }
stop a

echo "== B: restore to the latest archived WAL (primary lost, no standby)"
restore b "${PORTS[2]}" "$from_archive"
check_complete b "${PORTS[2]}"
read -r _ B_SEQ _ <<<"$(state_of "${PORTS[2]}")"
B_RTO=$RTO B_COPY=$COPY_S B_RECOVERY=$RECOVERY_S B_WAL=$REPLAY_MB B_REDO=$REPLAY_S
B_LOST=$((ACKED_LAST_SEQ - B_SEQ))
B_LAST="$(ack_of "$B_SEQ")"
B_RPO="$(calc %.1f "$ACKED_LAST_AT - ${B_LAST:-$ACKED_LAST_AT}")"
stop b

echo "== C: restore to the latest WAL of the archive and of pg_receivewal"
# pg_receivewal names the segment it was writing *.partial: recovery reads it under its own name.
mkdir -p "$DIR/stream-restore"
cp "$STREAM"/0* "$DIR/stream-restore/"
for partial in "$DIR"/stream-restore/*.partial; do [ -f "$partial" ] && mv "$partial" "${partial%.partial}"; done
chown -R postgres:postgres "$DIR/stream-restore"
restore c "${PORTS[3]}" "cp $ARCHIVE/%f %p 2>/dev/null || cp $DIR/stream-restore/%f %p"
check_complete c "${PORTS[3]}"
read -r _ C_SEQ _ <<<"$(state_of "${PORTS[3]}")"
C_RTO=$RTO C_COPY=$COPY_S C_RECOVERY=$RECOVERY_S C_WAL=$REPLAY_MB C_REDO=$REPLAY_S
C_LOST=$((ACKED_LAST_SEQ - C_SEQ))
C_LAST="$(ack_of "$C_SEQ")"
C_RPO="$(calc %.3f "$ACKED_LAST_AT - ${C_LAST:-$ACKED_LAST_AT}")"
stop c

# --- the report -----------------------------------------------------------------------------------
lost_text() { # commits seconds
  if [ "$1" -le 0 ]; then echo "none"; else echo "$1 acknowledged commits, the last $2 s"; fi
}
row() { printf '%-35s %7s %7s %9s %17s  %s\n' "$@"; }
echo
echo "== PITR drill: PostgreSQL $(pg postgres -V | awk '{ print $3 }'), $(nproc) cores, $(date -u +%Y-%m-%d), $(calc %d "$(now) - $T_START") s"
echo "load        : 1 row per commit at $RATE commits/s (synchronous_commit on), $ACKED_LAST_SEQ acknowledged;"
echo "              5 s of TPC-B-like updates after the base backup ($BURST_TPS tps)"
echo "base backup : $BACKUP_MB MB in $BACKUP_SECONDS s (pg_basebackup -X stream, under load)"
echo "archive     : $SEGMENTS files shipped by archive_command; the last $(calc %.1f "$LAST_ARCHIVED_AT - $t_backup") s after the base backup,"
echo "              $(calc %.1f "$t_loss - $LAST_ARCHIVED_AT") s before the primary was lost (archive_timeout $ARCHIVE_TIMEOUT s)"
echo
row "restore" "RTO" "copy" "recovery" "WAL replayed" "data lost"
row "A. to the target, archive" "$A_RTO s" "$A_COPY s" "$A_RECOVERY s" "$A_WAL MB in $A_REDO s" "none up to the target (newest row $A_GAP ms before it, none after)"
row "B. latest, archive only" "$B_RTO s" "$B_COPY s" "$B_RECOVERY s" "$B_WAL MB in $B_REDO s" "$(lost_text "$B_LOST" "$B_RPO")"
row "C. latest, archive + pg_receivewal" "$C_RTO s" "$C_COPY s" "$C_RECOVERY s" "$C_WAL MB in $C_REDO s" "$(lost_text "$C_LOST" "$C_RPO")"
echo "RTO: from the start of the copy of the base backup to the server accepting writes."
echo "B loses what was committed after the last archived segment: at most archive_timeout."
echo "A synchronous standby loses no acknowledged commit (npm run test:ha, docs/ha.md)."
