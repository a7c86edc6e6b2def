"""The shared vocabulary is the one definition the human and the machine sides read: the
annotators' rubric and the judge's prompt, the annotators' failure categories and LLM-retEval's
pre-labels, and the gold-passage and semi-gold names."""

import ast
import re
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse
from django.utils.html import escape

from annotation.queue import selection
from annotation.task_types import names as task_types
from annotation.task_types.names import FAILURE_CATEGORY, PASSAGE_RATING
from crux_app import vocabulary
from crux_app.dataio.imports import qa as qa_import
from crux_app.vocabulary import FAILURE_TAXONOMY, RUBRIC_LEVELS
from evaluation.crux.matrix.forms import RATING_CHOICES
from evaluation.crux.method.judge_prompts import CRUX_RUBRIC_V1, RUBRIC_GUIDELINE
from evaluation.reteval.method import verdicts
from tests.annotation.campaign_data import make_annotator, make_campaign
from tests.project_files import files_in, static_folders

ROOT = Path(__file__).resolve().parents[2]

# The v1 judge prompt is frozen: its version is part of stored judges' identities. Rewording a
# rubric level in the vocabulary must come with a new prompt version, not a silent change.
V1_GUIDELINE = (
    "- 5: The context is highly relevant, complete, and accurate for answering the question.\n"
    "- 4: The context is mostly relevant and complete but may have minor gaps or inaccuracies.\n"
    "- 3: The context is partially relevant and complete, with noticeable gaps or "
    "inaccuracies.\n"
    "- 2: The context has limited relevance and completeness, with significant gaps or "
    "inaccuracies.\n"
    "- 1: The context is minimally relevant or complete, with substantial shortcomings.\n"
    "- 0: The context is not relevant or complete at all."
)


def test_rubric_has_levels_5_down_to_0():
    assert [level.rating for level in RUBRIC_LEVELS] == [5, 4, 3, 2, 1, 0]
    assert sorted(level.rating for level in RUBRIC_LEVELS) == list(vocabulary.RATINGS)
    assert [rating for rating, _ in RATING_CHOICES] == [5, 4, 3, 2, 1, 0]


def test_judge_prompt_is_built_from_the_vocabulary_and_unchanged():
    text = CRUX_RUBRIC_V1.render("Who built it?", "The canal.")
    for level in RUBRIC_LEVELS:
        assert f"- {level.rating}: {level.text}" in text
    assert RUBRIC_GUIDELINE == V1_GUIDELINE
    assert text == (
        "Determine whether the question can be answered based on the provided context. "
        "Rate the context on a scale from 0 to 5 according to the guideline below. "
        "Output only the rating, a single number.\n\nGuideline:\n"
        f"{V1_GUIDELINE}\n\nQuestion: Who built it?\n\nContext: The canal.\n\nRating:"
    )


def test_failure_categories_are_defined_once():
    assert vocabulary.FAILURE_LETTERS == ("A", "B", "C", "D", "E", "F")
    assert task_types.FAILURE_CATEGORIES is vocabulary.FAILURE_CATEGORIES
    assert list(vocabulary.FAILURE_CATEGORIES.items()) == [
        (c.letter, c.description) for c in FAILURE_TAXONOMY
    ]
    assert verdicts.CATEGORIES == vocabulary.FAILURE_LETTERS
    assert vocabulary.FAILURE_SHORT_NAMES["C"] == "C distracting passage"
    assert task_types.ANSWER_KEYS[FAILURE_CATEGORY] == "a-f"
    assert task_types.ANSWER_KEYS[PASSAGE_RATING] == "0-5"


def test_source_names_are_the_vocabulary_s():
    assert vocabulary.QA_GOLD_SOURCE == "qa_gold" and vocabulary.SEMI_GOLD_PREFIX == "semi-gold"
    assert qa_import.GOLD_SOURCE is vocabulary.QA_GOLD_SOURCE
    assert selection.QA_GOLD_SOURCE is vocabulary.QA_GOLD_SOURCE
    assert selection.SEMI_GOLD_PREFIX is vocabulary.SEMI_GOLD_PREFIX


def _workspace_html(task_type: str) -> str:
    anna = make_annotator("anna")
    campaign = make_campaign(task_type, annotators=[anna])
    client = Client()
    client.force_login(anna)
    response = client.get(reverse("annotation-workspace", args=[campaign.slug]))
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.django_db
def test_workspace_rubric_is_the_vocabulary_wording():
    html = _workspace_html(PASSAGE_RATING)
    shown = re.findall(r'name="rating" value="(\d)".*?<kbd>\d</kbd><span>(.*?)</span>', html)
    assert shown == [(str(level.rating), escape(level.text)) for level in RUBRIC_LEVELS]


@pytest.mark.django_db
def test_workspace_failure_choices_are_the_vocabulary_s():
    html = _workspace_html(FAILURE_CATEGORY)
    shown = re.findall(r'name="category" value="(\w)" data-key="(\w)".*?<span>(.*?)</span>', html)
    assert shown == [(c.letter, c.letter.lower(), escape(c.description)) for c in FAILURE_TAXONOMY]


def test_the_workspace_script_holds_no_copy_of_the_categories():
    for _, path in files_in(static_folders(), "*.js"):
        source = path.read_text()
        for category in FAILURE_TAXONOMY:
            assert category.description not in source, path
            assert category.short_name not in source, path
        assert not re.search(r'\ba:\s*"A"', source), f"{path} maps the category letters"


VOCABULARY_NAMES = {
    "QA_GOLD_SOURCE",
    "GOLD_SOURCE",
    "SEMI_GOLD_PREFIX",
    "FAILURE_CATEGORIES",
    "RUBRIC_GUIDELINE",
}


def _imports(path: Path) -> list[tuple[str, str]]:
    tree = ast.parse(path.read_text(), filename=str(path))
    return [
        (node.module or "", alias.name)
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    ]


def test_shared_names_are_imported_from_the_vocabulary_only():
    """Evaluation never takes them from annotation (nor annotation from evaluation)."""
    wrong = []
    for top, other in (("evaluation", "annotation"), ("annotation", "evaluation")):
        for path in (ROOT / top).rglob("*.py"):
            for module, name in _imports(path):
                if module.startswith(other) and name in VOCABULARY_NAMES:
                    wrong.append(f"{path.relative_to(ROOT)}: {module}.{name}")
    assert wrong == []
