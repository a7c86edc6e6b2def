"""The models the workers run: ids, device and threads, served models' addresses and
limits, and their prices for cost estimates."""

import os
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from crux_app.jobs.cost import parse_prices

from .environment import BASE_DIR

# Model ids: hub ids or local paths. Empty means the embedded offline default.
GENERATOR_MODEL = os.environ.get("GENERATOR_MODEL", "")
JUDGE_MODEL = os.environ.get("JUDGE_MODEL", "")
NLI_MODEL = os.environ.get("NLI_MODEL", "")
EMBED_MODEL = os.environ.get("EMBED_MODEL", "")
TOKENIZER_MODEL = os.environ.get("TOKENIZER_MODEL", "")
MODEL_CACHE_DIR = Path(os.environ.get("MODEL_CACHE_DIR", BASE_DIR / "var" / "models"))
MODEL_DEVICE = os.environ.get("MODEL_DEVICE", "")  # "" = CUDA when available, else CPU
# OpenAI-compatible model servers per role (vLLM, hosted APIs): when <ROLE>_API_BASE is set, the
# role's *_MODEL setting is the served model's name. Keys only from the environment.
GENERATOR_API_BASE = os.environ.get("GENERATOR_API_BASE", "")
GENERATOR_API_KEY = os.environ.get("GENERATOR_API_KEY", "")
JUDGE_API_BASE = os.environ.get("JUDGE_API_BASE", "")
JUDGE_API_KEY = os.environ.get("JUDGE_API_KEY", "")
NLI_API_BASE = os.environ.get("NLI_API_BASE", "")
NLI_API_KEY = os.environ.get("NLI_API_KEY", "")
MODEL_API_MAX_CONCURRENCY = int(os.environ.get("MODEL_API_MAX_CONCURRENCY", "8"))  # per worker
MODEL_API_TIMEOUT = float(os.environ.get("MODEL_API_TIMEOUT", "120"))  # seconds per request
MODEL_API_MAX_RETRIES = int(os.environ.get("MODEL_API_MAX_RETRIES", "4"))  # 429, 5xx, timeouts
# Money per million input / output tokens of served models, for the cost estimate shown before
# a job starts (crux_app.jobs.estimate): a JSON object, served model name -> [input, output],
# e.g. {"gpt-4o-mini": [0.15, 0.6]}. Unset: no money figure.
try:
    MODEL_PRICES = parse_prices(os.environ.get("MODEL_PRICES", ""))
except ValueError as error:
    raise ImproperlyConfigured(str(error)) from None
# CPU threads per model process; 0 keeps torch's default (one per core).
TORCH_NUM_THREADS = int(os.environ.get("TORCH_NUM_THREADS", "0"))
