"""On CRUX's platform sample (two annotators) plus two LLM judges: the command's JSON, the
page and the HTML report give the same figures, and those equal scikit-learn, statsmodels,
scipy and krippendorff called directly on label vectors read from the sample's own files."""

import json
import re
from html import escape
from html.parser import HTMLParser

import krippendorff
import numpy as np
import pytest
from django.core.management import call_command
from django.urls import reverse
from scipy.stats import kendalltau, spearmanr
from sklearn.metrics import cohen_kappa_score, precision_recall_fscore_support
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

from tests.evaluation.agreement import agreement_sample as sample

pytestmark = pytest.mark.django_db
RATINGS = list(range(6))
A1, A2 = "annotator1", "annotator2"
POOLED = "humans (pooled)"


@pytest.fixture
def collection(crux_sample_dir):
    return sample.load(crux_sample_dir)


@pytest.fixture
def exported(collection, tmp_path):
    """The command's JSON and HTML reports of the collection."""
    out = {}
    for fmt in ("json", "html"):
        path = tmp_path / f"agreement.{fmt}"
        call_command(
            "agreement", "--collection", sample.COLLECTION, "--format", fmt, "--out", str(path)
        )
        out[fmt] = path.read_text()
    out["json"] = json.loads(out["json"])
    return out


def find(records, **where):
    found = [r for r in records if all(r.get(k) == v for k, v in where.items())]
    assert len(found) == 1, (where, found)
    return found[0]


class Tags(HTMLParser):
    """The figure rows' data attributes, and every tag that loads something."""

    def __init__(self, html: str):
        super().__init__()
        self.rows, self.loads = [], []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "tr" and "data-statistic" in attrs:
            self.rows.append(attrs)
        if attrs.get("src") or (tag == "link" and attrs.get("href")):
            self.loads.append((tag, attrs))


def html_value(html: str, section: str, task: str, statistic: str, reference="", judge=""):
    found = [
        r
        for r in Tags(html).rows
        if (r["data-section"], r["data-task"], r["data-statistic"], r["data-reference"])
        == (section, task, statistic, reference)
        and r["data-judges"].startswith(judge)
    ]
    assert len(found) == 1, found
    return None if found[0]["data-value"] == "None" else float(found[0]["data-value"])


def common(x: dict, y: dict):
    keys = sorted(x.keys() & y.keys())
    return np.array([x[k] for k in keys], float), np.array([y[k] for k in keys], float)


def test_inter_annotator_figures_equal_the_libraries(crux_sample_dir, exported):
    data, html = exported["json"], exported["html"]
    h1 = sample.human_passage_labels(crux_sample_dir, A1)
    h2 = sample.human_passage_labels(crux_sample_dir, A2)
    x, y = common(h1, h2)
    keys = sorted(h1.keys() | h2.keys())
    reliability = np.array([[h.get(k, np.nan) for k in keys] for h in (h1, h2)], float)
    expected = {
        "percent_agreement": float(np.mean(x == y)),
        "fleiss_kappa": fleiss_kappa(aggregate_raters(np.stack([x, y], axis=1))[0]),
        "krippendorff_alpha_ordinal": krippendorff.alpha(
            reliability_data=reliability, value_domain=RATINGS, level_of_measurement="ordinal"
        ),
        "krippendorff_alpha_interval": krippendorff.alpha(
            reliability_data=reliability, value_domain=RATINGS, level_of_measurement="interval"
        ),
        # Quadratic weights on the 0-5 scale itself (labels=0..5, not just the labels seen).
        "cohen_kappa_quadratic": cohen_kappa_score(x, y, weights="quadratic", labels=RATINGS),
    }
    for statistic, value in expected.items():
        record = find(data["inter_annotator"], task="passage_rating", statistic=statistic)
        assert record["value"] == pytest.approx(value) and record["n"] == len(x)
        assert html_value(html, "inter_annotator", "passage_rating", statistic) == pytest.approx(
            value
        )
    r1 = sample.human_report_labels(crux_sample_dir, A1)
    r2 = sample.human_report_labels(crux_sample_dir, A2)
    x, y = common(r1, r2)
    assert len(x) == 84  # 6 reports x 15 positions, less 2 placeholders in 3 reports
    record = find(data["inter_annotator"], task="report_coverage", statistic="cohen_kappa")
    assert record["value"] == pytest.approx(cohen_kappa_score(x, y)) and record["n"] == 84
    assert record["ci_low"] < record["value"] < record["ci_high"]
    record = find(data["inter_annotator"], task="report_coverage", statistic="fleiss_kappa")
    assert record["value"] == pytest.approx(fleiss_kappa(aggregate_raters(np.stack([x, y], 1))[0]))
    record = find(
        data["inter_annotator"], task="report_coverage", statistic="krippendorff_alpha_nominal"
    )
    assert record["value"] == pytest.approx(
        krippendorff.alpha(reliability_data=[x, y], level_of_measurement="nominal")
    )


def llm_vectors(crux_sample_dir, humans, judge_fn, skip=()):
    """(human ratings, the judge's ratings) over every human label the judge also rated."""
    h, j = [], []
    for annotator in humans:
        for (topic, passage, position), rating in sample.human_passage_labels(
            crux_sample_dir, annotator
        ).items():
            if (topic, passage, position) in skip:
                continue
            h.append(rating)
            j.append(judge_fn(passage, position))
    return np.array(h, float), np.array(j, float)


JUDGES = [(sample.V1, sample.v1_rating, ()), (sample.V2, sample.v2_rating, (sample.UNPARSABLE,))]


def test_human_vs_llm_equals_the_libraries(crux_sample_dir, exported):
    for judge, fn, skip in JUDGES:
        for reference in (A1, A2, POOLED):
            check_human_vs_llm(crux_sample_dir, exported, judge, fn, skip, reference)


def check_human_vs_llm(crux_sample_dir, exported, judge, fn, skip, reference):
    data, html = exported["json"], exported["html"]
    humans = [A1, A2] if reference == POOLED else [reference]
    h, j = llm_vectors(crux_sample_dir, humans, fn, skip)
    hb, jb = (h >= sample.TAU).astype(int), (j >= sample.TAU).astype(int)
    p, r, f, _ = precision_recall_fscore_support(hb, jb, labels=[1, 0], zero_division=np.nan)
    expected = {
        "cohen_kappa_quadratic": cohen_kappa_score(h, j, weights="quadratic", labels=RATINGS),
        "spearman": spearmanr(h, j).statistic,
        "kendall_tau_b": kendalltau(h, j).statistic,
        "cohen_kappa_at_tau": cohen_kappa_score(hb, jb),
        "precision_answerable": p[0],
        "recall_answerable": r[0],
        "f1_answerable": f[0],
        "precision_unanswerable": p[1],
        "recall_unanswerable": r[1],
        "f1_unanswerable": f[1],
    }
    records = data["human_vs_llm"]
    for statistic, value in expected.items():
        record = find(
            records, task="passage_rating", statistic=statistic, judge=judge, reference=reference
        )
        assert record["n_pairs" if reference == POOLED else "n"] == len(h)
        if np.isnan(value):
            assert record["value"] is None and record["undefined"]
            continue
        assert record["value"] == pytest.approx(value), statistic
        assert record["model_id"] == "llama" and record["prompt_version"] == judge[-2:]
    unparsable = find(data["meta"]["tasks"], key="passage_rating")["unparsable"]
    assert unparsable == {sample.V2: 1}
    shown = html_value(html, "human_vs_llm", "passage_rating", "spearman", reference, judge)
    assert shown == pytest.approx(expected["spearman"])
    if judge == sample.V1:
        matrix = find(
            data["confusion_matrices"],
            task="passage_rating",
            judge=judge,
            reference=reference,
            scale="0-5",
        )
        expected_matrix = np.zeros((6, 6), int)
        np.add.at(expected_matrix, (h.astype(int), j.astype(int)), 1)
        assert matrix["matrix"] == expected_matrix.tolist()


def coverage(labels: dict, output: str, answerable: list[int]) -> float:
    return float(np.mean([labels[(output, i)] for i in answerable]))


def test_report_coverage_correlation_equals_scipy(crux_sample_dir, exported):
    data = exported["json"]
    holes = sample.placeholders(crux_sample_dir)
    answerable = {}
    for topic in ("duc04-testb-3", "duc04-testb-7"):
        passages = sample.topic_passages(crux_sample_dir, topic)
        answerable[topic] = [
            i
            for i in range(15)
            if i not in holes[topic] and max(sample.v1_rating(p, i) for p in passages) >= 3
        ]
    assert answerable["duc04-testb-3"] == [0, 3, 6, 9, 12]
    r1 = sample.human_report_labels(crux_sample_dir, A1)
    r2 = sample.human_report_labels(crux_sample_dir, A2)
    outputs = sorted({o for o, _ in r1})
    topic_of = {o: o[o.index("duc04") :] for o in outputs}
    human = [np.mean([coverage(r, o, answerable[topic_of[o]]) for r in (r1, r2)]) for o in outputs]
    machine = [np.mean([sample.v1_report(o, i) for i in answerable[topic_of[o]]]) for o in outputs]
    for statistic, fn in (("spearman", spearmanr), ("kendall_tau_b", kendalltau)):
        record = find(
            data["report_coverage"], statistic=statistic, judge=sample.V1, reference="humans (mean)"
        )
        assert record["n"] == len(outputs) == 6
        assert record["value"] == pytest.approx(fn(human, machine).statistic)
        assert "answerable for llama@v1" in record["answerable_set"]
    points = {p["output"]: p for p in data["coverage_points"] if p["judge"] == sample.V1}
    for o, h, m in zip(outputs, human, machine, strict=True):
        assert points[o]["human"] == pytest.approx(h) and points[o]["machine"] == pytest.approx(m)
    # Reports only the LLM labelled have no human coverage (not 0).
    assert any(p["human"] is None for p in points.values())


def test_judges_side_by_side(crux_sample_dir, exported):
    data = exported["json"]
    keep = lambda k: k != sample.UNPARSABLE  # noqa: E731
    pairs = []
    for annotator in (A1, A2):
        for key, rating in sample.human_passage_labels(crux_sample_dir, annotator).items():
            if keep(key):
                pairs.append((rating, sample.v1_rating(key[1], key[2]), sample.v2_rating(*key[1:])))
    h, a, b = np.array(pairs, float).T
    record = find(data["judge_comparison"], statistic="cohen_kappa_quadratic_difference")
    ka = cohen_kappa_score(h, a, weights="quadratic", labels=RATINGS)
    kb = cohen_kappa_score(h, b, weights="quadratic", labels=RATINGS)
    assert (record["judge_a"], record["judge_b"]) == (sample.V1, sample.V2)
    assert record["value_a"] == pytest.approx(ka) and record["value_b"] == pytest.approx(kb)
    assert record["value"] == pytest.approx(ka - kb)
    assert record["ci_low"] <= record["value"] <= record["ci_high"]


def test_page_shows_the_numbers_of_the_json(collection, exported, researcher_client):
    response = researcher_client.get(reverse("agreement", args=[collection.pk]))
    assert response.status_code == 200
    data = exported["json"]
    for section in ("inter_annotator", "human_vs_llm", "report_coverage", "judge_comparison"):
        rows = response.context[section]
        assert len(rows) == len(data[section])
        for row, record in zip(rows, data[section], strict=True):
            assert (row.statistic, row.task, row.n) == (
                record["statistic"],
                record["task"],
                record["n"],
            )
            if record["value"] is None:
                assert row.value is None and row.undefined == record["undefined"]
            else:
                assert row.value == pytest.approx(record["value"])
    html = response.content.decode()
    assert "plotly/plotly-cartesian.min.js" in html
    assert re.search(r'(?:src|href)="(?:https?:)?//', html) is None  # nothing from another host
    # Disagreement rows open the topic's coverage matrix with the judge selected.
    first = response.context["disagreement_rows"][0]
    assert f"/topics/{first[0].topic_id}/crux/?judge={first[0].judge_id}" in first[1]["matrix"]
    assert escape(first[1]["matrix"]) in html


def test_html_report_is_self_contained(exported):
    html = exported["html"]
    # No tag loads anything: plotly's JS is inlined (its own source mentions CDNs in strings).
    assert Tags(html).loads == []
    assert "Plotly.newPlot" in html and "plotly.js" in html.lower()
    # What was judged, by whom, the worst disagreements with their text.
    assert "annotator1" in html and "llama@v1" in html and "Worst disagreements" in html
    # a judged passage or sub-question's text (the test data's invented names)
    assert re.search(r"Harrowmere|Lindqvist|Haldane|Calloway|growers", html)
