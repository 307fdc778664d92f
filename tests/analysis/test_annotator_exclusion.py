"""Excluding and including an annotator from the pool's annotators page: editors and the owner
act; a viewer sees the page but is refused (403), another researcher finds nothing (404); an
empty reason and an annotator of another study change nothing. The page sorts and filters by the
quality scores of the latest analysis run."""

from django.urls import reverse

from annotation.models import Annotation, Annotator
from annotation.services import annotator_exclude
from tests import factories as f
from tests.annotations import run_now


def page_url(study, pool, query=""):
    return reverse("analysis:pool-annotators", args=[study.pk, pool.pk]) + (f"?{query}" if query else "")


def action_url(annotator, action):
    return reverse(f"analysis:annotator-{action}", args=[annotator.study_id, annotator.pk])


analysed = run_now


def test_the_owner_excludes_and_includes_again(client, owner, study, pool, rated):
    odd = rated[3]
    client.force_login(owner)
    back = "page=1&sort=-agreement&show=excluded"
    response = client.post(action_url(odd, "exclude"), {"reason": "  answers at random  ", "back": back})
    assert response.status_code == 302 and response["Location"] == page_url(study, pool, back)
    odd.refresh_from_db()
    assert (odd.excluded_reason, odd.excluded_by) == ("answers at random", owner)
    assert Annotation.objects.filter(annotator=odd, withdrawn=True).count() == 4
    html = client.get(page_url(study, pool)).content.decode()
    assert "Excluded" in html and "answers at random" in html and action_url(odd, "include") in html
    client.post(action_url(odd, "include"))
    odd.refresh_from_db()
    assert odd.excluded_at is None and not Annotation.objects.filter(withdrawn=True).exists()


def test_an_editor_may_exclude(client, study, rated):
    editor = f.make_member(study, "editor", role="editor")
    client.force_login(editor)
    assert client.post(action_url(rated[0], "exclude"), {"reason": "too fast"}).status_code == 302
    assert Annotator.objects.get(pk=rated[0].pk).excluded_at is not None


def test_it_refuses_a_viewer_and_another_researcher(client, owner, other_researcher, study, pool, rated):
    viewer = f.make_member(study, "viewer", role="viewer")
    annotator_exclude(annotator=rated[1], by=owner, reason="kept excluded")
    client.force_login(viewer)
    assert client.get(page_url(study, pool)).status_code == 200  # a viewer sees the page
    assert "Exclude…" not in client.get(page_url(study, pool)).content.decode()
    assert client.post(action_url(rated[0], "exclude"), {"reason": "x"}).status_code == 403
    assert client.post(action_url(rated[1], "include")).status_code == 403
    client.force_login(other_researcher)
    assert client.get(page_url(study, pool)).status_code == 404
    assert client.post(action_url(rated[0], "exclude"), {"reason": "x"}).status_code == 404
    assert client.post(action_url(rated[1], "include")).status_code == 404
    assert Annotator.objects.get(pk=rated[0].pk).excluded_at is None
    assert Annotator.objects.get(pk=rated[1].pk).excluded_at is not None
    assert Annotation.objects.filter(withdrawn=True).count() == 4


def test_it_refuses_an_empty_reason(client, owner, study, rated):
    client.force_login(owner)
    response = client.post(action_url(rated[0], "exclude"), {"reason": "   "}, follow=True)
    assert "say why" in response.content.decode()
    assert not Annotator.objects.filter(excluded_at__isnull=False).exists()
    assert not Annotation.objects.filter(withdrawn=True).exists()


def test_it_refuses_an_annotator_of_another_study_through_a_crossed_url(client, owner, study, other_researcher):
    elsewhere = f.make_study(owner, name="Owner's other study")
    foreign = f.make_annotator(f.make_pool(elsewhere, "FR", "France"))
    client.force_login(owner)
    crossed = reverse("analysis:annotator-exclude", args=[study.pk, foreign.pk])
    assert client.post(crossed, {"reason": "x"}).status_code == 404
    foreign.refresh_from_db()
    assert foreign.excluded_at is None and foreign.blocked_at is None


def test_without_a_run_it_links_to_the_analysis(client, owner, study, pool, rated):
    client.force_login(owner)
    html = client.get(page_url(study, pool)).content.decode()
    assert "No analysis has run yet" in html and reverse("analysis:analysis", args=[study.pk]) in html


def test_it_sorts_and_filters_by_the_scores(client, owner, study, pool, rated, django_assert_num_queries):
    run = analysed(study, owner)
    client.force_login(owner)
    # login's session and user, the study, the pool, the run's scores, the annotators, their effort signals
    with django_assert_num_queries(7):
        response = client.get(page_url(study, pool, "sort=agreement"))
    listed = [a.pk for a in response.context["page"].object_list]
    assert listed[0] == rated[3].pk  # the least agreeing first
    html = response.content.decode()
    assert 'aria-sort="ascending"' in html and run.finished_at.strftime("%Y-%m-%d") in html
    descending = [a.pk for a in client.get(page_url(study, pool, "sort=-agreement")).context["page"].object_list]
    assert descending[-1] == rated[3].pk
    below = client.get(page_url(study, pool, "agreement_below=0")).context["page"].object_list
    assert [a.pk for a in below] == [rated[3].pk]
    annotator_exclude(annotator=rated[0], by=owner, reason="checked by hand")
    only = client.get(page_url(study, pool, "show=excluded")).context["page"].object_list
    assert [a.pk for a in only] == [rated[0].pk]
    nonsense = client.get(page_url(study, pool, "sort=password&agreement_below=abc"))
    assert nonsense.status_code == 200 and len(nonsense.context["page"].object_list) == 4


def test_the_speed_threshold_gives_too_fast_shares_to_filter_by(client, owner, study, pool, rated):
    spec = {**study.protocol, "quality": {"speed": {"min_seconds": 3}}}
    type(study).objects.filter(pk=study.pk).update(protocol=spec)
    study.refresh_from_db()
    analysed(study, owner)
    client.force_login(owner)
    fast = client.get(page_url(study, pool, "too_fast_above=50")).context["page"].object_list
    assert [a.pk for a in fast] == [rated[3].pk]


def test_the_analysis_page_shows_agreement_with_and_without_the_excluded(client, owner, study, pool, rated):
    analysed(study, owner)
    client.force_login(owner)
    page = reverse("analysis:analysis", args=[study.pk])
    assert "With and without the excluded" not in client.get(page).content.decode()
    annotator_exclude(annotator=rated[3], by=owner, reason="answers at random")
    analysed(study, owner)
    html = client.get(page).content.decode()
    assert "With and without the excluded" in html and rated[3].pseudonym in html and "answers at random" in html
    assert "Without the excluded" in html and "With: 4 annotators, 16 answers" in html
    assert "Without: 3 annotators, 12 answers" in html
