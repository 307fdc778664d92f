"""The web-address check (``studies.protocol.web.web_address``), one rule for the url_list field and
the importer's document URLs: an http(s) URL with a host; surrounding whitespace stripped,
whitespace inside refused."""

import pytest

from studies.importing import parse_row
from studies.protocol import ItemContext, parse_spec, validate
from studies.protocol.web import web_address

ROW = {"id": "it-1", "image": "a.png", "country": "IN"}
SPEC = parse_spec({"fields": [{"key": "links", "type": "url_list", "required": False}]})


@pytest.mark.parametrize("text, url", [
    ("https://en.wikipedia.org/wiki/Onam", "https://en.wikipedia.org/wiki/Onam"),
    ("http://example.org", "http://example.org"),
    ("  https://example.org/a?b=c#d \n", "https://example.org/a?b=c#d"),
])
def test_it_takes_an_http_address_with_a_host_stripped_of_surrounding_whitespace(text, url):
    assert web_address(text) == url


@pytest.mark.parametrize("text", [
    "https://example.org/two words", "https://example.org/a\tb", "https://example.org/a\nb",
    "https://example.org https://example.com", "ftp://example.org/x", "mailto:someone@example.org",
    "en.wikipedia.org/wiki/Sushi", "https://", "https:///path", "http://[::1", "", "   ",
])
def test_it_refuses_other_schemes_a_missing_host_and_whitespace_inside(text):
    assert web_address(text) is None


def links(*urls):
    data = {"links.title": [f"Article {n}" for n, _ in enumerate(urls)], "links.url": list(urls)}
    return validate(SPEC, data, ItemContext(texts={}))


def test_the_url_list_field_keeps_a_padded_address_stripped():
    assert links("  https://example.org/a  ").answers == {"links": [{"title": "Article 0", "url": "https://example.org/a"}]}


@pytest.mark.parametrize("url", ["https://example.org/a b", "https://example.org/a\tb", "example.org"])
def test_the_url_list_field_refuses_what_is_not_a_web_address(url):
    assert "is not a web address" in links(url).errors["links"]


def test_the_importer_keeps_a_padded_document_address_stripped():
    row, problems = parse_row(2, {**ROW, "documents": [{"title": "Onam", "url": " https://example.org/onam "}]})
    assert problems == [] and row.documents[0]["url"] == "https://example.org/onam"


@pytest.mark.parametrize("url", ["https://example.org/a b", "https://example.org/a\tb", "ftp://example.org"])
def test_the_importer_refuses_a_document_address_that_is_not_one(url):
    _, problems = parse_row(2, {**ROW, "documents": [{"title": "Onam", "url": url}]})
    assert problems == [f"document 1: url {url!r} is not a web address (http:// or https://)"]
