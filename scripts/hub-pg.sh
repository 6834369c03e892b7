#!/usr/bin/env bash
# A throwaway PostgreSQL server for the hub's tests and benchmark (docs/HUB.md):
#
#   scripts/hub-pg.sh start DIR [--durable]   a new cluster in DIR, on loopback, a free port;
#                                             prints its URL (postgres://postgres@127.0.0.1:PORT/postgres)
#   scripts/hub-pg.sh stop DIR                stop it (DIR stays; remove it yourself)
#
# Debian's `postgresql` package (installed here when missing, as CI needs it); the cluster
# is made with its initdb and run with its pg_ctl, by the user `postgres` when we are root
# (PostgreSQL refuses to run as root). Trust authentication on 127.0.0.1 and a socket in
# DIR only: nothing listens beyond this machine. Without --durable it skips fsync (a test
# server: a crash of the machine loses it anyway); the benchmark passes --durable.
set -euo pipefail

cmd="${1:-}"
dir="${2:-}"
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop DIR [--durable]" >&2; exit 2; }
durable="${3:-}"

SUDO=""
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi

bindir() {
  local d
  d="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
  if [ -z "$d" ] || [ ! -x "$d/initdb" ]; then
    echo "installing postgresql (Debian's package)" >&2
    $SUDO apt-get update -qq >&2 || true
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq postgresql >/dev/null
    d="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
  fi
  echo "$d"
}

# Run as the cluster's owner: `postgres` when we are root, else ourselves.
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null \
    || echo $((20000 + RANDOM % 20000))
}

case "$cmd" in
  start)
    bin="$(bindir)"
    mkdir -p "$dir"
    dir="$(cd "$dir" && pwd)"
    chmod 700 "$dir"
    if [ "$(id -u)" -eq 0 ]; then chown postgres: "$dir"; fi
    as_owner "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --no-sync >"$dir/initdb.log" 2>&1 \
      || { cat "$dir/initdb.log" >&2; exit 1; }
    port="$(free_port)"
    opts="-c listen_addresses=127.0.0.1 -p $port -k $dir -c max_connections=300"
    if [ "$durable" != "--durable" ]; then opts="$opts -c fsync=off -c synchronous_commit=off -c full_page_writes=off"; fi
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 -o "$opts" start >/dev/null \
      || { cat "$dir/server.log" >&2; exit 1; }
    echo "postgres://postgres@127.0.0.1:$port/postgres"
    ;;
  stop)
    bin="$(bindir)"
    if [ -f "$dir/data/postmaster.pid" ]; then
      as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
    fi
    ;;
  *)
    echo "usage: $0 start|stop DIR [--durable]" >&2
    exit 2
    ;;
esac
