"""The API tokens page: the researcher's own tokens listed, a new one shown once, one revoked."""

from django.urls import reverse

from api.models import ApiToken
from api.tokens import api_token_authenticate, api_token_create
from tests.helpers import login

PAGE = reverse("api:token-settings")
NEW = reverse("api:token-create")


def test_the_top_bar_links_the_page(client, owner):
    login(client, owner)
    assert f'href="{PAGE}"' in client.get(reverse("studies:study-list")).content.decode()


def test_a_new_token_is_shown_once_with_a_copy_button(client, owner):
    login(client, owner)
    response = client.post(NEW, {"name": "notebook"})
    token = ApiToken.objects.get(user=owner)
    page = response.content.decode()
    plain = response.context["new_token"]
    assert response.status_code == 200 and plain in page and 'id="copy-token"' in page
    assert response["Cache-Control"] == "no-store"
    again = client.get(PAGE).content.decode()
    assert plain not in again and f"tsr_{token.prefix}_…" in again and "notebook" in again and "never" in again
    assert api_token_authenticate(plain).pk == token.pk
    assert "never" not in client.get(PAGE).content.decode()  # its last use shown


def test_a_token_without_a_name_is_refused_on_the_page(client, owner):
    login(client, owner)
    response = client.post(NEW, {"name": " "})
    assert response.status_code == 400 and "required" in response.content.decode()
    assert not ApiToken.objects.exists()


def test_an_account_that_is_no_researcher_is_told_and_gets_no_token(client, checker):
    login(client, checker)
    assert "The API is for researchers" in client.get(PAGE).content.decode()
    response = client.post(NEW, {"name": "x"})
    assert response.status_code == 400 and not ApiToken.objects.exists()


def test_another_researchers_tokens_are_not_listed(client, owner, other_researcher):
    theirs, _ = api_token_create(user=other_researcher, name="their secret script")
    login(client, owner)
    page = client.get(PAGE).content.decode()
    assert "their secret script" not in page and theirs.prefix not in page


def test_revoking_a_token_ends_it(client, owner):
    token, plain = api_token_create(user=owner, name="old")
    login(client, owner)
    response = client.post(reverse("api:token-revoke", args=[token.pk]), follow=True)
    assert "is revoked" in response.content.decode() and "revoked" in response.content.decode()
    assert ApiToken.objects.get(pk=token.pk).revoked_at is not None


def test_another_researchers_token_is_not_found_to_revoke(client, owner, other_researcher):
    theirs, _ = api_token_create(user=other_researcher, name="theirs")
    login(client, owner)
    assert client.post(reverse("api:token-revoke", args=[theirs.pk])).status_code == 404
    assert ApiToken.objects.get(pk=theirs.pk).revoked_at is None


def test_the_page_needs_a_login(client, db):
    assert client.get(PAGE).status_code == 302
    assert client.post(NEW, {"name": "x"}).status_code == 302
