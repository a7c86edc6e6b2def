"""What SePer adds to shared pages: the answer-equivalence agreement source and the
Delta-SePer leaderboard column (called from ``EvaluationConfig.ready``)."""

from evaluation.agreement.answer_equivalence_table import load_answer_equivalence_table
from evaluation.agreement.sources import ComparisonSource, Scale, register
from evaluation.services.leaderboard_columns import RunColumn, register_column
from evaluation.services.seper_correlations import delta_seper_column

ANSWER_EQUIVALENCE_CLASSES = ((1.0, "same meaning"), (0.0, "different meaning"))


def register_seper() -> None:
    register(
        ComparisonSource(
            key="answer_equivalence",
            title="Answer equivalence: same meaning as a gold answer? yes/no (SePer page and "
            "campaign task 3)",
            scale=Scale.BINARY,
            machine="SePer entailment kernel (loose match against the gold answers)",
            categories=(0.0, 1.0),
            class_names=ANSWER_EQUIVALENCE_CLASSES,
            loader=load_answer_equivalence_table,
        )
    )
    register_column(
        RunColumn(
            key="delta_seper",
            label="ΔSePer@{k}",
            values=delta_seper_column,
            description="mean Delta-SePer_S of the run's top-k context over the topics SePer "
            "scored at this k (latest generator / NLI / sampling setting)",
        )
    )
