"""The installed apps' page links, topic summaries and leaderboard column groups come in the
order the pages have always shown them: each registry orders its entries by what they declare
(keys they come after or before, declaration order breaking ties), never by numbers."""

from types import SimpleNamespace

from crux_app.page_links import links_for
from crux_app.topic_summaries import registered_summaries
from evaluation.leaderboard.columns import column_keys, groups

# A topic page where every conditional link shows: the topic has gold answers and outputs.
TOPIC = SimpleNamespace(pk=7, external_id="t7", gold_answers=["an answer"])
PAGE = SimpleNamespace(topic=TOPIC, outputs=["a report"])


def link_keys(place: str) -> list[str]:
    return [link.key for link in links_for(place, 1, TOPIC, page=PAGE)]


def test_the_collection_page_lists_its_links_in_their_order():
    assert link_keys("collection") == [
        "leaderboard",
        "crux-disagreements",
        "agreement",
        "judge_report",
        "crux-start",
        "answers-start",
        "seper-start",
        "dense-collection",
        "reteval-collection",
        "scaar-collection",
        "nuggets-collection",
        "collection-archive",
    ]


def test_the_topic_page_lists_its_page_links_before_its_job_buttons():
    assert link_keys("topic") == [
        "crux-topic",
        "seper-topic",
        "nuggets-topic",
        "crux-judge-topic",
        "crux-judge-topic-outputs",
    ]


def test_the_cross_method_pages_list_their_links():
    assert link_keys("leaderboard") == ["judge_report-leaderboard"]
    # annotation's crowd aggregation form comes first (annotation is installed first).
    assert link_keys("agreement") == ["label-aggregation", "judge_report-agreement"]


def test_the_topic_page_sums_up_the_methods_in_their_order():
    assert [e.key for e in registered_summaries()] == [
        "crux",
        "seper",
        "dense",
        "scaar",
        "reteval",
        "nuggets",
    ]


def test_the_leaderboard_shows_the_wide_groups_before_the_one_column_groups():
    assert [g.key for g in groups()] == [
        "crux",
        "nuggets",
        "delta_seper",
        "dense_uncertain_share",
        "llm_reteval",
    ]
    assert column_keys() == (
        "coverage",
        "alpha_ndcg",
        "density",
        "density_norm",
        "ndcg",
        "map",
        "recall",
        "rprec",
        "missing_judgments",
        "topics",
        "report_coverage",
        "nuggets_strict_vital",
        "nuggets_strict_all",
        "nuggets_vital",
        "nuggets_all",
        "delta_seper",
        "dense_uncertain_share",
        "llm_reteval",
    )
