from django.apps import AppConfig


class RecruitmentConfig(AppConfig):
    name = "recruitment"
    verbose_name = "Recruitment (Prolific)"
