"""The fake Prolific for every recruitment test: started on a loopback port, ``PROLIFIC_API_URL``
pointed at it, its token as the deployment's fallback unless a test says otherwise. A test that
makes the client call a path the fake does not know fails (the client or the fake is wrong)."""

import pytest

from .fake_prolific import fake_prolific_for


@pytest.fixture
def fake_prolific(settings):
    with fake_prolific_for(settings, site_url="http://testserver", timeout=1) as fake:
        yield fake


@pytest.fixture
def no_deployment_token(settings):
    settings.PROLIFIC_API_TOKEN = ""


@pytest.fixture
def closed_port():
    """A loopback port where nothing listens (bound, then closed)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def on_prolific(fake_prolific, owner, pool, items):
    """India's pool published on (the fake) Prolific: three items, two places."""
    from recruitment.services import LaunchOptions, prolific_study_launch, prolific_study_transition

    row = prolific_study_launch(pool=pool, user=owner, options=LaunchOptions(reward=150, estimated_minutes=10))
    prolific_study_transition(prolific_study=row.prolific_study, verb="publish", user=owner)
    return row.prolific_study


@pytest.fixture
def participant(fake_prolific, on_prolific):
    """A participant who started India's study on Prolific: (pid, study id, submission id)."""
    pid = "5f1a2b3c4d5e6f7a8b9c0d1e"
    return pid, on_prolific.prolific_id, fake_prolific.submission_start(on_prolific.prolific_id, pid)
