"""A researcher's preview of a pool's whole annotator path (consent to completion code), walked as
an annotator of the pool without being one: the path's state lives in the researcher's browser
session, never in a table. No Annotator, Session, Assignment, Annotation or draft is stored and no
quota moves; the onboarding rules (``services.onboarding``'s ``*_apply``) and the engine are the
real ones, applied to an annotator and a session held in memory."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from studies.models import CountryPool, Item, ItemQuota

from .models import Annotator, Assignment, Session, Upload
from .selectors import annotator_step, quotas_open_to

SESSION_KEY = "tessera_path_preview:{pool}"
# The annotator's onboarding state, as the preview keeps it (dates as ISO text).
ANNOTATOR_STATE = ("consented_at", "eligibility", "eligible_at", "instructions_read_at", "mock_attempts",
                   "mock_passed_at", "cleared_at", "outcome")
DATES = {"consented_at", "eligible_at", "instructions_read_at", "mock_passed_at", "cleared_at"}


@dataclass
class PathPreview:
    """One walk of a pool's path: an annotator and a session never saved, the items picked for the
    session, how many are done, and what was typed on an item not yet submitted."""

    pool: CountryPool
    annotator: Annotator
    session: Session
    items: list[int]
    done: int = 0
    drafts: dict[str, dict] = field(default_factory=dict)

    @property
    def study(self):
        return self.pool.study

    @property
    def step(self) -> str:
        """Where the walk stands, by the annotator's own rule (``selectors.annotator_step``)."""
        return annotator_step(self.annotator)

    @property
    def position(self) -> int:
        return self.done + 1

    def current_item(self) -> Item | None:
        """The item the walk is on, or None when the session's worth is done or none is left."""
        if self.session.completed_at or self.done >= min(self.session.items_target, len(self.items)):
            return None
        return Item.objects.filter(study=self.study, pk=self.items[self.done]).first()

    def assignment(self, item: Item) -> Assignment:
        """``item`` as the item page and the engine read an assignment, without a lease: never saved.
        Its pk 0 only lets the page ask for its uploads, which are none (a preview keeps no file)."""
        assignment = Assignment(pk=0, item=item, pool=self.pool, position=self.position,
                                draft=self.drafts.get(str(self.position), {}))
        assignment._prefetched_objects_cache = {"uploads": Upload.objects.none()}
        return assignment


def preview_items(pool: CountryPool, n: int) -> list[int]:
    """A session's worth of the pool's items, as a lease takes them: those with room, fewest done
    first; then, for a pool already full, the others, so that its items can still be previewed."""
    picked = list(quotas_open_to(pool=pool, annotator=None).order_by("done", "leased", "item_id")
                  .values_list("item_id", flat=True)[:n])
    if len(picked) < n:
        rest = ItemQuota.objects.filter(pool=pool).exclude(item_id__in=picked).order_by("done", "item_id")
        picked += list(rest.values_list("item_id", flat=True)[: n - len(picked)])
    return picked


def preview_start(request, pool: CountryPool) -> PathPreview:
    """A fresh walk of ``pool``'s path, kept in the browser session (any earlier walk forgotten)."""
    study = pool.study
    preview = PathPreview(
        pool=pool,
        annotator=Annotator(study=study, pool=pool, prolific_pid="preview"),
        session=Session(items_target=study.items_per_session),
        items=preview_items(pool, study.items_per_session),
    )
    preview.session.annotator = preview.annotator
    preview_save(request, preview)
    return preview


def preview_load(request, pool: CountryPool) -> PathPreview | None:
    """The walk of ``pool`` this browser is on, or None (none, or one kept in another shape)."""
    state = request.session.get(SESSION_KEY.format(pool=pool.pk))
    try:
        return _preview_from(state, pool)
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


def _preview_from(state: dict, pool: CountryPool) -> PathPreview:
    annotator = Annotator(study=pool.study, pool=pool, prolific_pid="preview")
    for name in ANNOTATOR_STATE:
        value = state["annotator"].get(name)
        if name in DATES:
            value = datetime.fromisoformat(value) if value else None
        if value is not None:
            setattr(annotator, name, value)
    completed = state.get("completed_at")
    session = Session(annotator=annotator, items_target=state["items_target"],
                      completed_at=datetime.fromisoformat(completed) if completed else None)
    return PathPreview(pool=pool, annotator=annotator, session=session, items=list(state["items"]),
                       done=state["done"], drafts=dict(state["drafts"]))


def preview_save(request, preview: PathPreview) -> None:
    a = preview.annotator
    request.session[SESSION_KEY.format(pool=preview.pool.pk)] = {
        "annotator": {
            name: (getattr(a, name).isoformat() if getattr(a, name) else None) if name in DATES else getattr(a, name)
            for name in ANNOTATOR_STATE
        },
        "items_target": preview.session.items_target,
        "completed_at": preview.session.completed_at.isoformat() if preview.session.completed_at else None,
        "items": preview.items,
        "done": preview.done,
        "drafts": preview.drafts,
    }
