#!/usr/bin/env bash
# Stops the Galera cluster started by scripts/galera-start.sh: only the mariadbd processes named by
# the pid files in its folder (never any other MariaDB on the machine). Nodes stop one at a time,
# the last one cleanly so the cluster can be bootstrapped again from it. `--clean` also deletes
# the folder (data included).
set -euo pipefail

DIR=${GALERA_DIR:-/tmp/svc-galera}
for n in 3 2 1; do
  pidfile="$DIR/node$n/mariadbd.pid"
  [ -f "$pidfile" ] || continue
  pid=$(cat "$pidfile")
  # Only a mariadbd reading this node's config: a stale pid file must not stop another process.
  if kill -0 "$pid" 2>/dev/null && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "--defaults-file=$DIR/node$n/my.cnf"; then
    kill -TERM "$pid"
    for _ in $(seq 1 120); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid"; fi
    echo "node$n stopped"
  fi
  rm -f "$pidfile"
done
if [ "${1:-}" = --clean ]; then rm -rf "$DIR"; fi
