"""A researcher's "same meaning as a gold answer?" on a SePer cluster or on one sampled
response, stored beside the entailment kernel's decision so the agreement analysis can compare
the two (the decision is also recorded as an ``AnswerEquivalenceDecision``)."""

from __future__ import annotations

from django import forms
from django.contrib.auth.models import AbstractBaseUser

from crux_app.judges import researcher_judge
from crux_app.models import Topic
from evaluation.seper.decisions_store import record_sample_decision
from evaluation.seper.models import AnswerEquivalenceLabel, SeperScore, equivalence_key

ANSWERS = [("yes", "Yes"), ("no", "No")]


class _EquivalenceForm(forms.Form):
    score = forms.ModelChoiceField(
        queryset=SeperScore.objects.none(),
        error_messages={"invalid_choice": "No such SePer score on this topic."},
    )
    answer = forms.ChoiceField(choices=ANSWERS, error_messages={"required": "Answer yes or no."})

    def __init__(self, *args, topic: Topic, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.topic = topic
        self.fields["score"].queryset = SeperScore.objects.filter(topic=topic)


class ClusterEquivalenceForm(_EquivalenceForm):
    """One cluster's answer; the judged response is the cluster's first member."""

    cluster = forms.IntegerField(min_value=0)

    def clean(self) -> dict:
        data = super().clean()
        score, index = data.get("score"), data.get("cluster")
        if score is None or index is None:
            return data
        clusters = score.detail.get("clusters", [])
        if index >= len(clusters) or not clusters[index].get("members"):
            raise forms.ValidationError(f"Score {score.pk} has no cluster {index}.")
        return data

    def save(self, user: AbstractBaseUser) -> tuple[AnswerEquivalenceLabel, bool]:
        """Store or update the user's label; returns it and whether it was new."""
        data = self.cleaned_data
        return record_cluster_equivalence(
            user, data["score"], data["cluster"], data["answer"] == "yes"
        )


class ResponseEquivalenceForm(_EquivalenceForm):
    """One sampled response's answer (its index in the SePer row's responses)."""

    response = forms.IntegerField(min_value=0)

    def clean(self) -> dict:
        data = super().clean()
        score, index = data.get("score"), data.get("response")
        if score is None or index is None:
            return data
        if index >= len(score.detail.get("responses", [])):
            raise forms.ValidationError(f"Score {score.pk} has no response {index}.")
        return data

    def save(self, user: AbstractBaseUser) -> tuple[AnswerEquivalenceLabel, bool]:
        data = self.cleaned_data
        return record_response_equivalence(
            user, data["score"], data["response"], data["answer"] == "yes"
        )


def _record(
    user: AbstractBaseUser,
    score: SeperScore,
    response_index: int,
    equivalent: bool,
    cluster_index: int | None,
) -> tuple[AnswerEquivalenceLabel, bool]:
    """update_or_create the label of the user's human judge on one sampled response."""
    decision = record_sample_decision(score, response_index)
    text = score.detail["responses"][response_index]["text"]
    return AnswerEquivalenceLabel.objects.update_or_create(
        judge=researcher_judge(user),
        key=equivalence_key(score.topic_id, text, score.subquestion_id),
        defaults={
            "topic_id": score.topic_id,
            "subquestion_id": score.subquestion_id,
            "response_text": text,
            "seper_score": score,
            "cluster_index": cluster_index,
            "response_index": response_index,
            "equivalent": equivalent,
            "machine_decision": decision.equivalent,
        },
    )


def record_cluster_equivalence(
    user: AbstractBaseUser, score: SeperScore, index: int, equivalent: bool
) -> tuple[AnswerEquivalenceLabel, bool]:
    """The label of the cluster's first response, with the cluster's kernel decision."""
    first = score.detail["clusters"][index]["members"][0]
    return _record(user, score, first, equivalent, cluster_index=index)


def record_response_equivalence(
    user: AbstractBaseUser, score: SeperScore, index: int, equivalent: bool
) -> tuple[AnswerEquivalenceLabel, bool]:
    """The label of one sampled response, with the kernel's decision on that response."""
    return _record(user, score, index, equivalent, cluster_index=None)
