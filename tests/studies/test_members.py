"""The members page (/studies/<pk>/members) and its invitations: the owner adds a member by username
or email, invites an unknown address (a link shown once, its token stored hashed, valid 14 days and
once), makes a checker of a pool, changes a role, removes a member; every bad input is refused next to
its field and changes nothing. A viewer reads the study, an editor changes it; neither manages members."""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.urls import reverse
from django.utils import timezone

from annotation.models import Checker
from studies.models import StudyInvitation, StudyMember
from studies.selectors import studies_for_user
from tests import factories as f
from tests.helpers import login

PASSWORD = "a-long-pass-1234"


def members_url(study):
    return reverse("studies:members", args=[study.pk])


def invite_url(study):
    return reverse("annotation:member-invite", args=[study.pk])


def invite(client, study, who, role="viewer", pool=""):
    return client.post(invite_url(study), {"who": who, "role": role, "pool": pool and str(pool)})


def link_token(response) -> str:
    """The invitation token in the link the owner is shown."""
    text = " ".join(str(m) for m in response.context["messages"])
    return text.split("/invitations/")[1].split("/")[0]


def test_the_owner_sees_members_checkers_and_the_invite_form(client, owner, study, pool, checker):
    viewer = f.make_member(study, "vera", "viewer")
    login(client, owner)
    response = client.get(members_url(study))
    assert response.status_code == 200
    body = response.content.decode()
    assert viewer.username in body and "checker-in" in body and "India" in body
    assert reverse("annotation:member-invite", args=[study.pk]) in body


def test_the_dashboard_links_the_members_page(client, owner, study):
    login(client, owner)
    assert members_url(study) in client.get(reverse("analysis:study-dashboard", args=[study.pk])).content.decode()


def test_it_adds_an_existing_researcher_by_username_as_viewer(client, owner, other_researcher, study):
    login(client, owner)
    response = invite(client, study, "other", "viewer")
    assert response.status_code == 302
    assert StudyMember.objects.get(study=study, user=other_researcher).role == "viewer"
    assert study in studies_for_user(other_researcher)
    assert study not in studies_for_user(other_researcher, write=True)


def test_it_adds_an_existing_account_by_email_as_editor(client, owner, other_researcher, study):
    other_researcher.email = "Other@Example.org"
    other_researcher.save()
    login(client, owner)
    assert invite(client, study, "other@example.org", "editor").status_code == 302
    assert StudyMember.objects.get(study=study, user=other_researcher).role == "editor"
    assert study in studies_for_user(other_researcher, write=True)


def test_it_makes_an_existing_account_a_checker_of_a_pool(client, owner, other_researcher, study, pool):
    login(client, owner)
    assert invite(client, study, "other", "checker", pool.pk).status_code == 302
    assert Checker.objects.filter(pool=pool, user=other_researcher).exists()
    assert not StudyMember.objects.filter(study=study).exists()


@pytest.mark.parametrize(
    "who, role, pool_pk, field",
    [
        ("owner", "viewer", "", "who"),  # oneself, the owner
        ("nobody-by-that-name", "viewer", "", "who"),  # an unknown username (an email is needed)
        ("not an@address", "viewer", "", "who"),  # a bad email
        ("other", "checker", "", "pool"),  # a checker without a pool
        ("other", "checker", "999999", "pool"),  # an unknown pool
        ("other", "admin", "", "role"),  # an unknown role
    ],
)
def test_it_refuses_bad_input_next_to_the_field(
    client, owner, other_researcher, study, pool, who, role, pool_pk, field
):
    login(client, owner)
    response = invite(client, study, who, role, pool_pk)
    assert response.status_code == 400
    assert response.context["invite_form"].errors.get(field), response.context["invite_form"].errors
    assert not StudyMember.objects.exists() and not StudyInvitation.objects.exists()
    assert not Checker.objects.filter(user=other_researcher).exists()


def test_it_refuses_a_pool_of_another_study(client, owner, other_researcher, study):
    others_pool = f.make_pool(f.make_study(other_researcher, name="Theirs"), "FR", "France")
    login(client, owner)
    response = invite(client, study, "other", "checker", others_pool.pk)
    assert response.status_code == 400 and response.context["invite_form"].errors["pool"]
    assert not Checker.objects.exists()


def test_it_refuses_a_duplicate_member_and_a_duplicate_checker(client, owner, study, pool, checker):
    f.make_member(study, "vera", "viewer")
    login(client, owner)
    response = invite(client, study, "vera", "editor")
    assert response.status_code == 400 and "already a member" in str(response.context["invite_form"].errors["who"])
    assert StudyMember.objects.get(user__username="vera").role == "viewer"
    response = invite(client, study, "checker-in", "checker", pool.pk)
    assert response.status_code == 400 and "already" in str(response.context["invite_form"].errors["who"])


def test_it_changes_a_role_and_removes_a_member(client, owner, study):
    vera = f.make_member(study, "vera", "viewer")
    member = StudyMember.objects.get(user=vera)
    role_url = reverse("studies:member-role", args=[study.pk, member.pk])
    login(client, owner)
    assert client.post(role_url, {"role": "editor"}).status_code == 302
    assert StudyMember.objects.get(pk=member.pk).role == "editor"
    assert client.post(role_url, {"role": "owner"}).status_code == 302
    assert StudyMember.objects.get(pk=member.pk).role == "editor"
    assert client.post(reverse("studies:member-remove", args=[study.pk, member.pk])).status_code == 302
    assert study not in studies_for_user(vera)


def test_it_removes_a_checker(client, owner, study, pool, checker):
    row = Checker.objects.get(user=checker)
    login(client, owner)
    assert client.post(reverse("annotation:checker-remove", args=[study.pk, row.pk])).status_code == 302
    assert not Checker.objects.filter(pk=row.pk).exists()


@pytest.mark.parametrize("role", ["viewer", "editor"])
def test_a_member_reads_the_page_but_may_not_manage_it(client, owner, other_researcher, study, role):
    member = f.make_member(study, "mia", role)
    row = StudyMember.objects.get(user=member)
    login(client, member)
    response = client.get(members_url(study))
    assert response.status_code == 200 and invite_url(study) not in response.content.decode()
    assert invite(client, study, "other", "viewer").status_code == 403
    assert client.post(reverse("studies:member-role", args=[study.pk, row.pk]), {"role": "editor"}).status_code == 403
    assert client.post(reverse("studies:member-remove", args=[study.pk, row.pk])).status_code == 403
    assert StudyMember.objects.get(pk=row.pk).role == role
    assert not StudyMember.objects.filter(user=other_researcher).exists()


def test_another_researcher_finds_no_members_page(client, other_researcher, study):
    login(client, other_researcher)
    assert client.get(members_url(study)).status_code == 404
    assert invite(client, study, "other", "editor").status_code == 404


def test_a_viewer_gets_a_clear_read_only_refusal(client, study, pool):
    viewer = f.make_member(study, "vera", "viewer")
    login(client, viewer)
    response = client.post(reverse("recruitment:pool-remove", args=[study.pk, pool.pk]))
    assert response.status_code == 403
    assert "Your role on this study is read-only" in response.content.decode()


# --- invitations ------------------------------------------------------------------------------


def test_an_unknown_address_gets_an_invitation_link_shown_once(client, owner, study):
    login(client, owner)
    response = invite(client, study, "new.person@example.org", "editor")
    assert response.status_code == 302
    invitation = StudyInvitation.objects.get()
    assert invitation.email == "new.person@example.org" and invitation.role == "editor"
    assert invitation.expires_at > timezone.now() + timedelta(days=13)
    response = client.get(members_url(study))
    token = link_token(response)
    assert token not in invitation.token_hash and len(invitation.token_hash) == 64
    assert "new.person@example.org" in response.content.decode()
    assert not mail.outbox  # no EMAIL_HOST in the tests' settings


def test_it_mails_the_link_when_email_is_configured(client, owner, study, settings):
    settings.EMAIL_HOST = "smtp.example.org"
    login(client, owner)
    invite(client, study, "new.person@example.org", "viewer")
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["new.person@example.org"]
    assert "/invitations/" in mail.outbox[0].body


def test_a_new_person_creates_an_account_and_accepts(client, owner, study):
    login(client, owner)
    response = invite(client, study, "new.person@example.org", "editor")
    token = link_token(client.get(response.url))
    client.logout()
    url = reverse("annotation:invitation", args=[token])
    assert client.get(url).status_code == 200
    response = client.post(url, {"username": "newbie", "password1": PASSWORD, "password2": PASSWORD})
    assert response.status_code == 302
    newbie = get_user_model().objects.get(username="newbie")
    assert newbie.email == "new.person@example.org"
    assert StudyMember.objects.get(study=study, user=newbie).role == "editor"
    assert client.get(reverse("analysis:study-dashboard", args=[study.pk])).status_code == 200
    # spent: a second use opens nothing
    client.logout()
    response = client.post(url, {"username": "again", "password1": PASSWORD, "password2": PASSWORD})
    assert response.status_code == 410
    assert not get_user_model().objects.filter(username="again").exists()


def test_a_logged_in_user_accepts_a_checker_invitation(client, owner, other_researcher, study, pool):
    login(client, owner)
    response = invite(client, study, "someone@example.org", "checker", pool.pk)
    token = link_token(client.get(response.url))
    other_researcher.email = " Someone@Example.org"  # the address the invitation was sent to
    other_researcher.save()
    login(client, other_researcher)
    response = client.post(reverse("annotation:invitation", args=[token]))
    assert response.status_code == 302
    assert Checker.objects.filter(pool=pool, user=other_researcher).exists()
    assert client.get(reverse("annotation:review-study", args=[study.pk])).status_code == 200
    assert client.get(reverse("analysis:study-dashboard", args=[study.pk])).status_code == 404


def test_a_bad_sign_up_creates_nothing_and_keeps_the_invitation(client, owner, study):
    login(client, owner)
    token = link_token(client.get(invite(client, study, "new@example.org", "viewer").url))
    client.logout()
    url = reverse("annotation:invitation", args=[token])
    response = client.post(url, {"username": "owner", "password1": PASSWORD, "password2": PASSWORD})
    assert response.status_code == 400 and response.context["form"].errors["username"]
    assert StudyInvitation.objects.get().accepted_at is None


@pytest.mark.parametrize("spent", ["revoked", "expired"])
def test_a_revoked_or_expired_invitation_opens_nothing(client, owner, other_researcher, study, spent):
    login(client, owner)
    token = link_token(client.get(invite(client, study, "x@example.org", "editor").url))
    invitation = StudyInvitation.objects.get()
    if spent == "revoked":
        assert client.post(reverse("studies:invitation-revoke", args=[study.pk, invitation.pk])).status_code == 302
    else:
        StudyInvitation.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    login(client, other_researcher)
    response = client.post(reverse("annotation:invitation", args=[token]))
    assert response.status_code == 410
    assert not StudyMember.objects.exists()


def test_an_unknown_token_is_a_404(client, other_researcher):
    login(client, other_researcher)
    assert client.get(reverse("annotation:invitation", args=["not-a-token"])).status_code == 404


def test_it_refuses_a_second_pending_invitation_and_the_owner_accepting(client, owner, study):
    login(client, owner)
    token = link_token(client.get(invite(client, study, "x@example.org", "viewer").url))
    response = invite(client, study, "X@example.org", "editor")
    assert response.status_code == 400 and "pending" in str(response.context["invite_form"].errors["who"])
    response = client.post(reverse("annotation:invitation", args=[token]))
    assert response.status_code == 403 and "own this study" in response.content.decode()
    assert StudyInvitation.objects.get().accepted_at is None


def test_a_shared_study_is_listed_with_its_owner(client, owner, study):
    viewer = f.make_member(study, "vera", "viewer")
    login(client, viewer)
    body = client.get(reverse("studies:study-list")).content.decode()
    assert study.name in body and "shared by owner" in body


@pytest.mark.parametrize("role, can_edit", [("viewer", False), ("editor", True)])
def test_the_pages_hide_what_a_member_cannot_use(client, study, pool, role, can_edit):
    member = f.make_member(study, "mia", role)
    login(client, member)
    pools = client.get(reverse("studies:pool-list", args=[study.pk])).content.decode()
    assert (reverse("recruitment:pool-remove", args=[study.pk, pool.pk]) in pools) is can_edit
    assert (reverse("studies:pool-edit", args=[study.pk, pool.pk]) in pools) is can_edit
    preview = reverse("annotation:path-preview", args=[study.pk, pool.pk])
    assert preview in pools  # every member may walk the path (it stores nothing), so each sees the link
    assert client.get(preview).status_code == 302  # to the walk's first step
    analysis = client.get(reverse("analysis:analysis", args=[study.pk])).content.decode()
    assert (f'action="{reverse("analysis:metrics-upload", args=[study.pk])}"' in analysis) is can_edit
    prolific = client.get(reverse("recruitment:study-prolific", args=[study.pk])).content.decode()
    assert reverse("recruitment:study-launch", args=[study.pk]) not in prolific  # the owner's only
    assert (reverse("recruitment:study-policy", args=[study.pk]) in prolific) is can_edit


def test_an_expired_invitation_may_be_sent_again(client, owner, study):
    login(client, owner)
    invite(client, study, "x@example.org", "viewer")
    StudyInvitation.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    assert invite(client, study, "X@example.org", "editor").status_code == 302
    assert StudyInvitation.objects.filter(revoked_at__isnull=True).get().role == "editor"


@pytest.mark.parametrize("email", ["someone.else@example.org", ""])
def test_an_account_of_another_address_holding_the_link_cannot_accept(client, owner, other_researcher, study, email):
    login(client, owner)
    token = link_token(client.get(invite(client, study, "invited@example.org", "editor").url))
    other_researcher.email = email
    other_researcher.save()
    login(client, other_researcher)
    url = reverse("annotation:invitation", args=[token])
    page = client.get(url)
    assert page.status_code == 403 and "sent to invited@example.org" in page.content.decode()
    assert "Accept as" not in page.content.decode()  # said before any click: no button to press
    response = client.post(url)
    assert response.status_code == 403 and "sent to invited@example.org" in response.content.decode()
    assert not StudyMember.objects.exists()
    assert StudyInvitation.objects.get().accepted_at is None  # still there for the person it was sent to
