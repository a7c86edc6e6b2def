"""Starting a job from the API: the JSON ``params`` are parsed with the kind's declared
parameters themselves (``crux_app.parameters``, the method's ``params.py``): their types,
bounds, choices, defaults and the rules that span fields, exactly as the page form, the command
and the job parse them; never re-encoded as HTML form data. ``job_params_schema`` publishes the
same declaration as JSON schema (``api/openapi.json``, and the client's local check)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.http import QueryDict
from rest_framework import exceptions

from api.errors import field_error
from api.registry import JOB_FORMS, JobForm, job_form
from crux_app.jobs.service import start_job
from crux_app.models import Collection, Job, Run, Topic
from crux_app.parameters import ParameterError
from crux_app.topic_lookup import MAX_TOPIC_CHARS

RUN, TOPIC = "run", "topic"
RUN_ID = "run_id"  # the declared parameter that the API's ``run`` (a name or an id) gives


def form_data(params: Mapping[str, Any]) -> QueryDict:
    """The params as a form's POST data: scalars as text, lists as repeated values (the
    annotation workspace's submissions; job starts never use it)."""
    data = QueryDict(mutable=True)
    for name, value in params.items():
        values = value if isinstance(value, list) else [value]
        for item in values:
            if isinstance(item, dict | list):
                raise field_error(f"params.{name}", "must be a scalar or a list of scalars")
            if item is None:
                continue
            data.appendlist(name, str(item).lower() if isinstance(item, bool) else str(item))
    return data


def accepted_params(entry: JobForm) -> list[str]:
    """The names a start of ``entry``'s kind takes in ``params``, in declared order."""
    declared = entry.parameters.declared()
    names = [RUN] if entry.parameters.takes_run() else []
    names += [p.name for p in declared if p.name != RUN_ID and p.name not in entry.fixed]
    return names + ([TOPIC] if entry.takes_topic else [])


def _startable(kind: str) -> JobForm:
    entry = job_form(kind)
    if entry is None:
        startable = ", ".join(sorted(JOB_FORMS))
        raise field_error("kind", f"{kind!r} cannot be started here; kinds: {startable}")
    return entry


def _run(collection: Collection, value: Any) -> Run | None:
    """The collection's run named by ``value`` (its name, or its id as a number)."""
    if value is None:
        return None
    runs = Run.objects.filter(collection=collection)
    if isinstance(value, int) and not isinstance(value, bool):
        run = runs.filter(pk=value).first()
    elif isinstance(value, str) and value:
        run = runs.filter(name=value).first()
    else:
        raise field_error("params.run", f"must be a run's name or id, got {value!r}")
    if run is None:
        names = ", ".join(runs.order_by("name").values_list("name", flat=True)[:20])
        raise field_error("params.run", f"no run {value!r} in {collection.name!r}; runs: {names}")
    return run


def _topic(collection: Collection, value: Any) -> Topic | None:
    """The collection's topic of external id ``value``."""
    if value is None:
        return None
    if not isinstance(value, str) or not value or len(value) > MAX_TOPIC_CHARS:
        raise field_error("params.topic", f"must be a topic id of the collection, got {value!r}")
    topic = Topic.objects.filter(collection=collection, external_id=value).first()
    if topic is None:
        raise field_error("params.topic", f"no topic {value!r} in {collection.name!r}")
    return topic


def parse_api_params(
    entry: JobForm, params: Mapping[str, Any], collection: Collection
) -> tuple[Any, Run | None, Topic | None]:
    """The declared parameters parsed from the JSON ``params`` (absent: the declared default),
    the run and the topic they name; a 400 naming ``params.<field>`` when refused."""
    accepted = accepted_params(entry)
    unknown = [name for name in params if name not in accepted and name not in entry.fixed]
    if unknown:
        raise exceptions.ValidationError(
            {
                f"params.{name}": [f"unknown parameter; {entry.kind} takes {', '.join(accepted)}"]
                for name in unknown
            }
        )
    for name, value in entry.fixed.items():
        if name in params and params[name] != value:
            raise field_error(f"params.{name}", f"{entry.kind} is always {name}={value!r}")
    values = {n: v for n, v in params.items() if n not in (RUN, TOPIC)}
    run = _run(collection, params.get(RUN)) if entry.parameters.takes_run() else None
    topic = _topic(collection, params.get(TOPIC)) if entry.takes_topic else None
    if entry.parameters.takes_run():
        values[RUN_ID] = run.pk if run is not None else None
    values.update(entry.fixed)
    try:
        parsed = entry.parameters.from_params(values)
    except ParameterError as refused:
        if refused.name == RUN_ID:
            message = str(refused) if RUN in params else "give the run: its name or id"
            raise field_error("params.run", message) from None
        field = f"params.{refused.name}" if refused.name else "params"
        raise field_error(field, str(refused)) from None
    except ValueError as refused:  # a rule spanning fields
        raise field_error("params", str(refused)) from None
    return parsed, run, topic


def start_api_job(
    kind: str, params: Mapping[str, Any], collection: Collection, user: AbstractBaseUser
) -> Job:
    """Parse ``params`` with ``kind``'s declared parameters and start the job (400 naming the
    field)."""
    entry = _startable(kind)
    parsed, run, topic = parse_api_params(entry, params, collection)
    return start_job(
        parsed.started_kind(kind),
        parsed.as_params(run),
        collection=collection,
        topic=topic,
        user=user,
    )


def job_params_schema(kind: str) -> dict[str, Any] | None:
    """The JSON schema of the ``params`` a start of ``kind`` takes, made from its declared
    parameters (the run and the topic as the API names them); None for a kind that cannot be
    started here."""
    entry = job_form(kind)
    if entry is None:
        return None
    declared = entry.parameters.declared()
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name in accepted_params(entry):
        if name == RUN:
            run_id = declared[RUN_ID]
            properties[RUN] = {
                "type": ["string", "integer", "null"] if run_id.nullable else ["string", "integer"],
                "description": "the run: its name in the collection, or its id",
            }
            if not run_id.nullable:
                required.append(RUN)
        elif name == TOPIC:
            properties[TOPIC] = {
                "type": ["string", "null"],
                "maxLength": MAX_TOPIC_CHARS,
                "description": "only this topic (its id in the collection); absent: every topic",
            }
        else:
            properties[name] = declared[name].schema()
    schema: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
    }
    if required:
        schema["required"] = required
    return schema


def job_start_schema() -> dict[str, Any]:
    """The body of a job start: one typed alternative per startable kind (``oneOf``, keyed by
    ``kind``)."""
    alternatives = [
        {
            "type": "object",
            "title": kind,
            "properties": {
                "kind": {"type": "string", "enum": [kind]},
                "params": job_params_schema(kind),
            },
            "required": ["kind"],
            "additionalProperties": False,
        }
        for kind in sorted(JOB_FORMS)
    ]
    return {"oneOf": alternatives}
