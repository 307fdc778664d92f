"""A Hugging Face dataset card (``README.md``): its YAML header and its datasheet. Pure: no Django,
no YAML library (the header is written by ``yaml_text``, every string a JSON-quoted scalar, which
YAML reads as written).

The header: ``license``, ``pretty_name``, ``size_categories``, ``configs`` (each config's
``data_files`` per split, the "manual configuration" of the Hub) and ``dataset_info`` (each config's
``features``, derived from the Arrow schema of its files by ``features_of``, as
``datasets.Features`` writes them; a column holding image files declared an ``Image``). The
datasheet (``datasheet_text``) says how to load the unpacked folder (named for the export:
``manifest.folder_name``), who was asked and how (countries, pool sizes, eligibility, the practice
test, the pay rate of each launch), every question's text, the agreement per field and per
country from the analysis the export was gated on, and known limitations (``limitations``: what is
true of this study, the fields whose units have no Dawid–Skene label and why, then what is true of
any), then the release it is of (``release_text``: version, date, data fingerprint, analysis run,
what changed since the release before) and how to cite it (``citation_text``: a BibTeX entry).

Every text the researcher wrote (the study's name, questions, help, choices, pools, eligibility,
reasons) goes through ``md_text``: the Hub renders the card, so it shows as written, never as HTML
(``<script>``, ``onerror``) or as a link (``[x](javascript:…)``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from stats.agreement.base import STABLE_UNITS, WIDE_INTERVAL
from stats.agreement.differences import SIGNIFICANT
from stats.gold import DS_MIN_ITEMS, DS_MIN_RATINGS

from .base import ReleaseInfo, name_slug

SIZES = ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M"),
         (10_000_000, "1M<n<10M"), (100_000_000, "10M<n<100M"))
DTYPES = {"double": "float64", "float": "float32", "halffloat": "float16"}
LOW_ALPHA = 0.667  # Krippendorff's lowest alpha for tentative conclusions (0.8 for firm ones)


@dataclass(frozen=True)
class Config:
    """One config of the card: its name, its files per split, the Arrow schema they share."""

    name: str
    splits: Mapping[str, str]  # split → path (or glob) inside the folder
    schema: pa.Schema
    default: bool = False
    images: tuple[str, ...] = ()  # columns that hold an image file ({bytes, path}): the ``Image`` feature
    note: str = ""  # what its rows are, as the card's list of configurations says


def size_category(rows: int) -> str:
    return next((label for bound, label in SIZES if rows < bound), "n>100M")


def _dtype(t: pa.DataType) -> str:
    text = str(t)
    return DTYPES.get(text, text)


def _inner(t: pa.DataType) -> Any:
    if pa.types.is_struct(t):
        return [{"name": t.field(i).name, **_body(t.field(i).type)} for i in range(t.num_fields)]
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return {"list": _inner(t.value_type)}
    return _dtype(t)


def _body(t: pa.DataType) -> dict[str, Any]:
    if pa.types.is_struct(t):
        return {"struct": _inner(t)}
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return {"list": _inner(t.value_type)}
    return {"dtype": _dtype(t)}


IMAGE = pa.struct([("bytes", pa.binary()), ("path", pa.string())])  # how ``datasets.Image`` stores an image


def features_of(schema: pa.Schema, images: Sequence[str] = ()) -> list[dict[str, Any]]:
    """The ``features`` of a config, from the Arrow schema of its files; each column of ``images``
    (stored as ``IMAGE``) declared an ``Image``, which ``datasets`` decodes to a PIL image."""
    return [{"name": f.name, **({"dtype": "image"} if f.name in images else _body(f.type))} for f in schema]


_MARKUP = re.compile(r"[&<>\[\]\\]")
_ESCAPED = {"&": "&amp;", "<": "&lt;", ">": "&gt;", "[": "\\[", "]": "\\]", "\\": "\\\\"}


def md_text(value: Any) -> str:
    """Text the researcher wrote, as Markdown that shows it as written: ``& < >`` as HTML entities
    (no tag, no attribute survives), ``[ ]`` and ``\\`` escaped (no link or image syntax)."""
    return _MARKUP.sub(lambda m: _ESCAPED[m.group()], str(value))


_UNESCAPED = re.compile(r"&(amp|lt|gt);|\\([\[\]\\])")
_ENTITIES = {"amp": "&", "lt": "<", "gt": ">"}


def md_plain(text: str) -> str:
    """A card's Markdown line as plain text (``croissant.json``'s): ``md_text``'s escapes undone, code
    spans' backticks dropped."""
    return _UNESCAPED.sub(lambda m: _ENTITIES[m.group(1)] if m.group(1) else m.group(2), text).replace("`", "")


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (int, float)):
        return json.dumps(value)
    return json.dumps(str(value), ensure_ascii=False)


def yaml_text(value: Any, indent: int = 0) -> str:
    """``value`` (mappings, lists, scalars) as block YAML."""
    pad = " " * indent
    lines: list[str] = []
    if isinstance(value, Mapping):
        for key, v in value.items():
            if isinstance(v, (Mapping, list)) and v:
                lines.append(f"{pad}{key}:")
                lines.append(yaml_text(v, indent + 2))
            else:
                lines.append(f"{pad}{key}: {_scalar(v) if not isinstance(v, (Mapping, list)) else '[]'}")
    else:
        for v in value:
            if isinstance(v, (Mapping, list)) and v:
                body = yaml_text(v, indent + 2).lstrip(" ")
                lines.append(f"{pad}- {body}")
            else:
                lines.append(f"{pad}- {_scalar(v)}")
    return "\n".join(lines)


TAGS = ["culture", "human-annotation", "cross-cultural", "tessera", "croissant"]


def header(*, configs: Sequence[Config], license: str, pretty_name: str, rows: int,
           sheet: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The card's YAML header as data: what the Hub reads of a dataset (its license, name, size,
    languages, task categories, how it was annotated, tags), then its configs and their features."""
    languages = list((sheet or {}).get("languages") or [])
    return {
        "license": license,
        "pretty_name": pretty_name,
        "size_categories": [size_category(rows)],
        **({"language": languages, "multilinguality": ["multilingual" if len(languages) > 1 else "monolingual"]}
           if languages else {}),
        "task_categories": list((sheet or {}).get("tasks") or []),
        "annotations_creators": ["crowdsourced"],
        "source_datasets": ["original"],
        "tags": TAGS,
        "configs": [
            {"config_name": c.name, **({"default": True} if c.default else {}),
             "data_files": [{"split": split, "path": path} for split, path in c.splits.items()]}
            for c in configs
        ],
        "dataset_info": [{"config_name": c.name, "features": features_of(c.schema, c.images)} for c in configs],
    }


def agreement_text(agreement: list[dict[str, Any]]) -> list[str]:
    """The card's agreement section: per field, alpha, Gwet's AC1/AC2 and (for numbers) ICC(1), overall
    and per country, each marked where its data are too thin to read as stable."""
    out = ["", "## Agreement (from the analysis run)", "",
           "Krippendorff's alpha; Gwet's AC1 (nominal) or AC2 (weighted as the level allows), which stays "
           "readable where one answer dominates (alpha and kappa then fall though annotators agree); and for "
           "numeric scales ICC(1), the intraclass correlation of a design where each item has its own "
           "annotators. A unit is an item within a country; for a question asked per document "
           "(`container.question`), an (item, document) pair within a country. † marks a figure on data too "
           f"thin for a stable value (fewer than {STABLE_UNITS} units, or an interval wider than {WIDE_INTERVAL:g}).",
           "", "| Field | Level | Alpha | Gwet | ICC(1) | Units | Per country (alpha / Gwet) |",
           "|---|---|---|---|---|---|---|"]
    for a in agreement:
        countries = ", ".join(f"{c['country']}: {number_text(c['alpha'])} / {number_text(c.get('ac'))}{_thin(c)}"
                              for c in a.get("countries", []))
        gwet = f"{(a.get('ac_name') or '').upper()} {number_text(a.get('ac'))}" if a.get("ac_name") else "–"
        out.append(f"| {_cell(a['label'] or a['key'])} (`{a['key']}`) | {a['level'] or '–'} | "
                   f"{number_text(a['alpha'])}{_thin(a)} | {gwet} | {number_text(a.get('icc1'))} | "
                   f"{number_text(a['n_units'])} | {countries or '–'} |")
    found = [(a, d) for a in agreement for d in a.get("differences") or ()]
    out += ["", "### Differences between countries", "",
            "Differences in alpha (and in the mean rating) between two countries, or a country and all the others, "
            f"that hold after Holm's correction across the pairs (permutation p < {SIGNIFICANT:g}); the interval "
            "resamples items within each country."]
    if not found:
        return [*out, "", "None: no difference between countries this data can tell from chance."]
    out += ["", "| Field | Statistic | Countries | Difference [95% CI] | Holm p |", "|---|---|---|---|---|"]
    for a, d in found:
        interval = f" [{number_text(d['ci_low'])}, {number_text(d['ci_high'])}]" if d.get("ci_low") is not None else ""
        out.append(f"| `{a['key']}` | {d['statistic']} | {d['a']} − {d['b']} | "
                   f"{number_text(d['difference'])}{interval} | {number_text(d['p_holm'])} |")
    return out


def _thin(figures: dict[str, Any]) -> str:
    return " †" if figures.get("thin") else ""


def number_text(value: Any) -> str:
    return "–" if value is None else f"{value:.3f}" if isinstance(value, float) else str(value)


def loading_text(folder: str, configs: Sequence[Config]) -> list[str]:
    """How to load the unpacked folder (``folder``: the ZIP's top folder; none: no section)."""
    if not folder:
        return []
    default = next((c.name for c in configs if c.default), configs[0].name if configs else "raw")
    return ["", "## Loading", "",
            f"The ZIP unpacks to the folder `{folder}/` (this card and `manifest.json` inside it; every path "
            "below is relative to it). Its name is this export's own (study, day, fingerprint), so two exports "
            "unpacked side by side never mix, in the folder or in the `datasets` cache:", "",
            "```python", "import datasets", "",
            f'data = datasets.load_dataset("{folder}", "{default}")  # or any configuration below', "```"]


def datasheet_text(sheet: Mapping[str, Any], configs: Sequence[Config], license: str,
                   missing: Mapping[str, str] | None = None, *, folder: str = "",
                   withheld: Mapping[str, str] | None = None) -> str:
    """The card's Markdown body from the export's datasheet facts (``exports.sources.datasheet``);
    ``withheld``: per field, the units left without a Dawid–Skene label and why (``ds_withheld``)."""
    out = [f"# {md_text(sheet.get('study', 'Dataset'))}", "",
           f"Human annotations collected with Tessera: {sheet.get('annotations', 0)} annotations by "
           f"{sheet.get('annotators', 0)} annotators, checked against analysis run {sheet.get('analysis_run')}. "
           f"License: {license}."]
    out += loading_text(folder, configs)
    out += ["", "## Configurations", ""]
    out += [f"- `{c.name}`: splits {', '.join(f'`{s}`' for s in c.splits)}{f'. {c.note}' if c.note else ''}"
            for c in configs]
    out += [f"- `{name}`: not computed ({reason})" for name, reason in (missing or {}).items()]
    out += ["", "## Who was asked and how", "", "| Country | Panel | Annotators | Annotations "
            "| Ratings wanted per item | Eligibility (annotators said they…) |", "|---|---|---|---|---|---|"]
    for p in sheet.get("pools", []):
        panel = _cell(p.get("panel") or "Prolific") + ("" if p.get("panel_verified", True) else " (ids unverified)")
        out.append(f"| {_cell(p['country_name'])} ({_cell(p['country'])}) | {panel} | {p['annotators']} | "
                   f"{p['annotations']} | "
                   f"{p['annotations_per_item']} | {_cell('; '.join(p['eligibility'])) or 'no question asked'} |")
    practice = sheet.get("practice") or {}
    out += ["", f"Each session offered {sheet.get('items_per_session')} items. "
            + (f"A practice test of {practice.get('questions')} questions came first "
               f"({practice.get('attempts')} attempts allowed)." if practice.get("questions") else "No practice test.")]
    launches = sheet.get("recruitment") or []
    if launches:
        out += ["", "Recruitment and pay:", ""]
        out += [f"- {r.get('platform')}, {r.get('country')}: {r.get('places')} places, {r.get('reward')} for about "
                f"{r.get('estimated_minutes')} minutes ({r.get('hourly') or '–'} an hour)" for r in launches]
    else:
        out += ["", "No launch on a recruitment platform is recorded (annotators came by the study's own links)."]
    out += ["", "## The questions", ""]
    versions = sheet.get("versions") or []
    if len(versions) > 1:
        current = versions[0]
        out += [f"Answers span {len(versions)} protocol versions. The questions of version {current['version']} "
                f"(the current one): {count_text(current['annotations'], 'annotation')}; then what each earlier "
                "version asked otherwise.", ""]
    for q in sheet.get("questions", []):
        out.append(_question(q, 0))
    for version in versions[1:]:
        out += ["", f"### Version {version['version']} ({count_text(version['annotations'], 'annotation')})", ""]
        out += _changes(version, sheet.get("questions", []))
    out += agreement_text(sheet.get("agreement", []))
    out += excluded_text(sheet.get("excluded") or [])
    out += ["", "## Known limitations", "", *limitations(sheet), *withheld_text(withheld or {}),
            "- Annotators said where they were born, grew up and live; nothing verified it.",
            "- Annotations a checker flagged and withdrawn sessions are left out; the rest were not all reviewed.",
            "- Small pools give wide intervals: read each gold row's `n` and `agreement` before its label.",
            f"- A Dawid–Skene label (`ds_label`, `ds_probability`) is given only where there is data enough for "
            f"it: an annotator counts in the fit once they rated at least {DS_MIN_ITEMS} items of the question (below "
            f"that, EM fits their few answers exactly and calls every label certain), and an item needs at least "
            f"{DS_MIN_RATINGS} ratings from such annotators; elsewhere `ds_label` is empty and `ds_note` says why. "
            "Even then, with few annotators `ds_probability` runs ahead of how often the label is right: read it "
            "as an upper bound, beside the majority or median.",
            "- Dawid–Skene competences assume each annotator errs the same way on every item.",
            "- Annotators are named by pseudonyms; their answers may still be identifying in free text.", ""]
    return "\n".join(out)


def withheld_text(withheld: Mapping[str, str]) -> list[str]:
    """A limitation line per field whose units have no Dawid–Skene label, with how many and why."""
    return [f"- `{key}`: {md_text(why)}." for key, why in withheld.items()]


def excluded_text(excluded: Sequence[Mapping[str, Any]]) -> list[str]:
    """The card's section on the annotators the researcher excluded (none: no section)."""
    if not excluded:
        return []
    total = sum(e.get("annotations") or 0 for e in excluded)
    out = ["", "## Excluded annotators", "",
           f"The researcher excluded {count_text(len(excluded), 'annotator')} after quality control; their "
           f"{count_text(total, 'annotation')} are left out of this dataset and of the agreement above.", "",
           "| Annotator | Annotations left out | Reason |", "|---|---|---|"]
    out += [f"| `{e['pseudonym']}` | {e.get('annotations') or 0} | {_cell(str(e.get('reason') or ''))} |"
            for e in excluded]
    return out


def _cell(text: str) -> str:
    """Free text as one Markdown table cell (``md_text``, on one line, its pipes escaped)."""
    return md_text(" ".join(str(text).split())).replace("|", "\\|")


def limitations(sheet: Mapping[str, Any]) -> list[str]:
    """What is known to limit this study's data, a line each, from its datasheet: pools with fewer
    annotators than the ratings (or distinct annotators) wanted, fields whose agreement is below
    ``LOW_ALPHA``, entries through Prolific let in unverified, answers over several protocol versions."""
    lines = []
    for p in sheet.get("pools", []):
        people, wanted = p.get("annotators") or 0, p.get("annotations_per_item") or 0
        distinct = p.get("min_distinct_annotators") or 0
        name = f"{md_text(p['country_name'])} ({md_text(p['country'])}): {count_text(people, 'annotator')}"
        if people < wanted:
            lines.append(f"- {name}, fewer than the {wanted} ratings wanted per item: no item of it can have "
                         "that many different raters.")
        elif people < distinct:
            lines.append(f"- {name}, fewer than the {distinct} different annotators wanted.")
    low = [a for a in sheet.get("agreement", []) if a.get("alpha") is not None and a["alpha"] < LOW_ALPHA]
    if low:
        fields = ", ".join(f"`{a['key']}` ({number_text(a['alpha'])})" for a in low)
        lines.append(f"- Agreement below alpha {LOW_ALPHA} (Krippendorff's lowest bar for tentative conclusions): "
                     f"{fields}. Read these fields' gold labels with care.")
    for r in sheet.get("recruitment") or []:
        n = r.get("unverified_entries") or 0
        if n:
            lines.append(f"- {count_text(n, 'entry')} through {r.get('platform')} ({r.get('country')}) "
                         f"{'was' if n == 1 else 'were'} let in without {r.get('platform')}'s confirmation of the "
                         "participant (its check could not be made, or found no match).")
    versions = sheet.get("versions") or []
    if len(versions) > 1:
        lines.append(f"- Answers span {len(versions)} protocol versions (see The questions): an answer is read "
                     "with its own version's question, which may have been worded or offered otherwise.")
    return lines


def count_text(n: int, noun: str) -> str:
    plural = f"{noun[:-1]}ies" if noun.endswith("y") else f"{noun}s"
    return f"{n} {noun if n == 1 else plural}"


def _changes(version: Mapping[str, Any], current: Sequence[Mapping[str, Any]]) -> list[str]:
    """What an earlier version asked otherwise than the current ``questions``, a line each."""
    if not version.get("kept", True):
        return ["Its spec was not kept: its answers were read with the current questions."]
    now = {q["key"]: q for q in current}
    then = {q["key"]: q for q in version.get("questions", [])}
    lines = [f"- {'Asked then, not now' if key not in now else 'Asked otherwise then'}: {_question(q, 0)[2:]}"
             for key, q in then.items() if now.get(key) != q]
    lines += [f"- Not asked then: `{key}`." for key in now if key not in then]
    return lines or ["The same questions as the current version."]


def _question(q: Mapping[str, Any], depth: int) -> str:
    pad = "  " * depth
    text = f"{pad}- `{q['key']}` ({q['type']}{', ' + q['level'] if q.get('level') else ''}): {md_text(q['label'])}"
    if q.get("help"):
        text += f" — {md_text(q['help'])}"
    if q.get("choices"):
        text += f" Choices: {md_text(', '.join(map(str, q['choices'])))}."
    for sub in q.get("fields", []):
        text += "\n" + _question(sub, depth + 1)
    return text


_BIBTEX = re.compile(r"[\\{}%&$#_^~<>\[\]]")
_BIBTEX_ESCAPED = {"\\": r"\textbackslash{}", "^": r"\^{}", "~": r"\~{}", "<": r"\textless{}",
                   ">": r"\textgreater{}", "[": "{[}", "]": "{]}"}


def bibtex_text(value: Any) -> str:
    """Text in a BibTeX field's braces, on one line: LaTeX's special characters escaped (a brace can
    neither end the field nor open another), ``< >`` as LaTeX's ``\\textless`` and ``\\textgreater``
    and brackets braced, so the card, which shows the entry in a code block, holds no tag and no link
    syntax even as raw text."""
    return _BIBTEX.sub(lambda m: _BIBTEX_ESCAPED.get(m.group(), "\\" + m.group()), " ".join(str(value).split()))


def citation_text(study_name: str, release: ReleaseInfo) -> str:
    """How to cite ``release`` of the study ``study_name``: a BibTeX ``@misc`` entry whose title is
    the study's name, with the release's year and version, and a note naming the release, its data
    fingerprint and analysis run, and Tessera. Pure; the card shows it, Croissant's ``citeAs`` too."""
    slug = name_slug(study_name).replace("-", "_")
    note = (f"Release {release.number} of the study's gold data (data fingerprint {release.data_fingerprint}, "
            f"checked against analysis run {release.analysis_run}), exported with Tessera")
    return "\n".join([
        f"@misc{{{slug}_release_{release.number},",
        f"  title = {{{bibtex_text(study_name)}}},",
        f"  year = {{{release.created[:4]}}},",
        f"  version = {{{release.version}}},",
        f"  note = {{{bibtex_text(note)}}},",
        "}",
    ])


def _fence(text: str) -> str:
    """A code fence longer than any run of backticks in ``text`` (which so cannot close it)."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def release_text(study_name: str, release: ReleaseInfo | None) -> list[str]:
    """The card's release section (version, date, fingerprint, analysis run, what changed since the
    release before) and its citation; none for an export outside a release."""
    if release is None:
        return []
    since = f"since release {release.previous}" if release.previous else "(the first release)"
    out = ["", "## Release", "",
           f"Release {release.number} (version {release.version}) of this study's gold data, made "
           f"{release.created}: the data with fingerprint `{release.data_fingerprint}` as analysis run "
           f"{release.analysis_run} checked it. Every export of the same data checked by the same run is this "
           "release, whatever its format.", "", f"What changed {since}:", ""]
    out += [f"- {md_text(line)}" for line in release.changes] or ["- Nothing recorded."]
    citation = citation_text(study_name, release)
    fence = _fence(citation)
    return [*out, "", "## Citation", "", "Cite this release as:", "", f"{fence}bibtex", citation, fence]


def card_text(*, sheet: Mapping[str, Any], configs: Sequence[Config], license: str, rows: int,
              missing: Mapping[str, str] | None = None, folder: str = "",
              withheld: Mapping[str, str] | None = None, release: ReleaseInfo | None = None) -> str:
    """The whole ``README.md``: the YAML header between ``---`` lines, then the datasheet (``missing``:
    the paper tables not computed, by name, with why; ``folder``: the ZIP's top folder, which the card
    names in how to load it; ``withheld``: the fields' units without a Dawid–Skene label, and why),
    then the release it is of and how to cite it (``release``; none: no such sections)."""
    name = md_text(sheet.get("study") or "Tessera study")  # the Hub shows it too
    head = header(configs=configs, license=license, pretty_name=name, rows=rows, sheet=sheet)
    body = datasheet_text(sheet, configs, license, missing, folder=folder, withheld=withheld)
    tail = "\n".join(release_text(str(sheet.get("study") or "Tessera study"), release))
    return f"---\n{yaml_text(head)}\n---\n\n{body}{tail}{chr(10) if tail else ''}"
