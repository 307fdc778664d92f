from django.apps import AppConfig


class WorkspaceConfig(AppConfig):
    """The researcher's pages (owners, editors, viewers): on top of every domain app, beside the API."""

    name = "workspace"
    verbose_name = "Workspace"

    def ready(self) -> None:
        # The rounds' bar reads the analysis's scores through this reader (recruitment may not import analysis).
        from recruitment.services.rounds import score_source_register

        from .rounds_scores import study_score_rows

        score_source_register(study_score_rows)
