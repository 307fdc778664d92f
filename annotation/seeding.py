"""One study seeded from the annotations of another.

- CulturalVQA: the questions written in a question study become the items of an answer study;
  each keeps its author's Prolific id, so the author is never given their own question
  (``annotation.selectors.quotas_open_to`` excludes it), and is routed to its country's pool, so it
  is answered by *other* annotators of the same country.
- CulturalFrames: a prompt of the filter study is kept when at least 2 of its 3 annotators say
  Yes; the kept prompts are written to a file that the researcher completes with the file names
  of the images the T2I models drew for them, and imports into a rating study with import_items.

Which of the two a study can feed is read from its protocol (``study_feeds``), never from the name
of the preset it came from. The decisions are plain functions without the ORM; the services read
annotations, so they live in the annotation app, above the studies they create items in. The
researcher's page (``workspace/views/seeding.py``) and ``manage.py seed_study`` call the same
functions.
"""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.core.files import File
from django.db import IntegrityError, transaction
from django.db.models import QuerySet

from stats.decisions import NO, YES, Decision, prompt_decision, prompt_kept, vote_token  # noqa: F401 (re-exported)
from studies.derivatives import derivatives_queue
from studies.models import Item, ItemQuota, Study
from studies.protocol import SKIP, Protocol
from studies.protocol.safetext import safe_cell
from studies.selectors import studies_for_user
from studies.services import quotas_for_items

from .models import Annotation

MAX_EXTERNAL_ID = 200


class SeedError(ValueError):
    """A seeding that cannot be done; the message says why, and nothing was written."""


def vote_field(spec: Protocol) -> str:
    """The key of the filter's Yes/No question: the first choice field whose choices are Yes and No."""
    for f in spec.fields:
        if f.kind.categorical and {vote_token(c.value) for c in f.choices} == {YES, NO}:
            return f.key
    raise SeedError("the source study's protocol has no Yes/No choice field to count votes from")


def question_field(spec: Protocol) -> str:
    """The key of the written question: the text field named 'question', else the only text field."""
    texts = [f.key for f in spec.fields if f.kind.free_text]
    if "question" in texts:
        return "question"
    if len(texts) == 1:
        return texts[0]
    raise SeedError("the source study's protocol has no text field 'question' (nor a single text field)")


@dataclass(frozen=True)
class Feeds:
    """What a study of one protocol can feed: answer items of another study (``answer_items``: it
    writes questions) and a file of the prompts its annotators kept (``kept_prompts``: it filters
    prompts). False when it feeds nothing."""

    answer_items: bool
    kept_prompts: bool

    def __bool__(self) -> bool:
        return self.answer_items or self.kept_prompts


def study_feeds(spec: Protocol) -> Feeds:
    """What a study of ``spec`` can feed, read from its protocol with the rules the services use:

    - answer items: it has a question field (``question_field``) and shows no question of its own
      (a study that shows a question answers it, like an answer study);
    - kept prompts: its one required question is a Yes/No vote (``vote_field``) on items that are
      prompts without an image (the kept prompts are the ones to be drawn)."""
    shown = spec.display.show
    return Feeds(
        answer_items="question" not in shown and _has(question_field, spec),
        kept_prompts="prompt" in shown and "image" not in shown and _has(vote_field, spec)
        and [f.key for f in spec.fields if f.required] == [vote_field(spec)],
    )


def takes_answer_items(spec: Protocol) -> bool:
    """Whether a study of ``spec`` can take answer items: it shows the item's question and asks for
    a written answer (a free-text field)."""
    return "question" in spec.display.show and any(f.kind.free_text for f in spec.fields)


def _has(field_of, spec: Protocol) -> bool:
    try:
        field_of(spec)
    except SeedError:
        return False
    return True


def answer_item_id(question_item_id: str, annotation_id: int) -> str:
    """The id of the answer item made from one written question; stable, so seeding is idempotent."""
    suffix = f"-q{annotation_id}"
    return f"{question_item_id[: MAX_EXTERNAL_ID - len(suffix)]}{suffix}"


# --- CulturalVQA: written questions become answer items ----------------------------------------


@dataclass(frozen=True)
class WrittenQuestion:
    annotation_id: int
    item_id: int
    text: str
    author_pid: str


def _written_questions(source: Study, key: str) -> list[WrittenQuestion]:

    rows = Annotation.objects.filter(study=source).order_by("pk").values_list(
        "pk", "item_id", "answers", "annotator__prolific_pid"
    )
    return [
        WrittenQuestion(pk, item_id, str(answers[key]).strip(), pid)
        for pk, item_id, answers, pid in rows
        if SKIP not in answers and str(answers.get(key) or "").strip()
    ]


def questions_written(*, source: Study) -> int:
    """How many questions were written (not skipped) in ``source``: each makes one answer item."""
    return len(_written_questions(source, question_field(source.spec)))


def answer_targets(*, user: AbstractBaseUser, source: Study) -> QuerySet[Study]:
    """The studies ``user`` may change (owner or editor), other than ``source``, that can take answer
    items (``takes_answer_items``), by name."""
    studies = studies_for_user(user, write=True).exclude(pk=source.pk).order_by("name", "pk")
    return studies.filter(pk__in=[s.pk for s in studies if takes_answer_items(s.spec)])


def seed_answer_items(*, source: Study, target: Study) -> int:
    """Make an item of ``target`` for every question written (not skipped) in ``source``.

    The item shows the question's image (copied once per image into the target study, so each
    study owns its files and deleting one never removes another's) and the question,
    carries its author's Prolific id, refers to the question's item, and goes to the pool of its
    country. Running it again creates only the items of questions written since. Returns how
    many items were created. Two seedings of the same pair at once create each item once: the
    one that loses the race writes nothing and says so.
    """
    if source.pk == target.pk:
        raise SeedError("the source and target must be two studies")
    if not target.by_country:
        raise SeedError(
            "the target study must route items to the pool of their country: a question is answered "
            "by other annotators of its own country"
        )
    questions = _written_questions(source, question_field(source.spec))
    sources = Item.objects.in_bulk({q.item_id for q in questions})
    ids = {q.annotation_id: answer_item_id(sources[q.item_id].external_id, q.annotation_id) for q in questions}
    have = set(Item.objects.filter(study=target, external_id__in=ids.values()).values_list("external_id", flat=True))
    new = [q for q in questions if ids[q.annotation_id] not in have]
    pools = set(target.pools.values_list("country", flat=True))
    missing = sorted({sources[q.item_id].country for q in new} - pools)
    if missing:
        raise SeedError(f"the target study has no pool for {', '.join(missing)}: add one, then seed again")
    items = [_answer_item(target, sources[q.item_id], q, ids[q.annotation_id]) for q in new]
    copied: dict[str, str] = {}  # sha256 → the copy's name in the target study
    try:
        with transaction.atomic():
            for item in items:
                _copy_image(item, sources[item.source_id], copied)
            Item.objects.bulk_create(items, batch_size=500)
            quotas_for_items(items=items)
            if copied:
                derivatives_queue(study_id=target.pk)  # the copies' lighter copies, once committed
    except Exception as exc:
        storage = Item._meta.get_field("image").storage
        for name in copied.values():
            storage.delete(name)
        if isinstance(exc, IntegrityError):
            raise SeedError(
                "another seeding of these studies ran at the same time and created these items; this one created none"
            ) from exc
        raise
    return len(items)


def _copy_image(item: Item, question_item: Item, copied: dict[str, str]) -> None:
    """Give the answer item its own stored copy of the question's image (one per image)."""
    if not question_item.image:
        return
    if item.sha256 in copied:
        item.image.name = copied[item.sha256]
        return
    with question_item.image.open("rb") as source:
        item.image.save(question_item.image.name.rsplit("/", 1)[-1], File(source), save=False)
    copied[item.sha256] = item.image.name


def _answer_item(target: Study, question_item: Item, question: WrittenQuestion, external_id: str) -> Item:
    item = Item(
        study=target,
        external_id=external_id,
        country=question_item.country,
        texts={"question": question.text},
        author_pid=question.author_pid,
        source=question_item,
        derived=True,
        category=question_item.category,
        width=question_item.width,
        height=question_item.height,
        sha256=question_item.sha256,
    )
    return item


# --- CulturalFrames: the prompts kept by the filter --------------------------------------------


@dataclass(frozen=True)
class PromptTally:
    """The Yes/No votes on one prompt in one pool."""

    id: str
    prompt_id: str
    prompt: str
    country: str
    category: str
    yes: int
    no: int
    wanted: int

    def decision(self, min_yes: int) -> Decision:
        return prompt_decision(yes=self.yes, no=self.no, wanted=self.wanted, min_yes=min_yes)


@dataclass(frozen=True)
class KeptPromptsReport:
    kept: int
    dropped: int
    pending: int
    path: Path

    def summary(self) -> str:
        return (
            f"Wrote {self.kept} kept prompt(s) to {self.path} ({self.dropped} dropped, {self.pending} still "
            "waiting for votes). Fill in the image (and model) of each row, copying a row per image, then "
            "import the file into the rating study with import_items."
        )


def _prompt_votes(source: Study, key: str) -> list[PromptTally]:

    votes: dict[tuple[int, int], list[Any]] = defaultdict(list)
    rows = Annotation.objects.filter(study=source).values_list("item_id", "pool_id", "answers")
    for item_id, pool_id, answers in rows:
        if key in answers:
            votes[item_id, pool_id].append(answers[key])
    quotas = ItemQuota.objects.filter(item__study=source, item__is_example=False).select_related("item", "pool")
    tallies = []
    for quota in quotas.order_by("item__external_id", "pool__country"):
        item, country = quota.item, quota.pool.country
        cast = [vote_token(v) for v in votes.get((item.pk, quota.pool_id), [])]
        tallies.append(PromptTally(
            id=item.external_id if country == item.country else f"{item.external_id}-{country}",
            prompt_id=item.external_id, prompt=item.prompt, country=country, category=item.category,
            yes=cast.count(YES), no=cast.count(NO), wanted=quota.wanted,
        ))
    return tallies


KEPT_COLUMNS = ("id", "prompt_id", "prompt", "country", "category", "image", "model", "yes_votes", "no_votes")


@dataclass(frozen=True)
class KeptPrompts:
    """The prompts a filter kept, as rows of ``KEPT_COLUMNS`` (image and model left empty), and
    how many were dropped or still wait for votes."""

    rows: list[dict[str, Any]]
    dropped: int
    pending: int

    @property
    def kept(self) -> int:
        return len(self.rows)


def kept_prompts(*, source: Study, min_yes: int = 2) -> KeptPrompts:
    """The prompts of a filter study kept by its annotators (``min_yes`` Yes votes), one row per
    (prompt, pool) in import_items' format."""
    tallies = _prompt_votes(source, vote_field(source.spec))
    decisions = [t.decision(min_yes) for t in tallies]
    rows = [
        {**{k: v for k, v in asdict(t).items() if k not in ("yes", "no", "wanted")},
         "image": "", "model": "", "yes_votes": t.yes, "no_votes": t.no}
        for t, d in zip(tallies, decisions) if d == "kept"
    ]
    return KeptPrompts(rows=rows, dropped=decisions.count("dropped"), pending=decisions.count("pending"))


def kept_prompts_lines(rows: Iterable[dict[str, Any]], *, jsonl: bool = False) -> Iterator[str]:
    """The rows as the lines of a .csv file (its header first) or of a .jsonl file: what
    ``seed_kept_prompts`` writes to its file and the researcher's page streams as a download."""
    if jsonl:
        for row in rows:
            yield json.dumps({k: row[k] for k in KEPT_COLUMNS}, ensure_ascii=False) + "\n"
        return
    writer = csv.DictWriter(_Lines(), fieldnames=KEPT_COLUMNS)
    yield writer.writeheader()
    for row in rows:  # a prompt is the researcher's text, opened in a spreadsheet: neutralised
        yield writer.writerow({k: safe_cell(v) if isinstance(v, str) else v for k, v in row.items()})


class _Lines:
    """A file that hands back what is written to it: a csv writer's row as a string."""

    def write(self, text: str) -> str:
        return text


def seed_kept_prompts(*, source: Study, out: Path, min_yes: int = 2) -> KeptPromptsReport:
    """Write the prompts of a filter study kept by its annotators (``min_yes`` Yes votes) to a
    .csv or .jsonl file in import_items' format, with empty image and model columns to fill in."""
    out = Path(out)
    if out.suffix.lower() not in (".csv", ".jsonl"):
        raise SeedError(f"{out.name}: write to a .csv or .jsonl file")
    kept = kept_prompts(source=source, min_yes=min_yes)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", newline="", encoding="utf-8") as fh:
        fh.writelines(kept_prompts_lines(kept.rows, jsonl=out.suffix.lower() == ".jsonl"))
    return KeptPromptsReport(kept=kept.kept, dropped=kept.dropped, pending=kept.pending, path=out)
