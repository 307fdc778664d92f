"""How a study's annotations look now, in one aggregate query, and how a job's data compares with it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Max

from annotation.models import COUNTED, Annotation
from studies.models import Study


@dataclass(frozen=True)
class Fingerprint:
    """What a study's annotations look like now, in one aggregate query: the annotations analysed
    (those that count: none flagged by a checker, none withdrawn), the last id, the last time, and
    the reviews (their number and last id).

    Two equal fingerprints mean the same data ("current data"); any new, late, deleted, flagged or
    withdrawn annotation, and any new review, changes it.
    """

    count: int
    max_id: int
    last_submitted: str  # ISO 8601, "" when there is no annotation
    reviews: int = 0
    last_review: int = 0

    @property
    def text(self) -> str:
        return f"{self.count}:{self.max_id}:{self.reviews}.{self.last_review}:{self.last_submitted}"

    @classmethod
    def parse(cls, text: str) -> Fingerprint:
        """The fingerprint ``text`` spells; ValueError for anything else."""
        count, max_id, reviews, last = text.split(":", 3)
        n_reviews, last_review = reviews.split(".")
        return cls(int(count), int(max_id), last, int(n_reviews), int(last_review))


def data_fingerprint(*, study: Study) -> Fingerprint:
    agg = Annotation.objects.filter(study=study).aggregate(
        n=Count("id", filter=COUNTED), last_id=Max("id"), last_at=Max("submitted_at"),
        reviews=Count("review"), last_review=Max("review__id"),
    )
    last_at: datetime | None = agg["last_at"]
    return Fingerprint(
        agg["n"], agg["last_id"] or 0, last_at.isoformat() if last_at else "", agg["reviews"], agg["last_review"] or 0
    )


@dataclass(frozen=True)
class Staleness:
    """How a job's data compares with the current data."""

    current: bool
    new_annotations: int = 0  # > 0 when annotations were added since; 0 when the data changed otherwise


def staleness(job_fingerprint: str, now: Fingerprint) -> Staleness:
    """``current`` when the job saw the data as it is now; a job with no fingerprint never is."""
    if job_fingerprint == now.text:
        return Staleness(current=True)
    try:
        then = Fingerprint.parse(job_fingerprint)
    except ValueError:
        return Staleness(current=False)
    return Staleness(current=False, new_annotations=max(0, now.count - then.count))
