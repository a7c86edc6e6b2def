"""Researcher forms: create a campaign, invite an annotator, upload gold answers."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth import get_user_model
from django.core.validators import MaxValueValidator, MinValueValidator

from annotation.accounts import (
    PROLIFIC_ID,
    PROLIFIC_USERNAME_PREFIX,
    username_field_max_length,
    username_validators,
)
from annotation.campaigns.preview import CampaignPreview, preview_campaign
from annotation.campaigns.setup import (
    MAX_ATTENTION_CHECKS,
    MAX_CONTROL_INTERVAL,
    MAX_GOLD_ITEMS,
    MAX_ITEMS,
    MAX_OVERLAP,
    MAX_QC_MIN_ANSWERS,
    MAX_RESERVATION_SECONDS,
    MAX_SEED,
    MIN_RESERVATION_SECONDS,
    SelectionOptions,
)
from annotation.labels.post_editing import SUGGESTING_KINDS, can_post_edit
from annotation.models import Campaign
from annotation.models.access import writable_collections
from annotation.quality.progress import ITEM_FILTERS
from annotation.queue.selection import MODES, SAMPLE
from annotation.task_types.registry import task_type_choices
from crux_app.list_paging import ListPageForm
from crux_app.models import Collection, Judge
from crux_app.roles import ANNOTATOR

FIELD_GROUPS = [
    ("Campaign", ["name", "collection", "task_type"]),
    ("Which items", ["selection_mode", "sample_size", "seed", "crux_judge", "tau"]),
    ("Annotators and assignment", ["overlap", "assignment_policy", "annotators",
                                   "per_annotator_cap", "reservation_seconds"]),
    ("Guidelines", ["guidelines_md"]),
    ("Post-editing (not blind)", ["suggestion_judge"]),
    ("Quality control", ["gold_judge", "gold_count", "attention_count", "control_interval",
                         "gold_min_accuracy", "gold_tolerance", "attention_min_pass_rate",
                         "qc_min_answers", "qc_action"]),
    ("Crowd control", ["until_confident", "confidence_target", "max_labels_per_item",
                       "qualification_items", "qualification_min_accuracy", "skill_floor",
                       "skill_floor_min_labels"]),
    ("Prolific", ["prolific_enabled", "prolific_completion_code", "prolific_redirect_url",
                  "prolific_study_id", "prolific_places"]),
]  # fmt: skip


MAX_PROLIFIC_PLACES = 100_000
# (min, max) of every count of the campaign form: a typo such as 20000 attention checks is a
# form error, not 20,000 items.
FIELD_BOUNDS = {
    "sample_size": (1, MAX_ITEMS),
    "seed": (0, MAX_SEED),
    "tau": (0, 5),
    "gold_count": (0, MAX_GOLD_ITEMS),
    "attention_count": (0, MAX_ATTENTION_CHECKS),
    "overlap": (1, MAX_OVERLAP),
    "per_annotator_cap": (1, MAX_ITEMS),
    "reservation_seconds": (MIN_RESERVATION_SECONDS, MAX_RESERVATION_SECONDS),
    "control_interval": (1, MAX_CONTROL_INTERVAL),
    "gold_tolerance": (0, 5),
    "qc_min_answers": (1, MAX_QC_MIN_ANSWERS),
    "prolific_places": (1, MAX_PROLIFIC_PLACES),
    "max_labels_per_item": (1, MAX_OVERLAP),
    "qualification_items": (0, MAX_GOLD_ITEMS),
    "skill_floor_min_labels": (1, MAX_ITEMS),
}


class SelectionFields(forms.Form):
    """The fields that pick a campaign's items, shared by the campaign form and its preview."""

    selection_mode = forms.ChoiceField(choices=list(MODES.items()), initial="every")
    sample_size = forms.IntegerField(required=False, help_text="For a sample.")
    seed = forms.IntegerField(initial=0, help_text="Seeds sampling and draws.")
    crux_judge = forms.ModelChoiceField(
        queryset=Judge.objects.filter(kind=Judge.Kind.LLM),
        required=False,
        label="CRUX judge",
        help_text="CRUX protocol: the LLM judge whose ratings split answerable / not.",
    )
    tau = forms.IntegerField(initial=3, label="Answerable at rating >=")
    gold_judge = forms.ModelChoiceField(
        queryset=Judge.objects.all(),
        required=False,
        help_text="Passage rating / report coverage: take gold answers from this judge.",
    )
    gold_count = forms.IntegerField(initial=0, label="Gold items from the judge")
    attention_count = forms.IntegerField(initial=0, label="Attention checks")
    annotators = forms.ModelMultipleChoiceField(
        queryset=get_user_model().objects.filter(groups__name=ANNOTATOR).order_by("username"),
        required=False,
        label="Invite annotators",
        widget=forms.CheckboxSelectMultiple,
    )

    def __init__(self, *args: Any, who: object = None, **kwargs: Any) -> None:
        """``who``: the asker (a request or an account), offered only the collections it may
        change; None for the operator (a command, a test), offered every collection."""
        super().__init__(*args, **kwargs)
        if "collection" in self.fields:
            self.fields["collection"].queryset = writable_collections(who).order_by("name")
        for name, (low, high) in FIELD_BOUNDS.items():
            if name in self.fields:
                _bound(self.fields[name], low, high)

    def selection_options(self) -> SelectionOptions:
        data = self.cleaned_data
        return SelectionOptions(
            mode=data["selection_mode"],
            sample_size=data.get("sample_size"),
            seed=data.get("seed") or 0,
            crux_judge=data.get("crux_judge"),
            tau=data["tau"] if data.get("tau") is not None else 3,
            gold_judge=data.get("gold_judge"),
            gold_count=data.get("gold_count") or 0,
            attention_count=data.get("attention_count") or 0,
        )


# The crowd-control settings a form may leave out, and the values they then take.
CROWD_CONTROL_DEFAULTS = {
    name: Campaign._meta.get_field(name).default
    for name in (
        "confidence_target",
        "max_labels_per_item",
        "qualification_items",
        "qualification_min_accuracy",
        "skill_floor_min_labels",
    )
}


class CampaignForm(SelectionFields, forms.ModelForm):
    class Meta:
        model = Campaign
        fields = [
            "name",
            "collection",
            "task_type",
            "guidelines_md",
            "overlap",
            "assignment_policy",
            "per_annotator_cap",
            "reservation_seconds",
            "control_interval",
            "gold_min_accuracy",
            "gold_tolerance",
            "attention_min_pass_rate",
            "qc_min_answers",
            "qc_action",
            "until_confident",
            "confidence_target",
            "max_labels_per_item",
            "qualification_items",
            "qualification_min_accuracy",
            "skill_floor",
            "skill_floor_min_labels",
            "prolific_enabled",
            "prolific_completion_code",
            "prolific_redirect_url",
            "prolific_study_id",
            "prolific_places",
            "suggestion_judge",
        ]
        widgets = {"guidelines_md": forms.Textarea(attrs={"rows": 6})}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        policy = self.fields["assignment_policy"]
        policy.required = False
        policy.help_text = (
            "Complete overlap first: an item another annotator labelled comes before an "
            "untouched one, so labels meet on the same items early (for agreement; the default "
            "when overlap is 2 or more). Cover every item once first: untouched items first."
        )
        # Crowd control is optional: a form that leaves these out keeps the model's defaults.
        for name in CROWD_CONTROL_DEFAULTS:
            self.fields[name].required = False
        suggestion = self.fields["suggestion_judge"]
        suggestion.queryset = Judge.objects.filter(kind__in=SUGGESTING_KINDS).order_by("name")
        able = [label for key, label in task_type_choices() if can_post_edit(key)]
        suggestion.help_text += f" Task types that can be post-edited: {', '.join(able)}."
        suggestion.error_messages["invalid_choice"] = (
            "choose a machine judge (LLM or ensemble): a person's labels are never shown as "
            "suggestions"
        )
        # The fields the live preview reads (static/js/campaign_form.js sends these only).
        for name in CampaignPreviewForm.base_fields:
            self.fields[name].widget.attrs["data-preview"] = ""

    def field_groups(self) -> list[tuple[str, list[forms.BoundField]]]:
        return [(title, [self[name] for name in names]) for title, names in FIELD_GROUPS]

    def clean_assignment_policy(self) -> str:
        """Empty: complete overlap first when labels are meant to overlap, else coverage."""
        policy = self.cleaned_data.get("assignment_policy")
        if policy:
            return policy
        overlap = self.cleaned_data.get("overlap") or 1
        if overlap >= 2:
            return Campaign.AssignmentPolicy.OVERLAP_FIRST
        return Campaign.AssignmentPolicy.COVERAGE_FIRST

    def clean_prolific_study_id(self) -> str:
        return clean_study_id(self.cleaned_data.get("prolific_study_id") or "")

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        for name, default in CROWD_CONTROL_DEFAULTS.items():
            if data.get(name) is None:
                data[name] = default
        if data.get("selection_mode") == SAMPLE and not data.get("sample_size"):
            self.add_error("sample_size", "Give the number of items to sample.")
        if data.get("gold_count") and not data.get("gold_judge"):
            self.add_error("gold_judge", "Choose the judge whose labels are the gold answers.")
        task = data.get("task_type")
        if data.get("suggestion_judge") and task and not can_post_edit(task):
            self.add_error(
                "suggestion_judge",
                f"task '{task}' cannot show a judge's labels as suggestions; leave it empty",
            )
        overlap, most = data.get("overlap"), data.get("max_labels_per_item")
        if data.get("until_confident") and overlap and most and most < overlap:
            self.add_error(
                "max_labels_per_item", "the cap of labels per item is below 'annotators per item'"
            )
        if data.get("prolific_enabled") and not data.get("prolific_completion_code"):
            self.add_error(
                "prolific_completion_code", "A Prolific campaign needs its completion code."
            )
        return data


def clean_study_id(value: str) -> str:
    """A Prolific study id (24 hexadecimal characters, stored lower-case), or empty."""
    value = value.strip().lower()
    if value and not PROLIFIC_ID.fullmatch(value):
        raise forms.ValidationError(
            "a Prolific study id is 24 hexadecimal characters (the STUDY_ID Prolific sends)"
        )
    return value


class ProlificStudyForm(forms.ModelForm):
    """The campaign page's Prolific settings: the study the campaign takes arrivals from, and
    its places."""

    class Meta:
        model = Campaign
        fields = ["prolific_study_id", "prolific_places"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _bound(self.fields["prolific_places"], 1, MAX_PROLIFIC_PLACES)

    def clean_prolific_study_id(self) -> str:
        return clean_study_id(self.cleaned_data.get("prolific_study_id") or "")


class CampaignPreviewForm(SelectionFields):
    """``GET /campaigns/preview/``: the new-campaign form's fields that decide the item count
    and the warnings, with the same bounds; a collection or task not chosen yet is not an
    error (the preview asks for them)."""

    collection = forms.ModelChoiceField(queryset=Collection.objects.none(), required=False)
    task_type = forms.ChoiceField(choices=task_type_choices, required=False)
    overlap = forms.IntegerField(initial=2)
    per_annotator_cap = forms.IntegerField(required=False)
    prolific_enabled = forms.BooleanField(required=False)

    def preview(self) -> CampaignPreview | None:
        """The preview of a valid form; None while the collection or task is not chosen."""
        data = self.cleaned_data
        if data.get("collection") is None or not data.get("task_type"):
            return None
        return preview_campaign(
            data["collection"],
            data["task_type"],
            self.selection_options(),
            overlap=data["overlap"],
            cap=data.get("per_annotator_cap"),
            annotators=len(data.get("annotators") or ()),
            prolific=bool(data.get("prolific_enabled")),
        )


def _bound(field: forms.Field, low: int, high: int) -> None:
    """Give an integer field the range ``low..high``: validators and the input's min/max."""
    field.min_value, field.max_value = low, high
    field.validators = [
        v for v in field.validators if not isinstance(v, MinValueValidator | MaxValueValidator)
    ]
    field.validators += [MinValueValidator(low), MaxValueValidator(high)]
    field.widget.attrs.update({"min": low, "max": high})


class InviteForm(forms.Form):
    username = forms.CharField(
        max_length=username_field_max_length(),
        validators=username_validators(),
        help_text="Letters, digits and @ . + - _ only.",
    )
    password = forms.CharField(
        required=False,
        min_length=8,
        widget=forms.PasswordInput,
        help_text="Needed for a new account; an existing account keeps its password.",
    )

    def clean_username(self) -> str:
        username = self.cleaned_data["username"]
        new = not get_user_model().objects.filter(username=username).exists()
        if new and username.lower().startswith(PROLIFIC_USERNAME_PREFIX):
            raise forms.ValidationError(
                f"names starting with '{PROLIFIC_USERNAME_PREFIX}' are kept for Prolific "
                "participants; choose another"
            )
        return username


class GoldUploadForm(forms.Form):
    file = forms.FileField(help_text="CSV with columns item, answer (see the items export).")


class AnnotatorExportForm(forms.Form):
    """``?annotator=USERNAME`` of a platform-format export: a valid username, bounded."""

    annotator = forms.CharField(
        max_length=username_field_max_length(), validators=username_validators()
    )


class CampaignItemsForm(ListPageForm):
    """The campaign page's item list: which items (``items``), the page, its size and a search
    of the items' topic, passage or output ids."""

    items = forms.ChoiceField(required=False, choices=[(f, f) for f in ITEM_FILTERS])

    def which(self) -> str:
        return self.cleaned_data.get("items") or ITEM_FILTERS[0]
