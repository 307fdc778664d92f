from django.apps import AppConfig


class StudiesConfig(AppConfig):
    name = "studies"
    verbose_name = "Studies"

    def ready(self):
        from django.utils.translation import gettext, ngettext

        from .protocol import words

        words.install(gettext, ngettext)  # the engine's validation messages in the annotator's language
