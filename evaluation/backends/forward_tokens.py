"""Count the token positions a model's forward passes process: the device-independent work figure.

Every forward call adds rows x positions of its input (prefill, each decoding step, padding
included), so a bench on CPU shows what sharing a prefill or cutting padding saves on a GPU.
"""

from types import TracebackType

import torch


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
            ids = args[0]
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
