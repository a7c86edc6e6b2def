"""The WSGI module warms the app when it is imported (gunicorn --preload imports it once in the
master): the URL conf and every app's views are loaded before the first request, not by it."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROBE = (
    "import json, sys; import crux_app.wsgi; "
    "print(json.dumps(sorted(m for m in sys.modules if m.endswith(('.urls', '.views')))))"
)


def test_importing_the_wsgi_module_loads_the_url_conf_and_the_views():
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "CELERY_"))}
    env["DJANGO_SECRET_KEY"] = "wsgi-warm-test-key-" + "x" * 40
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    loaded = set(json.loads(done.stdout.strip().splitlines()[-1]))
    assert {"crux_app.urls", "evaluation.leaderboard.views", "evaluation.crux.views"} <= loaded
