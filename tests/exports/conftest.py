import pytest


@pytest.fixture(autouse=True)
def _media_root(settings, tmp_path):
    """Item images and exports go to a fresh media root for each test."""
    settings.MEDIA_ROOT = str(tmp_path / "media")
