"""The page reads a summary of the result (long tables cut to their first rows); the JSON download
serves the whole result."""

from django.urls import reverse

from analysis.models import AnalysisRun
from stats.summary import page_summary


def test_long_tables_are_cut_and_counted_and_the_rest_is_kept():
    result = {
        "annotations": 5,
        "reports": [
            {"kind": "human_scores", "result": {"rows": [[n] for n in range(3000)], "countries": [{"rows": 1}]}}
        ],
        "metrics": {"baseline": {"raters": [[n] for n in range(1500)], "summary": {"pearson": {"mean": 0.5}}}},
        "documents": [{"score": {"rows": [[1], [2]]}}],
    }
    summary = page_summary(result)
    human = summary["reports"][0]["result"]
    assert human["rows"] == [[n] for n in range(20)] and human["rows_total"] == 3000
    assert human["countries"] == [{"rows": 1}]  # not a table: a number under the same name
    baseline = summary["metrics"]["baseline"]
    assert len(baseline["raters"]) == 20 and baseline["raters_total"] == 1500
    assert summary["metrics"]["baseline"]["summary"] == {"pearson": {"mean": 0.5}}
    assert summary["documents"][0]["score"] == {"rows": [[1], [2]]}  # short tables kept whole, no total
    assert summary["annotations"] == 5
    assert len(result["reports"][0]["result"]["rows"]) == 3000  # the result itself is untouched


def test_the_page_reads_the_summary_and_the_download_the_whole_result(client, owner, study):
    rows = [[n, "IN", 3.0, 2, 0.5] for n in range(1500)]
    report = {"kind": "human_scores", "title": "Human score", "fields": {"value": "relevance"},
              "result": {"pairs": 1500, "ratings": 3000, "missing": 0, "countries": [], "rows": rows}}
    result = {"annotations": 3000, "fields": [], "documents": [], "reports": [report]}
    run = AnalysisRun.objects.create(study=study, status=AnalysisRun.Status.DONE, result=result,
                                     summary=page_summary(result))
    client.force_login(owner)
    html = client.get(reverse("analysis:analysis", args=[study.pk])).content.decode()
    assert "Showing the first 20 of 1500 rows" in html and "<td>19</td>" in html and "<td>20</td>" not in html
    whole = client.get(reverse("analysis:analysis-result", args=[study.pk, run.pk])).json()
    assert len(whole["reports"][0]["result"]["rows"]) == 1500
