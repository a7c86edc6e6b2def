#!/usr/bin/env bash
# Run one process of deploy/Procfile by name, its ${VAR}s expanded from the environment, from the
# repository root. scripts/demo.sh and the image (deploy/Dockerfile, deploy/compose.yaml) start
# every process this way, so the documented lines are the ones that run.
#   deploy/run_process.sh web | worker-cpu | worker-webhooks | worker-gpu | beat
# A line naming CPU_QUEUES gets every declared queue but gpu and webhooks (their own workers)
# when CPU_QUEUES is not set.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PROCFILE="${PROCFILE:-$ROOT/deploy/Procfile}"
name="${1:?usage: deploy/run_process.sh NAME (a process of deploy/Procfile)}"
line="$(grep -E "^${name}:" "$PROCFILE" | head -n 1 || true)"
if [ -z "$line" ]; then
  echo "run_process.sh: no process '$name' in $PROCFILE" >&2
  exit 64
fi
cd "$ROOT"
if [ -d "$ROOT/.venv/bin" ]; then
  export PATH="$ROOT/.venv/bin:$PATH"
fi
if [[ "$line" == *CPU_QUEUES* ]] && [ -z "${CPU_QUEUES:-}" ]; then
  CPU_QUEUES="$(python manage.py worker_queues --except gpu --except webhooks)"
  export CPU_QUEUES
fi
eval "exec ${line#*:}"
