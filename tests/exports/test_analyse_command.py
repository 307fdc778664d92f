"""python manage.py analyse STUDY [--json]: the same analysis as the page, from the shell."""

import json

import pytest
from django.core.management import CommandError, call_command

from exports.models import AnalysisRun
from tests import factories as f

from .helpers import annotate, answers_for


@pytest.fixture
def rated(study, pool):
    items = f.make_items(study, "IN", 3)
    raters = [f.make_annotator(pool) for _ in range(3)]
    for n, item in enumerate(items):
        for r, rater in enumerate(raters):
            annotate(rater, item, answers_for(item, overall=str(1 + (n + r) % 5)))
    return study


def test_it_prints_the_result_as_one_json_document(rated, capsys):
    call_command("analyse", rated.pk, "--json")
    result = json.loads(capsys.readouterr().out)
    overall = next(f for f in result["fields"] if f["key"] == "overall")
    assert overall["level"] == "ordinal" and overall["overall"]["n_units"] == 3
    run = AnalysisRun.objects.get()
    assert run.status == "done" and run.result == result  # recorded like a run from the page


def test_it_prints_a_summary_without_json(rated, capsys):
    call_command("analyse", rated.pk)
    out = capsys.readouterr().out
    assert "overall (ordinal): alpha" in out and "3 units, 9 ratings" in out


def test_it_refuses_an_unknown_study(db):
    with pytest.raises(CommandError, match="no study with id 404"):
        call_command("analyse", 404, "--json")
