"""``croissant.json``: the hf folder described in Croissant 1.1 (MLCommons' metadata for ML datasets,
which NeurIPS' datasets track asks for) with its responsible-AI fields (Croissant RAI 1.0). Pure: no
Django, no mlcroissant (the tests validate the file with it and load its records).

- ``distribution``: every data file of the folder as a ``cr:FileObject`` (its path, size, sha256:
  the same as in ``manifest.json``), the card as well, and the shipped images as ``cr:FileSet``\\s,
  one per folder and file type;
- ``recordSet``: a record set per config of the card, its fields from the Arrow schema of its files
  (``fields_of``: a list column an array, a struct's columns sub-fields read by ``jsonPath``, an
  embedded image an ``sc:ImageObject`` read from its bytes); a config split per country reads every
  split's file through a ``cr:FileSet`` and names the split in a ``split`` field (the file's name), a
  config with a ``train`` split (the whole table beside its per-country parts) reads that file;
- the dataset: its name, description, license (a URL where the license has one), version and
  citation of the release it is (``ReleaseInfo``), the languages, keywords, when it was collected;
- ``rai:*``: what the platform knows of how the data was made (``rai_fields``): who annotated
  (countries, pools, numbers, how recruited, pay per hour), how they were screened (eligibility,
  practice test, attention checks, gold items, exclusions and why), agreement per country, known
  limitations, personal data (pseudonyms, no Prolific ids), the release's changes.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa

from .base import ReleaseInfo
from .card import IMAGE, Config, count_text, limitations, md_plain, number_text

CROISSANT = "croissant.json"
CONFORMS_TO = ["http://mlcommons.org/croissant/1.1", "http://mlcommons.org/croissant/RAI/1.0"]
CONTEXT: dict[str, Any] = {  # Croissant 1.1's standard @context (the tests compare it with mlcroissant's)
    "@language": "en", "@vocab": "https://schema.org/", "arrayShape": "cr:arrayShape", "citeAs": "cr:citeAs",
    "column": "cr:column", "conformsTo": "dct:conformsTo", "containedIn": "cr:containedIn",
    "cr": "http://mlcommons.org/croissant/", "rai": "http://mlcommons.org/croissant/RAI/",
    "data": {"@id": "cr:data", "@type": "@json"}, "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
    "dct": "http://purl.org/dc/terms/", "description": {"@container": "@language"},
    "equivalentProperty": "cr:equivalentProperty", "examples": {"@id": "cr:examples", "@type": "@json"},
    "extract": "cr:extract", "field": "cr:field", "fileProperty": "cr:fileProperty", "fileObject": "cr:fileObject",
    "fileSet": "cr:fileSet", "format": "cr:format", "includes": "cr:includes", "isArray": "cr:isArray",
    "isLiveDataset": "cr:isLiveDataset", "jsonPath": "cr:jsonPath", "key": "cr:key", "md5": "cr:md5",
    "name": {"@container": "@language"}, "parentField": "cr:parentField", "path": "cr:path",
    "recordSet": "cr:recordSet", "references": "cr:references", "regex": "cr:regex", "repeated": "cr:repeated",
    "replace": "cr:replace", "samplingRate": "cr:samplingRate", "sc": "https://schema.org/",
    "separator": "cr:separator", "source": "cr:source", "subField": "cr:subField", "transform": "cr:transform",
}
LICENSE_URLS = {
    "cc-by-4.0": "https://creativecommons.org/licenses/by/4.0/",
    "cc-by-sa-4.0": "https://creativecommons.org/licenses/by-sa/4.0/",
    "cc-by-nc-4.0": "https://creativecommons.org/licenses/by-nc/4.0/",
}
MEDIA_TYPES = {".parquet": "application/x-parquet", ".md": "text/markdown", ".png": "image/png",
               ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".webp": "image/webp", ".gif": "image/gif"}
PARQUET = MEDIA_TYPES[".parquet"]
SPLIT = "split"
KEYWORDS = ["culture", "human annotation", "cross-cultural evaluation", "text-to-image", "vision-language models"]


def data_type(t: pa.DataType) -> str:
    """The Croissant data type of a column's Arrow type (a list's: its values'; text for anything else)."""
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return data_type(t.value_type)
    if pa.types.is_boolean(t):
        return "sc:Boolean"
    if pa.types.is_integer(t):
        return "sc:Integer"
    if pa.types.is_floating(t) or pa.types.is_decimal(t):
        return "sc:Float"
    if pa.types.is_timestamp(t):
        return "sc:DateTime"
    if pa.types.is_date(t):
        return "sc:Date"
    return "sc:Text"


def _field(record: str, name: str, t: pa.DataType, source: Mapping[str, Any], path: str,
           images: Sequence[str]) -> dict[str, Any]:
    """The field ``record/name`` read from ``source`` (its column, then ``path`` within a struct)."""
    out: dict[str, Any] = {"@type": "cr:Field", "@id": f"{record}/{name}", "name": name}
    read = {**source, **({"transform": {"jsonPath": path}} if path else {})}
    listed = pa.types.is_list(t) or pa.types.is_large_list(t)
    inner = t.value_type if listed else t
    if listed:
        out["isArray"] = True
    if name in images and inner == IMAGE:
        return {**out, "dataType": "sc:ImageObject",
                "source": {**source, "transform": {"jsonPath": f"{path}.bytes" if path else "bytes"}}}
    if pa.types.is_struct(inner):  # its columns as sub-fields, each read by its path from the struct
        prefix = "" if listed else (f"{path}." if path else "")
        out["subField"] = [_field(out["@id"], inner.field(i).name, inner.field(i).type, source,
                                  prefix + inner.field(i).name, ()) for i in range(inner.num_fields)]
        return out
    return {**out, "dataType": data_type(t), "source": read}


def fields_of(record: str, schema: pa.Schema, source: Mapping[str, Any], images: Sequence[str] = ()
              ) -> list[dict[str, Any]]:
    """The fields of the record set ``record``, a column each, read from ``source`` (a file object's
    or file set's reference)."""
    return [_field(record, f.name, f.type, {**source, "extract": {"column": f.name}}, "", images) for f in schema]


def _reference(config: Config) -> tuple[str, list[str], bool]:
    """Where a config's record set reads its rows: one file's path (``train``, or its one split), or
    the glob of its splits' files; whether it is a set of files, one per split."""
    paths = list(config.splits.values())
    if len(paths) == 1 or "train" in config.splits:
        return config.splits.get("train", paths[0]), paths, False
    folders = {posixpath.dirname(p) for p in paths}
    folder = folders.pop() if len(folders) == 1 else "data"
    return f"{folder}/*.parquet", paths, True


def record_sets(configs: Sequence[Config]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A record set per config, and the file sets they read (a config split per country)."""
    sets, file_sets = [], []
    for c in configs:
        where, _, many = _reference(c)
        if many:
            files = f"{c.name}-files"
            file_sets.append({"@type": "cr:FileSet", "@id": files, "name": files, "encodingFormat": PARQUET,
                              "includes": where})
            source: dict[str, Any] = {"fileSet": {"@id": files}}
            split = {"@type": "cr:Field", "@id": f"{c.name}/{SPLIT}", "name": SPLIT, "dataType": "sc:Text",
                     "description": "The split (a country's code in lower case): the file the row is in.",
                     "source": {**source, "extract": {"fileProperty": "filename"},
                                "transform": {"regex": r"^(.*)\.parquet$"}}}
            fields = [split, *fields_of(c.name, c.schema, source, c.images)]
        else:
            fields = fields_of(c.name, c.schema, {"fileObject": {"@id": where}}, c.images)
        entry = {"@type": "cr:RecordSet", "@id": c.name, "name": c.name, "field": fields}
        if c.note:
            entry["description"] = md_plain(c.note)
        sets.append(entry)
    return sets, file_sets


def distribution(files: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """A file object per data file and the card (``files``: name, bytes, sha256, as the manifest lists
    them), a file set per folder and type of the shipped images."""
    out, image_sets = [], {}
    for f in files:
        name = str(f["name"])
        suffix = posixpath.splitext(name)[1].lower()
        if name.startswith("images/"):
            image_sets.setdefault((posixpath.dirname(name), suffix), MEDIA_TYPES.get(suffix, "image/*"))
        elif suffix in (".parquet", ".md"):
            out.append({"@type": "cr:FileObject", "@id": name, "name": name, "contentUrl": name,
                        "contentSize": f"{f['bytes']} B", "encodingFormat": MEDIA_TYPES[suffix],
                        "sha256": f["sha256"]})
    for (folder, suffix), media in sorted(image_sets.items()):
        key = f"{folder}/*{suffix}"
        out.append({"@type": "cr:FileSet", "@id": key, "name": key, "encodingFormat": media, "includes": key})
    return out


def _pools(sheet: Mapping[str, Any]) -> list[str]:
    out = []
    for p in sheet.get("pools", []):
        asked = "; ".join(p.get("eligibility") or [])
        out.append(f"{p['country_name']} ({p['country']}), {p.get('panel') or 'Prolific'}: "
                   f"{count_text(p['annotators'], 'annotator')}, {count_text(p['annotations'], 'annotation')}; "
                   + (f"eligibility they confirmed: {asked}" if asked else "no eligibility question"))
    return out


def _recruited(sheet: Mapping[str, Any]) -> str:
    launches = sheet.get("recruitment") or []
    if not launches:
        return "Annotators came by the study's own links; no launch on a recruitment platform is recorded."
    return " ".join(f"{r.get('platform')}, {r.get('country')}: {r.get('places')} places, {r.get('reward')} for about "
                    f"{r.get('estimated_minutes')} minutes ({r.get('hourly') or 'unknown'} an hour)."
                    for r in launches)


def _screening(sheet: Mapping[str, Any]) -> list[str]:
    practice = sheet.get("practice") or {}
    s = sheet.get("screening") or {}
    attention, gold, speed = s.get("attention") or {}, s.get("gold") or {}, s.get("speed") or {}
    out = [f"Practice test: {practice['questions']} questions, {practice.get('attempts')} attempts allowed; "
           "those who failed it annotated nothing." if practice.get("questions") else "No practice test."]
    if attention.get("on"):
        where = (f"one after every {attention.get('every')} items" if attention.get("placement") == "every"
                 else f"{attention.get('count')} per session at random places")
        outcomes = s.get("outcomes") or {}
        out.append(f"Attention checks: {where}, drawn from {count_text(attention.get('items') or 0, 'check item')}; "
                   f"a session ended after {outcomes.get('failures')} failed checks.")
    else:
        out.append("No attention checks.")
    out.append(f"Gold items with known answers: {gold.get('rate'):.0%} of the items, "
               f"{count_text(gold.get('items') or 0, 'gold item')}." if gold.get("on") else "No gold items.")
    if speed.get("on"):
        out.append(f"Answers faster than {speed.get('min_seconds') or '–'} s or {speed.get('median_share') or '–'} of "
                   "the item's median time were flagged for review.")
    excluded = sheet.get("excluded") or []
    out.append(f"Excluded after quality control: {count_text(len(excluded), 'annotator')}"
               + ("".join(f"; {e['pseudonym']} ({e.get('annotations') or 0} annotations): {e.get('reason')}"
                          for e in excluded) if excluded else "") + ".")
    return out


def _agreement(sheet: Mapping[str, Any]) -> list[str]:
    out = []
    for a in sheet.get("agreement", []):
        countries = ", ".join(f"{c['country']} {number_text(c['alpha'])}" for c in a.get("countries", []))
        out.append(f"{a['key']}: Krippendorff's alpha {number_text(a['alpha'])} over {number_text(a['n_units'])} units"
                   + (f"; per country: {countries}" if countries else "") + ".")
    return out or ["No field has a level of measurement: no agreement was computed."]


def rai_fields(sheet: Mapping[str, Any], release: ReleaseInfo | None) -> dict[str, Any]:
    """The Croissant RAI properties, from the datasheet's facts (``exports.sources.datasheet``)."""
    collected = sheet.get("collected") or {}
    questions = [f"{q['key']} ({q['type']}{', ' + q['level'] if q.get('level') else ''}): {q['label']}"
                 for q in sheet.get("questions", [])]
    rai: dict[str, Any] = {
        "rai:dataCollection": (
            f"Human annotations collected with Tessera: {count_text(sheet.get('annotations', 0), 'annotation')} by "
            f"{count_text(sheet.get('annotators', 0), 'annotator')}, each session offering "
            f"{sheet.get('items_per_session')} items. {_recruited(sheet)}"),
        "rai:dataCollectionType": ["Crowdsourced annotation"],
        "rai:dataCollectionTimeframe": [t for t in (collected.get("first"), collected.get("last")) if t],
        "rai:dataAnnotationProtocol": [*_screening(sheet), *(f"Question {q}" for q in questions)],
        "rai:dataAnnotationPlatform": ["Tessera", *sorted({str(r.get("platform")) for r in
                                                           sheet.get("recruitment") or []})],
        "rai:dataAnnotationAnalysis": _agreement(sheet),
        "rai:annotationsPerItem": "; ".join(f"{p['country']}: {p['annotations_per_item']} wanted"
                                            for p in sheet.get("pools", [])),
        "rai:annotatorDemographics": _pools(sheet),
        "rai:machineAnnotationTools": ["None: every answer is a person's; gold labels are computed from them "
                                       "(majority, median, Dawid–Skene)."],
        "rai:dataPreprocessingProtocol": [
            "Left out: annotations a checker flagged, withdrawn sessions, and the annotations of excluded annotators.",
            "Each answer is read with the question of its own protocol version."],
        "rai:dataLimitations": [line.removeprefix("- ") for line in limitations(sheet)]
        + ["Annotators said where they were born, grew up and live; nothing verified it."],
        "rai:dataBiases": ["Each country's annotators are the participants of one online panel in it, not a "
                           "sample of its population; small pools give wide intervals."],
        "rai:personalSensitiveInformation": [
            "Annotators are named by pseudonyms, random and not derivable from or to their recruitment "
            "platform's ids; no Prolific id, name or contact is shipped.",
            "Free-text answers may still be identifying."],
        "rai:dataUseCases": ["Measuring how text-to-image and vision-language models represent cultures, per "
                             "country; gold labels to correlate automatic metrics with human judgement."],
    }
    if release is not None:
        since = f"What changed since release {release.previous}:" if release.previous else "What it holds:"
        rai["rai:dataReleaseMaintenancePlan"] = (
            f"Release {release.number} (version {release.version}, data fingerprint {release.data_fingerprint}, "
            f"checked against analysis run {release.analysis_run}). A new release is numbered whenever the data or "
            f"its analysis changes. {since} {' '.join(release.changes) or 'nothing recorded.'}")
    return {k: v for k, v in rai.items() if v}


def croissant(*, sheet: Mapping[str, Any], configs: Sequence[Config], files: Sequence[Mapping[str, Any]],
              license: str, release: ReleaseInfo | None, citation: str, folder: str) -> dict[str, Any]:
    """The whole ``croissant.json`` as data (``files``: the folder's files with their bytes and sha256)."""
    sets, file_sets = record_sets(configs)
    name = str(sheet.get("study") or "Tessera study")
    doc: dict[str, Any] = {
        "@context": CONTEXT, "@type": "sc:Dataset", "conformsTo": CONFORMS_TO,
        "name": name,
        **({"alternateName": folder} if folder else {}),
        "description": (f"{name}: human annotations collected with Tessera, {sheet.get('annotations', 0)} annotations "
                        f"by {sheet.get('annotators', 0)} annotators in "
                        f"{count_text(len(sheet.get('pools', [])), 'country pool')}, with gold labels per country."),
        "license": LICENSE_URLS.get(license, license),
        **({"citeAs": citation} if citation else {}),
        "keywords": KEYWORDS,
        "inLanguage": list(sheet.get("languages") or []),
        "distribution": [*distribution(files), *file_sets],
        "recordSet": sets,
        **rai_fields(sheet, release),
    }
    if release is not None:
        doc["version"] = release.version
        doc["datePublished"] = release.created
    return doc
