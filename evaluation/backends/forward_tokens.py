"""Count the token positions a model's forward passes process: the device-independent work figure.

Every forward call adds rows x positions of its input (prefill, each decoding step, padding
included), so a bench on CPU shows what sharing a prefill or cutting padding saves on a GPU;
the backends record it with every call (``token_usage``), the figure a job's page and
``/metrics`` show per model role.
"""

import functools
from collections.abc import Callable, Mapping
from types import TracebackType
from typing import Any, TypeVar

import torch

from evaluation.backends import token_usage


class ForwardTokenCounter:
    """While entered, counts the tokens passed through ``model.forward`` and the calls made."""

    def __init__(self, model: torch.nn.Module) -> None:
        self.model = model
        self.tokens = 0
        self.calls = 0
        self._handle = None

    def _count(self, _module, args: tuple, kwargs: dict) -> None:
        ids = kwargs.get("input_ids")
        if ids is None and args:
            # A sentence-transformers model takes its tokenized batch as one dict.
            ids = args[0].get("input_ids") if isinstance(args[0], Mapping) else args[0]
        if ids is None:
            embeds = kwargs.get("inputs_embeds")
            shape = tuple(embeds.shape[:2]) if embeds is not None else (0, 0)
        else:
            shape = tuple(ids.shape[:2]) if ids.dim() > 1 else (1, ids.shape[0])
        self.tokens += shape[0] * shape[1]
        self.calls += 1

    def __enter__(self) -> "ForwardTokenCounter":
        self._handle = self.model.register_forward_pre_hook(self._count, with_kwargs=True)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._handle is not None:
            self._handle.remove()
            self._handle = None


Method = TypeVar("Method", bound=Callable[..., Any])


def recorded_passes(role: str | None = None) -> Callable[[Method], Method]:
    """Decorate a backend's method (of an object with a ``model``): its forward passes and
    their tokens are recorded as the call's usage (``token_usage``), under ``role`` or else
    the role in force, even when it raises (the passes ran)."""

    def decorate(method: Method) -> Method:
        @functools.wraps(method)
        def counted(self, *args: Any, **kwargs: Any) -> Any:
            with ForwardTokenCounter(self.model) as passes:
                try:
                    return method(self, *args, **kwargs)
                finally:
                    if passes.calls:
                        token_usage.record(
                            calls=passes.calls, forward_tokens=passes.tokens, role=role
                        )

        return counted  # type: ignore[return-value]

    return decorate
