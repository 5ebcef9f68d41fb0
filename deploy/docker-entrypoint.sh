#!/bin/sh
# The image's command (installed as /usr/local/bin/shortlink): one name picks the compiled entry
# point, run by plain node from $SHORTLINK_HOME/dist (default /app).
#   api | redirector | ingest | dashboard   a production process (needs DATABASE_URL, REDIS_URL, CLICKHOUSE_URL)
#   admin <command> [options]          the admin command line, e.g. admin org create --name Acme --json
#   migrate postgres | clickhouse      makes a schema before a rollout and exits (the Kubernetes Jobs)
#   healthcheck <url>                  exit 0 when <url> answers 2xx (the compose healthchecks)
# Anything else runs as given (e.g. sh).
set -e
dist="${SHORTLINK_HOME:-/app}/dist"
command="${1:-api}"
[ "$#" -gt 0 ] && shift
case "$command" in
  api) exec node "$dist/api/main.js" "$@" ;;
  redirector) exec node "$dist/redirector/main.js" "$@" ;;
  ingest) exec node "$dist/ingest/main.js" "$@" ;;
  dashboard) exec node "$dist/dashboard/main.js" "$@" ;;
  admin) exec node "$dist/bin/admin.js" "$@" ;;
  migrate) exec node "$dist/bin/migrate.js" "$@" ;;
  healthcheck) exec node "$dist/bin/healthcheck.js" "$@" ;;
  *) exec "$command" "$@" ;;
esac
