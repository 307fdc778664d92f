"""A new lab member without an operator: a researcher invites them with "they may also create
studies of their own"; the link (mailed through Django's e-mail backend) makes their account a
researcher's. Without the box, or from an account that is no researcher's, nobody gets that right."""

from django.contrib.auth import get_user_model
from django.core import mail
from django.urls import reverse

from studies.models import StudyInvitation
from studies.selectors import may_create_studies

from ..helpers import login
from .test_members import PASSWORD, invite_url, link_token


def new_study_url():
    return reverse("studies:study-new")


def invite(client, study, who, *, may_create=True, role="editor"):
    data = {"who": who, "role": role, "pool": ""}
    if may_create:
        data["may_create_studies"] = "on"
    return client.post(invite_url(study), data)


def sign_up(client, token, username="newlab"):
    url = reverse("annotation:invitation", args=[token])
    return client.post(url, {"username": username, "password1": PASSWORD, "password2": PASSWORD})


def test_an_invitation_can_make_a_new_lab_member_a_researcher(client, owner, study, settings):
    settings.EMAIL_HOST = "smtp.example.org"  # the console backend in the demo; SMTP by settings
    login(client, owner)
    response = invite(client, study, "new.member@example.org")
    assert response.status_code == 302
    assert StudyInvitation.objects.get().grants_researcher
    (sent,) = mail.outbox
    assert sent.to == ["new.member@example.org"] and "create studies of your own" in sent.body
    token = link_token(client.get(response.url))
    client.logout()
    response = sign_up(client, token)
    assert response.status_code == 302
    member = get_user_model().objects.get(username="newlab")
    assert may_create_studies(member) and member.groups.filter(name="Researchers").exists()
    assert "You may also create studies of your own" in client.get(response.url).content.decode()
    assert client.get(new_study_url()).status_code == 200


def test_without_the_box_the_new_account_creates_no_study(client, owner, study):
    login(client, owner)
    token = link_token(client.get(invite(client, study, "helper@example.org", may_create=False).url))
    client.logout()
    sign_up(client, token, "helper")
    assert not may_create_studies(get_user_model().objects.get(username="helper"))
    assert client.get(new_study_url()).status_code == 404


def test_an_existing_account_is_made_a_researcher_at_once(client, owner, study, checker):
    assert not may_create_studies(checker)
    login(client, owner)
    assert invite(client, study, checker.username, role="viewer").status_code == 302
    checker.refresh_from_db()
    assert may_create_studies(checker) and checker.has_usable_password()  # their password kept


def test_only_a_researcher_may_grant_it(client, owner, study):
    owner.is_staff = False  # a study owner who is no researcher any more (e.g. made one by the admin)
    owner.save()
    login(client, owner)
    response = invite(client, study, "someone@example.org")
    assert response.status_code == 400
    assert "Only a researcher may let others create studies." in response.content.decode()
    assert not StudyInvitation.objects.exists() and not mail.outbox
