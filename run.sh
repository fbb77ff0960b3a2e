#!/usr/bin/env bash
# Install everything, then serve cloudsched with gunicorn on http://127.0.0.1:$PORT (default 8000) with
# Redis ($REDIS_PORT, default 6379) and one Celery worker.
source "$(dirname "$0")/scripts/common.sh"

apt_ensure redis-server
python_env
node_env

export DEBUG="${DEBUG:-0}"
export SECURE_HTTPS="${SECURE_HTTPS:-0}"  # plain HTTP on loopback; set 1 behind TLS
export PORT="${PORT:-8000}" REDIS_PORT="${REDIS_PORT:-6379}"
export CELERY_BROKER_URL="${CELERY_BROKER_URL:-redis://127.0.0.1:$REDIS_PORT/0}"
export WEB_ACCESS_LOG="${WEB_ACCESS_LOG:-$VAR/access.log}"
M="$VENV/bin/python manage.py"

log "migrating the database"
$M migrate --noinput -v0
$M createcachetable
$M collectstatic --noinput --clear -v0  # --clear: nothing an older version collected stays served
$M ensure_admin
$M load_demos --run  # the first start also queues one run of each demo (the worker below runs them)
$M import_trace --trace-dirs  # real logs beside the checkout (or in $CLOUDSCHED_TRACE_DIRS), once each

redis_start
log "starting one Celery worker with the outbox sweeper (log: $VAR/celery.log)"
"$VENV/bin/celery" -A cloudsched_web worker --beat --schedule "$VAR/celerybeat-schedule" \
  --loglevel INFO --concurrency 1 --logfile "$VAR/celery.log" &
WORKER=$!
WEB=""
stop_all() {
  trap - EXIT INT
  trap '' TERM  # the TERM to the process group below is for what this script started, not for itself
  set +e  # best effort: a child the same Ctrl-C already stopped makes `kill` fail, which must not end the script with 1
  # TERM, not INT: a shell started without job control may hand its children an ignored SIGINT.
  kill -TERM $WEB $WORKER 2>/dev/null; wait $WEB $WORKER 2>/dev/null
  # Stop Redis only if this script started it (it saves its data in $VAR on the way out).
  [ -n "$STARTED_REDIS" ] && [ -f "$STARTED_REDIS" ] && redis-cli -p "${REDIS_PORT:-6379}" shutdown >/dev/null 2>&1
  # Anything its parent left behind (a Celery pool or beat process caught starting by the Ctrl-C): when this
  # script leads its process group (a terminal's job, or started in a session of its own) the group is only
  # what it started, so it gets the TERM too.
  [ "$(ps -o pgid= -p $$ | tr -d ' ')" = "$$" ] && kill -TERM -- -$$ 2>/dev/null
  return 0
}
trap stop_all EXIT
trap 'exit 130' INT TERM
$M requeue_runs --all

log "serving on http://127.0.0.1:$PORT with gunicorn (Ctrl-C stops the server, the worker and a Redis started here)"
"$VENV/bin/gunicorn" --config scripts/gunicorn.conf.py cloudsched_web.wsgi &
WEB=$!
# gunicorn may exit from the same Ctrl-C before this shell handles it: never let `set -e` turn that into
# exit 1. And a shell without job control that sees its child catch SIGINT and exit normally leaves that
# SIGINT to the child (bash's manual, "Signals"), so the trap may never run: gunicorn exits 0 only when told
# to stop, so a clean exit is an interrupt too (130, as the trap says).
wait "$WEB" || WEB_RC=$?
exit "${WEB_RC:-130}"
