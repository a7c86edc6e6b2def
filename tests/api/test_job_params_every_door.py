"""Every startable kind's declared parameters hold through every door: a start through the API
with ``params`` omitted stores each declared default, and for the same input the page form,
the command's options, the API and the job agree on the stored parameters (or all refuse it).
Kinds and parameters are found from the registries, so a new method is checked the day its
job is registered."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.management import CommandError, get_commands, load_command_class

from api.job_start import accepted_params
from api.registry import JOB_FORMS
from crux_app.jobs.start_view import _initial_data
from crux_app.models import Job
from crux_app.parameters import Parameter
from tests.crux_app.factories import make_small_collection

pytestmark = pytest.mark.django_db

KINDS = sorted(JOB_FORMS)


def _json(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def _start(api, kind: str, params: dict[str, Any]):
    return api.post(
        "/api/v1/collections/duc04/jobs/",
        {"kind": kind, "params": params},
        content_type="application/json",
    )


def _base(entry) -> dict[str, Any]:
    """What every start of the kind must give: the run, when the job needs one."""
    parameters = entry.parameters
    if parameters.takes_run() and not parameters.declared()["run_id"].nullable:
        return {"run": "bm25"}
    return {}


def _other_value(entry, collection, parameter: Parameter) -> Any:
    """A valid value of ``parameter`` that is not its default (JSON): one the page offers,
    where it offers choices of its own (a system of the collection)."""
    field = entry.form_class(collection=collection).fields.get(parameter.name)
    offered = [c for c, _ in getattr(field, "choices", ()) if c not in ("", None)]
    if parameter.kind is bool:
        return not parameter.default
    if parameter.choices or offered:
        values = [c for c, _ in parameter.choices] or offered
        return next(v for v in values if v != parameter.default)
    if parameter.kind is str:
        return "some-model"
    if parameter.kind is tuple:
        return [parameter.minimum or 1]
    for bound in (parameter.minimum, parameter.maximum, 1):
        if bound is not None and bound != parameter.default:
            return parameter.kind(bound)
    raise AssertionError(parameter.name)


def _page(entry, collection, run, params: dict[str, Any]) -> dict[str, Any] | None:
    """The params the page form stores for ``params`` (what the shown form posts, with the
    given values typed in); None when it refuses them."""
    form_class = entry.form_class
    data = _initial_data(form_class(collection=collection))
    data.pop("topic", None)  # a topic is typed as its id, never pre-filled
    data.update(entry.fixed)
    for name, value in params.items():
        if name == "run":
            data["run"] = run.pk
        elif isinstance(value, list):
            data[name] = " ".join(str(v) for v in value)
        elif value is None:
            data.pop(name, None)
        else:
            data[name] = value
    form = form_class(data, collection=collection)
    if not form.is_valid():
        return None
    return form.job_params()


def _command_value(parameters, parameter: Parameter, value: Any) -> Any:
    """The value the command's option gives for ``value``; "refused" when it refuses it; None
    when the command has no option for the parameter."""
    if parameters.command is None or parameter.option is None:
        return None
    name = parameters.command
    parser = load_command_class(get_commands()[name], name).create_parser("manage.py", name)
    action = next((a for a in parser._actions if parameter.option in a.option_strings), None)
    if action is None:
        return None
    args = []
    for required in (a for a in parser._actions if a.required and a.option_strings):
        args += [required.option_strings[0], "x"]
    if parameter.kind is bool:
        args += [parameter.option] if value != parameter.default else []
    elif isinstance(value, list):
        args += [parameter.option, *(str(v) for v in value)]
    else:
        args += [parameter.option, str(value)]
    try:
        options = vars(parser.parse_args(args))
    except CommandError:
        return "refused"
    return _json(parameters.from_options(options, [parameter.name])[parameter.name])


@pytest.mark.parametrize("kind", KINDS)
def test_omitted_params_store_every_declared_default(api, kind):
    small = make_small_collection("duc04")
    entry = JOB_FORMS[kind]
    parameters = entry.parameters
    response = _start(api, kind, _base(entry))
    assert response.status_code == 202, response.content
    stored = Job.objects.get(pk=response.json()["job"]["id"]).params
    run = small.bm25 if "run" in _base(entry) else None
    # The declaration may derive a value from the defaults (the judge's prompt version).
    derived = parameters.from_params({**entry.fixed, "run_id": getattr(run, "pk", None)})
    for parameter in parameters.declared():
        name = parameter.name
        if name == "run_id":
            assert stored[name] == getattr(run, "pk", None)
            continue
        if name in entry.fixed:
            assert stored[name] == entry.fixed[name], name
            continue
        expected = _json(parameter.default_value)
        if _json(getattr(derived, name)) != expected:
            expected = _json(getattr(derived, name))
        assert stored[name] == expected, f"{kind}: {name}"
    # The page's form, untouched, stores the same.
    assert _page(entry, small.collection, run, _base(entry)) == stored


@pytest.mark.parametrize("kind", KINDS)
def test_page_command_api_and_job_agree_on_each_parameter(api, kind):
    small = make_small_collection("duc04")
    entry = JOB_FORMS[kind]
    parameters = entry.parameters
    base = _base(entry)
    run = small.bm25 if "run" in base else None
    names = [n for n in accepted_params(entry) if n not in ("run", "topic")]
    assert names, kind
    for name in names:
        parameter = parameters.declared()[name]
        value = _other_value(entry, small.collection, parameter)
        given = {**base, name: value}
        response = _start(api, kind, given)
        page = _page(entry, small.collection, run, given)
        command = _command_value(parameters, parameter, value)
        if response.status_code == 400:  # a rule of the declaration refuses it: every door does
            assert page is None, f"{kind}: the page takes {given} the API refuses"
            assert any(key.startswith("params") for key in response.json()["errors"])
            continue
        assert response.status_code == 202, response.content
        stored = Job.objects.get(pk=response.json()["job"]["id"]).params
        if name in entry.form_class.base_fields:  # the page shows it
            assert page == stored, f"{kind}: {name}={value!r}"
        assert stored[name] == _json(value) or name == "prompt_version", (kind, name)
        if command is not None:
            assert command == _json(value), f"{kind}: --{name} {value!r} gives {command!r}"
        # The job reads back what it stored.
        assert parameters.from_params(stored).as_params(run) == stored, (kind, name)


@pytest.mark.parametrize("kind", KINDS)
def test_the_api_refuses_unknown_and_out_of_bounds_params_naming_them(api, kind):
    make_small_collection("duc04")
    entry = JOB_FORMS[kind]
    response = _start(api, kind, {**_base(entry), "no_such_param": 1})
    assert response.status_code == 400
    assert "params.no_such_param" in response.json()["errors"]
    for parameter in entry.parameters.declared():
        if parameter.maximum is None or parameter.name in entry.fixed:
            continue
        too_big = parameter.maximum + 1
        value = [too_big] if parameter.kind is tuple else too_big
        response = _start(api, kind, {**_base(entry), parameter.name: value})
        assert response.status_code == 400, (kind, parameter.name)
        assert f"params.{parameter.name}" in response.json()["errors"]
    assert not Job.objects.exists()


def test_run_is_taken_by_name_or_id(api):
    small = make_small_collection("duc04")
    by_name = _start(api, "dense", {"run": "bm25"})
    by_id = _start(api, "dense", {"run": small.bm25.pk})
    assert (by_name.status_code, by_id.status_code) == (202, 202)
    for response in (by_name, by_id):
        params = Job.objects.get(pk=response.json()["job"]["id"]).params
        assert (params["run_id"], params["run"]) == (small.bm25.pk, "bm25")
    missing = _start(api, "dense", {"run": "nope"})
    assert missing.status_code == 400
    assert "no run 'nope'" in missing.json()["errors"]["params.run"][0]
