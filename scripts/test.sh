#!/usr/bin/env bash
# Run the test suite on this machine: setup (with chromium for the browser tests), the embedded
# model cache once, then pytest on PostgreSQL in two processes. Extra arguments go to pytest.
# Exit code = pytest's.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

bash scripts/setup.sh --with-chromium
# Convert and cache the embedded models once, so no test pays the conversion.
DJANGO_DEBUG=1 .venv/bin/python manage.py prepare_models  # a model step: needs no secret key
# Two processes (pytest-xdist; the idle one steals tests from the other): most of the suite's
# time is waiting on browsers, workers and served models, so two processes fit two cores. Each
# process has its own test database and Redis databases. TEST_PROCESSES=0 runs in this process.
exec .venv/bin/python -m pytest -n "${TEST_PROCESSES:-2}" --dist worksteal "$@"
