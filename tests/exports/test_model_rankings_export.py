"""The models ranked per country travel with a study's gold: the gold export's and the hf
dataset's ``model_rankings`` table, as the analysis run the export was checked against computed them."""

import io

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.analysis.test_comparisons import pair_answers, study_of
from tests.exports.test_gold_export import exported, unzipped
from tests.exports.test_hf_export import load, unzip

pytestmark = pytest.mark.django_db


@pytest.fixture
def compared(owner):
    study, india, japan = study_of(owner, "culturalframes-pairwise")
    pair_answers(india, study, "IN", prefer=("flux", "sdxl", "dalle-3"))
    pair_answers(japan, study, "JP", prefer=("sdxl", "flux", "dalle-3"))
    return study


def test_the_gold_export_ranks_the_models_per_country_with_intervals(compared, owner):
    files = unzipped(exported(compared, owner, "gold"))
    frame = pd.read_csv(io.BytesIO(files["model_rankings.csv"]))
    assert set(frame["country"]) == {"all", "IN", "JP"} and set(frame["field"]) == {"fidelity"}
    first = frame[frame["rank"] == 1].set_index("country")["model"].to_dict()
    assert first["IN"] == "flux" and first["JP"] == "sdxl"
    assert frame["ci_low"].notna().all() and (frame["ci_low"] <= frame["score"]).all()
    assert (frame["design"] == "pairs").all() and frame.loc[frame["country"] == "IN", "wins"].sum() == 12
    table = pq.read_table(io.BytesIO(files["model_rankings.parquet"]))
    assert table.schema.field("score").type == pa.float64() and table.schema.field("rank").type == pa.int64()
    assert table.schema.field("best").type == pa.int64()  # a best–worst column, empty for pairs, still typed


def test_a_study_without_comparisons_has_no_rankings_table(caire, owner):
    study, _, _ = caire
    assert "model_rankings.csv" not in unzipped(exported(study, owner, "gold"))


def test_the_hf_dataset_loads_the_rankings_as_a_config(compared, owner, tmp_path, monkeypatch):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    folder = unzip(exported(compared, owner, "hf"), tmp_path)
    rankings = load(folder, "model_rankings")
    rows = [r for split in rankings.values() for r in split]
    assert {r["country"] for r in rows} == {"all", "IN", "JP"}
    assert all(isinstance(r["score"], float) for r in rows)
