from django.apps import AppConfig


class RecruitmentConfig(AppConfig):
    name = "recruitment"
    verbose_name = "Recruitment (Prolific)"

    def ready(self):
        # Annotation asks its registered entry checks at every entry link; this one checks the
        # submission of a pool recruited on Prolific (annotation never imports recruitment).
        from annotation.extensions import entry_check_register, recruitment_facts_register

        from .entry import prolific_entry_check
        from .selectors import launch_facts

        entry_check_register(prolific_entry_check)
        # An export's dataset card states the pay rate of each launch (exports never imports recruitment).
        recruitment_facts_register(launch_facts)
        # Issue 28, part 2: paid screen-outs at an eligibility "no", and the secured entry URL's token.
        from annotation.extensions import entry_param_register, screen_out_register

        from .services.screenouts import screen_out_offer, screen_out_start
        from .signed_entry import entry_token_param

        screen_out_register(screen_out_offer, screen_out_start)
        entry_param_register(entry_token_param)
