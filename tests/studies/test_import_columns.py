"""The import page's table of columns and its sample file: derived from what the import accepts,
for the study's own protocol and pools; the sample parses as the import would read it."""

import csv
import io

import pytest
from django.urls import reverse

from studies.importing import KNOWN, columns_for, item_needs, parse_row, sample_csv
from studies.importing.columns import MEANINGS
from studies.protocol import parse_spec
from studies.services import preset_get
from tests.helpers import login


def test_every_column_the_import_knows_is_explained():
    assert set(MEANINGS) == set(KNOWN)


def test_the_columns_of_an_image_rating_study_start_with_what_it_needs(study):
    columns = columns_for(study.spec)
    assert [c.name for c in columns[:3]] == ["id", "image", "country"] and all(c.required for c in columns[:3])
    assert columns[3].name == "prompt" and not columns[3].required  # the page shows it
    assert {c.name for c in columns} == set(KNOWN)


@pytest.mark.parametrize("preset", ["culturalframes-rating", "ravenea-caption-choice", "ravenea-doc-relevance",
                                    "culturalvqa-question", "culturalframes-prompt-filter"])
def test_the_sample_file_parses_as_the_import_reads_it(preset):
    spec = parse_spec(preset_get(preset).protocol)
    rows = list(csv.DictReader(io.StringIO(sample_csv(spec, ["IN", "JP"]))))
    assert [r["country"] for r in rows] == ["IN", "IN", "JP", "JP"]
    needs = item_needs(spec)
    for n, raw in enumerate(rows, start=2):
        _, problems = parse_row(n, raw, needs=needs)
        assert problems == [], (preset, problems)


def test_the_page_lists_the_columns_and_links_the_sample(client, owner, study, pool):
    login(client, owner)
    text = client.get(reverse("analysis:import-items", args=[study.pk])).content.decode()
    assert 'id="import-columns"' in text and "<code>country</code>" in text and "required" in text
    response = client.get(reverse("analysis:import-sample", args=[study.pk]))
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    header, first = response.content.decode().splitlines()[:2]
    assert header.startswith("id,image,country,prompt") and ",IN," in first


def test_the_sample_is_for_the_study_s_members_only(client, other_researcher, study, pool):
    login(client, other_researcher)
    assert client.get(reverse("analysis:import-sample", args=[study.pk])).status_code == 404
    client.logout()
    assert client.get(reverse("analysis:import-sample", args=[study.pk])).status_code == 302
