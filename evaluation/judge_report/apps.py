from django.apps import AppConfig


class JudgeReportConfig(AppConfig):
    name = "evaluation.judge_report"
    label = "judge_report"
    verbose_name = "Judge vs people: run rankings and prediction-powered estimates"

    def ready(self) -> None:
        from evaluation.judge_report.registrations import register

        register()
