#!/usr/bin/env bash
# Starts a 3-node MariaDB Galera cluster on this machine, for tests and benchmarks:
# three mariadbd on loopback with their own data folders, client ports and wsrep ports. Node 1
# bootstraps the cluster; nodes 2 and 3 join it by state transfer (rsync). Returns once all three
# are Synced in one Primary component of size 3. Needs Debian's mariadb-server and galera-4.
#
#   scripts/galera-start.sh            # folder /tmp/svc-galera, client ports 3311, 3312, 3313
#   GALERA_DIR=/var/tmp/g GALERA_PORT_BASE=3320 scripts/galera-start.sh
#
# Each node: client port GALERA_PORT_BASE + n, group port GALERA_GROUP_BASE (4600) + 10n (IST + 1,
# SST + 2), socket and log in $GALERA_DIR/node<n>/. root has no password over TCP from 127.0.0.1. Stop with
# scripts/galera-stop.sh (it stops only the mariadbd processes this script started, by their pid
# files). The cluster is tuned for tests: a dead node is evicted after about 3 s (see the
# README's "Running on Galera" for production values). Run again after a node was killed, it
# starts that node at the position recovered from its InnoDB (as Debian's galera_recovery does
# for systemd), so it catches up by IST, and returns once all three nodes are Synced at once.
set -euo pipefail

DIR=${GALERA_DIR:-/tmp/svc-galera}
BASE=${GALERA_PORT_BASE:-3310}
GROUP_BASE=${GALERA_GROUP_BASE:-4600}
PROVIDER=${GALERA_PROVIDER:-/usr/lib/galera/libgalera_smm.so}
NODES=3

[ -x /usr/sbin/mariadbd ] || { echo "mariadbd missing: apt-get install mariadb-server galera-4" >&2; exit 1; }
[ -f "$PROVIDER" ] || { echo "$PROVIDER missing: apt-get install galera-4" >&2; exit 1; }
command -v rsync >/dev/null || { echo "rsync missing: apt-get install rsync" >&2; exit 1; }

# As root, mariadbd runs as the mysql user: the rsync state transfer starts an rsync daemon that,
# run by root, drops to `nobody`, which could not write the joiner's data folder.
RUN_AS=$(id -un)
if [ "$(id -u)" = 0 ]; then RUN_AS=mysql; fi

port() { echo $((BASE + $1)); }
gport() { echo $((GROUP_BASE + 10 * $1)); }
cluster_address="gcomm://"
for n in $(seq 1 $NODES); do cluster_address+="127.0.0.1:$(gport "$n"),"; done
cluster_address=${cluster_address%,}

sql() { # node, statement
  mariadb --no-defaults -h 127.0.0.1 -P "$(port "$1")" -u root -N -B -e "$2" 2>/dev/null
}
status() { # node, variable
  sql "$1" "SHOW GLOBAL STATUS LIKE '$2'" | awk '{print $2}'
}
running() { # node
  local pidfile="$DIR/node$1/mariadbd.pid"
  [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null
}

write_config() { # node
  local n=$1 g; g=$(gport "$1")
  cat >"$DIR/node$n/my.cnf" <<EOF
[mariadbd]
user=$RUN_AS
datadir=$DIR/node$n/data
socket=$DIR/node$n/mariadbd.sock
pid-file=$DIR/node$n/mariadbd.pid
log-error=$DIR/node$n/error.log
port=$(port "$n")
bind-address=127.0.0.1
skip-name-resolve
binlog_format=ROW
default_storage_engine=InnoDB
innodb_autoinc_lock_mode=2
innodb_buffer_pool_size=64M
innodb_log_file_size=32M
max_connections=300
wsrep_on=ON
wsrep_provider=$PROVIDER
wsrep_cluster_name=svc_galera_test
wsrep_cluster_address=$cluster_address
wsrep_node_name=node$n
wsrep_node_address=127.0.0.1:$g
wsrep_node_incoming_address=127.0.0.1:$(port "$n")
wsrep_sst_method=rsync
wsrep_sst_receive_address=127.0.0.1:$((g + 2))
wsrep_slave_threads=2
wsrep_provider_options="base_host=127.0.0.1;base_port=$g;ist.recv_addr=127.0.0.1:$((g + 1));gcache.size=64M;evs.keepalive_period=PT0.5S;evs.suspect_timeout=PT2S;evs.inactive_timeout=PT4S;evs.inactive_check_period=PT0.5S;evs.install_timeout=PT4S;pc.announce_timeout=PT1S"
EOF
}

# The position a node that was killed had reached (uuid:seqno), from its InnoDB, like Debian's
# galera_recovery does for systemd: started with it, the node catches up by IST from a donor's
# gcache instead of a full rsync SST, which blocks the donor (FLUSH TABLES WITH READ LOCK and a
# paused provider) and has left that donor's applier deadlocked with a local transaction.
recovered_position() { # node
  local n=$1 log="$DIR/node$1/recover.log"
  grep -q '^seqno: *-1' "$DIR/node$n/data/grastate.dat" 2>/dev/null || return 0
  rm -f "$log"
  /usr/sbin/mariadbd --defaults-file="$DIR/node$n/my.cnf" --wsrep-recover --log-error="$log" </dev/null >/dev/null 2>&1 || true
  sed -n 's/.*WSREP: Recovered position: *//p' "$log" 2>/dev/null | tail -n 1
}

start_node() { # node, extra args...
  local n=$1 position; shift
  if running "$n"; then echo "node$n already running"; return 0; fi
  rm -f "$DIR/node$n/mariadbd.pid" # left by a node that was killed
  mkdir -p "$DIR/node$n"
  write_config "$n"
  if [ ! -d "$DIR/node$n/data/mysql" ]; then
    mkdir -p "$DIR/node$n/data"
    [ "$RUN_AS" = mysql ] && chown -R mysql:mysql "$DIR/node$n"
    mariadb-install-db --no-defaults --datadir="$DIR/node$n/data" --user="$RUN_AS" \
      --auth-root-authentication-method=normal --skip-test-db >"$DIR/node$n/install.log" 2>&1
  fi
  [ "$RUN_AS" = mysql ] && chown -R mysql:mysql "$DIR/node$n"
  position=$(recovered_position "$n")
  case "$position" in
    *:-1 | 00000000-0000-0000-0000-000000000000:* | '') ;;
    *) set -- "$@" --wsrep-start-position="$position" ;;
  esac
  # setsid: the node outlives this script and the shell that ran it.
  setsid /usr/sbin/mariadbd --defaults-file="$DIR/node$n/my.cnf" "$@" </dev/null >>"$DIR/node$n/error.log" 2>&1 &
}

wait_synced() { # node, seconds
  local n=$1 limit=$2
  for _ in $(seq 1 $((limit * 4))); do
    if [ "$(status "$n" wsrep_local_state_comment)" = Synced ]; then return 0; fi
    if [ -f "$DIR/node$n/mariadbd.pid" ] && ! running "$n"; then break; fi
    sleep 0.25
  done
  echo "node$n did not reach Synced; last lines of $DIR/node$n/error.log:" >&2
  tail -n 30 "$DIR/node$n/error.log" >&2
  return 1
}

mkdir -p "$DIR"
[ "$RUN_AS" = mysql ] && chown mysql:mysql "$DIR"

if running 1 || running 2 || running 3; then
  # Already (partly) up: start whatever is missing, joining the running ones.
  for n in $(seq 1 $NODES); do running "$n" || start_node "$n"; done
else
  # Node 1 bootstraps a new cluster (safe_to_bootstrap is set after a clean stop or on a new folder).
  [ -f "$DIR/node1/data/grastate.dat" ] && sed -i 's/^safe_to_bootstrap: 0/safe_to_bootstrap: 1/' "$DIR/node1/data/grastate.dat"
  start_node 1 --wsrep-new-cluster
  wait_synced 1 60
  sql 1 "CREATE USER IF NOT EXISTS 'root'@'127.0.0.1'; GRANT ALL ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION" || true
  for n in $(seq 2 $NODES); do
    start_node "$n"
    wait_synced "$n" 120
  done
fi
# Every node Synced at the same time: a donor is Donor/Desynced until it has caught up, and
# checking the nodes one after the other could pass it before its donation began.
all_synced() {
  local n
  for n in $(seq 1 $NODES); do [ "$(status "$n" wsrep_local_state_comment)" = Synced ] || return 1; done
}
for n in $(seq 1 $NODES); do wait_synced "$n" 120; done
for _ in $(seq 1 240); do all_synced && break; sleep 0.25; done
all_synced || { echo "not all nodes are Synced:" >&2; for n in $(seq 1 $NODES); do echo "node$n $(status "$n" wsrep_local_state_comment)" >&2; done; exit 1; }
size=$(status 1 wsrep_cluster_size)
[ "$size" = "$NODES" ] || { echo "cluster size is $size, expected $NODES" >&2; exit 1; }
echo "galera cluster up: $(for n in $(seq 1 $NODES); do printf 'mysql://root@127.0.0.1:%s ' "$(port "$n")"; done)"
