"""Every startable job kind's parameters, and every import format's, are declared once: the
page form's bounds, the management command's bounds, the job's parsing and the API's schema are
the declaration's. Kinds and formats are found from the registries, so a new method's job (or
a new format) is checked the day it is registered."""

from __future__ import annotations

import argparse

import pytest
from django.core.management import get_commands, load_command_class

from api.job_start import job_params_schema
from api.registry import JOB_FORMS
from api.views.imports import ApiImportForm
from crux_app.dataio.catalog import IMPORT_FORMATS
from crux_app.parameters import Parameter, ParameterSet
from crux_app.views.upload import UploadForm


def _entries():
    return [JOB_FORMS[kind] for kind in sorted(JOB_FORMS)]


def _kinds() -> list[str]:
    return sorted(JOB_FORMS)


def _entry(kind: str):
    return JOB_FORMS[kind]


def _outside(parameter: Parameter) -> list[object]:
    """Values just outside the declared bounds (JSON values)."""
    step = 1 if parameter.kind in (int, tuple) else 10 ** -(parameter.decimals or 3)
    values: list[object] = []
    if parameter.minimum is not None:
        values.append(parameter.minimum - step)
    if parameter.maximum is not None:
        values.append(parameter.maximum + step)
    return values


def _inside(parameter: Parameter) -> list[object]:
    return [b for b in (parameter.minimum, parameter.maximum) if b is not None]


def _json(parameter: Parameter, value: object) -> object:
    return [value] if parameter.kind is tuple else value


def _base(declared: ParameterSet) -> dict[str, object]:
    """Params every required parameter has a value in."""
    return {p.name: 1 for p in declared if p.required and p.default_value is None}


def _parser(command: str) -> argparse.ArgumentParser:
    return load_command_class(get_commands()[command], command).create_parser("manage.py", command)


def _action(parser: argparse.ArgumentParser, option: str | None):
    if option is None:
        return None
    return next((a for a in parser._actions if option in a.option_strings), None)


def test_every_startable_kind_is_made_from_a_declaration():
    assert {"dense", "seper", "scaar", "reteval", "judge_answerability"} <= set(_kinds())
    for entry in _entries():
        declared = getattr(entry.form_class, "parameters", None)
        assert declared is not None, f"{entry.kind}'s form is not made from a declaration"


@pytest.mark.django_db
@pytest.mark.parametrize("kind", _kinds())
def test_form_command_job_and_schema_bounds_are_the_declared_ones(kind):
    entry = _entry(kind)
    declarations = entry.form_class.parameters
    declared = declarations.declared()
    schema = job_params_schema(kind)
    parser = _parser(declarations.command) if declarations.command else None
    if parser is not None:  # the command offers every parameter that declares an option
        missing = [p.option for p in declared if p.option and _action(parser, p.option) is None]
        assert not missing, f"manage.py {declarations.command} lacks {missing}"
    base = _base(declared)
    for parameter in declared:
        name = parameter.name
        # The job's parsing: the bounds themselves pass, a step outside is refused.
        for value in _inside(parameter):
            declared.parse({**base, name: _json(parameter, value)})
        for value in _outside(parameter):
            with pytest.raises(ValueError, match=f"'{name}' must be"):
                declared.parse({**base, name: _json(parameter, value)})
        # The page form's field (and so the API, which validates with the form).
        if parameter.form and name not in entry.fixed:
            field = entry.form_class.base_fields[name]
            low = getattr(field, "min_value", getattr(field, "minimum", None))
            high = getattr(field, "max_value", getattr(field, "maximum", None))
            if parameter.minimum is not None or low is not None:
                assert float(low) == parameter.minimum, name
            if parameter.maximum is not None or high is not None:
                assert float(high) == parameter.maximum, name
            if parameter.choices:
                assert [c for c, _ in field.choices] == [c for c, _ in parameter.choices], name
            assert schema["properties"][name] == parameter.schema(), name
        # The command's option.
        action = _action(parser, parameter.option) if parser else None
        if action is None:
            continue
        if parameter.choices:
            assert list(action.choices) == [c for c, _ in parameter.choices], name
        if action.type is not None:
            for value in _inside(parameter):
                action.type(str(value))
            for value in _outside(parameter):
                with pytest.raises(argparse.ArgumentTypeError, match=f"'{name}' must be"):
                    action.type(str(value))


def _formats() -> list[str]:
    return sorted(name for name, chosen in IMPORT_FORMATS.items() if chosen.parameters)


def _import_command(name: str):
    command = "import_" + name.replace("-", "_")
    if command not in get_commands():
        return None
    loaded = load_command_class(get_commands()[command], command)
    # A command that still writes its own options is not made from the declaration yet.
    return None if loaded._writes_own_options() else loaded.create_parser("manage.py", command)


@pytest.mark.parametrize("name", _formats())
def test_import_command_upload_form_and_job_use_the_formats_declaration(name):
    chosen = IMPORT_FORMATS[name]
    declared = chosen.declared()
    base = {p.name: "x" for p in declared if p.required and p.kind is str and not p.choices}
    base |= {p.name: p.choices[0][0] for p in declared if p.required and p.choices}
    base |= {p.name: p.minimum for p in declared if p.required and p.kind is int}
    # The API's import form offers every format, the upload page the uploadable ones.
    made_forms = [ApiImportForm().fields] + ([UploadForm().fields] if chosen.uploadable else [])
    parser = _import_command(name)
    for parameter in declared:
        for value in _inside(parameter):
            declared.parse({**base, parameter.name: value})
        for value in _outside(parameter):
            with pytest.raises(ValueError, match=f"'{parameter.name}' must be"):
                declared.parse({**base, parameter.name: value})
        for fields in made_forms:
            field = fields[parameter.name]
            if parameter.kind is int:
                assert (field.min_value, field.max_value) == (parameter.minimum, parameter.maximum)
            if parameter.choices:
                values = [c for c, _ in field.choices if c]
                assert values == [c for c, _ in parameter.choices]
            elif parameter.kind is str:
                assert field.max_length == parameter.max_length
        action = _action(parser, parameter.option) if parser else None
        if action is not None:
            assert action.required == (parameter.required and parameter.default is None)
            if parameter.choices:
                assert list(action.choices) == [c for c, _ in parameter.choices]
            for value in _outside(parameter):
                with pytest.raises(argparse.ArgumentTypeError):
                    action.type(str(value))


def test_every_compute_command_shares_the_compute_base():
    from crux_app.compute_command import ComputeCommand

    computing = []
    for name, app in sorted(get_commands().items()):
        if not isinstance(app, str) or not app.startswith("evaluation."):
            continue
        command = load_command_class(app, name)
        parser = command.create_parser("manage.py", name)
        if _action(parser, "--compute") is not None:
            computing.append(name)
            assert isinstance(command, ComputeCommand), name
            assert _action(parser, "--dry-run") is not None, name
    assert {"dense", "nuggets", "reteval", "scaar", "seper_correlations"} <= set(computing)
