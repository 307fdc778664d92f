"""python manage.py analyse STUDY [--json]: the same analysis as the page, from the shell."""

import json

import pytest
from django.core.management import CommandError, call_command

from analysis.models import AnalysisRun
from tests import factories as f
from tests.annotations import annotate, answers_for


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


# --- analyse --csv: data collected elsewhere ---------------------------------------------------

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability": 4 coders, 12 units, missing data.
PAPER = {
    "A": [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    "B": [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    "C": [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    "D": [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
}


def long_csv(tmp_path, table, name="ratings.csv"):
    lines = ["unit,rater,value"] + [
        f"{u + 1},{rater},{'' if v is None else v}" for rater, values in table.items() for u, v in enumerate(values)
    ]
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize(
    "level, expected", [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849), ("ratio", 0.797)]
)
def test_it_reproduces_the_worked_example_of_krippendorff_2011(tmp_path, capsys, level, expected):
    call_command("analyse", "--csv", str(long_csv(tmp_path, PAPER)), "--level", level, "--json")
    result = json.loads(capsys.readouterr().out)
    assert round(result["alpha"], 3) == expected
    assert (result["units"], result["raters"]) == (12, 4)
    assert result["ci_low"] <= result["alpha"] <= result["ci_high"]


def test_cohens_kappa_of_two_raters_matches_the_textbook_example(tmp_path, capsys):
    # 50 items: both yes 20, yes/no 5, no/yes 10, both no 15 → kappa 0.4
    pairs = [("yes", "yes")] * 20 + [("yes", "no")] * 5 + [("no", "yes")] * 10 + [("no", "no")] * 15
    table = {"A": [a for a, _ in pairs], "B": [b for _, b in pairs]}
    call_command(
        "analyse", "--csv", str(long_csv(tmp_path, table)), "--level", "nominal", "--metric", "cohen", "--json"
    )
    assert json.loads(capsys.readouterr().out)["kappa"] == pytest.approx(0.4)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--metric", "cohen", "--level", "nominal"], "Cohen's kappa compares two raters; this file has 4"),
        (["--metric", "fleiss", "--level", "nominal"], "same number"),
        (["--level", "ordinal", "--file-with-text"], "needs numeric values"),
        ([], "--csv needs --level"),
    ],
)
def test_the_csv_mode_refuses_what_it_cannot_compute(tmp_path, args, message):
    table = dict(PAPER)
    if "--file-with-text" in args:
        args = [a for a in args if a != "--file-with-text"]
        table = {"A": ["low", "high"], "B": ["low", "low"]}
    with pytest.raises(CommandError, match=message):
        call_command("analyse", "--csv", str(long_csv(tmp_path, table)), *args)


def test_the_csv_mode_names_the_line_of_a_repeated_rating(tmp_path):
    path = tmp_path / "dup.csv"
    path.write_text("unit,rater,value\n1,A,1\n1,A,2\n")
    with pytest.raises(CommandError, match=r"line 3: a second rating of unit '1' by 'A' \(first on line 2\)"):
        call_command("analyse", "--csv", str(path), "--level", "nominal")


def test_it_needs_a_study_or_a_csv_but_not_both(tmp_path, db):
    with pytest.raises(CommandError, match="either a STUDY id or --csv FILE"):
        call_command("analyse")
    with pytest.raises(CommandError, match="either a STUDY id or --csv FILE"):
        call_command("analyse", 1, "--csv", str(long_csv(tmp_path, PAPER)), "--level", "nominal")


# --- Gwet's AC1/AC2 and the intraclass correlations -------------------------------------------

# Shrout & Fleiss (1979): 6 targets rated by 4 judges; their published ICCs, to two decimals.
SHROUT_FLEISS = {"1": [9, 6, 8, 7, 10, 6], "2": [2, 1, 4, 1, 5, 2], "3": [5, 3, 6, 2, 6, 4], "4": [8, 2, 8, 6, 9, 7]}
SHROUT_FLEISS_ICC = {"icc1": 0.17, "icc2": 0.29, "icc3": 0.71, "icc1k": 0.44, "icc2k": 0.62, "icc3k": 0.91}


def test_the_six_intraclass_correlations_are_the_published_ones(tmp_path, capsys):
    call_command("analyse", "--csv", str(long_csv(tmp_path, SHROUT_FLEISS)), "--level", "interval",
                 "--metric", "icc", "--json")
    result = json.loads(capsys.readouterr().out)
    assert {name: round(result[name], 2) for name in SHROUT_FLEISS_ICC} == SHROUT_FLEISS_ICC
    assert result["design"] == "crossed" and result["n_units"] == 6
    assert result["forms"]["icc2"]["ci_low"] < result["icc2"] < result["forms"]["icc2"]["ci_high"]
    assert "only 6 units" in result["thin"]


def test_the_intraclass_correlations_in_words(tmp_path, capsys):
    call_command("analyse", "--csv", str(long_csv(tmp_path, SHROUT_FLEISS)), "--level", "interval", "--metric", "icc")
    out = capsys.readouterr().out
    assert "icc3k = 0.9093" in out and "(crossed design, over 6 units, 4 raters)" in out
    assert "Too thin to read as stable: only 6 units" in out
