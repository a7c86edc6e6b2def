"""Run the bootstrap's matrix products on one BLAS thread.

The products here are small (200 resamples x a few hundred patterns); OpenBLAS's worker
threads cost more to wake than they save, and on a busy machine they wait on each other: on
2 cores a (200 x 117) @ (117 x 64) product took 0.8 ms with 2 threads and 0.17 ms with 1, and
10 ms under load. The agreement report ran 2-3x faster on one thread.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache

from threadpoolctl import ThreadpoolController


@cache
def _controller() -> ThreadpoolController:
    # Finding the loaded BLAS libraries takes ~20 ms: once per process.
    return ThreadpoolController()


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """Limit BLAS (numpy's and scipy's OpenBLAS) to one thread inside the block."""
    with _controller().limit(limits=1, user_api="blas"):
        yield
