"""/api/v1/studies/{id}/annotations/: the annotations that count, as the exports ship them (an
excluded annotator's and a flagged one left out), each with its item, pool, the annotator's
pseudonym and the stored answers; the filters and their 400s; cursor pages walked whole, one page
in memory at a time; the fixed cast's refusals."""

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from annotation.models import Annotation, Annotator, Assignment, Session
from annotation.services.exclusion import annotator_exclude
from studies.models import Item
from tests.helpers import review


def annotations_url(study) -> str:
    return f"/api/v1/studies/{study.pk}/annotations/"


def ids(client, study, **query) -> list[int]:
    response = client.get(annotations_url(study), query)
    assert response.status_code == 200, response.json()
    return [r["id"] for r in response.json()["results"]]


def test_the_annotations_are_listed_in_the_order_given_as_stored(
    study, annotated, annotated_elsewhere, viewer, as_user
):
    response = as_user(viewer).get(annotations_url(study))
    rows = response.json()["results"]
    everything = sorted(annotated + annotated_elsewhere, key=lambda a: a.pk)
    assert [r["id"] for r in rows] == [a.pk for a in everything]
    first, stored = rows[0], everything[0]
    assert first["item"] == stored.item_id and first["item_external_id"] == stored.item.external_id
    assert first["pool"] == stored.pool_id and first["country"] == "IN"
    assert first["annotator"] == stored.annotator.pseudonym and first["annotator"].startswith("a-")
    assert first["answers"] == stored.answers and first["protocol_version"] == stored.protocol_version == 1
    assert first["time_spent_ms"] == stored.time_spent_ms and not first["skipped"] and not first["surplus"]
    assert first["submitted_at"].startswith(stored.submitted_at.strftime("%Y-%m-%dT%H:%M"))
    assert stored.annotator.prolific_pid not in response.content.decode()  # never a Prolific id


def test_the_filters_narrow_the_list(study, pool, other_pool, annotated, annotated_elsewhere, as_user):
    client = as_user(study.owner)
    india = sorted(a.pk for a in annotated)
    assert ids(client, study, pool=pool.pk) == india
    assert ids(client, study, country="in") == india
    assert ids(client, study, country="JP") == sorted(a.pk for a in annotated_elsewhere)
    one = annotated[0]
    assert ids(client, study, item=one.item_id) == sorted(a.pk for a in annotated if a.item_id == one.item_id)
    theirs = sorted(a.pk for a in annotated if a.annotator_id == one.annotator_id)
    assert ids(client, study, annotator=one.annotator.pseudonym) == theirs
    assert ids(client, study, annotator=str(one.annotator_id)) == theirs
    assert ids(client, study, protocol_version=1, pool=pool.pk) == india
    assert ids(client, study, protocol_version=2) == []
    assert ids(client, study, pool=pool.pk, item=annotated_elsewhere[0].item_id) == []


def test_since_and_until_compare_the_time_of_submission(study, annotated, as_user):
    early = annotated[:2]
    Annotation.objects.filter(pk__in=[a.pk for a in early]).update(submitted_at=timezone.now() - timedelta(days=2))
    client = as_user(study.owner)
    yesterday = (timezone.now() - timedelta(days=1)).isoformat()
    assert ids(client, study, until=yesterday) == sorted(a.pk for a in early)
    assert ids(client, study, since=yesterday) == sorted(a.pk for a in annotated[2:])
    assert ids(client, study, since="2000-01-01", until="2000-01-02") == []
    # a moment whose offset takes it off the calendar in UTC is the calendar's first (or last) one
    assert ids(client, study, since="0001-01-01T00:00:00+14:00") == sorted(a.pk for a in annotated)
    assert ids(client, study, until="0001-01-01T00:00:00+14:00") == []
    assert ids(client, study, until="9999-12-31T23:59:59-14:00") == sorted(a.pk for a in annotated)


@pytest.mark.parametrize("query, field, says", [
    ({"since": "yesterday"}, "since", "valid date/time"),
    ({"until": "2026-13-40T00:00"}, "until", "valid date/time"),
    ({"pool": "India"}, "pool", "whole number"),
    ({"item": "1e308"}, "item", "whole number"),
    ({"protocol_version": "0"}, "protocol_version", "greater than or equal to 1"),
    ({"country": "IND"}, "country", "ISO 3166-1 alpha-2 code"),
    ({"country": "1$"}, "country", "ISO 3166-1 alpha-2 code"),
    ({"annotator": "bob"}, "annotator", "their pseudonym as the exports write it"),
    ({"annotator": "a-12"}, "annotator", "their pseudonym as the exports write it"),
    ({"annotator": "a\x00b"}, "annotator", "Null characters are not allowed"),
])
def test_a_bad_filter_is_a_400_naming_it(study, annotated, as_user, query, field, says):
    response = as_user(study.owner).get(annotations_url(study), query)
    assert response.status_code == 400 and says in " ".join(response.json()[field]), response.json()


def test_huge_numbers_are_refused_naming_them_and_break_nothing(study, annotated, as_user):
    response = as_user(study.owner).get(annotations_url(study), {
        "pool": "9" * 30, "item": "9" * 30, "protocol_version": "9" * 30})
    assert response.status_code == 400 and set(response.json()) == {"pool", "item", "protocol_version"}
    assert ids(as_user(study.owner), study, pool=2**63 - 1, annotator="9" * 30) == []  # an id past any: no-one


def test_an_excluded_annotators_and_a_flagged_annotation_are_left_out_as_in_the_exports(
    study, annotated, checker, as_user
):
    excluded = annotated[0].annotator
    annotator_exclude(annotator=excluded, by=study.owner, reason="Answers at random")
    flagged = next(a for a in annotated if a.annotator_id != excluded.pk)
    review(flagged, checker, "flagged", note="Wrong")
    counted = [a.pk for a in annotated if a.annotator_id != excluded.pk and a.pk != flagged.pk]
    client = as_user(study.owner)
    assert ids(client, study) == sorted(counted)
    assert ids(client, study, annotator=excluded.pseudonym) == []


def many_annotations(study, pool, n_items=25, n_annotators=10) -> list[int]:
    """``n_items`` × ``n_annotators`` annotations written in bulk (each annotator one session)."""
    now = timezone.now()
    items = Item.objects.bulk_create(
        Item(study=study, external_id=f"bulk-{i}", country=pool.country, prompt=f"P{i}") for i in range(n_items))
    annotators = Annotator.objects.bulk_create(
        Annotator(study=study, pool=pool, prolific_pid=f"bulkpid{a:017d}") for a in range(n_annotators))
    sessions = Session.objects.bulk_create(
        Session(annotator=a, prolific_session_id=f"bulk-{a.pk}", prolific_study_id="S", items_target=n_items)
        for a in annotators)
    assignments = Assignment.objects.bulk_create(
        Assignment(session=s, annotator=s.annotator, item=item, pool=pool, position=p + 1, status="submitted",
                   leased_at=now, expires_at=now)
        for s in sessions for p, item in enumerate(items))
    made = Annotation.objects.bulk_create(
        Annotation(assignment=a, study=study, item=a.item, pool=pool, annotator=a.annotator,
                   answers={"overall": ["3"]}, protocol_version=1, time_spent_ms=1000, started_at=now)
        for a in assignments)
    return [a.pk for a in made]


def test_250_annotations_are_walked_page_by_page_each_once(study, pool, as_user, django_assert_max_num_queries):
    made = many_annotations(study, pool)
    assert len(made) == 250
    client = as_user(study.owner)
    client.get(annotations_url(study))  # the token's first use is written once
    seen, pages, address = [], 0, f"{annotations_url(study)}?page_size=100"
    while address:
        with django_assert_max_num_queries(3):  # the token with its account, the study scoped, the page
            page = client.get(address).json()
        assert len(page["results"]) <= 100
        seen += [r["id"] for r in page["results"]]
        pages, address = pages + 1, page["next"]
    assert pages == 3 and seen == sorted(made) and len(set(seen)) == 250
    assert client.get(annotations_url(study), {"page_size": 1000}).status_code == 400  # at most 100 a page


def test_the_cursor_walks_back_and_a_broken_one_is_a_400(study, annotated, as_user):
    client = as_user(study.owner)
    second = client.get(client.get(annotations_url(study), {"page_size": 4}).json()["next"]).json()
    back = client.get(second["previous"]).json()
    assert [r["id"] for r in back["results"]] == sorted(a.pk for a in annotated)[:4]
    assert client.get(annotations_url(study), {"cursor": "garbage"}).status_code == 400


def test_the_cast_is_refused(study, annotated, other_researcher, checker, as_user, anonymous):
    assert anonymous.get(annotations_url(study)).status_code == 401
    assert as_user(other_researcher).get(annotations_url(study)).status_code == 404
    session = APIClient()
    session.force_login(checker)  # a checker is no researcher: no token, and the API refuses its session
    assert session.get(annotations_url(study)).status_code == 403
    assert as_user(other_researcher).get(f"/api/v1/studies/{'9' * 30}/annotations/").status_code == 404


def test_each_annotation_carries_its_effort_counts_or_null(study, annotated, viewer, as_user, other_researcher):
    counts = {"fields": {"explanation": {"pasted": 40, "typed": 3, "keys": 2, "burst": 40}}, "blurs": 1,
              "hidden_ms": 2500}
    Annotation.objects.filter(pk=annotated[0].pk).update(effort=counts)
    rows = {r["id"]: r for r in as_user(viewer).get(annotations_url(study)).json()["results"]}
    assert rows[annotated[0].pk]["effort"] == counts
    assert rows[annotated[1].pk]["effort"] is None
    assert as_user(other_researcher).get(annotations_url(study)).status_code == 404
