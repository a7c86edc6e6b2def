"""A job's model: loaded on first use, and checked to be the model the job records.

Jobs key their stored rows by model id before loading anything, so a re-run with every row
stored never loads a model; when one is loaded, it must be the model those keys name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, Protocol, TypeVar


class HasModelId(Protocol):
    model_id: str


M = TypeVar("M", bound=HasModelId)


class LazyModel(Generic[M]):
    def __init__(self, role: str, model_id: str, load: Callable[[], M]) -> None:
        self.role = role  # "generator", "judge", "NLI model": for the error message
        self.model_id = model_id
        self._load = load
        self._model: M | None = None

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def get(self) -> M:
        if self._model is None:
            model = self._load()
            if model.model_id != self.model_id:
                raise ValueError(
                    f"loaded {self.role} {model.model_id!r} is not the job's {self.role} "
                    f"{self.model_id!r}"
                )
            self._model = model
        return self._model
