"""Which annotations count, written once: ``Annotation.objects.counted()`` (the analysis, the
exports and the API) and ``filling_quota()`` (an item's quota)."""

from annotation.models import COUNTED, Annotation, Review


def test_an_ordinary_annotation_counts_and_fills_its_quota(annotated):
    first = annotated[0]
    assert Annotation.objects.counted().filter(pk=first.pk).exists()
    assert Annotation.objects.filling_quota().filter(pk=first.pk).exists()


def test_a_withdrawn_annotation_neither_counts_nor_fills_its_quota(annotated):
    Annotation.objects.filter(pk=annotated[0].pk).update(withdrawn=True)
    assert set(Annotation.objects.counted().values_list("pk", flat=True)) == {a.pk for a in annotated[1:]}
    assert set(Annotation.objects.filling_quota().values_list("pk", flat=True)) == {a.pk for a in annotated[1:]}


def test_a_flagged_annotation_does_not_count_but_still_fills_its_quota(annotated, owner):
    Review.objects.create(annotation=annotated[0], reviewer=owner, outcome=Review.Outcome.FLAGGED)
    assert not Annotation.objects.counted().filter(pk=annotated[0].pk).exists()
    assert Annotation.objects.filling_quota().filter(pk=annotated[0].pk).exists()


def test_an_accepted_annotation_counts(annotated, owner):
    Review.objects.create(annotation=annotated[0], reviewer=owner, outcome=Review.Outcome.ACCEPTED)
    assert Annotation.objects.counted().filter(pk=annotated[0].pk).exists()


def test_a_surplus_annotation_counts_but_fills_no_quota(annotated):
    Annotation.objects.filter(pk=annotated[0].pk).update(surplus=True)
    assert Annotation.objects.counted().filter(pk=annotated[0].pk).exists()
    assert not Annotation.objects.filling_quota().filter(pk=annotated[0].pk).exists()


def test_the_counted_q_counts_what_counted_selects(annotated, owner):
    from django.db.models import Count

    Annotation.objects.filter(pk=annotated[0].pk).update(withdrawn=True)
    Review.objects.create(annotation=annotated[1], reviewer=owner, outcome=Review.Outcome.FLAGGED)
    n = Annotation.objects.aggregate(n=Count("id", filter=COUNTED))["n"]
    assert n == Annotation.objects.counted().count() == len(annotated) - 2


def test_counted_chains_with_the_study_and_related_managers(annotated, study, pool):
    Annotation.objects.filter(pk=annotated[0].pk).update(withdrawn=True)
    assert study.annotations.counted().count() == pool.annotations.counted().count() == len(annotated) - 1


def test_the_raw_sql_of_the_bulk_reads_selects_what_counted_selects(annotated, owner):
    """``annotation.bulk.COUNTED_SQL`` (the analysis's and the exports' raw reads) is the same rule
    as ``counted()``: withdrawn and flagged left out, accepted and surplus kept."""
    from django.db import connection

    from annotation import bulk

    Annotation.objects.filter(pk=annotated[0].pk).update(withdrawn=True)
    Review.objects.create(annotation=annotated[1], reviewer=owner, outcome=Review.Outcome.FLAGGED)
    Review.objects.create(annotation=annotated[2], reviewer=owner, outcome=Review.Outcome.ACCEPTED)
    Annotation.objects.filter(pk=annotated[3].pk).update(surplus=True)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT a.id FROM {bulk.TABLE} a WHERE {bulk.COUNTED_SQL}", [bulk.FLAGGED])
        raw = {row[0] for row in cursor.fetchall()}
    assert raw == set(Annotation.objects.counted().values_list("pk", flat=True)) == {a.pk for a in annotated[2:]}
