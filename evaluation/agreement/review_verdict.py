"""Who was right in a review campaign: per annotator and per machine judge, the share of the
reviewed disagreements decided their way, and their accuracy and confusion against the
adjudicated reference (weighted back when the review sample was stratified or random; see
``evaluation/agreement/method/verdict.py``)."""

from __future__ import annotations

from dataclasses import dataclass

from annotation.models import ReviewCampaign
from crux_app.judge_kinds import kind_label
from crux_app.models import Judge
from evaluation.agreement.method.verdict import Share, weighted_confusion, weighted_share

DEFINITIONS = {
    "decided_their_way": "of the reviewed items the judge labelled where the reviewer chose one "
    "of the candidate labels, the share decided with the judge's label (unweighted; Wilson 95% "
    "interval)",
    "accuracy": "of every reviewed item the judge labelled, the share where its label equals the "
    "adjudicated one, weighted by 1 / inclusion probability so a sampled review estimates all "
    "disagreements (Wilson 95% interval on the effective sample size)",
    "confusion": "rows: the judge's label, columns: the adjudicated label; weighted counts",
}


@dataclass(frozen=True)
class JudgeVerdict:
    name: str
    kind: str
    decided_their_way: Share
    accuracy: Share
    confusion: list[list[float]]

    def as_dict(self) -> dict:
        return {
            "judge": self.name,
            "kind": self.kind,
            "decided_their_way": self.decided_their_way.as_dict(),
            "accuracy": self.accuracy.as_dict(),
            "confusion": self.confusion,
        }


@dataclass(frozen=True)
class Verdict:
    campaign: ReviewCampaign
    n_items: int
    n_decided: int
    classes: list
    judges: list[JudgeVerdict]

    def as_dict(self) -> dict:
        return {
            "campaign": self.campaign.name,
            "adjudicated_judge": self.campaign.judge.name if self.campaign.judge else None,
            "task": self.campaign.task_type,
            "sampling": self.campaign.sampling,
            "n_items": self.n_items,
            "n_decided": self.n_decided,
            "classes": self.classes,
            "definitions": DEFINITIONS,
            "judges": [j.as_dict() for j in self.judges],
        }


def review_verdict(campaign: ReviewCampaign) -> Verdict:
    items = list(campaign.items.select_related("decision").order_by("position"))
    decided = [i for i in items if hasattr(i, "decision")]
    names = sorted({name for i in items for name in i.labels})
    # (kind, prompt version): the version tells an embedding baseline from an LLM judge.
    kinds = {name: (kind, "") for name, kind in campaign.selection.get("judge_kinds", {}).items()}
    stored = Judge.objects.filter(name__in=names).values_list("name", "kind", "prompt_version")
    kinds |= {name: (kind, version) for name, kind, version in stored}
    classes = sorted(
        {v for i in decided for v in [*i.labels.values(), i.decision.label]},
        key=lambda v: (str(type(v)), v),
    )
    verdicts = []
    for name in names:
        mine = [i for i in decided if name in i.labels]
        chosen = [i for i in mine if i.decision.option]
        verdicts.append(
            JudgeVerdict(
                name=name,
                kind=kind_label(*kinds.get(name, ("human", ""))),
                decided_their_way=weighted_share(
                    [i.labels[name] == i.decision.label for i in chosen]
                ),
                accuracy=weighted_share(
                    [i.labels[name] == i.decision.label for i in mine],
                    [i.inclusion for i in mine],
                ),
                confusion=weighted_confusion(
                    [i.labels[name] for i in mine],
                    [i.decision.label for i in mine],
                    classes,
                    [i.inclusion for i in mine],
                ).tolist(),
            )
        )
    return Verdict(campaign, len(items), len(decided), classes, verdicts)
