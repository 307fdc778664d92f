"""A study opened to annotators, closed and reopened from its page: only with a pool and items
routed to it, once per click, by an editor or the owner (a viewer 403, a stranger 404); the entry
link follows the status."""

from django.test import Client
from django.urls import reverse

from studies.models import Study
from tests import factories as f
from tests.helpers import enter, login


def status_url(study):
    return reverse("studies:study-status", args=[study.pk])


def status_of(study) -> str:
    return Study.objects.get(pk=study.pk).status


def test_a_draft_opens_closes_and_reopens(client, owner, pool, items):
    study = pool.study
    Study.objects.filter(pk=study.pk).update(status=Study.Status.DRAFT)
    login(client, owner)
    page = client.get(reverse("analysis:study-dashboard", args=[study.pk])).content.decode()
    assert "Open to annotators" in page and "turns annotators away" not in page
    assert "A draft: its entry links turn annotators away" in page

    response = client.post(status_url(study), {"status": "open"}, follow=True)
    assert "The study is open" in response.content.decode() and status_of(study) == "open"
    assert "Close the study" in response.content.decode()

    client.post(status_url(study), {"status": "closed"})
    assert status_of(study) == "closed"
    client.post(status_url(study), {"status": "open"})
    assert status_of(study) == "open"
    assert enter(Client(), pool).status_code == 302  # let in again


def test_a_closed_study_turns_new_annotators_away(client, owner, pool, items):
    login(client, owner)
    assert enter(Client(), pool).status_code == 302
    client.post(status_url(pool.study), {"status": "closed"})
    refused = enter(Client(), pool)
    assert refused.status_code == 410 and "This study is closed" in refused.content.decode()


def test_it_refuses_to_open_a_study_without_pools_or_items(client, owner, study):
    Study.objects.filter(pk=study.pk).update(status=Study.Status.DRAFT)
    login(client, owner)
    said = client.post(status_url(study), {"status": "open"}, follow=True).content.decode()
    assert "Add a country pool before opening the study." in said and status_of(study) == "draft"
    f.make_pool(study, "IN", "India")
    said = client.post(status_url(study), {"status": "open"}, follow=True).content.decode()
    assert "Import items routed to a pool before opening the study." in said and status_of(study) == "draft"


def test_it_refuses_a_move_that_does_not_exist(client, owner, pool, items):
    study = pool.study
    login(client, owner)
    for bad in ("draft", "bogus", ""):
        said = client.post(status_url(study), {"status": bad}, follow=True).content.decode()
        assert "The study is open: it cannot become" in said
        assert status_of(study) == "open"
    Study.objects.filter(pk=study.pk).update(status=Study.Status.DRAFT)
    said = client.post(status_url(study), {"status": "closed"}, follow=True).content.decode()
    assert "The study is a draft: it cannot become closed." in said and status_of(study) == "draft"


def test_a_repeated_click_moves_the_status_once(client, owner, pool, items):
    login(client, owner)
    client.post(status_url(pool.study), {"status": "closed"})
    said = client.post(status_url(pool.study), {"status": "closed"}, follow=True).content.decode()
    assert "The study is closed: it cannot become closed." in said and status_of(pool.study) == "closed"


def test_a_viewer_and_a_stranger_cannot_move_it(client, pool, items, other_researcher):
    study = pool.study
    login(client, f.make_member(study, "viewer", "viewer"))
    assert client.post(status_url(study), {"status": "closed"}).status_code == 403
    page = client.get(reverse("analysis:study-dashboard", args=[study.pk])).content.decode()
    assert "Close the study" not in page
    login(client, other_researcher)
    assert client.post(status_url(study), {"status": "closed"}).status_code == 404
    login(client, f.make_member(study, "editor", "editor"))
    client.post(status_url(study), {"status": "closed"})
    assert status_of(study) == "closed"


def delete_url(study):
    return reverse("studies:study-delete", args=[study.pk])


def test_the_owner_deletes_a_closed_study_by_typing_its_name(client, owner, pool, items):
    study = pool.study
    login(client, owner)
    said = client.post(delete_url(study), {"confirm_name": study.name}, follow=True).content.decode()
    assert "Close the study before deleting it" in said and Study.objects.filter(pk=study.pk).exists()
    client.post(status_url(study), {"status": "closed"})
    page = client.get(reverse("studies:study-settings", args=[study.pk])).content.decode()
    assert "Delete the study" in page
    said = client.post(delete_url(study), {"confirm_name": study.name + "x"}, follow=True).content.decode()
    assert "Type the name of the study exactly" in said and Study.objects.filter(pk=study.pk).exists()
    response = client.post(delete_url(study), {"confirm_name": study.name})
    assert response.status_code == 302 and response.url == reverse("studies:study-list")
    assert not Study.objects.filter(pk=study.pk).exists()


def test_only_the_owner_deletes_a_study(client, pool, items, other_researcher):
    study = pool.study
    Study.objects.filter(pk=study.pk).update(status=Study.Status.CLOSED)
    editor = f.make_member(study, "editor", "editor")
    login(client, editor)
    assert "Delete the study" not in client.get(reverse("studies:study-settings", args=[study.pk])).content.decode()
    assert client.post(delete_url(study), {"confirm_name": study.name}).status_code == 403
    login(client, other_researcher)
    assert client.post(delete_url(study), {"confirm_name": study.name}).status_code == 404
    assert Study.objects.filter(pk=study.pk).exists()
