# A private PostgreSQL for the pool's bench scripts (pool-bench.sh, redeem-bench.sh):
# sourced, not run. Needs root (the server runs as the postgres user) and the postgresql
# package. After `start_private_postgres NAME`: $work is a fresh folder removed at exit,
# $pool the connection string, PGPASSFILE the password file (the password itself never
# on a command line).
pgbin=/usr/lib/postgresql/15/bin

start_private_postgres() {
  [ "$(id -u)" -eq 0 ] || { echo "run as root: the server runs as the postgres user" >&2; exit 2; }
  work=$(mktemp -d "/tmp/$1.XXXXXX")
  chown postgres "$work"
  server_pid=
  trap stop_private_postgres EXIT
  head -c 18 /dev/urandom | base64 > "$work/pwfile"
  chown postgres "$work/pwfile"
  printf '*:*:*:scratch:%s\n' "$(cat "$work/pwfile")" > "$work/pgpass"
  chmod 600 "$work/pgpass"
  setpriv --reuid=postgres --regid=postgres --clear-groups -- "$pgbin/initdb" -D "$work/data" -U scratch \
    --auth=scram-sha-256 --pwfile="$work/pwfile" -E UTF8 --no-locale > /dev/null
  setpriv --reuid=postgres --regid=postgres --clear-groups -- "$pgbin/postgres" -D "$work/data" -k "$work" \
    -c listen_addresses= -c max_connections=60 > "$work/server.log" 2>&1 &
  server_pid=$!
  until "$pgbin/pg_isready" -q -h "$work" -U scratch -d postgres; do sleep 0.1; done
  export PGPASSFILE="$work/pgpass"
  pool="host=$work dbname=postgres user=scratch"
}

stop_private_postgres() {
  [ -n "$server_pid" ] && kill -INT "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
