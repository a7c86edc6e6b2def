"""Declarations: a set of parameters (``ParameterSet``: an import format's), and a job's
parameters as a frozen dataclass (``JobParameters`` with ``param`` fields), with the form class
made from them (``declared_form``)."""

from __future__ import annotations

import argparse
import dataclasses
import functools
import typing
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar, TypeVar

from django import forms

from .parameter import NO_DEFAULT, Parameter


class ParameterSet:
    """Declared parameters, in order: parse, form fields, command options, schema."""

    def __init__(self, parameters: Iterable[Parameter]) -> None:
        self.parameters = {p.name: p for p in parameters}

    def __iter__(self):
        return iter(self.parameters.values())

    def __getitem__(self, name: str) -> Parameter:
        return self.parameters[name]

    def _chosen(self, names: Iterable[str] | None) -> list[Parameter]:
        return list(self) if names is None else [self.parameters[n] for n in names]

    def parse(self, params: Mapping[str, Any], prefix: str = "job parameter") -> dict[str, Any]:
        """Every parameter's checked value (absent: its default); ValueError names a bad
        one. Keys the declaration does not know are not looked at."""
        return {p.name: p.check(params.get(p.name, p.default_value), prefix) for p in self}

    def form_fields(self, names: Iterable[str] | None = None) -> dict[str, forms.Field]:
        return {p.name: p.form_field() for p in self._chosen(names) if p.form}

    def form_values(self, cleaned_data: Mapping[str, Any]) -> dict[str, Any]:
        """The form-shown parameters' values from a valid form's cleaned data."""
        return {p.name: p.form_value(cleaned_data.get(p.name)) for p in self if p.form}

    def add_arguments(
        self, parser: argparse.ArgumentParser, names: Iterable[str] | None = None
    ) -> None:
        for parameter in self._chosen(names):
            parameter.add_argument(parser)

    def from_options(
        self, options: Mapping[str, Any], names: Iterable[str] | None = None
    ) -> dict[str, Any]:
        """The values of the parameters that have an option, from a command's options."""
        return {
            p.name: p.option_value(options)
            for p in self._chosen(names)
            if p.dest is not None and p.dest in options
        }

    def schema(self) -> dict[str, Any]:
        required = [p.name for p in self if p.required and p.default is NO_DEFAULT]
        out: dict[str, Any] = {
            "type": "object",
            "properties": {p.name: p.schema() for p in self},
        }
        if required:
            out["required"] = required
        return out


def param(default: Any = NO_DEFAULT, **declared: Any) -> Any:
    """A dataclass field of a ``JobParameters`` class, declared with ``Parameter``'s words
    (its name and kind come from the field)."""
    spec = {"default": default, **declared}
    if default is NO_DEFAULT:
        return dataclasses.field(metadata={"parameter": spec})
    return dataclasses.field(default=default, metadata={"parameter": spec})


P = TypeVar("P", bound="JobParameters")

_KINDS = {int: int, float: float, bool: bool, str: str}


class JobParameters:
    """The base of a job's declared parameters (a frozen dataclass whose fields are ``param``s).

    ``command`` names the management command whose options are made from the declaration
    (None: it has none).
    """

    command: ClassVar[str | None] = None

    @classmethod
    def declared(cls) -> ParameterSet:
        return _declared(cls)

    @classmethod
    def from_params(cls: type[P], params: Mapping[str, Any]) -> P:
        """Parse a Job's JSON params, naming the field that is wrong (ValueError)."""
        made = cls(**cls.declared().parse(params))
        made.check()
        return made

    def check(self) -> None:
        """Rules between fields (raise ``ParameterError`` naming the field a door reports it
        at); the single fields are checked already. The one home of a cross-field rule: the
        page form, the command and the API all reach it through ``from_params``."""

    @classmethod
    def takes_run(cls) -> bool:
        """Whether the job runs on one of the collection's runs (a declared ``run_id``)."""
        return "run_id" in cls.declared().parameters

    def as_params(self, run: Any = None) -> dict[str, Any]:
        """The JSON params of a job (lists for tuples); a job on a run keeps the run's name
        beside its id, for display only."""
        values = {
            name: list(value) if isinstance(value, tuple) else value
            for name, value in dataclasses.asdict(self).items()
        }
        if self.takes_run():
            return {"run": getattr(run, "name", None), **values}
        return values

    def started_kind(self, kind: str) -> str:
        """The job kind a start of ``kind`` with these parameters runs (a parameter may choose
        a kind of its own, as the judge's method does)."""
        return kind

    @classmethod
    def form_fields(cls, names: Iterable[str] | None = None) -> dict[str, forms.Field]:
        return cls.declared().form_fields(names)

    @classmethod
    def add_arguments(
        cls, parser: argparse.ArgumentParser, names: Iterable[str] | None = None
    ) -> None:
        cls.declared().add_arguments(parser, names)

    @classmethod
    def from_options(
        cls, options: Mapping[str, Any], names: Iterable[str] | None = None
    ) -> dict[str, Any]:
        return cls.declared().from_options(options, names)

    @classmethod
    def schema(cls) -> dict[str, Any]:
        return cls.declared().schema()


@functools.cache
def _declared(cls: type) -> ParameterSet:
    hints = typing.get_type_hints(cls)
    parameters = []
    for field in dataclasses.fields(cls):
        spec = field.metadata.get("parameter")
        if spec is None:
            raise TypeError(f"{cls.__name__}.{field.name} is not declared with param()")
        kind, nullable = _kind(hints[field.name])
        default = spec["default"]
        parameters.append(
            Parameter(
                name=field.name,
                kind=kind,
                nullable=nullable,
                required=default is NO_DEFAULT or not nullable,
                **{**spec, "default": default},
            )
        )
    return ParameterSet(parameters)


def _kind(hint: Any) -> tuple[type, bool]:
    args = typing.get_args(hint)
    nullable = type(None) in args
    if nullable:
        (hint,) = [a for a in args if a is not type(None)]
    if typing.get_origin(hint) is tuple:
        return tuple, nullable
    return _KINDS[hint], nullable


def declared_form(
    parameters: type[JobParameters],
    base: type[forms.Form] = forms.Form,
    names: Sequence[str] | None = None,
) -> type[forms.Form]:
    """A form class derived from ``base`` with the declaration's form fields, in declared
    order (a subclass adds its own fields after them; ``field_order`` moves them)."""
    attrs: dict[str, Any] = {
        **parameters.form_fields(names),
        "parameters": parameters,
        "__module__": parameters.__module__,
    }
    return type(base)(f"{parameters.__name__}Fields", (base,), attrs)
