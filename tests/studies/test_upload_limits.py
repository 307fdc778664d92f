"""A request body larger than its route allows is refused before anything reads it, on a real
server over a real socket: the headers declare 3 GB, a few bytes follow, and the answer must come
while the rest is never sent (Django's CSRF check used to read the whole form first, anonymously
too). One rule for the pages and the API (``studies.uploads``)."""

import socket
from urllib.parse import urlsplit

import pytest
from django.test import Client

from studies.models import ImportJob

HUGE = 3_000_000_000


def send_headers_only(live_server, path: str, *, length: str | None = str(HUGE), chunked: bool = False,
                      cookie: str = "") -> bytes:
    """POST ``path`` declaring ``length`` bytes (or chunked), send the first bytes of a form only,
    and return what the server answers (a socket.timeout when it waits for the rest)."""
    address = urlsplit(live_server.url)
    with socket.create_connection((address.hostname, address.port), timeout=10) as s:
        head = [f"POST {path} HTTP/1.1", f"Host: {address.hostname}",
                "Content-Type: multipart/form-data; boundary=xyz"]
        head += [f"Content-Length: {length}"] if length is not None else []
        head += ["Transfer-Encoding: chunked"] if chunked else []
        head += [f"Cookie: {cookie}"] if cookie else []
        s.sendall(("\r\n".join(head) + "\r\n\r\n--xyz\r\n").encode())
        answer = b""
        while b"\r\n\r\n" not in answer and (chunk := s.recv(65536)):
            answer += chunk
        head, _, body = answer.partition(b"\r\n\r\n")
        length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                       if line.lower().startswith(b"content-length:")), 0)
        while len(body) < length and (chunk := s.recv(65536)):
            body += chunk
        return head + b"\r\n\r\n" + body


def routes(study):
    return {
        "import page": f"/studies/{study.pk}/import/",
        "metric upload page": f"/studies/{study.pk}/metrics/",
        "API import": f"/api/v1/studies/{study.pk}/imports/",
        "API metric upload": f"/api/v1/studies/{study.pk}/metrics/",
        "login (no upload of its own)": "/login/",
    }


@pytest.mark.parametrize("route", ["import page", "metric upload page", "API import", "API metric upload",
                                   "login (no upload of its own)"])
@pytest.mark.parametrize("signed_in", [False, True])
def test_a_huge_declared_body_is_refused_at_once_without_being_read(live_server, study, route, signed_in):
    cookie = ""
    if signed_in:
        client = Client()
        client.force_login(study.owner)
        cookie = f"sessionid={client.cookies['sessionid'].value}"
    answer = send_headers_only(live_server, routes(study)[route], cookie=cookie)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert b"larger than the limit" in answer or b"Content-Length" in answer
    assert not ImportJob.objects.exists()


def test_the_page_says_what_the_limit_is_and_the_api_answers_in_its_shape(client, study, settings):
    settings.IMPORT_ROWS_MAX_BYTES = settings.IMPORT_ZIP_MAX_BYTES = 10
    page = client.post(f"/studies/{study.pk}/import/", b"", content_type="multipart/form-data; boundary=x",
                       CONTENT_LENGTH=str(HUGE))
    assert page.status_code == 413 and page["Content-Type"].startswith("text/html")
    assert "The upload is larger than the limit of 1,048,596 bytes." in page.content.decode()
    api = client.post(f"/api/v1/studies/{study.pk}/imports/", b"", content_type="multipart/form-data; boundary=x",
                      CONTENT_LENGTH=str(HUGE))
    assert api.status_code == 413
    assert api.json() == {"detail": "The upload is larger than the limit of 1,048,596 bytes."}


def test_a_chunked_body_with_no_declared_length_is_refused(live_server, study):
    answer = send_headers_only(live_server, routes(study)["import page"], length=None, chunked=True)
    assert answer.startswith(b"HTTP/1.1 411"), answer[:200]


def test_a_body_within_the_limit_goes_through_to_the_page(client, study, settings):
    settings.REQUEST_MAX_BYTES = 100
    assert client.post("/login/", {"username": "x" * 200}).status_code == 413
    settings.REQUEST_MAX_BYTES = 10_000
    assert client.post("/login/", {"username": "someone", "password": "wrong"}).status_code == 200
