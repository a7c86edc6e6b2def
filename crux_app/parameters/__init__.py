"""Parameters declared once: a job's (or an importer's) typed, bounded fields, from which the
Django form fields, the command's argparse arguments, the API's JSON schema and the job's
parsing of its JSON params are all made, so their bounds, choices and defaults cannot disagree.

A method declares its job's parameters as a frozen dataclass in its ``params.py``::

    from dataclasses import dataclass
    from typing import ClassVar

    from crux_app.parameters import JobParameters, param

    @dataclass(frozen=True)
    class NuggetJobParams(JobParameters):
        command: ClassVar[str | None] = "nuggets"  # the management command that takes them
        run_id: int | None = param(None, describe="a run id", form=False, cli=None)
        k: int = param(5, minimum=1, maximum=20, label="Top k")
        weighting: str = param("raw", choices=(("raw", "raw"), ("norm", "normalised")))
        refine: bool = param(True, label="Refine", help="regenerate the answers")
        batch_size: int = param(4, minimum=1, maximum=64, form=False)

    NuggetJobParams.from_params({"run_id": 3, "k": 7})  # typed; ValueError naming a bad field
    NuggetJobParams.form_fields()  # {"k": IntegerField(min_value=1, max_value=20, ...), ...}
    class NuggetJobForm(declared_form(NuggetJobParams, CollectionJobForm)): ...
    NuggetJobParams.add_arguments(parser)  # --k, --weighting {raw,norm}, --no-refine, ...
    NuggetJobParams.from_options(options)  # the parsed options' values, by parameter name
    NuggetJobParams.schema()  # {"type": "object", "properties": {"k": {"type": "integer", ...

Only ``int``, ``float``, ``bool``, ``str`` (optionally ``| None``) and ``tuple[int, ...]``
(a list of integers) are declared types: a job's params are JSON.
"""

from .declarations import JobParameters, ParameterSet, declared_form, param
from .parameter import NO_DEFAULT, IntegerListField, Parameter, ParameterError

__all__ = [
    "NO_DEFAULT",
    "IntegerListField",
    "JobParameters",
    "Parameter",
    "ParameterError",
    "ParameterSet",
    "declared_form",
    "param",
]
