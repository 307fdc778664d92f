"""The researcher's texts of a study in other languages: which texts a study has, and the study as an
annotator's page in one language shows it, each missing translation falling back to the study's own
text (pure: no ORM; the service ``study_translations_save`` stores them).

A text is named by a flat key, so a language's translations are one flat object
(``Study.translations[language][key]``) that a form and a count read without walking anything:

- ``consent_md``, ``instructions_md``: the consent text and the instructions (Markdown);
- ``field.<path>.label``, ``field.<path>.help``: a question's label and its definition (the "i" popover);
- ``field.<path>.choice.<token>.label``, ``field.<path>.choice.<token>.description``: a choice's words.

``<path>`` is the field's key, a sub-field of a per_document field ``<parent>/<key>``; ``<token>`` is the
choice's value as the form posts it (``Choice.token``). A text is only there when the study has words
for it: a help or a description left empty, or a choice with no label of its own (``"choices": [0, 1]``:
its value is its label), has nothing to translate. Only words change: keys, values, conditions and
reports keep reading the protocol as written, so an answer given in any language is the same answer.

A translation whose key the protocol no longer has (a question removed in a later version) is kept,
reported as unused, and never shown. Beside each translation its language keeps ``_source.<key>``, a
fingerprint of the study's text it was made from (``source_mark``): once that text changes, the
translation is still shown but reported as outdated until it is changed or confirmed."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from django.conf import settings
from django.utils import translation

from .markdown import MARKDOWN_MAX_CHARS
from .protocol import Field, Protocol
from .protocol.values import Choice

# The workspace's English names of the annotators' languages ("Japanese"; settings.LANGUAGES has their own).
LANGUAGE_NAMES = {code: translation.get_language_info(code)["name"] for code, _ in settings.LANGUAGES}
CONSENT, INSTRUCTIONS = "consent_md", "instructions_md"
LINE_MAX_CHARS = 1_000  # a label
PARAGRAPH_MAX_CHARS = 10_000  # a help text, a choice's description

SOURCE_PREFIX = "_source."  # a translation's fingerprint of the text it translates, beside it

# The annotator's pages that show the researcher's texts, and which of them (``Text.page``).
PAGE_CONSENT, PAGE_INSTRUCTIONS, PAGE_ITEMS = "consent", "instructions", "items"


@dataclass(frozen=True)
class Text:
    """One text of a study that can be translated: its key, what the researcher calls it, its words in
    the study's language, and how it is typed (Markdown, a line or a paragraph) and bounded."""

    key: str
    name: str
    source: str
    page: str
    markdown: bool = False
    multiline: bool = False
    max_chars: int = LINE_MAX_CHARS
    field_label: str = ""  # the question it belongs to, in the study's language ("" for consent, instructions)
    is_choice: bool = False
    group: str = ""  # the question's path ("" for consent, instructions): a form shows a question's texts together
    short: str = ""  # its name within its question ("Definition", "Choice “No”"); ``name`` outside it


def field_key(path: str, part: str) -> str:
    return f"field.{path}.{part}"


def choice_key(path: str, choice: Choice, part: str) -> str:
    return f"field.{path}.choice.{choice.token}.{part}"


def _field_texts(f: Field, path: str) -> Iterable[Text]:
    question = f"“{f.label}”"

    def text(key: str, name: str, source: str, short: str, paragraph: bool = False, is_choice: bool = False) -> Text:
        return Text(key, name, source, PAGE_ITEMS, multiline=paragraph,
                    max_chars=PARAGRAPH_MAX_CHARS if paragraph else LINE_MAX_CHARS,
                    field_label=f.label, is_choice=is_choice, group=path, short=short)

    yield text(field_key(path, "label"), f"Question {question}", f.label, "Question")
    if f.help:
        yield text(field_key(path, "help"), f"Definition of {question}", f.help, "Definition (the question's “i”)",
                   paragraph=True)
    for c in f.choices:
        if c.label != c.token:  # a bare value is its own label: no words to translate
            yield text(choice_key(path, c, "label"), f"Choice “{c.label}” of {question}", c.label,
                       f"Choice “{c.label}”", is_choice=True)
        if c.description:
            yield text(choice_key(path, c, "description"), f"Description of “{c.label}” of {question}",
                       c.description, f"Description of “{c.label}”", paragraph=True, is_choice=True)
    for sub in f.fields:
        yield from _field_texts(sub, f"{path}/{sub.key}")


def study_texts(protocol: Protocol, *, consent_md: str, instructions_md: str) -> list[Text]:
    """Every text of a study with words to translate, in the order its annotators meet them."""
    texts = []
    if consent_md.strip():
        texts.append(Text(CONSENT, "Consent text", consent_md, PAGE_CONSENT, True, True, MARKDOWN_MAX_CHARS))
    if instructions_md.strip():
        texts.append(Text(INSTRUCTIONS, "Instructions", instructions_md, PAGE_INSTRUCTIONS, True, True,
                          MARKDOWN_MAX_CHARS))
    for f in protocol.fields:
        texts.extend(_field_texts(f, f.key))
    return texts


def texts_of(study) -> list[Text]:
    """``study_texts`` of a study (anything with ``spec``, ``consent_md`` and ``instructions_md``)."""
    return study_texts(study.spec, consent_md=study.consent_md, instructions_md=study.instructions_md)


def source_texts(study) -> dict[str, str]:
    """Each text key of the study with its words in the study's own language."""
    return {t.key: t.source for t in texts_of(study)}


def translations_in(study, language: str) -> dict[str, str]:
    """The study's stored translations into ``language`` (none into its own language), non-empty texts only."""
    if language == study.language:
        return {}
    stored = (study.translations or {}).get(language)
    if not isinstance(stored, Mapping):
        return {}
    return {k: v for k, v in stored.items()
            if isinstance(k, str) and isinstance(v, str) and v.strip() and not k.startswith(SOURCE_PREFIX)}


def source_mark(text: str) -> str:
    """A short fingerprint of a study's text, kept with its translation to tell when the text changed."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:12]


def outdated_keys(study, language: str) -> list[str]:
    """Keys translated into ``language`` whose study text changed since (still shown), in the study's order.
    A translation stored without a fingerprint is not judged."""
    stored = (study.translations or {}).get(language) if language != study.language else None
    if not isinstance(stored, Mapping):
        return []
    have = translations_in(study, language)
    return [t.key for t in texts_of(study) if t.key in have
            and stored.get(SOURCE_PREFIX + t.key) not in (None, source_mark(t.source))]


def unused_keys(study, language: str) -> list[str]:
    """Keys translated into ``language`` that the study no longer has (never shown), sorted."""
    have = {t.key for t in texts_of(study)}
    return sorted(set(translations_in(study, language)) - have)


def _translated_field(f: Field, path: str, texts: Mapping[str, str]) -> Field:
    def word(key: str, own: str) -> str:
        return texts.get(key) or own

    choices = tuple(  # only the texts ``_field_texts`` names: a translation of any other key is unused
        replace(c, label=word(choice_key(path, c, "label"), c.label) if c.label != c.token else c.label,
                description=word(choice_key(path, c, "description"), c.description) if c.description else "")
        for c in f.choices
    )
    return replace(
        f, label=word(field_key(path, "label"), f.label), help=word(field_key(path, "help"), f.help) if f.help else "",
        choices=choices, fields=tuple(_translated_field(sub, f"{path}/{sub.key}", texts) for sub in f.fields),
    )


def translated_protocol(protocol: Protocol, texts: Mapping[str, str]) -> Protocol:
    """``protocol`` with its questions' and choices' words replaced where ``texts`` has them (a new
    object even when none is: a page's cached markup is kept per protocol object and language)."""
    return replace(protocol, fields=tuple(_translated_field(f, f.key, texts) for f in protocol.fields))


@dataclass(frozen=True)
class Localized:
    """A study as its annotators' pages in ``language`` show it: its consent and instructions (Markdown)
    and its protocol with translated words; ``fallbacks``: the texts shown in the study's own language
    for lack of a translation, ``total`` the texts it has."""

    language: str
    source_language: str
    consent_md: str
    instructions_md: str
    spec: Protocol
    fallbacks: tuple[Text, ...]
    total: int

    @property
    def translated(self) -> int:
        return self.total - len(self.fallbacks)

    def fallbacks_on(self, *pages: str) -> list[Text]:
        return [t for t in self.fallbacks if t.page in pages]


def localize(protocol: Protocol, *, consent_md: str, instructions_md: str, source_language: str, language: str,
             texts: Mapping[str, str]) -> Localized:
    """The pure work of ``localized``: ``texts`` are the translations into ``language`` (empty for the
    study's own language, where nothing falls back)."""
    every = study_texts(protocol, consent_md=consent_md, instructions_md=instructions_md)
    if language == source_language:
        return Localized(language, source_language, consent_md, instructions_md, protocol, (), len(every))
    return Localized(
        language, source_language,
        consent_md=(texts.get(CONSENT) or consent_md) if consent_md.strip() else consent_md,
        instructions_md=(texts.get(INSTRUCTIONS) or instructions_md) if instructions_md.strip() else instructions_md,
        spec=translated_protocol(protocol, texts),
        fallbacks=tuple(t for t in every if not texts.get(t.key)),
        total=len(every),
    )


@dataclass(frozen=True)
class _Entry:
    spec: Protocol  # the study's own spec object (``Study.spec``, one per spec text and process)
    consent_md: str
    instructions_md: str
    source_language: str
    texts: dict[str, str]
    localized: Localized


CACHE_SIZE = 512  # (study, language) pairs a process keeps
_cache: dict[tuple[int, str], _Entry] = {}
_cache_lock = threading.Lock()


def localized(study, language: str) -> Localized:
    """``study`` as its pages in ``language`` show it, kept per process like ``Study.spec``: no query
    (the translations are on the study's row) and, once made, only comparisons per request.

    An entry is kept per (study, language) and used while the study's spec is the very object it was
    made from (``Study.spec`` is one object per spec text and process) and its texts and translations
    are equal: stricter than the protocol version, which a protocol edited in place keeps."""
    texts = translations_in(study, language)
    spec = study.spec
    key = (study.pk, language)
    entry = _cache.get(key) if study.pk is not None else None
    if (entry is not None and entry.spec is spec and entry.texts == texts and entry.consent_md == study.consent_md
            and entry.instructions_md == study.instructions_md and entry.source_language == study.language):
        return entry.localized
    result = localize(spec, consent_md=study.consent_md, instructions_md=study.instructions_md,
                      source_language=study.language, language=language, texts=texts)
    if study.pk is not None:
        with _cache_lock:
            if key not in _cache and len(_cache) >= CACHE_SIZE:
                _cache.pop(next(iter(_cache)))
            _cache[key] = _Entry(spec, study.consent_md, study.instructions_md, study.language, texts, result)
    return result


class StudyShown:
    """A study as an annotator's page shows it: its consent, instructions and spec in the page's
    language, everything else the study's own (for templates; it is not a model and saves nothing)."""

    def __init__(self, study, shown: Localized):
        self._study = study
        self.consent_md = shown.consent_md
        self.instructions_md = shown.instructions_md
        self.spec = shown.spec

    def __getattr__(self, name: str):
        return getattr(self._study, name)


def page_language() -> str:
    """The language of the page being rendered (``annotation.languages`` activates the annotator's)."""
    code = translation.get_language() or settings.LANGUAGE_CODE
    return code if code in LANGUAGE_NAMES else code.split("-")[0]


def shown_study(study) -> StudyShown:
    """``study`` as the annotator's page being rendered shows it, in the page's language."""
    return StudyShown(study, localized(study, page_language()))


NAMED_QUESTIONS = 3  # questions a summary names; the rest are counted


def fallback_summary(fallbacks: Iterable[Text]) -> list[str]:
    """The fallen-back texts as a researcher reads them: "Instructions", "question “Relevance”" (its
    words fell back, its definition too or not), "the definition of “Relevance”" (only that), past three
    questions "4 more questions", and "2 choices" (their labels or descriptions)."""
    words: list[str] = []
    questions: dict[str, set[str]] = {}  # a question's path: which of its own texts fell back
    labels: dict[str, str] = {}
    choices: set[str] = set()
    for t in fallbacks:
        if t.is_choice:
            choices.add(t.key.rsplit(".", 1)[0])
        elif t.group:
            questions.setdefault(t.group, set()).add(t.key.rsplit(".", 1)[1])
            labels[t.group] = t.field_label
        else:
            words.append(t.name)
    named = [f"question “{labels[g]}”" if "label" in parts else f"the definition of “{labels[g]}”"
             for g, parts in questions.items()]
    words.extend(named[:NAMED_QUESTIONS])
    if len(named) > NAMED_QUESTIONS:
        more = len(named) - NAMED_QUESTIONS
        words.append(f"{more} more question{'s' if more != 1 else ''}")
    if choices:
        words.append(f"{len(choices)} choice{'s' if len(choices) != 1 else ''}")
    return words


# --- what the workspace says of them: per language, per pool (the pools given, no query) ---


@dataclass(frozen=True)
class LanguageRow:
    """One language the study's texts may be translated into, and how far they are."""

    code: str
    name: str
    translated: int
    total: int
    pools: list  # the study's pools whose annotators see it first
    unused: int  # translations of texts the protocol no longer has
    outdated: int  # translations whose study text changed since

    @property
    def missing(self) -> int:
        return self.total - self.translated


def pool_languages(study, pools) -> dict[str, list]:
    """The languages ``pools`` show first (a pool's own, else the study's), each with its pools."""
    out: dict[str, list] = {}
    for pool in pools:
        out.setdefault(pool.language or study.language, []).append(pool)
    return out


def language_rows(study, pools) -> list[LanguageRow]:
    """Every language but the study's own: those its pools use first, then those with translations,
    then the rest."""
    used = pool_languages(study, pools)
    rows = []
    for code, name in LANGUAGE_NAMES.items():
        if code == study.language:
            continue
        shown = localized(study, code)
        rows.append(LanguageRow(code, name, shown.translated, shown.total, used.get(code, []),
                                len(unused_keys(study, code)), len(outdated_keys(study, code))))
    return sorted(rows, key=lambda r: (not r.pools, not r.translated, r.name))


@dataclass(frozen=True)
class MissingTexts:
    """Pools whose annotators see ``language`` first while some of the study's texts have no translation."""

    language: str
    name: str
    pools: list
    missing: int
    total: int


def missing_texts(study, pools) -> list[MissingTexts]:
    """The warnings of the pool list and the dashboard: per language its pools see first (not the study's
    own), the texts they will see in the study's language (no query: the translations are on the study)."""
    out = []
    for code, used in pool_languages(study, pools).items():
        if code == study.language or code not in LANGUAGE_NAMES:
            continue
        shown = localized(study, code)
        if shown.fallbacks:
            out.append(MissingTexts(code, LANGUAGE_NAMES[code], used, len(shown.fallbacks), shown.total))
    return out


def translation_warnings(study, pools) -> dict:
    """The context of ``studies/_translation_warnings.html``."""
    return {"translation_warnings": missing_texts(study, pools),
            "source_name": LANGUAGE_NAMES.get(study.language, study.language)}
