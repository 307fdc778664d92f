from django.apps import AppConfig


class WorkspaceConfig(AppConfig):
    """The researcher's pages (owners, editors, viewers): on top of every domain app, beside the API."""

    name = "workspace"
    verbose_name = "Workspace"
