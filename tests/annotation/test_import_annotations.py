"""import_annotations: annotations collected elsewhere, in long format, all or nothing, each problem on its line."""

import pytest
from django.core.management import CommandError, call_command

from annotation.importing import AnnotationImportError, annotations_import
from annotation.models import Annotation, Annotator
from studies.models import ItemQuota
from tests import factories as f

HEADER = "item,annotator,country,field,value\n"


@pytest.fixture
def routed(study, pool, other_pool):
    """Items in-1, in-2 (India) and jp-1 (Japan), each with its pool's quota."""
    from studies.services import quotas_for_items

    items = [f.make_item(study, "IN", external_id=f"in-{n}") for n in (1, 2)] + [
        f.make_item(study, "JP", external_id="jp-1")
    ]
    quotas_for_items(items=items)
    return items


def write(tmp_path, body, name="collected.csv"):
    path = tmp_path / name
    path.write_text(HEADER + body)
    return path


GOOD = (
    "in-1,ann-a,IN,alignment,0.5\n"
    "in-1,ann-a,IN,error_types,explicit|implicit\n"
    "in-1,ann-a,IN,overall,4\n"
    "in-1,ann-a,IN,stereotype,no\n"
    "in-1,ann-b,IN,alignment,1\n"
    "in-1,ann-b,IN,overall,5\n"
    "in-2,ann-a,IN,alignment,0\n"
    "jp-1,ann-c,JP,overall,2\n"
)


def test_it_imports_one_annotation_per_item_and_annotator(study, routed, tmp_path):
    report = annotations_import(study=study, rows_file=write(tmp_path, GOOD))

    assert (report.annotations, report.annotators, report.surplus) == (4, 3, 0)
    first = Annotation.objects.get(item__external_id="in-1", annotator__prolific_pid="ann-a")
    assert first.answers == {
        "alignment": 0.5, "error_types": ["explicit", "implicit"], "overall": 4, "stereotype": "no"
    }
    assert first.protocol_version == study.protocol_version
    assert Annotator.objects.get(prolific_pid="ann-c").pool.country == "JP"
    assert ItemQuota.objects.get(item__external_id="in-1").done == 2


def test_imported_annotations_can_be_analysed(study, routed, owner, tmp_path):
    from analysis.services import analysis_run, analysis_start

    annotations_import(study=study, rows_file=write(tmp_path, GOOD))
    run = analysis_run(run_id=analysis_start(study=study, user=owner).pk)
    assert run.status == "done", run.error


def test_beyond_the_quota_they_are_kept_as_surplus(study, routed, tmp_path):
    ItemQuota.objects.filter(item__external_id="jp-1").update(wanted=1, done=1)
    report = annotations_import(study=study, rows_file=write(tmp_path, "jp-1,ann-c,JP,overall,2\n"))
    assert report.surplus == 1 and Annotation.objects.get().surplus


@pytest.mark.parametrize(
    "body, message",
    [
        ("in-9,ann-a,IN,overall,4\n", "line 2: no item 'in-9' in this study"),
        ("in-1,ann-a,IN,stars,4\n", "line 2: no field 'stars' in this study's protocol"),
        ("in-1,ann-a,IN,overall,6\n", "line 2: value '6' of field 'overall': Choose one of the options."),
        (
            "in-1,ann-a,IN,error_types,explicit|sideways\n",
            "line 2: value 'explicit|sideways' of field 'error_types': Tick only the options shown.",
        ),
        ("in-1,ann-a,BR,overall,4\n", "line 2: country 'BR' has no pool in this study"),
        ("jp-1,ann-a,IN,overall,4\n", "line 2: item 'jp-1' is not routed to the pool of IN"),
        ("in-1,ann-a,IN,words,3\n", "line 2: field 'words' is a highlight field, which this format cannot carry"),
        (
            "in-1,ann-a,IN,overall,4\nin-1,ann-a,IN,overall,5\n",
            "line 3: a second value for this item, annotator and field (first on line 2)",
        ),
        (
            "in-1,ann-a,IN,overall,4\njp-1,ann-a,JP,overall,5\n",
            "line 3: annotator 'ann-a' is already in the pool of IN",
        ),
        (",ann-a,IN,overall,4\n", "line 2: 'item' is empty"),
    ],
)
def test_it_refuses_a_bad_row_naming_its_line_and_imports_nothing(study, routed, tmp_path, body, message):
    with pytest.raises(AnnotationImportError) as exc:
        annotations_import(study=study, rows_file=write(tmp_path, body))
    assert any(e.startswith(message) for e in exc.value.errors), exc.value.errors
    assert not Annotation.objects.exists() and not Annotator.objects.exists()


def test_one_bad_row_keeps_the_good_ones_out_too(study, routed, tmp_path):
    with pytest.raises(AnnotationImportError):
        annotations_import(study=study, rows_file=write(tmp_path, GOOD + "in-2,ann-b,IN,overall,9\n"))
    assert not Annotation.objects.exists()
    assert ItemQuota.objects.filter(done__gt=0).count() == 0


def test_an_annotator_cannot_annotate_an_item_twice_across_imports(study, routed, tmp_path):
    annotations_import(study=study, rows_file=write(tmp_path, "in-1,ann-a,IN,overall,4\n"))
    with pytest.raises(AnnotationImportError) as exc:
        annotations_import(study=study, rows_file=write(tmp_path, "in-1,ann-a,IN,quality,1\n"))
    assert exc.value.errors == ["line 2: annotator 'ann-a' already has an annotation of item 'in-1'"]


def test_the_command_reports_success_and_refusals(study, routed, tmp_path, capsys):
    call_command("import_annotations", study.pk, str(write(tmp_path, GOOD)))
    assert "Imported 4 annotations by 3 annotators." in capsys.readouterr().out
    with pytest.raises(CommandError, match="no study with id 999"):
        call_command("import_annotations", 999, str(write(tmp_path, GOOD)))
    with pytest.raises(CommandError, match="line 2: no item 'nope'"):
        call_command("import_annotations", study.pk, str(write(tmp_path, "nope,a,IN,overall,1\n")))
