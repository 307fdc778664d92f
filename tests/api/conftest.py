"""The API's cast: the fixed cast's owner and other researcher, a viewer and an editor of the study,
and clients that call the API with a token of one of them."""

import pytest
from rest_framework.test import APIClient

from api.tokens import api_token_create
from tests import factories as f
from tests.recruitment.conftest import fake_prolific, no_deployment_token  # noqa: F401 - the fake Prolific
from tests.recruitment.review_helpers import go_live


@pytest.fixture
def viewer(study):
    return f.make_member(study, "viewer", "viewer")


@pytest.fixture
def editor(study):
    return f.make_member(study, "editor", "editor")


def client_of(user) -> APIClient:
    """A client that sends a fresh token of ``user`` (``client.token``: its row)."""
    token, plain = api_token_create(user=user, name="tests")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {plain}")
    client.token = token
    return client


@pytest.fixture
def as_user():
    return client_of


@pytest.fixture
def anonymous():
    return APIClient()


@pytest.fixture
def live(fake_prolific, owner, pool, items):  # noqa: F811
    """India's pool published on the fake Prolific."""
    return go_live(fake_prolific, owner, pool)


@pytest.fixture
def refuse_all_but_the_owner(editor, viewer, other_researcher, checker, anonymous):
    """Sends ``method`` to ``address`` as every member but the owner, a stranger, no one and a checker:
    editors and viewers 403, another researcher 404, no login 401, a checker's session 403."""

    def send(method: str, address: str, body: dict) -> None:
        for who, code in ((editor, 403), (viewer, 403), (other_researcher, 404)):
            assert getattr(client_of(who), method)(address, body, format="json").status_code == code, who
        assert getattr(anonymous, method)(address, body, format="json").status_code == 401
        anonymous.force_login(checker)  # no token for a checker's account: their browser's session
        assert getattr(anonymous, method)(address, body, format="json").status_code == 403

    return send
