#!/usr/bin/env bash
# Run the test suite on this machine: setup (with chromium for the browser tests), the embedded
# model cache once, then pytest on PostgreSQL. Extra arguments go to pytest. Exit code = pytest's.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

bash scripts/setup.sh --with-chromium
# Convert and cache the embedded models once, so no test pays the conversion.
DJANGO_DEBUG=1 .venv/bin/python manage.py prepare_models  # a model step: needs no secret key
exec .venv/bin/python -m pytest "$@"
