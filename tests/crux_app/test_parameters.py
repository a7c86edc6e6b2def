"""Parameters declared once (``crux_app.parameters``): one declaration parses a job's JSON
params, makes the form's fields, the command's options and the JSON schema, all with the same
bounds, choices and defaults."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from decimal import Decimal
from typing import ClassVar

import pytest
from django import forms

from crux_app.parameters import JobParameters, Parameter, declared_form, param


@dataclass(frozen=True)
class ToyParams(JobParameters):
    command: ClassVar[str | None] = None

    run_id: int = param(describe="a run id", form=False, cli=None)
    k: int = param(5, minimum=1, maximum=20, label="Top k")
    temperature: float = param(0.0, minimum=0, maximum=2, decimals=2, initial=Decimal(0))
    weighting: str = param("raw", choices=(("raw", "Raw"), ("norm", "Normalised")))
    refine: bool = param(True, label="Refine")
    verbose: bool = param(False)
    ks: tuple[int, ...] = param((1, 5), minimum=1, maximum=100)
    system: str | None = param(None, max_length=10, describe="a system name")
    seed: int | None = param(None, minimum=0, maximum=2**31 - 1)

    def check(self) -> None:
        if self.k > 10 and not self.refine:
            raise ValueError("k > 10 needs refine")


def test_parsing_fills_defaults_and_types_the_values():
    parsed = ToyParams.from_params({"run_id": 3, "temperature": 1, "ks": [10, 1, 10]})
    assert parsed == ToyParams(run_id=3, temperature=1.0, ks=(1, 10))
    assert isinstance(parsed.temperature, float)
    assert parsed.k == 5 and parsed.weighting == "raw" and parsed.refine is True
    assert parsed.system is None and parsed.seed is None


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({}, "job parameter 'run_id' must be a run id, got None"),
        ({"run_id": "3"}, "job parameter 'run_id' must be a run id, got '3'"),
        ({"run_id": 1, "k": 0}, "job parameter 'k' must be an integer in 1..20, got 0"),
        ({"run_id": 1, "k": 21}, "job parameter 'k' must be an integer in 1..20, got 21"),
        ({"run_id": 1, "k": True}, "job parameter 'k' must be an integer in 1..20, got True"),
        ({"run_id": 1, "k": 2.0}, "'k' must be an integer in 1..20, got 2.0"),
        ({"run_id": 1, "k": None}, "'k' must be an integer in 1..20, got None"),
        ({"run_id": 1, "temperature": 0.123}, "in 0..2 with at most 2 decimals, got 0.123"),
        ({"run_id": 1, "temperature": "hot"}, "'temperature' must be a number in 0..2"),
        ({"run_id": 1, "weighting": "attn"}, "'weighting' must be one of raw, norm, got 'attn'"),
        ({"run_id": 1, "refine": "yes"}, "'refine' must be true or false, got 'yes'"),
        ({"run_id": 1, "ks": []}, "'ks' must be a list of integers in 1..100, got []"),
        ({"run_id": 1, "ks": [1, "5"]}, "'ks' must be a list of integers in 1..100"),
        ({"run_id": 1, "system": ""}, "'system' must be a system name or null, got ''"),
        ({"run_id": 1, "system": "x" * 11}, "'system' must be a system name or null"),
        ({"run_id": 1, "seed": -1}, "'seed' must be an integer in 0..2147483647 or null"),
        ({"run_id": 1, "k": 11, "refine": False}, "k > 10 needs refine"),
    ],
)
def test_a_refused_value_is_named(params, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace("[", r"\[")):
        ToyParams.from_params(params)


def test_the_form_fields_carry_the_declared_bounds_choices_and_defaults():
    fields = ToyParams.form_fields()
    names = ["k", "temperature", "weighting", "refine", "verbose", "ks", "system", "seed"]
    assert list(fields) == names  # declared order; run_id is not a form field
    k = fields["k"]
    assert isinstance(k, forms.IntegerField)
    assert (k.min_value, k.max_value, k.initial, k.label, k.required) == (1, 20, 5, "Top k", True)
    temperature = fields["temperature"]
    assert isinstance(temperature, forms.DecimalField) and temperature.decimal_places == 2
    assert temperature.initial == Decimal(0)
    assert fields["weighting"].choices == [("raw", "Raw"), ("norm", "Normalised")]
    assert isinstance(fields["refine"], forms.BooleanField) and not fields["refine"].required
    assert fields["ks"].initial == "1 5"
    assert fields["system"].max_length == 10 and not fields["system"].required
    assert not fields["seed"].required and fields["seed"].max_value == 2**31 - 1


def test_a_declared_form_validates_with_the_declared_bounds_and_gives_typed_values():
    form_class = declared_form(ToyParams)
    good = form_class(
        {"k": "20", "temperature": "0.25", "weighting": "norm", "ks": "10, 1 5", "refine": "on"}
    )
    assert good.is_valid(), good.errors
    values = ToyParams.declared().form_values(good.cleaned_data)
    assert values == {
        "k": 20,
        "temperature": 0.25,
        "weighting": "norm",
        "refine": True,
        "verbose": False,
        "ks": (1, 5, 10),
        "system": None,
        "seed": None,
    }
    bad = form_class({"k": "21", "temperature": "0.125", "weighting": "attn", "ks": "0"})
    assert not bad.is_valid()
    assert set(bad.errors) == {"k", "temperature", "weighting", "ks"}
    assert bad.errors["ks"] == ["'0' is not an integer k between 1 and 100"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(exit_on_error=False)
    ToyParams.add_arguments(parser)
    return parser


def test_the_command_options_are_made_from_the_declaration():
    parser = _parser()
    options = vars(parser.parse_args(["--k", "7", "--no-refine", "--verbose", "--ks", "5", "1"]))
    assert "run_id" not in options  # cli=None: the command chooses the run itself
    values = ToyParams.from_options(options)
    assert values == {
        "k": 7,
        "temperature": 0.0,
        "weighting": "raw",
        "refine": False,
        "verbose": True,
        "ks": (1, 5),
        "system": None,
        "seed": None,
    }
    assert ToyParams(run_id=1, **values).k == 7


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--k", "21"], "option 'k' must be an integer in 1..20, got 21"),
        (["--k", "x"], "'k' must be an integer in 1..20, got 'x'"),
        (["--temperature", "0.125"], "with at most 2 decimals"),
        (["--weighting", "attn"], "invalid choice: 'attn'"),
        (["--ks", "101"], "option 'ks' must be an integer in 1..100, got 101"),
    ],
)
def test_an_option_out_of_bounds_is_refused_naming_it(argv, message):
    with pytest.raises(argparse.ArgumentError, match=message):
        _parser().parse_args(argv)


def test_the_schema_describes_the_same_bounds():
    schema = ToyParams.schema()
    assert schema["required"] == ["run_id"]
    properties = schema["properties"]
    assert properties["k"] == {
        "type": "integer",
        "minimum": 1,
        "maximum": 20,
        "default": 5,
        "title": "Top k",
    }
    assert properties["weighting"]["enum"] == ["raw", "norm"]
    assert properties["ks"] == {
        "type": "array",
        "minItems": 1,
        "items": {"type": "integer", "minimum": 1, "maximum": 100},
        "default": [1, 5],
    }
    assert properties["system"]["type"] == ["string", "null"]
    assert properties["temperature"]["multipleOf"] == 0.01


def test_an_undeclared_field_is_an_error():
    @dataclass(frozen=True)
    class Undeclared(JobParameters):
        k: int = 3

    with pytest.raises(TypeError, match="Undeclared.k is not declared with param"):
        Undeclared.declared()


def test_a_catalog_parameter_is_missing_when_required_and_blank():
    judge = Parameter("judge", "Judge")
    assert judge.check("nist") == "nist"
    for blank in (None, ""):
        with pytest.raises(ValueError, match="job parameter 'judge' is missing"):
            judge.check(blank)
    optional = Parameter("model_id", "Model id", required=False, default="")
    assert optional.check("") == ""
