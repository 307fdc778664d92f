"""CulturalVQA: agreement among the answers of a country's annotators. Pure: no Django."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any

from .common import country_key, restrict
from .kinds import AS_STORED, ReportData, implement

ARTICLES = re.compile(r"\b(?:a|an|the)\b")
SPACES = re.compile(r"\s+")
APOSTROPHES = "'’ʼ`´"
# Combining marks are stripped only after letters of these scripts: in Devanagari, Bengali, Thai,
# Arabic and others they are vowel signs and change the word (पूरी is not परी).
DIACRITIC_SCRIPTS = ("LATIN", "GREEK", "CYRILLIC")
QUESTION_COLUMNS = ("item_id", "country", "answers", "pairs", "agreement")


def _strip_diacritics(text: str) -> str:
    out: list[str] = []
    base_strippable = False
    for ch in unicodedata.normalize("NFKD", text):
        if unicodedata.combining(ch):
            if base_strippable:
                continue
        else:
            base_strippable = unicodedata.name(ch, "").startswith(DIACRITIC_SCRIPTS)
        out.append(ch)
    return unicodedata.normalize("NFC", "".join(out))


def normalise_answer(text: Any) -> str:
    """An answer as compared: accents of Latin, Greek and Cyrillic letters stripped (NFKD, then the
    combining marks dropped, then NFC), case folded, apostrophes removed ("mother's" = "mothers"),
    other punctuation read as a space ("hot-dog" = "hot dog"), the articles a, an and the dropped,
    and runs of spaces collapsed. "The Naan." and "naan" are the same answer; so are "Crème brûlée"
    and "creme brulee"."""
    text = _strip_diacritics(str(text or "")).casefold()
    text = "".join(
        "" if ch in APOSTROPHES else " " if unicodedata.category(ch).startswith("P") else ch for ch in text
    )
    return SPACES.sub(" ", ARTICLES.sub(" ", text)).strip()


def _group(country: Any, questions: list[tuple[int, int, int]], single: int, empty: int) -> dict[str, Any]:
    """``questions``: (answers, pairs, agreeing pairs) per question with at least two answers."""
    n = len(questions)
    return {
        "country": country,
        "questions": n,
        "answers": sum(q[0] for q in questions),
        "single_answer_questions": single,
        "empty_answers": empty,
        "mean_agreement": sum(q[2] / q[1] for q in questions) / n if n else None,
        "unanimous": sum(q[2] == q[1] for q in questions) / n if n else None,
    }


@dataclass(frozen=True)
class AnswerAgreement:
    """Normalised exact-match agreement among the answers to the same question within a country.

    Per question: the share of its pairs of answers that match (``normalise_answer``); per country
    and overall: the mean of that share over questions with at least two answers, the share of
    those questions where all answers match (``unanimous``), with the counts. ``rows``: one per
    question with at least two answers."""

    overall: dict[str, Any]
    countries: list[dict[str, Any]]
    rows: list[tuple[Any, Any, int, int, float]]

    def as_dict(self) -> dict[str, Any]:
        return {"overall": self.overall, "countries": list(self.countries),
                "columns": list(QUESTION_COLUMNS), "rows": [list(r) for r in self.rows]}


def answer_pairs(counts: Counter[str]) -> tuple[int, int]:
    """(pairs of answers, pairs that match) of one question, given each normalised answer's count."""
    n = sum(counts.values())
    return n * (n - 1) // 2, sum(k * (k - 1) // 2 for k in counts.values())


def answer_agreement(
    rows: Iterable[tuple[Any, Any, Any]], *, only_items: Collection[Any] | None = None
) -> AnswerAgreement:
    """Answer agreement among annotators of a country answering the same question.

    ``rows``: (item id, country, answer) — the ``answer`` text of each annotation of the answer
    study, whose items are the questions. An answer empty once normalised (e.g. "the") is left out
    and counted; a question with a single answer has no pair and is counted apart."""
    answers: dict[tuple[Any, Any], Counter[str]] = defaultdict(Counter)
    empty: Counter[Any] = Counter()
    for item, country, answer in restrict(rows, only_items):
        text = normalise_answer(answer)
        if text:
            answers[item, country][text] += 1
        else:
            empty[country] += 1
    table = []
    per_country: dict[Any, list[tuple[int, int, int]]] = defaultdict(list)
    single: Counter[Any] = Counter()
    for (item, country), counts in answers.items():
        n = sum(counts.values())
        if n < 2:
            single[country] += 1
            continue
        pairs, agreeing = answer_pairs(counts)
        per_country[country].append((n, pairs, agreeing))
        table.append((item, country, n, pairs, agreeing / pairs))
    countries = sorted(set(per_country) | set(single) | set(empty), key=country_key)
    return AnswerAgreement(
        overall=_group(None, [q for c in countries for q in per_country[c]], sum(single.values()), sum(empty.values())),
        countries=[_group(c, per_country[c], single[c], empty[c]) for c in countries],
        rows=sorted(table, key=lambda r: (country_key(r[1]), str(r[0]))),
    )


# --- the report kind --------------------------------------------------------------------------


def _answer_agreement(report: ReportData) -> AnswerAgreement:
    return answer_agreement(report.rows())


ANSWER_AGREEMENT = implement("answer_agreement", reads={"answer": AS_STORED}, compute=_answer_agreement,
                             plot="answer_plot")
