"""Prompt and completion tokens spent by this process's model calls since they were last taken.

Backends record what each call cost; the job runner takes the counts after every batch and adds
them to the job (registered from ``BackendsConfig.ready``). One counter per process: a Celery
prefork child runs one job at a time; the lock covers a backend's own request threads.
"""

import threading

_lock = threading.Lock()
_prompt = 0
_completion = 0


def record(prompt_tokens: int, completion_tokens: int) -> None:
    global _prompt, _completion
    with _lock:
        _prompt += max(0, int(prompt_tokens))
        _completion += max(0, int(completion_tokens))


def take() -> tuple[int, int]:
    """(prompt, completion) tokens recorded since the last call, and reset them."""
    global _prompt, _completion
    with _lock:
        counts = (_prompt, _completion)
        _prompt = _completion = 0
    return counts
