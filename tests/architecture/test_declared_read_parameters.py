"""The read side's parameters (``crux_app.read_parameters``: judge, tau, k, run, topic) are
declared once: every command option, page selector, API filter form and published query
parameter named after one of them is found programmatically (the installed apps' commands,
forms and ``api/openapi.json``) and checked against the declaration's bounds, default and
choices. A job's own option (``dense --k``) is its job's declaration, checked elsewhere."""

from __future__ import annotations

import argparse

import pytest
from django.core.management import get_commands, load_command_class

from api.registry import JOB_FORMS
from crux_app.parameters import Parameter


def _entries():
    return [JOB_FORMS[kind] for kind in sorted(JOB_FORMS)]


def _parser(command: str) -> argparse.ArgumentParser:
    return load_command_class(get_commands()[command], command).create_parser("manage.py", command)


def _action(parser: argparse.ArgumentParser, option: str | None):
    if option is None:
        return None
    return next((a for a in parser._actions if option in a.option_strings), None)


def _outside(parameter: Parameter) -> list[object]:
    """Values just outside the declared bounds."""
    step = 1 if parameter.kind is int else 10 ** -(parameter.decimals or 3)
    values: list[object] = []
    if parameter.minimum is not None:
        values.append(parameter.minimum - step)
    if parameter.maximum is not None:
        values.append(parameter.maximum + step)
    return values


def _inside(parameter: Parameter) -> list[object]:
    return [b for b in (parameter.minimum, parameter.maximum) if b is not None]


@pytest.mark.parametrize("command", ["evaluate", "seper_correlations", "agreement"])
def test_read_side_tau_options_are_the_declared_tau(command):
    from crux_app.read_parameters import TAU

    action = _action(_parser(command), "--tau")
    assert action.default == TAU.default
    for value in _inside(TAU):
        assert action.type(str(value)) == value
    for value in _outside(TAU):
        with pytest.raises(argparse.ArgumentTypeError, match="'tau' must be"):
            action.type(str(value))


def test_read_side_tau_selectors_are_the_declared_tau():
    from crux_app.read_parameters import TAU
    from evaluation.agreement.forms import AgreementForm
    from evaluation.leaderboard.forms import TAUS, EvaluationForm

    field = AgreementForm.base_fields["tau"]
    assert (field.min_value, field.max_value) == (TAU.minimum, TAU.maximum)
    values = [float(v) for v, _ in EvaluationForm.base_fields["tau"].choices]
    assert values == [float(v) for v, _ in TAUS] == [1.0, 2.0, 3.0, 4.0, 5.0]
    assert all(TAU.minimum <= v <= TAU.maximum for v in values)


READ_OPTIONS = ("judge", "tau", "k", "run", "topic")


def _read_side_commands() -> list[tuple[str, str]]:
    """(command, read-side parameter) for every command option named as a read-side parameter
    that no job declaration of the command owns (a job's own ``--k`` is the job's) and that is
    not an import format's (``import_*``: the format's declaration)."""
    owned: dict[str, set[str]] = {}
    for entry in _entries():
        declarations = entry.form_class.parameters
        if declarations.command:
            options = {p.option for p in declarations.declared() if p.option}
            owned.setdefault(declarations.command, set()).update(options)
    found = []
    for name, app in sorted(get_commands().items()):
        if not app.startswith("evaluation.") and app != "crux_app":
            continue
        if name.startswith("import_"):
            continue
        parser = _parser(name)
        for parameter in READ_OPTIONS:
            option = f"--{parameter}"
            if _action(parser, option) is not None and option not in owned.get(name, set()):
                found.append((name, parameter))
    return found


def _refuses(action, text: str) -> bool:
    try:
        action.type(text)
    except argparse.ArgumentTypeError:
        return True
    return False


def test_read_side_options_are_found():
    found = set(_read_side_commands())
    assert {("evaluate", "judge"), ("evaluate", "tau"), ("evaluate", "k")} <= found
    assert {("agreement", "judge"), ("nugget_losses", "tau"), ("judge_report", "k")} <= found


@pytest.mark.parametrize(("command", "name"), _read_side_commands())
def test_every_read_side_command_option_is_the_declared_one(command, name):
    from crux_app.read_parameters import DECLARED, K_ORACLE

    declared = DECLARED[name]
    action = _action(_parser(command), f"--{name}")
    assert action.type is not None, f"manage.py {command} --{name} is not the declared {name}"
    assert not action.choices, f"manage.py {command} --{name} has choices of its own"
    if action.default not in (None, []):  # absent: the declared default (a judge: the rule)
        assert action.default == declared.default, (command, name)
    if declared.kind is str:
        assert not _refuses(action, "x" * declared.max_length), (command, name)
        assert _refuses(action, "x" * (declared.max_length + 1)), (command, name)
        return
    for value in _inside(declared):
        assert action.type(str(value)) == value, (command, name)
    for value in _outside(declared):
        assert _refuses(action, str(value)), (command, name, value)
    if name == "k" and not _refuses(action, K_ORACLE):
        assert action.type(K_ORACLE) == K_ORACLE


def _page_forms() -> list[type]:
    """Every form class of the pages and the API that has a read-side field, found from the
    installed apps' ``forms``/``api`` modules (the job start forms' fields are their jobs')."""
    import importlib
    import pkgutil

    from django import forms as django_forms
    from django.apps import apps

    for config in apps.get_app_configs():
        if not config.name.startswith(("evaluation", "api", "crux_app")):
            continue
        for module in ("forms", "api"):
            if pkgutil.find_loader(f"{config.name}.{module}") is not None:
                importlib.import_module(f"{config.name}.{module}")
        importlib.import_module(config.name)
    import api.result_rows  # noqa: F401

    job_forms = {entry.form_class for entry in _entries()}

    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    found = []
    for form in set(subclasses(django_forms.Form)):
        if (
            any(issubclass(form, job) for job in job_forms)
            or hasattr(form, "parameters")
            and (form.parameters in {e.form_class.parameters for e in _entries()})
        ):
            continue
        if not form.__module__.startswith(("evaluation.", "api.")):
            continue
        if set(READ_OPTIONS) & set(form.base_fields):
            found.append(form)
    return sorted(found, key=lambda f: f"{f.__module__}.{f.__qualname__}")


def test_read_side_forms_are_found():
    names = {f.__qualname__ for f in _page_forms()}
    assert {"EvaluationForm", "AgreementForm", "MatrixSelectionForm", "ResultRowsForm"} <= names
    assert {"LossFilterForm", "SeperCorrelationsForm", "RetEvalTableForm"} <= names


def _clean_k(form: type, text: str):
    """What the form's ``clean_k`` makes of ``text`` (a text k that also takes 'oracle')."""
    probe = form.__new__(form)
    probe.cleaned_data = {"k": form.base_fields["k"].clean(text)}
    return form.clean_k(probe)


@pytest.mark.parametrize("form", _page_forms(), ids=lambda f: f"{f.__module__}.{f.__qualname__}")
def test_every_read_side_selector_and_api_filter_is_the_declared_one(form):
    """A selector offers the declared bounds (a select: the declared whole taus), and a blank
    value reads as the declared default (or, for an API filter, as every value)."""
    from django import forms as django_forms

    from crux_app.read_parameters import DECLARED, K_ORACLE, TAU, whole_taus

    for name in set(READ_OPTIONS) & set(form.base_fields):
        declared, field = DECLARED[name], form.base_fields[name]
        where = f"{form.__qualname__}.{name}"
        if isinstance(field, django_forms.ModelChoiceField):
            continue  # a choice of the collection's own rows
        if declared.kind is str and isinstance(field, django_forms.IntegerField):
            continue  # the id of a row the page's own select offers (the matrix's judge)
        whole_number = type(field) is django_forms.IntegerField  # FloatField is one too
        if name == "tau" and whole_number:
            whole = [int(c) for c, _ in whole_taus()]
            assert (field.min_value, field.max_value) == (whole[0], whole[-1]), where
            assert field.initial in (None, TAU.default), where
            continue
        if isinstance(field, django_forms.ChoiceField):
            if name == "tau":
                assert [c for c, _ in field.choices] == [c for c, _ in whole_taus()], where
                empty = getattr(field, "empty_value", None)
                assert empty in (None, TAU.default), where
            continue  # judges: the collection's, filled per request
        if declared.kind is str:
            assert field.max_length == declared.max_length, where
        elif isinstance(field, django_forms.CharField):  # k with 'oracle'
            assert name == "k", where
            assert _clean_k(form, "") == declared.default, where
            assert _clean_k(form, str(declared.maximum)) == declared.maximum, where
            assert _clean_k(form, K_ORACLE) == K_ORACLE, where
            for value in _outside(declared):
                with pytest.raises(django_forms.ValidationError):
                    _clean_k(form, str(value))
        else:
            assert (field.min_value, field.max_value) == (declared.minimum, declared.maximum), where
        if field.initial is not None:
            assert field.initial == declared.default, where


def test_api_filter_parameters_are_the_declared_ones():
    """The published query parameters of the result endpoints: typed and bounded as declared."""
    import json
    from pathlib import Path

    from crux_app.read_parameters import (
        DECLARED,
        filter_schema,
        k_or_oracle_schema,
        whole_tau_schema,
    )

    # A page's offer made from the declaration: whole taus, k with 'oracle'.
    offers = {"tau": [whole_tau_schema()], "k": [k_or_oracle_schema()]}
    schema = json.loads((Path(__file__).parents[2] / "api" / "openapi.json").read_text())
    checked: set[str] = set()
    for path, operations in schema["paths"].items():
        for parameter in operations.get("get", {}).get("parameters", []):
            name = parameter["name"]
            if parameter["in"] != "query" or name not in READ_OPTIONS:
                continue
            allowed = [filter_schema(DECLARED[name]), *offers.get(name, [])]
            assert parameter["schema"] in allowed, (path, name)
            checked.add(name)
    assert checked == set(READ_OPTIONS)


def test_a_page_declaration_takes_a_read_side_parameter_whole():
    """``same_as`` rewords a read-side parameter for a page, never rebounds it."""
    from crux_app.read_parameters import TAU, same_as
    from evaluation.nuggets.params import LossParams

    with pytest.raises(TypeError, match="only"):
        same_as("tau", minimum=1)
    tau = LossParams.declared()["tau"]
    assert (tau.kind, tau.minimum, tau.maximum, tau.default) == (
        TAU.kind,
        TAU.minimum,
        TAU.maximum,
        TAU.default,
    )
