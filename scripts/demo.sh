#!/usr/bin/env bash
# Start the demo on this machine: setup, migrate, load the demo collections, cache the embedded
# models, start the processes of deploy/Procfile (a gpu worker, a cpu worker consuming every
# other declared queue, celery beat) in the background and the web server in the foreground,
# each from its Procfile line. Ctrl-C stops them all. Without PostgreSQL or Redis it falls back
# to SQLite and a filesystem broker.
# DEBUG stays off. The first start generates this install's secret key (var/secret_key) and the
# demo accounts' passwords (var/demo_passwords.json), both mode 600, and keeps them.
#
# Env: PORT (8000), WEB_WORKERS (2), DEMO_PASSWORD and DEMO_ANNOTATOR_PASSWORD (override the
# generated passwords), DJANGO_SECRET_KEY, DJANGO_ALLOWED_HOSTS (localhost and this host's IP)
# and SITE_URL (http://localhost:$PORT), DATABASE_URL and CELERY_BROKER_URL (when set, used as
# they are), DEMO_JOBS (1: queue one small job of each method on demo-qa the first time, so
# their pages fill within minutes; 0: none).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="$ROOT/.venv/bin/python"
PORT="${PORT:-8000}"
WEB_WORKERS="${WEB_WORKERS:-2}"
PASSWORDS_FILE="$ROOT/var/demo_passwords.json"

log() { printf '[demo] %s\n' "$*"; }
shout() {
  printf '\n[demo] %s\n' '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!' >&2
  printf '[demo] !!! %s\n' "$@" >&2
  printf '[demo] %s\n\n' '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!' >&2
}

bash scripts/setup.sh --services-optional
mkdir -p var

# This install's own secret key, generated once and kept (DJANGO_SECRET_KEY overrides it).
if [ -z "${DJANGO_SECRET_KEY:-}" ]; then
  if [ ! -s var/secret_key ]; then
    (umask 077 && "$PY" -c 'import secrets; print(secrets.token_urlsafe(50))' >var/secret_key)
    log "generated this install's secret key in var/secret_key"
  fi
  chmod 600 var/secret_key
  DJANGO_SECRET_KEY="$(cat var/secret_key)"
  export DJANGO_SECRET_KEY
fi
HOST_IP="$(hostname -I 2>/dev/null | awk '{print $1}')"
export DJANGO_ALLOWED_HOSTS="${DJANGO_ALLOWED_HOSTS:-localhost,127.0.0.1,[::1]${HOST_IP:+,$HOST_IP}}"
export SITE_URL="${SITE_URL:-http://localhost:$PORT}"

if [ -z "${DATABASE_URL:-}" ]; then
  if pg_isready -h 127.0.0.1 -q 2>/dev/null \
    && psql -h 127.0.0.1 -U postgres -d crux -tAc 'SELECT 1' >/dev/null 2>&1; then
    export DATABASE_URL="postgres://postgres@127.0.0.1:5432/crux"
  else
    export DATABASE_URL="sqlite:///$ROOT/var/demo.sqlite3"
    shout "PostgreSQL is not reachable: FALLING BACK TO SQLITE ($ROOT/var/demo.sqlite3)." \
      "Fine for a look around; the test suite and real use need PostgreSQL."
  fi
fi

if [ -z "${CELERY_BROKER_URL:-}" ] && ! redis-cli -h 127.0.0.1 ping >/dev/null 2>&1; then
  export CELERY_BROKER_URL="filesystem://"
  export CELERY_FILESYSTEM_DIR="$ROOT/var/celery"
  export CELERY_RESULT_BACKEND="file://$ROOT/var/celery/results"
  mkdir -p var/celery/messages var/celery/control var/celery/results
  shout "Redis is not reachable: FALLING BACK TO CELERY'S FILESYSTEM BROKER ($ROOT/var/celery)." \
    "One machine only; real use needs Redis."
fi

log "database: $DATABASE_URL"
log "broker: ${CELERY_BROKER_URL:-redis://127.0.0.1:6379/0}"
"$PY" manage.py migrate --noinput
"$PY" manage.py load_demo --passwords-file "$PASSWORDS_FILE"
"$PY" manage.py demo_campaign
"$PY" manage.py prepare_models
if [ "${DEMO_JOBS:-1}" != 0 ]; then
  "$PY" manage.py queue_demo_jobs
fi

# The processes are deploy/Procfile's lines, started by deploy/run_process.sh as they are written
# there (their ${VAR}s expanded from this environment): the documented processes are these.
export PORT WEB_WORKERS
start_process() {
  grep -qE "^$1:" deploy/Procfile || { echo "[demo] no process '$1' in deploy/Procfile" >&2; exit 1; }
  "$ROOT/deploy/run_process.sh" "$1" &
}

# One worker per queue: a model job on `gpu` never holds up an import or the embedding judge on
# `cpu` (one worker for both made a 140-byte upload wait behind a ten-minute judge). The cpu
# worker consumes every other declared queue (the job kinds', the default, beat's) but
# `webhooks`, which has its own worker.
CPU_QUEUES="$("$PY" manage.py worker_queues --except gpu --except webhooks)"
export CPU_QUEUES
log "starting the Celery workers: queue gpu (log var/worker.log), queues $CPU_QUEUES" \
  "(log var/worker-cpu.log), queue webhooks (log var/worker-webhooks.log), and celery beat" \
  "(log var/beat.log)"
# Leave a core to the web server: an oversubscribed CPU worker generates far slower.
CORES="$(nproc)"
GPU_THREADS="${TORCH_NUM_THREADS:-$((CORES > 2 ? CORES - 2 : 1))}"
TORCH_NUM_THREADS="$GPU_THREADS" start_process worker-gpu >"$ROOT/var/worker.log" 2>&1
WORKER_PID=$!
# Imports and the embedding judge: one torch thread is plenty for MiniLM.
TORCH_NUM_THREADS=1 start_process worker-cpu >"$ROOT/var/worker-cpu.log" 2>&1
CPU_WORKER_PID=$!
# Webhook deliveries: their own worker, so a slow receiver never holds up an import on cpu.
start_process worker-webhooks >"$ROOT/var/worker-webhooks.log" 2>&1
WEBHOOKS_WORKER_PID=$!
BEAT_SCHEDULE_FILE="$ROOT/var/celerybeat-schedule" start_process beat >"$ROOT/var/beat.log" 2>&1
BEAT_PID=$!
printf '%s\n%s\n%s\n%s\n' "$WORKER_PID" "$CPU_WORKER_PID" "$WEBHOOKS_WORKER_PID" "$BEAT_PID" \
  >var/worker.pid
WEB_PID=""
stop_all() {
  for pid in $WEB_PID $WORKER_PID $CPU_WORKER_PID $WEBHOOKS_WORKER_PID $BEAT_PID; do
    kill -TERM "$pid" 2>/dev/null || continue
    # A warm worker shutdown can take a while (the filesystem broker polls); cap it at 20 s.
    for _ in $(seq 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  rm -f var/worker.pid
  log "stopped the web server, the Celery workers and beat"
}
trap stop_all EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The passwords in effect: the env overrides, else the ones load_demo keeps in var/.
kept_password() {
  "$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' \
    "$PASSWORDS_FILE" "$1"
}
RESEARCHER_PASSWORD="${DEMO_PASSWORD:-$(kept_password researcher)}"
ANNOTATOR_PASSWORD="${DEMO_ANNOTATOR_PASSWORD:-$(kept_password annotator)}"
cat <<EOF

[demo] ================================================================
[demo]  CRUX workbench demo
[demo]  Open:        http://localhost:$PORT/${HOST_IP:+   (or http://$HOST_IP:$PORT/)}
[demo]  Researcher:  researcher / $RESEARCHER_PASSWORD   (staff: /admin/ works too; manager of workspace default)
[demo]  Annotator:   annotator / $ANNOTATOR_PASSWORD
[demo]  Passwords:   var/demo_passwords.json (env DEMO_PASSWORD, DEMO_ANNOTATOR_PASSWORD override)
[demo]  Worker logs: var/worker.log (gpu), var/worker-cpu.log ($CPU_QUEUES), var/worker-webhooks.log, var/beat.log
[demo]  Health:      /healthz, /readyz; metrics: /metrics (from this machine)    Stop: Ctrl-C
[demo] ================================================================

EOF
# In the background and waited for, so that a signal to this script stops every process.
# --preload: the master imports the app (crux_app/wsgi.py warms the URL conf and views) before
# forking, so no web worker's first request pays seconds of imports.
# The web processes count their requests in one folder (/metrics sums them), emptied each start.
PROMETHEUS_MULTIPROC_DIR="$ROOT/var/prometheus"
rm -rf "$PROMETHEUS_MULTIPROC_DIR" && mkdir -p "$PROMETHEUS_MULTIPROC_DIR"
PROMETHEUS_MULTIPROC_DIR="$PROMETHEUS_MULTIPROC_DIR" start_process web
WEB_PID=$!
wait "$WEB_PID"
