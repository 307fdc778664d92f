"""Static files in production: collected by the production storage (config/staticfiles.py: hashed
names, our own scripts and styles minified, gzip copies) and served by whitenoise's middleware, a
hashed file cached for ten years and gzipped for a browser that accepts it."""

import gzip
from pathlib import Path

import pytest
from django.conf import settings
from django.http import HttpResponseNotFound
from django.templatetags.static import static
from django.test import RequestFactory
from whitenoise.middleware import WhiteNoiseMiddleware

from config.staticfiles import minifier_for
from tests.helpers import production_static

SOURCE = Path(settings.BASE_DIR) / "static"
FAR_FUTURE = "max-age=315360000, public, immutable"


@pytest.fixture(scope="module")
def collected(tmp_path_factory):
    with production_static(tmp_path_factory.mktemp("static")) as root:
        yield root


@pytest.fixture
def serve(collected):
    middleware = WhiteNoiseMiddleware(lambda request: HttpResponseNotFound())

    def get(url: str, **headers):
        response = middleware(RequestFactory().get(url, **headers))
        body = b"".join(response.streaming_content) if response.streaming else response.content
        return response, body

    return get


def test_a_hashed_script_is_served_gzipped_and_cached_for_ten_years(serve):
    url = static("annotation/item.js")
    assert url.startswith("/static/annotation/item.") and url != "/static/annotation/item.js"
    response, body = serve(url, HTTP_ACCEPT_ENCODING="gzip, deflate, br")
    assert response.status_code == 200
    assert response["Content-Encoding"] == "gzip"
    assert response["Cache-Control"] == FAR_FUTURE
    assert "Accept-Encoding" in response["Vary"]
    assert response["Content-Type"].startswith("text/javascript")
    script = gzip.decompress(body)
    assert len(body) < len(script) / 2
    assert b"TesseraPage.register" in script


def test_a_browser_that_accepts_no_compression_gets_the_file_as_it_is(serve):
    response, body = serve(static("css/tessera.css"))
    assert response.status_code == 200 and "Content-Encoding" not in response
    assert response["Cache-Control"] == FAR_FUTURE
    assert body.startswith(b":root{")


def test_our_scripts_and_styles_are_served_minified_and_htmx_as_shipped(serve):
    for name in ("annotation/page.js", "annotation/bbox.js", "annotation/page.css", "css/tessera.css"):
        _, body = serve(static(name))
        source = (SOURCE / name).read_bytes()
        assert len(body) < 0.9 * len(source), name
        assert b"/*" not in body, f"{name}: a comment is left"
    _, htmx = serve(static("vendor/htmx.min.js"))
    assert htmx == (SOURCE / "vendor" / "htmx.min.js").read_bytes()


def test_a_name_without_its_hash_is_cached_briefly(serve):
    response, _ = serve("/static/annotation/item.js")
    assert response.status_code == 200
    assert response["Cache-Control"] == "max-age=60, public"


def test_only_scripts_and_styles_not_shipped_minified_are_minified():
    assert minifier_for("annotation/item.js") and minifier_for("css/tessera.css")
    assert minifier_for("vendor/htmx.min.js") is None and minifier_for("img/logo.png") is None
