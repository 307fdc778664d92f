"""The words the annotator's scripts show (static/annotation/*.js), in the page's language.

A page carries them as JSON (``{% page_messages %}``, id ``ui-messages``); a script reads a message by
its key, with the English here as its own fallback. A placeholder is ``{name}``. A message that
counts has one form per CLDR plural category of the language (Babel's rules, the same the browser's
``Intl.PluralRules`` applies), each taken from the catalog's ngettext for a number of that category.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from babel import Locale, UnknownLocaleError
from django.utils import translation
from django.utils.translation import gettext, gettext_noop, ngettext

TEXTS = {
    # item.js: the draft's status, the text counters
    "draft_saved": gettext_noop("Draft saved"),
    "draft_not_saved": gettext_noop("Draft not saved"),
    "draft_not_saved_because": gettext_noop("Draft not saved: {error}"),
    "draft_offline": gettext_noop("Draft not saved (offline?)"),
    # effort.js: a submit made while the connection is down
    "submit_offline": gettext_noop(
        "You are offline. Your answer is kept and will be sent when the connection returns."
    ),
    "submit_resending": gettext_noop("The connection is back: sending your answer…"),
    "words_rule": gettext_noop("{words}; {rule}."),
    "write_between": gettext_noop("write {min} to {max}"),
    "write_at_most": gettext_noop("write at most {max}"),
    "write_at_least": gettext_noop("write at least {min}"),
    # bbox.js
    "box_the": gettext_noop("The box"),
    "box_numbered": gettext_noop("Box {n}"),
    "box_none": gettext_noop("No box yet."),
    "box_covers": gettext_noop("{box} covers {percent} of the image."),
    "box_covers_rule": gettext_noop("{box} covers {percent} of the image; less than {most} is allowed."),
    "box_too_big": gettext_noop(
        "{box} covers {percent} of the image; it must cover less than {most}. Draw it tighter around the concept."
    ),
    "box_no_drag": gettext_noop("No box drawn: press on the image and drag across what you mean to mark."),
    "box_too_small": gettext_noop(
        "That box is too small ({w}×{h} px; a box needs at least {least_w}×{least_h} px): "
        "drag across the whole area you mean to mark."
    ),
    # upload.js
    "upload_alt": gettext_noop("Your uploaded image"),
    "uploading": gettext_noop("Uploading {name} ({size})…"),
    "uploaded": gettext_noop("Uploaded."),
    "upload_offline": gettext_noop("The upload failed: check your connection and try again."),
    "upload_failed": gettext_noop("The upload failed (error {status}). Try again, or choose another image."),
    # url_list.js
    "article_title": gettext_noop("Title of article {n}"),
    "article_url": gettext_noop("URL of article {n}"),
    "article_remove": gettext_noop("Remove article {n}"),
    # end.js
    "end_stopped": gettext_noop("{why} Use “Return to Prolific now” when you are ready."),
    "end_stopped_panel": gettext_noop("{why} Use “Continue to {panel}” when you are ready."),
    "end_stay": gettext_noop("You stay on this page."),
    "end_copied": gettext_noop("Code copied; you stay on this page."),
    "copied": gettext_noop("Copied"),
}

COUNTED: dict[str, Callable[[int], str]] = {
    "chars": lambda n: ngettext("{n} character", "{n} characters", n),
    "chars_of": lambda n: ngettext("{have} of at least {n} character", "{have} of at least {n} characters", n),
    "words": lambda n: ngettext("{n} word", "{n} words", n),
    "countdown": lambda n: ngettext(
        "Taking you back to Prolific in {n} second.", "Taking you back to Prolific in {n} seconds.", n
    ),
    "countdown_panel": lambda n: ngettext(
        "Taking you on to {panel} in {n} second.", "Taking you on to {panel} in {n} seconds.", n
    ),
    "boxes_at_most": lambda n: ngettext("At most {n} box: clear it first.", "At most {n} boxes: clear one first.", n),
}

SAMPLES = range(0, 200)  # numbers enough to meet every plural category of the languages we ship


def plural_categories(language: str) -> dict[str, int]:
    """A number of each CLDR plural category of ``language``: {"one": 1, "other": 0, …}."""
    try:
        locale = Locale.parse(translation.to_locale(language))
    except (UnknownLocaleError, ValueError):
        locale = Locale("en")
    found: dict[str, int] = {}
    for n in SAMPLES:
        found.setdefault(locale.plural_form(n), n)
    return found


@lru_cache(maxsize=16)
def page_messages(language: str) -> dict[str, object]:
    """The scripts' messages in ``language``: a text per key, a {category: text} per counted key."""
    with translation.override(language):
        messages: dict[str, object] = {key: gettext(english) for key, english in TEXTS.items()}
        categories = plural_categories(language)
        for key, form in COUNTED.items():
            messages[key] = {category: form(n) for category, n in categories.items()}
    return messages
