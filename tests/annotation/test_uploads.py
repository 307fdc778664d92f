"""The upload endpoint of an upload field, and the uploaded image: each only for its own annotator."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from annotation.models import Annotation, Upload
from annotation.services import assignment_next, upload_receive
from tests import factories as f
from tests.helpers import as_annotator, on_items
from tests.helpers import item_submit as submit

pytestmark = pytest.mark.django_db


@pytest.fixture
def grounding(client):
    """(client, assignment) of an annotator on a GlobalRG item."""
    client, assignment, _ = on_items(client, "globalrg-grounding", prompt="Kathakali")
    return client, assignment


def upload(client, assignment, name="photo.png", data=None, content_type="image/png"):
    content = data if data is not None else f.png_bytes(size=(120, 90))
    file = SimpleUploadedFile(name, content, content_type=content_type)
    return client.post(reverse("annotation:item-upload", args=[assignment.pk]), {"file": file})


def stranger_client(study):
    """A browser of another annotator (of another pool) of the same study, on their own item."""
    pool = f.make_pool(study, "JP", "Japan")
    f.make_items(study, "JP", 1, prompt="Kabuki")
    session = f.make_session(f.make_annotator(pool))
    other = Client()
    as_annotator(other, session)
    return other, assignment_next(session=session)


def test_an_image_is_stored_and_answered_with_its_token_and_size(grounding):
    client, a = grounding
    response = upload(client, a)
    assert response.status_code == 200
    body = response.json()
    stored = Upload.objects.get()
    assert body == {"token": str(stored.token), "width": 120, "height": 90,
                    "url": reverse("annotation:item-upload-image", args=[a.pk, stored.token])}
    assert stored.assignment == a and stored.original_name == "photo.png"


def test_it_refuses_a_text_file_with_a_message(grounding):
    client, a = grounding
    response = upload(client, a, name="notes.txt", data=b"just some words", content_type="text/plain")
    assert response.status_code == 400
    assert "is not an image in an allowed format" in response.json()["error"]
    assert not Upload.objects.exists()


def test_it_refuses_an_image_over_the_size_limit(grounding, settings):
    settings.IMAGE_MAX_BYTES = 100
    client, a = grounding
    response = upload(client, a)
    assert response.status_code == 400
    assert "the limit is" in response.json()["error"]
    assert not Upload.objects.exists()


def test_it_refuses_a_post_without_a_file(grounding):
    client, a = grounding
    response = client.post(reverse("annotation:item-upload", args=[a.pk]))
    assert response.status_code == 400 and response.json() == {"error": "Choose an image file to upload."}


def test_it_refuses_an_upload_to_a_submitted_item(grounding):
    client, a = grounding
    token = upload(client, a).json()["token"]
    submit(client, a, {"photo": token, "box": "[[10, 10, 20, 20]]", "prevalent": "yes"})
    assert Annotation.objects.get().answers["box"][0]["x"] == 10
    response = upload(client, a)
    assert response.status_code == 400 and response.json()["error"] == "This item is already submitted."


def test_another_annotators_assignment_is_404(grounding):
    client, a = grounding
    other, theirs = stranger_client(a.item.study)
    assert upload(client, theirs).status_code == 404
    assert upload(other, a).status_code == 404
    assert not Upload.objects.exists()


def test_an_uploaded_image_is_served_only_to_its_annotator(grounding):
    client, a = grounding
    token = upload(client, a).json()["token"]
    url = reverse("annotation:item-upload-image", args=[a.pk, token])
    mine = client.get(url)
    assert mine.status_code == 200 and b"".join(mine.streaming_content)[:8] == b"\x89PNG\r\n\x1a\n"
    other, theirs = stranger_client(a.item.study)
    assert other.get(url).status_code == 404
    assert other.get(reverse("annotation:item-upload-image", args=[theirs.pk, token])).status_code == 404
    assert Client().get(url).status_code == 403  # no annotator session in this browser


def test_a_drafted_token_of_another_assignment_shows_no_image(grounding):
    client, a = grounding
    other, theirs = stranger_client(a.item.study)
    foreign = upload_receive(assignment=theirs, name="theirs.png", data=f.png_bytes(size=(70, 70)))
    client.post(reverse("annotation:item-draft", args=[a.pk]), {"photo": str(foreign.token)})
    page = client.get(reverse("annotation:items")).content.decode()
    assert str(foreign.token) not in page.split('data-upload-token')[1]  # only in the hidden input
    assert "upload-preview" not in page
    response = submit(client, a, {"photo": str(foreign.token), "box": "[[1, 1, 2, 2]]", "prevalent": "yes"})
    assert response.status_code == 422 and "the upload was not found" in response.content.decode()


def test_a_junk_token_in_a_draft_does_not_break_the_page(grounding):
    client, a = grounding
    client.post(reverse("annotation:item-draft", args=[a.pk]), {"photo": "../../etc/passwd", "box": "not json"})
    response = client.get(reverse("annotation:items"))
    assert response.status_code == 200 and "upload-preview" not in response.content.decode()


def test_a_rotated_phone_photo_is_stored_upright_with_its_upright_size(grounding):
    import io

    from PIL import Image

    client, a = grounding
    im = Image.new("RGB", (160, 80), (200, 10, 10))
    exif = im.getexif()
    exif[0x0112] = 6  # rotate 90° clockwise to display
    buf = io.BytesIO()
    im.save(buf, format="JPEG", exif=exif)
    response = upload(client, a, name="phone.jpg", data=buf.getvalue(), content_type="image/jpeg")
    assert response.status_code == 200 and (response.json()["width"], response.json()["height"]) == (80, 160)
    with Upload.objects.get(token=response.json()["token"]).file.open("rb") as fh:
        upright = Image.open(io.BytesIO(fh.read()))
    assert upright.size == (80, 160)
    assert upright.getexif().get(0x0112, 1) == 1
    plain = io.BytesIO()
    Image.new("RGB", (160, 80)).save(plain, format="PNG")
    response = upload(client, a, name="plain.png", data=plain.getvalue())
    with Upload.objects.get(token=response.json()["token"]).file.open("rb") as fh:
        assert fh.read() == plain.getvalue()  # an upright image is kept as sent


def test_the_item_page_reads_the_uploads_once(grounding):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client, a = grounding
    upload(client, a)
    with CaptureQueriesContext(connection) as queries:
        page = client.get(reverse("annotation:items"))
    assert page.status_code == 200
    assert sum('FROM "annotation_upload"' in q["sql"] for q in queries.captured_queries) == 1
