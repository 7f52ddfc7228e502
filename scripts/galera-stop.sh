#!/usr/bin/env bash
# Stops the Galera cluster started by scripts/galera-start.sh: only the mariadbd processes of its
# folder (named by its pid files, or reading its nodes' my.cnf), never any other MariaDB. Nodes stop one at a time,
# the last one cleanly so the cluster can be bootstrapped again from it. `--clean` also deletes
# the folder (data included).
set -euo pipefail

DIR=${GALERA_DIR:-/tmp/svc-galera}
# A node's processes: the one in its pid file, and any mariadbd reading its config (a joining node
# writes its pid file only once its state transfer is done).
pids_of() { # node
  local n=$1 config="--defaults-file=$DIR/node$1/my.cnf" pid
  if [ -f "$DIR/node$n/mariadbd.pid" ]; then echo "$(cat "$DIR/node$n/mariadbd.pid")"; fi
  for pid in $(ls /proc | grep -E '^[0-9]+$'); do
    if { tr '\0' ' ' <"/proc/$pid/cmdline"; } 2>/dev/null | grep -q -- "$config"; then echo "$pid"; fi
  done
}
for n in 3 2 1; do
  for pid in $(pids_of "$n" | sort -u); do
    # Only a mariadbd reading this node's config: a stale pid file must not stop another process.
    if kill -0 "$pid" 2>/dev/null && { tr '\0' ' ' <"/proc/$pid/cmdline"; } 2>/dev/null | grep -q -- "--defaults-file=$DIR/node$n/my.cnf"; then
      kill -TERM "$pid"
      for _ in $(seq 1 120); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
      if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid"; fi
      echo "node$n stopped"
    fi
  done
  rm -f "$DIR/node$n/mariadbd.pid"
done
if [ "${1:-}" = --clean ]; then rm -rf "$DIR"; fi
