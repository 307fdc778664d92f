"""python manage.py analyse STUDY [--json] — a study's analysis, run here and now — or
python manage.py analyse --csv FILE --level LEVEL [--metric ...] [--weights ...] [--json] —
agreement on a long-format CSV (unit,rater,value) collected elsewhere, with no study — or
python manage.py analyse --pairs FILE [--resamples N] [--seed S] [--json] — Bradley–Terry scores
per group of paired comparisons (left,right,winner and an optional group) collected elsewhere."""

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from analysis.services import AnalysisRefused, analysis_run, analysis_start
from stats.agreement import GWET_WEIGHTS, ICC_FORMS, LEVELS
from stats.comparisons import PairsFormError, bradley_terry, by_group, read_pairs_csv
from stats.longform import METRICS, LongFormError, analyse_long, read_long_csv
from studies.models import Study


class Command(BaseCommand):
    help = (
        "Run a study's analysis in this process (no queue) and print it (--json: the whole result, "
        "the same the results page shows; the run is recorded like one started from the page). "
        "Or, with --csv FILE --level LEVEL, compute agreement on a long-format CSV (unit,rater,value). "
        "Or, with --pairs FILE, fit Bradley–Terry scores (ties halved, bootstrap intervals, ranks) per group "
        "of a CSV of paired comparisons (left,right,winner; winner is left, right or tie; group optional)."
    )

    def add_arguments(self, parser):
        parser.add_argument("study", type=int, nargs="?", help="The study's id.")
        parser.add_argument("--json", action="store_true", help="Print the result as JSON.")
        parser.add_argument("--csv", type=Path, help="A long-format CSV: unit,rater,value (no study).")
        parser.add_argument(
            "--pairs", type=Path,
            help="A CSV of paired comparisons: left,right,winner (left, right or tie), optional group (no study).",
        )
        parser.add_argument("--level", choices=LEVELS, help="Level of measurement of the CSV's values.")
        parser.add_argument("--metric", choices=METRICS, default="alpha", help="Coefficient (default alpha).")
        parser.add_argument(
            "--weights", choices=GWET_WEIGHTS,
            help="Weights of Cohen's kappa (default none) or of Gwet's AC2 (linear, quadratic or ordinal; "
                 "default ordinal for an ordinal level, quadratic for interval and ratio).",
        )
        parser.add_argument(
            "--resamples", type=int, default=1000,
            help="Bootstrap resamples per alpha or per group's Bradley–Terry fit (default 1000; 0: none).",
        )
        parser.add_argument("--seed", type=int, default=0, help="Seed of the bootstrap.")

    def handle(self, *args, study=None, json=False, csv=None, pairs=None, level=None, metric="alpha", weights=None,
               resamples=1000, seed=0, **options):
        if pairs is not None:
            if study is not None or csv is not None:
                raise CommandError("--pairs cannot be combined with a STUDY id or --csv: give one of them")
            if level is not None or weights is not None:
                raise CommandError("--level and --weights apply to --csv, not to --pairs")
            return self._pairs(pairs, resamples=resamples, seed=seed, as_json=json)
        if (study is None) == (csv is None):
            raise CommandError("give either a STUDY id or --csv FILE (or --pairs FILE, alone)")
        if csv is not None:
            return self._csv(
                csv, level=level, metric=metric, weights=weights, resamples=resamples, seed=seed, as_json=json
            )
        target = Study.objects.filter(pk=study).first()
        if target is None:
            raise CommandError(f"no study with id {study}")
        try:
            started = analysis_start(study=target, user=None, queue=False, resamples=resamples, seed=seed)
        except AnalysisRefused as exc:
            raise CommandError(str(exc)) from exc
        run = analysis_run(run_id=started.pk)
        if run.status != run.Status.DONE:
            raise CommandError(f"the analysis failed: {run.error or run.status}")
        if json:
            self.stdout.write(_dumps(run.result))
            return
        self.stdout.write(f"Analysis of {target.name} (run {run.pk}), data {run.data_fingerprint}")
        for field in run.result.get("fields", []):
            self.stdout.write(f"  {field.get('key')} ({field.get('level')}): {_alpha_text(field.get('overall', {}))}")

    def _csv(self, path, *, level, metric, weights, resamples, seed, as_json):
        if level is None:
            raise CommandError("--csv needs --level (nominal, ordinal, interval or ratio)")
        try:
            result = analyse_long(read_long_csv(path), level=level, metric=metric, weights=weights,
                                  n_resamples=resamples, seed=seed)
        except LongFormError as exc:
            raise CommandError(f"{path.name}: " + "\n  ".join(exc.errors)) from None
        if as_json:
            self.stdout.write(_dumps(result))
            return
        over = f"over {result['units']} units, {result['raters']} raters"
        if metric == "icc":
            for name in ICC_FORMS:
                self.stdout.write(f"{name} = {_shown(result[name], result['forms'][name].get('reason'))}")
            self.stdout.write(f"({result['design']} design, {over})")
        else:
            value = result.get(metric, result.get("alpha", result.get("kappa", result.get("agreement"))))
            self.stdout.write(f"{metric} ({level}) = {_shown(value, result.get('reason'))} {over}")
        if result.get("thin"):
            self.stdout.write(f"Too thin to read as stable: {result['thin']}")


    def _pairs(self, path, *, resamples, seed, as_json):
        try:
            groups = by_group(read_pairs_csv(path))
        except PairsFormError as exc:
            raise CommandError(f"{path.name}: " + "\n  ".join(exc.errors)) from None
        try:
            fits = {name: bradley_terry(rows, n_resamples=resamples, seed=seed, confidence=PAIRS_CONFIDENCE)
                    for name, rows in groups.items()}
        except ValueError as exc:  # e.g. negative resamples
            raise CommandError(str(exc)) from None
        if as_json:
            self.stdout.write(_dumps({
                "ties": "halved", "resamples": resamples, "seed": seed, "confidence": PAIRS_CONFIDENCE,
                "groups": {name: fit.as_dict() for name, fit in fits.items()},
            }))
            return
        for name, fit in fits.items():
            self.stdout.write("\n".join(_pairs_table(name, fit, resamples, seed)))


PAIRS_CONFIDENCE = 0.95


def _pairs_table(name, fit, resamples, seed) -> list[str]:
    """One group's scores as a readable table: rank, thing, score, interval; then the position bias."""
    drawn = f"{PAIRS_CONFIDENCE:.0%} intervals from {resamples} resamples, seed {seed}" if resamples else "no intervals"
    lines = [f"{name}: {fit.comparisons} comparisons (ties halved; {drawn})"]
    width = max([5, *(len(str(t.thing)) for t in fit.things)])
    lines.append(f"  {'rank':>4}  {'thing':<{width}}  {'score':>7}  interval")
    for t in fit.things:
        interval = "—" if t.ci_low is None else f"[{_3(t.ci_low)}, {_3(t.ci_high)}]"
        lines.append(f"  {t.rank:>4}  {str(t.thing):<{width}}  {_3(t.score):>7}  {interval}")
    bias = fit.position_bias
    if bias.n:
        lines.append(
            f"  left position won {bias.left_share:.1%} of {bias.n} decisive comparisons "
            f"[{bias.ci_low:.1%}, {bias.ci_high:.1%}], p = {bias.p_value:.3g}"
        )
    if fit.note:
        lines.append(f"  Note: {fit.note}")
    return lines


def _3(value: float) -> str:
    """Three decimals, without the "-0.000" of a score that is 0 but for rounding."""
    return f"{round(value, 3) + 0.0:.3f}"


def _shown(value, reason) -> str:
    return f"undefined ({reason})" if value is None else f"{value:.4f}"


def _figure(value, low, high) -> str:
    shown = "—" if value is None else f"{value:.3f}"
    if value is not None and low is not None:
        shown += f" [{low:.3f}, {high:.3f}]"
    return shown


def _alpha_text(figures) -> str:
    text = f"alpha {_figure(figures.get('alpha'), figures.get('ci_low'), figures.get('ci_high'))}"
    ac = figures.get("ac")
    if ac:
        text += f", {ac['name'].upper()} {_figure(ac.get('value'), ac.get('ci_low'), ac.get('ci_high'))}"
    icc = figures.get("icc")
    if icc:
        form = icc["forms"]["icc1"]
        text += f", ICC(1) {_figure(icc.get('icc1'), form.get('ci_low'), form.get('ci_high'))}"
    text += f", {figures.get('n_units')} units, {figures.get('n_ratings')} ratings"
    return text + (" (thin data)" if figures.get("thin") else "")


def _dumps(result) -> str:
    return json.dumps(result, indent=2, ensure_ascii=False, default=str)
