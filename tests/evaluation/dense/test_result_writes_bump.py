"""Every write path of a method's result model moves its collection's data version
(crux_app.result_models): save, delete, and the bulk paths that send no signals."""

import pytest

from crux_app import data_version
from evaluation.dense.models import DenseLabel, DenseResult
from tests.evaluation.dense.job_data import RuleModels, make_dense_data, run_job

pytestmark = pytest.mark.django_db


def test_each_write_path_moves_the_collections_version(researcher):
    from crux_app.judges import researcher_judge

    data = make_dense_data()
    run_job(data, RuleModels().models())
    pk = data.collection.pk
    seen = {data_version.current(pk)}

    def moved() -> bool:
        now = data_version.current(pk)
        fresh = now not in seen
        seen.add(now)
        return fresh

    result = DenseResult.objects.filter(topic=data.capital).get()
    DenseResult.objects.filter(pk=result.pk).update(correct=not result.correct)
    assert moved()
    result.refresh_from_db()
    result.save()
    assert moved()
    judge = researcher_judge(researcher)
    moved()
    label = DenseLabel(judge=judge, result=result, kind="answer_correct", value=True)
    DenseLabel.objects.bulk_create([label])
    assert moved()
    label = DenseLabel.objects.get()
    label.value = False
    DenseLabel.objects.bulk_update([label], ["value"])
    assert moved()
    DenseLabel.objects.all().delete()
    assert moved()
    result.delete()
    assert moved()
    DenseResult.objects.filter(pk=-1).delete()  # touches no collection
    assert not moved()


def test_each_write_path_names_the_topics_it_touched(researcher):
    """Result rows belong to a topic: their writes move those topics' unit versions, not the
    collection's epoch (pages recompute those topics only)."""
    from crux_app.judges import researcher_judge
    from crux_app.models import Collection, Topic

    data = make_dense_data()
    run_job(data, RuleModels().models())
    pk = data.collection.pk
    state = {}

    def moved() -> set[str]:
        """Which topics' versions (and "epoch") moved since the last call."""
        epoch = Collection.objects.values_list("unit_epoch", flat=True).get(pk=pk)
        topics = dict(
            Topic.objects.filter(collection_id=pk).values_list("external_id", "unit_version")
        )
        now = {"epoch": epoch, **topics}
        changed = {key for key, value in now.items() if state.get(key) != value}
        state.update(now)
        return changed

    moved()
    result = DenseResult.objects.filter(topic=data.capital).get()
    DenseResult.objects.filter(pk=result.pk).update(correct=not result.correct)
    assert moved() == {"q1"}
    result.refresh_from_db()
    result.save()
    assert moved() == {"q1"}
    label = DenseLabel(
        judge=researcher_judge(researcher), result=result, kind="answer_correct", value=True
    )
    DenseLabel.objects.bulk_create([label])  # through its result: "result__topic_id"
    assert moved() == {"q1"}
    DenseLabel.objects.all().delete()
    assert moved() == {"q1"}
    DenseResult.objects.filter(topic=data.cheese).delete()
    assert moved() == {"q2"}
    DenseResult.objects.filter(pk=result.pk).update(topic=data.cheese)  # rows move topics
    assert "epoch" in moved()
