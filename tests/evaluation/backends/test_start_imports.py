"""A process that starts Django (web, worker, command) does not import torch or transformers:
their import took ~7 s of CPU per process start; only building a model needs them."""

import os
import subprocess
import sys

from django.conf import settings

SNIPPET = """
import sys
import django
django.setup()
from django.urls import get_resolver
get_resolver().url_patterns  # every view module, as the first request imports them
from evaluation.backends import registry
from evaluation.backends.model import ids
ids.generator_model(), ids.judge_model(), ids.nli_model()
heavy = sorted(name for name in ("torch", "transformers") if name in sys.modules)
print("heavy:", ",".join(heavy))
"""


def test_starting_django_and_naming_models_imports_no_torch():
    result = subprocess.run(
        [sys.executable, "-c", SNIPPET],
        cwd=settings.BASE_DIR,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "crux_app.settings"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "heavy:"
