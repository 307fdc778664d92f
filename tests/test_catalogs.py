"""The annotator pages' catalogs (locale/<language>/LC_MESSAGES/django.po) are complete and compiled:
every message translated, none fuzzy, each translation with the placeholders and markup of its
English, the plural forms each language has, and the committed .mo saying what its .po says."""

import gettext
import re
from pathlib import Path

import polib
import pytest
from django.conf import settings

LOCALE = Path(settings.BASE_DIR) / "locale"
LANGUAGES = [code for code, _ in settings.LANGUAGES if code != settings.LANGUAGE_CODE]
PLURALS = {"hi": 2, "ja": 1, "ar": 6}
# %(name)s, {name}, and the HTML tags a message carries (their attributes included: ids the scripts use)
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|\{\w*\}|</?[a-z]+(?:\s[^>]*)?>")


def catalog(code: str) -> polib.POFile:
    return polib.pofile(str(LOCALE / code / "LC_MESSAGES" / "django.po"))


def placeholders(text: str) -> list[str]:
    return sorted(PLACEHOLDER.findall(text))


def translations(entry: polib.POEntry) -> list[str]:
    return [entry.msgstr_plural[k] for k in sorted(entry.msgstr_plural)] if entry.msgid_plural else [entry.msgstr]


@pytest.mark.parametrize("code", LANGUAGES)
def test_every_message_is_translated_and_none_is_fuzzy(code):
    po = catalog(code)
    assert len(po) > 100
    assert not po.metadata_is_fuzzy
    assert [e.msgid for e in po if "fuzzy" in e.flags] == []
    assert [e.msgid for e in po if any(not t.strip() for t in translations(e))] == []
    assert [e.msgid for e in po.obsolete_entries()] == []


@pytest.mark.parametrize("code", LANGUAGES)
def test_the_plural_forms_are_the_languages(code):
    po = catalog(code)
    assert po.metadata["Language"] == code
    assert f"nplurals={PLURALS[code]};" in po.metadata["Plural-Forms"]
    wrong = [e.msgid for e in po if e.msgid_plural and len(e.msgstr_plural) != PLURALS[code]]
    assert wrong == []


@pytest.mark.parametrize("code", LANGUAGES)
def test_every_translation_keeps_the_placeholders_and_markup_of_its_english(code):
    wrong = []
    for e in catalog(code):
        english = placeholders(e.msgid)
        if e.msgid_plural:
            assert placeholders(e.msgid_plural) == english, e.msgid
        wrong += [(e.msgid, t) for t in translations(e) if placeholders(t) != english]
    assert wrong == []


@pytest.mark.parametrize("code", LANGUAGES)
def test_the_compiled_catalog_says_what_the_po_says(code):
    with open(LOCALE / code / "LC_MESSAGES" / "django.mo", "rb") as mo:
        compiled = gettext.GNUTranslations(mo)
    stale = []
    for e in catalog(code):
        if e.msgid_plural:
            for index, text in e.msgstr_plural.items():
                n = next(n for n in range(200) if compiled.plural(n) == int(index))
                if compiled.ngettext(e.msgid, e.msgid_plural, n) != text:
                    stale.append((e.msgid, index))
        elif compiled.gettext(e.msgid) != e.msgstr:
            stale.append(e.msgid)
    assert stale == [], "run `make messages` and commit the .mo"


def test_the_annotator_pages_say_what_the_catalogs_hold():
    """The page's Arabic comes from the catalog: Django finds locale/ (LOCALE_PATHS)."""
    from django.utils import translation

    with translation.override("ar"):
        assert translation.gettext("Skip to content") == catalog("ar").find("Skip to content").msgstr
