"""The engine's words to annotators (validation messages), in the annotator's language.

Pure like the rest of the engine: the messages are English until the app installs its translation
functions (``install``, called with Django's ``gettext`` and ``ngettext`` when the studies app is
ready); the engine itself never imports Django. ``gettext_noop`` marks a message translated later,
where it is used; makemessages collects all three names.
"""

from __future__ import annotations

from collections.abc import Callable


def _english(message: str) -> str:
    return message


def _english_plural(singular: str, plural: str, n: int) -> str:
    return singular if n == 1 else plural


_translate: Callable[[str], str] = _english
_translate_plural: Callable[[str, str, int], str] = _english_plural


def install(gettext: Callable[[str], str], ngettext: Callable[[str, str, int], str]) -> None:
    """Translate the engine's messages with ``gettext`` and ``ngettext`` (the active language's)."""
    global _translate, _translate_plural
    _translate, _translate_plural = gettext, ngettext


def gettext(message: str) -> str:
    return _translate(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    return _translate_plural(singular, plural, n)


def gettext_noop(message: str) -> str:
    return message
