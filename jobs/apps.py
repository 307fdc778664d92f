from django.apps import AppConfig


class JobsConfig(AppConfig):
    """The background jobs' base: the abstract ``Job`` row, its lifecycle and the one reaper."""

    name = "jobs"
