"""State changes of studies: creation from a preset, protocol edits, quotas."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings as django_settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.files.storage import default_storage
from django.db import IntegrityError, transaction
from django.db.models import F

from . import protocol as protocol_engine
from . import translations
from .countries import COUNTRY_NAMES
from .markdown import markdown_problem
from .models import STUDY_FILE_KINDS, CountryPool, Item, ItemQuota, ProtocolVersion, Study, study_files_prefix

PRESETS_DIR = Path(__file__).resolve().parent / "presets"


@dataclass(frozen=True)
class Preset:
    """A ready protocol of a published study, with the study settings it is meant to run with."""

    name: str
    title: str
    description: str
    protocol: dict
    study: dict


def presets_list() -> list[Preset]:
    return [preset_get(path.stem) for path in sorted(PRESETS_DIR.glob("*.json"))]


def preset_get(name: str) -> Preset:
    path = PRESETS_DIR / f"{name}.json"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in PRESETS_DIR.glob("*.json")))
        raise ValueError(f"no preset named {name!r} (known: {known})")
    raw = json.loads(path.read_text())
    return Preset(
        name=name, title=raw["title"], description=raw.get("description", ""),
        protocol=raw["protocol"], study=raw.get("study", {}),
    )


def preset_load(name: str) -> dict:
    """The protocol spec of a preset (a fresh copy: the study may edit it)."""
    return preset_get(name).protocol


def study_create(*, owner: AbstractBaseUser, name: str, protocol: dict, **settings) -> Study:
    """Create a study; the protocol spec is checked first (SpecError names every problem)."""
    protocol_engine.parse_spec(protocol)
    with transaction.atomic():
        study = Study.objects.create(owner=owner, name=name, protocol=protocol, **settings)
        ProtocolVersion.objects.create(study=study, version=study.protocol_version, spec=protocol)
    return study


def study_create_from_preset(*, owner: AbstractBaseUser, preset: str, name: str = "", **settings) -> Study:
    """A study that runs a preset: its protocol (a copy to edit) and its study settings.

    Completion codes are generated when not given; ``settings`` override the preset's.
    """
    chosen = preset_get(preset)
    return study_create(
        owner=owner, name=name or chosen.title, protocol=chosen.protocol,
        **{**completion_codes(), **chosen.study, **settings},
    )


def completion_codes() -> dict[str, str]:
    """Fresh, distinct completion codes, one per outcome of a session."""
    kinds = ("completed", "failed_mock", "not_eligible", "no_consent", "all_skipped", "failed_check")
    codes: set[str] = set()
    while len(codes) < len(kinds):
        codes.add(secrets.token_hex(4).upper())
    return {f"code_{kind}": code for kind, code in zip(kinds, sorted(codes), strict=True)}


def study_delete(*, study: Study) -> None:
    """Delete a study with everything collected for it, then (once committed) its stored files:
    item images and exports, which hold annotators' answers."""
    prefixes = [study_files_prefix(study.pk, kind) for kind in STUDY_FILE_KINDS]
    with transaction.atomic():
        study.delete()
        transaction.on_commit(lambda: [_storage_delete_tree(default_storage, p) for p in prefixes])


def _storage_delete_tree(storage, prefix: str) -> None:
    try:
        folders, files = storage.listdir(prefix)
    except FileNotFoundError:
        return
    for name in files:
        storage.delete(f"{prefix}/{name}")
    for folder in folders:
        _storage_delete_tree(storage, f"{prefix}/{folder}")


def study_set_protocol(*, study: Study, protocol: dict) -> Study:
    """Replace the spec; answers already given keep the version they were given under."""
    protocol_engine.parse_spec(protocol)
    if protocol != study.protocol:
        with transaction.atomic():
            Study.objects.filter(pk=study.pk).update(protocol=protocol, protocol_version=F("protocol_version") + 1)
            study.refresh_from_db(fields=["protocol", "protocol_version"])
            ProtocolVersion.objects.create(study=study, version=study.protocol_version, spec=protocol)
        study.__dict__.pop("spec", None)
    return study


@dataclass(frozen=True)
class ProtocolSaved:
    """What a save of the protocol editor did: the study's version now, and whether it is new."""

    version: int
    new_version: bool
    changed: bool


def study_protocol_save(*, study: Study, protocol: dict) -> ProtocolSaved:
    """The protocol editor's save. The engine checks the spec first (``SpecError`` names every
    problem, and nothing changes). While no annotation was given under the current version and no
    annotator holds an item (whose page shows the current form, and whose submit could be checked
    against it while this runs), that version is replaced where it stands; otherwise a new version
    is made (``study_set_protocol``) and the answers given keep theirs."""
    protocol_engine.parse_spec(protocol)
    if protocol == study.protocol:
        return ProtocolSaved(version=study.protocol_version, new_version=False, changed=False)
    version = study.protocol_version
    with transaction.atomic():
        # One statement decides: the study row changes in place only if no annotation of its current
        # version and no leased item exists when it runs (the reverses of annotation.Annotation.study
        # and annotation.Assignment.pool; "leased" is Assignment.Status.LEASED).
        replaced = (
            Study.objects.filter(pk=study.pk, protocol_version=version)
            .exclude(annotations__protocol_version=version)
            .exclude(pools__assignments__status="leased")
            .update(protocol=protocol)
        )
        if replaced:
            ProtocolVersion.objects.update_or_create(study=study, version=version, defaults={"spec": protocol})
    if replaced:
        study.protocol = protocol
        study.__dict__.pop("spec", None)
        return ProtocolSaved(version=version, new_version=False, changed=True)
    study_set_protocol(study=study, protocol=protocol)
    return ProtocolSaved(version=study.protocol_version, new_version=True, changed=True)


def quotas_sync(*, pool: CountryPool) -> int:
    """Give every item routed to the pool (by its country, or every item) a quota; raise the
    wanted number, never lower it below what is done or leased.

    Returns the number of quotas created.
    """
    with transaction.atomic():
        items = Item.objects.ordinary().routed_to(pool)
        have = set(ItemQuota.objects.filter(pool=pool).values_list("item_id", flat=True))
        new = [
            ItemQuota(item_id=pk, pool=pool, wanted=pool.annotations_per_item)
            for pk in items.values_list("pk", flat=True)
            if pk not in have
        ]
        ItemQuota.objects.bulk_create(new, batch_size=1000)
        # Changing the wanted number never drops below what is done or leased already; the slots a
        # checker reopened (``reopened``) and those the adaptive comparison mode added (``added``,
        # ``analysis.adaptive``) stay on top of it.
        wanted = pool.annotations_per_item + F("reopened") + F("added")
        ItemQuota.objects.filter(pool=pool).exclude(wanted=wanted).filter(
            done__lte=wanted - F("leased")
        ).update(wanted=wanted)
    return len(new)


def quotas_for_items(*, items: list[Item]) -> int:
    """Route freshly imported items: to the pool of their country, or to every pool."""
    if not items:
        return 0
    study = items[0].study
    pools = list(CountryPool.objects.filter(study=study))
    quotas = [
        ItemQuota(item=item, pool=pool, wanted=pool.annotations_per_item)
        for item in items
        if not item.is_example and not item.check_kind
        for pool in pools
        if study.routes(item_country=item.country, pool_country=pool.country)
    ]
    ItemQuota.objects.bulk_create(quotas, batch_size=1000)
    return len(quotas)


RESEARCHER_GROUP = "Researchers"
RESEARCHER_PERMISSIONS = {
    "studies": ["study", "countrypool", "item", "mockquestion"],
    "annotation": ["annotator", "session", "assignment", "annotation"],
}


def researcher_create(*, username: str, password: str | None, email: str = ""):
    """A staff account in the Researchers group: may use the admin, sees only their own studies.
    An existing account of that username is made a researcher; ``password`` (when given) set, and
    ``email`` too when the account has none. ``password=None`` keeps an existing account's password
    (a new one gets an unusable password, set later through the password form)."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group, Permission

    group, _ = Group.objects.get_or_create(name=RESEARCHER_GROUP)
    perms = []
    for app_label, models in RESEARCHER_PERMISSIONS.items():
        actions = ("view",) if app_label == "annotation" else ("view", "add", "change", "delete")
        codenames = [f"{action}_{model}" for model in models for action in actions]
        perms += list(Permission.objects.filter(content_type__app_label=app_label, codename__in=codenames))
    group.permissions.set(perms)
    user, created = get_user_model().objects.get_or_create(
        username=username, defaults={"email": email, "is_staff": True}
    )
    if password is not None and (created or not user.check_password(password)):
        user.set_password(password)
    elif created:
        user.set_unusable_password()
    if email and not user.email:
        user.email = email
    user.is_staff = True
    user.save()
    user.groups.add(group)
    return user


def researcher_grant(*, user) -> None:
    """Make an existing account a researcher's (it may create studies); its password is kept."""
    researcher_create(username=user.get_username(), password=None)
    user.is_staff = True


# --- presets (helper B) ---


def pool_create(*, study: Study, country: str, country_name: str, **settings) -> CountryPool:
    """Add a country pool to a study and give every item routed to it a quota."""
    with transaction.atomic():
        pool = CountryPool.objects.create(study=study, country=country, country_name=country_name, **settings)
        quotas_sync(pool=pool)
    return pool


def pools_create(*, study: Study, countries: list[str], **settings) -> list[CountryPool]:
    """A pool for each country (ISO codes) with the same settings, all or none; WorkspaceError
    naming the countries that have a pool already (found now, or added meanwhile by another request)."""
    _pools_taken_refuse(study, countries)
    try:
        with transaction.atomic():
            return [
                pool_create(study=study, country=code, country_name=COUNTRY_NAMES[code], **settings)
                for code in countries
            ]
    except IntegrityError:  # pool_one_per_country: another request added one of them meanwhile
        _pools_taken_refuse(study, countries)
        raise


def _pools_taken_refuse(study: Study, countries: list[str]) -> None:
    taken = study.pools.filter(country__in=countries).order_by("country_name").values_list("country_name", flat=True)
    if taken:
        raise WorkspaceError(f"This study has a pool for {', '.join(taken)} already.", field="country")


# --- the researcher's workspace: settings, copies and pools ---

STUDY_SETTINGS = (
    "routing", "consent_md", "instructions_md", "items_per_session", "lease_minutes",
    "code_completed", "code_failed_mock", "code_not_eligible", "code_no_consent", "code_all_skipped",
    "code_failed_check",
    "mock_attempts_allowed", "mock_questions_per_attempt", "max_skips_per_session", "language", "translations",
)
POOL_SETTINGS = (
    "annotations_per_item", "min_distinct_annotators",
    "require_born", "require_nationality", "require_childhood", "require_resident", "language", "adaptive_budget",
)


class WorkspaceError(ValueError):
    """A change refused because of what the study holds already; ``field`` names the form field."""

    def __init__(self, message: str, *, field: str | None = None):
        super().__init__(message)
        self.field = field


def study_create_from_study(*, owner: AbstractBaseUser, source: Study, name: str, **settings) -> Study:
    """A new study with another study's protocol, settings and country pools; never its items,
    answers or practice questions. ``settings`` override the copied ones."""
    copied = {field: getattr(source, field) for field in STUDY_SETTINGS}
    with transaction.atomic():
        study = study_create(owner=owner, name=name, protocol=source.protocol, **{**copied, **settings})
        for pool in source.pools.order_by("pk"):
            pool_create(
                study=study, country=pool.country, country_name=pool.country_name,
                **{field: getattr(pool, field) for field in POOL_SETTINGS},
            )
    return study


def study_update(*, study: Study, name: str, **settings) -> Study:
    """Change a study's name and settings. The routing is fixed once the study has items: their
    quotas were made for it."""
    unknown = set(settings) - set(STUDY_SETTINGS)
    assert not unknown, f"not study settings: {unknown}"
    routing_now = Study.objects.filter(pk=study.pk).values_list("routing", flat=True).get()
    if settings.get("routing", routing_now) != routing_now and Item.objects.filter(study=study).exists():
        raise WorkspaceError("The routing cannot change once the study has items.", field="routing")
    study.name = name
    for field, value in settings.items():
        setattr(study, field, value)
    study.save(update_fields=["name", *settings])
    return study


def pool_update(*, pool: CountryPool, **settings) -> CountryPool:
    """Change a pool's settings; a new number of annotations wanted reaches every quota of the
    pool at once (the slots a checker reopened and those the adaptive mode added staying on top),
    and is refused where an item has more annotations done already."""
    unknown = set(settings) - set(POOL_SETTINGS)
    assert not unknown, f"not pool settings: {unknown}"
    wanted = settings.get("annotations_per_item", pool.annotations_per_item)
    with transaction.atomic():
        most = (
            ItemQuota.objects.filter(pool=pool, done__gt=wanted + F("reopened") + F("added"))
            .annotate(need=F("done") - F("reopened") - F("added"))
            .order_by("-need").values_list("done", "need").first()
        )
        if most is not None:
            done, need = most
            extra = f" ({done - need} of them on top of the pool's number)" if done > need else ""
            raise WorkspaceError(
                f"An item of this pool has {done} annotations already{extra}: ask for at least {need}.",
                field="annotations_per_item",
            )
        for field, value in settings.items():
            setattr(pool, field, value)
        pool.save(update_fields=list(settings))
        quotas_sync(pool=pool)
    return pool


# What each status may go to, and the verb the page's button says.
STATUS_MOVES = {
    (Study.Status.DRAFT, Study.Status.OPEN): "open",
    (Study.Status.OPEN, Study.Status.CLOSED): "close",
    (Study.Status.CLOSED, Study.Status.OPEN): "reopen",
}


def study_set_status(*, study: Study, status: str) -> Study:
    """Open a study to annotators, close it, or reopen it (``WorkspaceError`` says why not). A study
    opens only with a pool and an item routed to one (otherwise every entry would meet an empty
    page). Closing turns new entries away; annotators already in finish their session."""
    if (study.status, status) not in STATUS_MOVES:
        now = {Study.Status.DRAFT: "a draft"}.get(study.status, study.status)
        raise WorkspaceError(f"The study is {now}: it cannot become {status or 'that'}.")
    if status == Study.Status.OPEN:
        if not study.pools.exists():
            raise WorkspaceError("Add a country pool before opening the study.")
        if not ItemQuota.objects.filter(pool__study=study).exists():
            raise WorkspaceError("Import items routed to a pool before opening the study.")
    # The status moves only from the one it was read with: two clicks move it once.
    moved = Study.objects.filter(pk=study.pk, status=study.status).update(status=status)
    if not moved:
        raise WorkspaceError("The study's status changed meanwhile; see its page.")
    study.status = status
    return study


# --- the researcher's texts in other languages (``studies.translations``) ---


def study_translations_save(
    *, study: Study, language: str, texts: dict[str, str], drop_unused: bool = False, confirmed: Iterable[str] = ()
) -> Study:
    """Store the study's texts in ``language``: each key of ``texts`` is one of the study's texts
    (``translations.texts_of``), an empty text removes its translation (the study's own shows). The
    translations of texts the protocol no longer has are kept (a question may come back) unless
    ``drop_unused``. A translation typed anew, or ``confirmed`` (keys), is marked as made from the study's
    text as it is now (``translations.source_mark``), so it is outdated once that text changes.
    ``WorkspaceError`` names the text (``field``: its key, or "language") that is
    refused: a language not offered or the study's own, an unknown key, a text too long, Markdown that
    cannot be rendered, a character that cannot be stored; nothing changes then."""
    if language not in dict(django_settings.LANGUAGES):
        raise WorkspaceError(f"“{language}” is not a language the platform offers.", field="language")
    with transaction.atomic():
        locked = Study.objects.select_for_update().get(pk=study.pk)
        if language == locked.language:
            name = translations.LANGUAGE_NAMES[language]
            raise WorkspaceError(f"{name} is the study's own language: its texts are edited in the settings and "
                                 "the protocol, not translated.", field="language")
        known = {t.key: t for t in translations.texts_of(locked)}
        for key, text in texts.items():
            item = known.get(key)
            if item is None:
                raise WorkspaceError(f"The study has no text “{key[:80]}” (its protocol changed?): reload the page.")
            problem = protocol_engine.text_problem(text) or (
                f"Write at most {item.max_chars:,} characters (this has {len(text):,})."
                if len(text) > item.max_chars else None
            ) or (markdown_problem(text) if item.markdown else None)
            if problem:
                raise WorkspaceError(problem, field=key)
        everything = dict(locked.translations) if isinstance(locked.translations, dict) else {}
        stored = everything.get(language)
        kept = {
            k: v for k, v in stored.items() if not drop_unused or k.removeprefix(translations.SOURCE_PREFIX) in known
        } if isinstance(stored, dict) else {}
        confirmed = set(confirmed)
        for key, text in texts.items():
            text, mark = text.strip(), translations.SOURCE_PREFIX + key
            if not text:
                kept.pop(key, None)
                kept.pop(mark, None)
                continue
            if kept.get(key) != text or key in confirmed or mark not in kept:
                kept[mark] = translations.source_mark(known[key].source)
            kept[key] = text
        if kept:
            everything[language] = kept
        else:
            everything.pop(language, None)
        Study.objects.filter(pk=study.pk).update(translations=everything)
    study.translations = everything
    return study
