"""The JSON text of large job results, written and read by orjson (jobs.json_text)."""

import json

import numpy as np
import pytest

from analysis.models import AnalysisRun
from jobs.json_text import FastDecoder, FastEncoder


def test_the_text_means_what_the_json_module_wrote():
    value = {"a": [1, 2.5, None, True, "ü"], 3: {"nested": [{"x": -0.1}]}, "t": (1, 2)}
    text = json.dumps(value, cls=FastEncoder)
    assert json.loads(text) == json.loads(json.dumps(value))  # int keys become text, a tuple a list
    assert json.loads(text, cls=FastDecoder) == json.loads(json.dumps(value))


def test_numpy_numbers_are_written_as_numbers():
    text = json.dumps({"n": np.int64(3), "x": np.float64(0.5), "a": np.arange(3)}, cls=FastEncoder)
    assert json.loads(text) == {"n": 3, "x": 0.5, "a": [0, 1, 2]}


def test_what_orjson_refuses_falls_back_to_the_json_module():
    huge = 2**70  # past 64 bits: orjson refuses it
    assert json.loads(json.dumps({"n": huge}, cls=FastEncoder)) == {"n": huge}
    old = '{"alpha": NaN, "b": [Infinity]}'  # an older result written by the json module
    read = json.loads(old, cls=FastDecoder)
    assert np.isnan(read["alpha"]) and read["b"] == [float("inf")]


def test_a_text_that_is_no_json_is_still_refused():
    with pytest.raises(json.JSONDecodeError):
        json.loads("{not json", cls=FastDecoder)


def test_an_analysis_result_is_stored_and_read_back_whole(study):
    result = {"fields": [{"key": "overall", "alpha": 0.66, "pools": {7: [1, None]}}], "label": "日本"}
    run = AnalysisRun.objects.create(study=study, requested_by=study.owner, result=result, summary={"n": 1})
    run = AnalysisRun.objects.get(pk=run.pk)
    assert run.result == {"fields": [{"key": "overall", "alpha": 0.66, "pools": {"7": [1, None]}}], "label": "日本"}
    assert run.summary == {"n": 1}
