#!/usr/bin/env bash
# Back up this install into one folder (BACKUP_DIR, default var/backups/<UTC time>/, mode 700):
#   database.dump     pg_dump --format=custom of DATABASE_URL (PostgreSQL only)
#   uploads.tar.gz    UPLOAD_DIR (default var/uploads), when it exists
#   secret_key        var/secret_key, when the install keeps its key there (mode 600)
# then checks the dump restores (manage.py check_backup: a scratch database, dropped after).
# Restore: README "Backups and upgrades".
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="$ROOT/.venv/bin/python"
DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/crux}"
# manage.py needs the key: this install's own (var/secret_key) unless DJANGO_SECRET_KEY is set.
if [ -z "${DJANGO_SECRET_KEY:-}" ] && [ -s var/secret_key ]; then
  DJANGO_SECRET_KEY="$(cat var/secret_key)"
  export DJANGO_SECRET_KEY
fi
case "$DATABASE_URL" in
  postgres://* | postgresql://*) ;;
  *) echo "[backup] DATABASE_URL is not PostgreSQL: copy the SQLite file instead" >&2; exit 2 ;;
esac
OUT="${BACKUP_DIR:-$ROOT/var/backups/$(date -u +%Y%m%dT%H%M%SZ)}"
mkdir -p "$OUT"
chmod 700 "$OUT"

pg_dump --format=custom --no-owner --file "$OUT/database.dump" "$DATABASE_URL"
UPLOADS="${UPLOAD_DIR:-$ROOT/var/uploads}"
if [ -d "$UPLOADS" ]; then
  tar -C "$(dirname "$UPLOADS")" -czf "$OUT/uploads.tar.gz" "$(basename "$UPLOADS")"
fi
if [ -s var/secret_key ]; then
  (umask 077 && cp var/secret_key "$OUT/secret_key")
fi
DATABASE_URL="$DATABASE_URL" "$PY" manage.py check_backup "$OUT/database.dump"
echo "[backup] written to $OUT"
