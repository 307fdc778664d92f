"""The language of the annotator's pages: the annotator's choice, else the pool's, else the study's; the
researcher's workspace stays in English."""

from django.urls import reverse

from tests.helpers import enter


def consent_page(client):
    return client.get(reverse("annotation:consent"))


def test_the_pool_chooses_the_language_of_its_annotators_pages(client, pool, items):
    pool.language = "ja"
    pool.save()
    enter(client, pool)
    response = consent_page(client)
    assert response["Content-Language"] == "ja"
    assert '<html lang="ja" dir="ltr">' in response.content.decode()
    assert "Cookie" in response["Vary"]


def test_a_pool_without_a_language_uses_the_study_s(client, study, pool, items):
    study.language = "hi"
    study.save()
    enter(client, pool)
    assert consent_page(client)["Content-Language"] == "hi"


def test_english_by_default(client, pool, items):
    enter(client, pool)
    response = consent_page(client)
    assert response["Content-Language"] == "en"
    assert '<html lang="en" dir="ltr">' in response.content.decode()


def test_a_right_to_left_language_mirrors_the_page(client, pool, items):
    pool.language = "ar"
    pool.save()
    enter(client, pool)
    assert '<html lang="ar" dir="rtl">' in consent_page(client).content.decode()


def test_the_annotator_switches_language_from_the_bar_and_stays_on_the_page(client, pool, items):
    pool.language = "ja"
    pool.save()
    enter(client, pool)
    page = consent_page(client).content.decode()
    assert f'action="{reverse("set_language")}"' in page
    assert '<option value="ar" lang="ar">العربية</option>' in page
    assert '<option value="ja" lang="ja" selected>日本語</option>' in page
    assert f'name="next" value="{reverse("annotation:consent")}"' in page
    response = client.post(reverse("set_language"), {"language": "ar", "next": reverse("annotation:consent")})
    assert response.status_code == 302 and response.url == reverse("annotation:consent")
    assert consent_page(client)["Content-Language"] == "ar"  # the choice wins over the pool's


def test_a_language_we_do_not_ship_is_refused_and_changes_nothing(client, pool, items):
    pool.language = "ja"
    pool.save()
    enter(client, pool)
    client.post(reverse("set_language"), {"language": "xx", "next": reverse("annotation:consent")})
    assert consent_page(client)["Content-Language"] == "ja"
    client.cookies["django_language"] = "klingon"
    assert consent_page(client)["Content-Language"] == "ja"


def test_switching_never_redirects_off_the_site(client, pool, items):
    enter(client, pool)
    response = client.post(reverse("set_language"), {"language": "hi", "next": "https://evil.example/"})
    assert response.status_code == 302 and "evil" not in response.url


def test_without_a_session_the_browser_s_language_is_used(client, db):
    response = client.get(reverse("annotation:next"), headers={"accept-language": "hi,en;q=0.5"})
    assert response.status_code == 403 and response["Content-Language"] == "hi"


def test_the_researcher_s_workspace_stays_in_english(client, owner, study):
    client.force_login(owner)
    client.cookies["django_language"] = "ar"
    response = client.get(reverse("studies:study-list"), headers={"accept-language": "ar"})
    assert '<html lang="en" dir="ltr">' in response.content.decode()


def test_the_owner_s_walk_of_the_path_is_in_the_pool_s_language(client, owner, study, pool, items):
    pool.language = "ja"
    pool.save()
    client.force_login(owner)
    response = client.get(reverse("annotation:path-preview", args=[study.pk, pool.pk]), follow=True)
    assert response.status_code == 200 and response["Content-Language"] == "ja"
