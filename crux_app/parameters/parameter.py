"""One declared parameter (``Parameter``): its type, bounds, choices, default and words, and
what it makes: its check of a JSON value, its form field, its command option, its JSON schema."""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from django import forms

NO_DEFAULT: Any = dataclasses.MISSING


class _SameAsDefault:
    def __repr__(self) -> str:
        return "SAME_AS_DEFAULT"


SAME_AS_DEFAULT: Any = _SameAsDefault()


class ParameterError(ValueError):
    """A refused parameter value or combination; ``name`` is the parameter it names (None:
    the rule spans the set), so a door reports it at the field (``params.k``, ``--k``)."""

    def __init__(self, message: str, name: str | None = None) -> None:
        super().__init__(message)
        self.name = name


@dataclasses.dataclass(frozen=True)
class Parameter:
    """One declared parameter: its type, bounds, choices, default and words.

    ``kind`` is ``int``, ``float``, ``bool``, ``str`` or ``tuple`` (a list of integers).
    ``default`` NO_DEFAULT makes it required. ``nullable``: None is a value (a blank form field
    or an absent option gives it). ``form``: the form shows it (runs and topics are the
    form's own choice fields); ``blank_default``: its form field may be left blank for the
    default. ``cli``: the option string ("" makes ``--name-with-dashes``, or ``--no-name`` for a
    flag that is on by default; None: no option). ``describe`` replaces the type's words in
    messages ("a run id").
    """

    name: str = ""
    label: str = ""
    kind: type = str
    required: bool = True
    default: Any = None
    help: str = ""
    nullable: bool = False
    minimum: int | float | None = None
    maximum: int | float | None = None
    decimals: int | None = None  # a float given with at most this many decimals
    choices: tuple[tuple[Any, str], ...] = ()
    max_length: int | None = None
    describe: str = ""
    form: bool = True
    blank_default: bool = False
    initial: Any = SAME_AS_DEFAULT  # the form's initial value when it is not the default
    cli: str | None = ""

    # ---- parsing -------------------------------------------------------------------------

    def words(self) -> str:
        """What a value must be, for messages: "an integer in 1..20", "one of a, b"."""
        if self.describe:
            text = self.describe
        elif self.choices:
            text = "one of " + ", ".join(str(value) for value, _ in self.choices)
        else:
            text = {
                int: "an integer",
                float: "a number",
                bool: "true or false",
                str: "a string",
                tuple: "a list of integers",
            }[self.kind]
            text += self._bounds()
        return f"{text} or null" if self.nullable else text

    def _bounds(self) -> str:
        low, high = _shown(self.minimum), _shown(self.maximum)
        if low and high:
            text = f" in {low}..{high}"
        elif low:
            text = f" >= {low}"
        elif high:
            text = f" <= {high}"
        else:
            text = ""
        if self.decimals is not None:
            text += f" with at most {self.decimals} decimals"
        if self.max_length is not None:
            text += f" of at most {self.max_length} characters"
        return text

    def check(self, raw: Any, prefix: str = "job parameter") -> Any:
        """The value ``raw`` (JSON) stands for; ValueError naming the parameter if refused."""
        if raw is None and self.nullable:
            return None
        blank = raw is None or (raw == "" and self.kind is str and not self.nullable)
        if blank and self.required and self.default in (NO_DEFAULT, None):
            if self.describe:  # "must be a run id, got None" says what to give
                raise ParameterError(
                    f"{prefix} {self.name!r} must be {self.words()}, got None", self.name
                )
            raise ParameterError(f"{prefix} {self.name!r} is missing", self.name)
        value = self._typed(raw)
        if value is None:
            raise ParameterError(
                f"{prefix} {self.name!r} must be {self.words()}, got {raw!r}", self.name
            )
        return value

    def _typed(self, raw: Any) -> Any:
        """The checked value, or None when ``raw`` is refused."""
        if self.kind is tuple:
            if not isinstance(raw, list | tuple) or not raw:
                return None
            items = [self._number(item, int) for item in raw]
            return None if any(i is None for i in items) else tuple(sorted(set(items)))
        if self.kind is bool:
            return raw if isinstance(raw, bool) else None
        if self.kind is str:
            # "" is refused where it is not the default: a required name, or null's stand-in.
            empty_refused = (self.required or self.nullable) and self.default != ""
            if not isinstance(raw, str) or (raw == "" and empty_refused):
                return None
            if self.max_length is not None and len(raw) > self.max_length:
                return None
        else:
            raw = self._number(raw, self.kind)
        if self.choices and raw not in {value for value, _ in self.choices}:
            return None
        return raw

    def _number(self, raw: Any, kind: type) -> int | float | None:
        if isinstance(raw, bool) or not isinstance(raw, int if kind is int else int | float):
            return None
        value = raw if kind is int else float(raw)
        if self.minimum is not None and value < self.minimum:
            return None
        if self.maximum is not None and value > self.maximum:
            return None
        if self.decimals is not None and round(value, self.decimals) != value:
            return None
        return value

    @property
    def default_value(self) -> Any:
        return None if self.default is NO_DEFAULT else self.default

    # ---- forms ---------------------------------------------------------------------------

    def form_field(self) -> forms.Field:
        """The Django form field of this parameter, with the same bounds and choices."""
        initial = self.default_value if self.initial is SAME_AS_DEFAULT else self.initial
        if self.kind is tuple and initial is not None:
            initial = " ".join(str(k) for k in initial)
        common: dict[str, Any] = {
            "required": self.kind is not bool
            and self.required
            and not (self.nullable or self.blank_default),
            "initial": initial,
            "label": self.label or None,
            "help_text": self.help,
        }
        if self.choices:
            return forms.ChoiceField(choices=list(self.choices), **common)
        if self.kind is bool:
            return forms.BooleanField(**common)
        if self.kind is int:
            return forms.IntegerField(min_value=self.minimum, max_value=self.maximum, **common)
        if self.kind is float and self.decimals is not None:
            return forms.DecimalField(
                min_value=_decimal(self.minimum),
                max_value=_decimal(self.maximum),
                decimal_places=self.decimals,
                **common,
            )
        if self.kind is float:
            return forms.FloatField(min_value=self.minimum, max_value=self.maximum, **common)
        if self.kind is tuple:
            return IntegerListField(self.minimum, self.maximum, **common)
        return forms.CharField(max_length=self.max_length, **common)

    def form_value(self, cleaned: Any) -> Any:
        """A cleaned form value as the parameter's value (blank: the default, or None)."""
        if cleaned in (None, "") and self.kind is not bool:
            return None if self.nullable else self.default_value
        if self.kind is float:
            return float(cleaned)
        if self.kind is tuple:
            return tuple(cleaned)
        return cleaned

    # ---- commands ------------------------------------------------------------------------

    @property
    def option(self) -> str | None:
        """The command's option string, or None when the command has none."""
        if self.cli is None or self.cli:
            return self.cli
        dashed = self.name.replace("_", "-")
        return f"--no-{dashed}" if self.kind is bool and self.default is True else f"--{dashed}"

    @property
    def dest(self) -> str | None:
        option = self.option
        return option.removeprefix("--").replace("-", "_") if option else None

    def add_argument(self, parser: argparse.ArgumentParser) -> None:
        option = self.option
        if option is None:
            return
        help_text = self.help or self.label
        if self.kind is bool:
            negated = option.startswith("--no-")
            help_text = f"turn off: {help_text}" if negated and help_text else help_text
            parser.add_argument(option, action="store_true", help=help_text)
            return
        settings: dict[str, Any] = {"help": help_text}
        if self.default is NO_DEFAULT or (self.required and self.default is None):
            settings["required"] = not self.nullable
        else:
            settings["default"] = self.default
        if self.choices:
            settings["choices"] = [value for value, _ in self.choices]
        elif self.kind is tuple:
            settings.update(type=self.option_value_of(int), nargs="+")
        else:
            settings.update(type=self.option_value_of(self.kind))
            if self.minimum is not None or self.maximum is not None:
                settings["metavar"] = self._range()
        parser.add_argument(option, **settings)

    def _range(self) -> str:
        return f"{_shown(self.minimum)}..{_shown(self.maximum)}"

    def option_value_of(self, kind: type):
        """argparse's ``type``: the text as ``kind``, refused out of bounds (naming it)."""
        single = dataclasses.replace(self, kind=kind, nullable=False, choices=())

        def value(text: str) -> Any:
            try:
                number = kind(text)
            except ValueError:
                raise argparse.ArgumentTypeError(
                    f"{self.name!r} must be {single.words()}, got {text!r}"
                ) from None
            try:
                return single.check(number, prefix="option")
            except ValueError as refused:
                raise argparse.ArgumentTypeError(str(refused)) from None

        value.__name__ = kind.__name__  # argparse's "invalid int value" wording
        return value

    def option_value(self, options: Mapping[str, Any]) -> Any:
        value = options[self.dest]
        if self.kind is bool:
            return not value if self.option.startswith("--no-") else value
        if self.kind is tuple and value is not None:
            return tuple(sorted(set(value)))
        return value

    # ---- schema --------------------------------------------------------------------------

    def schema(self) -> dict[str, Any]:
        """A JSON-schema description (the REST API documents job params with it)."""
        types = {int: "integer", float: "number", bool: "boolean", str: "string"}
        if self.kind is tuple:
            out: dict[str, Any] = {"type": "array", "minItems": 1, "items": {"type": "integer"}}
            target = out["items"]
        else:
            out = {"type": types[self.kind]}
            target = out
        if self.minimum is not None:
            target["minimum"] = self.minimum
        if self.maximum is not None:
            target["maximum"] = self.maximum
        if self.decimals is not None:
            out["multipleOf"] = 10**-self.decimals
        if self.max_length is not None:
            out["maxLength"] = self.max_length
        if self.choices:
            out["enum"] = [value for value, _ in self.choices]
        if self.nullable:
            out["type"] = [out["type"], "null"]
        if self.default is not NO_DEFAULT and not (self.required and self.default is None):
            out["default"] = list(self.default) if self.kind is tuple else self.default
        if self.label:
            out["title"] = self.label
        if self.help:
            out["description"] = self.help
        return out


def _shown(bound: int | float | None) -> str:
    """A bound as messages write it: 2147483647, 0.01, 2 ("" for none)."""
    if bound is None:
        return ""
    return str(bound) if isinstance(bound, int) else f"{bound:g}"


def _decimal(value: int | float | None) -> Decimal | None:
    return None if value is None else Decimal(str(value))


class IntegerListField(forms.CharField):
    """Integers as "1 5 10" (spaces or commas), each within the bounds; sorted, no repeats."""

    def __init__(self, minimum: int | None, maximum: int | None, **kwargs: Any) -> None:
        kwargs.setdefault("max_length", 100)
        super().__init__(**kwargs)
        self.minimum, self.maximum = minimum or 0, maximum

    def to_python(self, value: str | None) -> list[int]:  # type: ignore[override]
        text = super().to_python(value) or ""
        parts = text.replace(",", " ").split()
        if not parts:
            raise forms.ValidationError("give at least one k, e.g. 1 5 10")
        numbers = []
        high = self.maximum
        for part in parts:
            digits = part.isascii() and part.isdigit() and len(part) <= len(str(high or part))
            if not digits or int(part) < self.minimum or (high is not None and int(part) > high):
                raise forms.ValidationError(
                    f"'{part[:20]}' is not an integer k between {self.minimum} and {high}"
                )
            numbers.append(int(part))
        return sorted(set(numbers))
