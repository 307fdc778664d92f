"""python manage.py analyse --pairs FILE: Bradley–Terry scores per group of a CSV of paired
comparisons collected elsewhere (no study, no database)."""

import io
import json

import numpy as np
import pytest
from django.core.management import CommandError, call_command

from stats.comparisons import PairsFormError, read_pairs_csv

TOP_KEYS = {"ties", "resamples", "seed", "confidence", "groups"}
GROUP_KEYS = {"comparisons", "things", "win_rates", "position_bias", "note"}
THING_KEYS = {"score", "ci_low", "ci_high", "rank", "wins", "losses", "ties", "comparisons"}
MODELS = {"flux": 1.0, "sdxl": 0.3, "dalle": -0.2, "kandinsky": -1.1}


def comparisons(n=300, seed=0, best=None):
    """(left, right, winner) rows by Bradley–Terry with MODELS' strengths (``best`` raised above all)."""
    strengths = dict(MODELS) | ({best: 2.0} if best else {})
    names = list(strengths)
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(n):
        left, right = rng.choice(names, 2, replace=False)
        p_left = 1 / (1 + np.exp(strengths[right] - strengths[left]))
        u = rng.random()
        rows.append((left, right, "tie" if u > 0.9 else "left" if u < 0.9 * p_left else "right"))
    return rows


def pairs_csv(tmp_path, rows, *, groups=None, header="left,right,winner", name="pairs.csv"):
    lines = [header + (",group" if groups else "")]
    for n, row in enumerate(rows):
        lines.append(",".join(row) + (f",{groups[n]}" if groups else ""))
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run(*args):
    out = io.StringIO()
    call_command("analyse", *map(str, args), stdout=out)
    return out.getvalue()


def run_json(*args):
    return json.loads(run(*args, "--json"))


def test_it_prints_one_group_all_without_a_group_column(tmp_path):
    result = run_json("--pairs", pairs_csv(tmp_path, comparisons()), "--resamples", 100)
    assert set(result) == TOP_KEYS
    assert (result["ties"], result["resamples"], result["seed"], result["confidence"]) == ("halved", 100, 0, 0.95)
    assert list(result["groups"]) == ["all"]
    group = result["groups"]["all"]
    assert set(group) == GROUP_KEYS and group["comparisons"] == 300 and group["note"] is None
    things = group["things"]
    assert set(things) == set(MODELS) and all(set(t) == THING_KEYS for t in things.values())
    assert abs(sum(t["score"] for t in things.values())) < 1e-9  # centred
    assert things["flux"]["rank"] == 1 and things["kandinsky"]["rank"] == 4
    assert all(t["ci_low"] <= t["score"] <= t["ci_high"] for t in things.values())
    assert sum(t["comparisons"] for t in things.values()) == 600  # two things per comparison
    assert set(group["win_rates"][0]) == {"thing", "over", "rate", "n"}
    assert set(group["position_bias"]) == {"n", "left_wins", "left_share", "ci_low", "ci_high", "p_value",
                                           "confidence"}


def test_it_scores_each_group_in_the_order_of_first_appearance(tmp_path):
    japan, india = comparisons(200, seed=1, best="dalle"), comparisons(200, seed=2, best="kandinsky")
    rows = [row for pair in zip(japan, india) for row in pair]
    groups = ["JP", "IN"] * 200
    result = run_json("--pairs", pairs_csv(tmp_path, rows, groups=groups), "--resamples", 50, "--seed", 3)
    assert list(result["groups"]) == ["JP", "IN"] and result["seed"] == 3
    for name, best in (("JP", "dalle"), ("IN", "kandinsky")):
        group = result["groups"][name]
        assert set(group) == GROUP_KEYS and group["comparisons"] == 200
        assert abs(sum(t["score"] for t in group["things"].values())) < 1e-9
        assert group["things"][best]["rank"] == 1


def test_the_same_seed_gives_the_same_json_and_no_resamples_no_intervals(tmp_path):
    path = pairs_csv(tmp_path, comparisons(100))
    assert run("--pairs", path, "--seed", 5, "--json") == run("--pairs", path, "--seed", 5, "--json")
    things = run_json("--pairs", path, "--resamples", 0)["groups"]["all"]["things"]
    assert all(t["ci_low"] is None and t["ci_high"] is None for t in things.values())


def test_it_notes_a_group_whose_things_are_not_all_compared(tmp_path):
    rows = [("a", "b", "left"), ("c", "d", "right"), ("a", "b", "tie")]
    group = run_json("--pairs", pairs_csv(tmp_path, rows), "--resamples", 10)["groups"]["all"]
    assert "{c, d} cut off from {a, b}" in group["note"]


def test_it_prints_a_table_per_group_without_json(tmp_path):
    rows = comparisons(120, seed=4)
    out = run("--pairs", pairs_csv(tmp_path, rows, groups=["IN"] * 60 + ["JP"] * 60), "--resamples", 50)
    assert "IN: 60 comparisons (ties halved; 95% intervals from 50 resamples, seed 0)" in out
    assert "JP: 60 comparisons" in out and out.index("IN:") < out.index("JP:")
    assert "rank  thing" in out and "interval" in out
    first_row = out.splitlines()[2].split()
    assert first_row[0] == "1" and first_row[1] in MODELS and first_row[3].startswith("[")
    assert "left position won" in out


def test_it_reads_a_bom_and_padded_header_names(tmp_path):
    path = tmp_path / "excel.csv"
    path.write_text("\ufeff left , right ,winner \nflux,sdxl,left\nsdxl,flux,tie\n", encoding="utf-8")
    rows = read_pairs_csv(path)
    assert [(r.line, r.group, r.left, r.right, r.winner) for r in rows] == [
        (2, "all", "flux", "sdxl", "left"), (3, "all", "sdxl", "flux", "tie")]


# --- refusals ------------------------------------------------------------------------------------

def test_it_refuses_a_file_without_the_winner_column(tmp_path):
    path = pairs_csv(tmp_path, [("a", "b", "left")], header="left,right,choice")
    with pytest.raises(CommandError, match=r"pairs.csv: line 1: missing column\(s\) winner"):
        run("--pairs", path)


def test_it_refuses_a_bad_winner_naming_its_line(tmp_path):
    path = pairs_csv(tmp_path, [("a", "b", "left"), ("a", "b", "Left"), ("b", "a", "draw")])
    with pytest.raises(CommandError) as refused:
        run("--pairs", path, "--json")
    message = str(refused.value)
    assert "line 3: winner 'Left' must be left, right or tie" in message
    assert "line 4: winner 'draw' must be left, right or tie" in message
    assert "line 2" not in message


def test_it_refuses_left_equal_to_right_and_empty_names(tmp_path):
    path = pairs_csv(tmp_path, [("a", "a", "left"), ("", "b", "tie"), ("a", "b", "left")])
    with pytest.raises(CommandError) as refused:
        run("--pairs", path)
    assert "line 2: left and right are the same thing 'a'" in str(refused.value)
    assert "line 3: 'left' and 'right' must not be empty" in str(refused.value)


def test_it_refuses_an_empty_group_in_a_file_with_groups(tmp_path):
    path = pairs_csv(tmp_path, [("a", "b", "left"), ("a", "b", "right")], groups=["IN", ""])
    with pytest.raises(CommandError, match="line 3: 'group' must not be empty"):
        run("--pairs", path)


def test_it_refuses_a_file_without_comparisons_or_that_cannot_be_read(tmp_path):
    with pytest.raises(CommandError, match="pairs.csv: no comparisons"):
        run("--pairs", pairs_csv(tmp_path, []))
    with pytest.raises(PairsFormError, match="cannot be read"):
        read_pairs_csv(tmp_path / "absent.csv")


def test_it_refuses_pairs_together_with_a_study_id(tmp_path):
    with pytest.raises(CommandError, match="--pairs cannot be combined with a STUDY id or --csv"):
        run(1, "--pairs", pairs_csv(tmp_path, comparisons(10)))


def test_it_refuses_pairs_together_with_a_long_format_csv(tmp_path):
    path = pairs_csv(tmp_path, comparisons(10))
    with pytest.raises(CommandError, match="--pairs cannot be combined with a STUDY id or --csv"):
        run("--pairs", path, "--csv", path, "--level", "nominal")


def test_it_refuses_options_of_the_agreement_csv_with_pairs(tmp_path):
    with pytest.raises(CommandError, match="--level and --weights apply to --csv, not to --pairs"):
        run("--pairs", pairs_csv(tmp_path, comparisons(10)), "--level", "ordinal")


def test_it_refuses_negative_resamples(tmp_path):
    with pytest.raises(CommandError, match="n_resamples cannot be negative"):
        run("--pairs", pairs_csv(tmp_path, comparisons(10)), "--resamples", -1)


def test_it_asks_for_a_source_when_given_none():
    with pytest.raises(CommandError, match=r"give either a STUDY id or --csv FILE \(or --pairs FILE, alone\)"):
        run()
