"""What the annotator is told when the entry link cannot let them in, in their language: the
(title, message) of each refusal (``ENTRY_PROBLEMS``; ``PANEL_PROBLEMS`` on a URL panel's pool,
naming the panel instead of Prolific), and the page of a participant the researcher blocked."""

from django.utils.translation import gettext_lazy

BLOCKED = (
    gettext_lazy("You can no longer take part in this study"),
    gettext_lazy(
        "The researcher has stopped your participation. Please return the study on Prolific; what you submitted "
        "so far is kept. If you think this is a mistake, contact the researcher through Prolific."
    ),
)

# (title, message) of each refusal of the entry link; the message is formatted after translation.
ENTRY_PROBLEMS = {
    "missing": (
        gettext_lazy("This link is incomplete"),
        gettext_lazy("The link is missing {detail}. Please open the study again from Prolific."),
    ),
    "malformed": (
        gettext_lazy("This link is not valid"),
        gettext_lazy("The link's {detail} is not in the expected form. Please open the study again from Prolific."),
    ),
    "wrong_study": (
        gettext_lazy("This link belongs to another study"),
        gettext_lazy("Please open the study again from Prolific."),
    ),
    "closed": (
        gettext_lazy("This study is closed"),
        gettext_lazy(
            "It is not taking answers at the moment. Please return it on Prolific; you will not be penalised."
        ),
    ),
    "full": (
        gettext_lazy("This study is full"),
        gettext_lazy(
            "Every item has enough answers already. Please return the study on Prolific; you will not be penalised."
        ),
    ),
    "wrong_participant": (
        gettext_lazy("This link belongs to another participant"),
        gettext_lazy(
            "Prolific says this submission is not yours. Please open the study again from your own Prolific account."
        ),
    ),
    "unknown_submission": (
        gettext_lazy("Prolific does not know this submission"),
        gettext_lazy(
            "The link's SESSION_ID names no submission on Prolific: the link may be cut short or mistyped. "
            "Please open the study again from Prolific."
        ),
    ),
    "not_active": (
        gettext_lazy("This submission is no longer active"),
        gettext_lazy(
            "Prolific reports it as {detail}. If you want to take part, please start the study again on Prolific."
        ),
    ),
    "blocked": BLOCKED,
    "bad_token": (
        gettext_lazy("This link's signature is not valid"),
        gettext_lazy(
            "Prolific signs the link to this study, and this one's signature could not be confirmed ({detail}). "
            "Please open the study again from Prolific."
        ),
    ),
    "bad_test_link": (
        gettext_lazy("This test link is not valid"),
        gettext_lazy(
            "A researcher's test link must be made by this site, for this pool, and is good for a week; "
            "this one is not ({detail}). Make a new one on the study's Prolific page."
        ),
    ),
    "wrong_pool": (
        gettext_lazy("You already take part in this study"),
        gettext_lazy("You joined through the link for {detail}. Please use that link, from Prolific."),
    ),
}


# A URL panel's pool (``studies.panels``): the same refusals, naming the panel instead of Prolific
# (``{panel}``), and the signed link's own; the others are ENTRY_PROBLEMS'.
PANEL_PROBLEMS = {
    "missing": (
        gettext_lazy("This link is incomplete"),
        gettext_lazy("The link is missing {detail}. Please open the study again from {panel}."),
    ),
    "malformed": (
        gettext_lazy("This link is not valid"),
        gettext_lazy("The link's {detail} is not in the expected form. Please open the study again from {panel}."),
    ),
    "bad_token": (
        gettext_lazy("This link is not valid"),
        gettext_lazy(
            "The link's signature does not match: it may be cut short, changed, or meant for someone else. "
            "Please open the exact link you were given by {panel}."
        ),
    ),
    "closed": (
        gettext_lazy("This study is closed"),
        gettext_lazy("It is not taking answers at the moment. Thank you for your interest."),
    ),
    "full": (
        gettext_lazy("This study is full"),
        gettext_lazy("Every item has enough answers already. Thank you for your interest."),
    ),
    "wrong_pool": (
        gettext_lazy("You already take part in this study"),
        gettext_lazy("You joined through the link for {detail}. Please use that link."),
    ),
}


def entry_problem(reason: str, *, detail: str, panel) -> tuple[str, str]:
    """The title and message of an entry refusal, in the active language."""
    title, message = (PANEL_PROBLEMS.get(reason) if panel is not None else None) or ENTRY_PROBLEMS[reason]
    return str(title), str(message).format(detail=detail, panel=panel.name if panel is not None else "Prolific")
