"""A query compiled once gives, for any values, the rows of the queryset built with those values."""

import pytest

from annotation import selectors
from annotation.compiled import CompiledQuery
from annotation.models import Assignment, Session
from annotation.services import assignment_next
from studies.models import ItemQuota
from tests import factories as f

pytestmark = pytest.mark.django_db


def fields(obj, *related):
    out = {k: v for k, v in vars(obj).items() if not k.startswith("_")}
    for name in related:
        out[name] = fields(getattr(obj, name))
    return out


def test_the_session_query_matches_the_queryset(session, other_annotator):
    others = f.make_session(other_annotator)
    for s in (session, others):
        [compiled] = selectors._SESSION(s.pk)
        built = Session.objects.select_related("annotator__study", "annotator__pool").get(pk=s.pk)
        assert fields(compiled) == fields(built)
        assert fields(compiled.annotator, "study", "pool") == fields(built.annotator, "study", "pool")
    assert selectors._SESSION(10**9) == []


def test_the_assignment_queries_match_the_queryset(session, items, pool):
    lease = assignment_next(session=session)
    stranger = assignment_next(session=f.make_session(f.make_annotator(pool)))
    [compiled] = selectors._ASSIGNMENT(lease.pk, session.pk)
    assert fields(compiled, "item") == fields(Assignment.objects.select_related("item").get(pk=lease.pk), "item")
    assert selectors._ASSIGNMENT(stranger.pk, session.pk) == []  # another session's: nothing
    [open_lease] = selectors._SESSION_LEASE(session.pk)
    assert fields(open_lease, "item") == fields(
        Assignment.objects.select_related("item").get(session=session, status="leased"), "item")
    rows = selectors._SESSION_ASSIGNMENTS(session.pk)
    built = list(Assignment.objects.select_related("item").filter(session=session).order_by("-position"))
    assert [fields(a, "item") for a in rows] == [fields(a, "item") for a in built]


def test_the_lease_candidates_match_the_queryset(session, items, pool, annotator):
    assignment_next(session=session)
    for a in (annotator, f.make_annotator(pool)):
        built = list(selectors.quotas_open_to(pool=pool, annotator=a).select_related("item").order_by("done", "leased")
                     [:selectors.LEASE_CANDIDATES])
        compiled = selectors.lease_candidates(annotator=a)
        assert [fields(q, "item") for q in compiled] == [fields(q, "item") for q in built]
    seen = {q.item_id for q in selectors.lease_candidates(annotator=annotator)}
    assert session.assignments.get().item_id not in seen  # the item they hold is not offered again


def test_a_value_that_is_not_a_parameter_is_refused():
    inlined = CompiledQuery(lambda n: ItemQuota.objects.all()[: -n], int)  # a limit is written into the SQL
    with pytest.raises(ValueError, match="cannot be compiled once"):
        inlined(3)
    unused = CompiledQuery(lambda pk: ItemQuota.objects.all(), int)
    with pytest.raises(ValueError, match="cannot be compiled once"):
        unused(3)
    with pytest.raises(TypeError, match="takes 1 values, not 2"):
        CompiledQuery(lambda pk: ItemQuota.objects.filter(pk=pk), int)(1, 2)
