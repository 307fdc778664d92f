"""State changes of studies: creation from a preset, protocol edits, quotas."""

from __future__ import annotations

import json
from pathlib import Path

from django.contrib.auth.models import AbstractBaseUser
from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import F

from . import protocol as protocol_engine
from .models import STUDY_FILE_KINDS, CountryPool, Item, ItemQuota, Study, study_files_prefix

PRESETS_DIR = Path(__file__).resolve().parent / "presets"


def preset_load(name: str) -> dict:
    path = PRESETS_DIR / f"{name}.json"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in PRESETS_DIR.glob("*.json")))
        raise ValueError(f"no preset named {name!r} (known: {known})")
    return json.loads(path.read_text())


def study_create(*, owner: AbstractBaseUser, name: str, protocol: dict, **settings) -> Study:
    """Create a study; the protocol spec is checked first (SpecError names every problem)."""
    protocol_engine.parse_spec(protocol)
    return Study.objects.create(owner=owner, name=name, protocol=protocol, **settings)


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
        Study.objects.filter(pk=study.pk).update(protocol=protocol, protocol_version=F("protocol_version") + 1)
        study.refresh_from_db(fields=["protocol", "protocol_version"])
        study.__dict__.pop("spec", None)
    return study


def quotas_sync(*, pool: CountryPool) -> int:
    """Give every item routed to the pool (by its country) a quota; raise, never lower below use.

    Returns the number of quotas created.
    """
    with transaction.atomic():
        items = Item.objects.filter(study_id=pool.study_id, country=pool.country, is_example=False)
        have = set(ItemQuota.objects.filter(pool=pool).values_list("item_id", flat=True))
        new = [
            ItemQuota(item_id=pk, pool=pool, wanted=pool.annotations_per_item)
            for pk in items.values_list("pk", flat=True)
            if pk not in have
        ]
        ItemQuota.objects.bulk_create(new, batch_size=1000)
        # Changing the wanted number never drops below what is done or leased already.
        ItemQuota.objects.filter(pool=pool).exclude(wanted=pool.annotations_per_item).filter(
            done__lte=pool.annotations_per_item - F("leased")
        ).update(wanted=pool.annotations_per_item)
    return len(new)


def quotas_for_items(*, items: list[Item]) -> int:
    """Route freshly imported items to the pool of their country."""
    if not items:
        return 0
    pools = {p.country: p for p in CountryPool.objects.filter(study_id=items[0].study_id)}
    quotas = [
        ItemQuota(item=item, pool=pools[item.country], wanted=pools[item.country].annotations_per_item)
        for item in items
        if not item.is_example and item.country in pools
    ]
    ItemQuota.objects.bulk_create(quotas, batch_size=1000)
    return len(quotas)


RESEARCHER_GROUP = "Researchers"
RESEARCHER_PERMISSIONS = {
    "studies": ["study", "countrypool", "item", "mockquestion"],
    "annotation": ["annotator", "session", "assignment", "annotation"],
}


def researcher_create(*, username: str, password: str, email: str = ""):
    """A staff account in the Researchers group: may use the admin, sees only their own studies."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group, Permission

    group, _ = Group.objects.get_or_create(name=RESEARCHER_GROUP)
    perms = []
    for app_label, models in RESEARCHER_PERMISSIONS.items():
        actions = ("view",) if app_label == "annotation" else ("view", "add", "change", "delete")
        codenames = [f"{action}_{model}" for model in models for action in actions]
        perms += list(Permission.objects.filter(content_type__app_label=app_label, codename__in=codenames))
    group.permissions.set(perms)
    user, created = get_user_model().objects.get_or_create(username=username, defaults={"email": email, "is_staff": True})
    if created or not user.check_password(password):
        user.set_password(password)
        user.is_staff = True
        user.save()
    user.groups.add(group)
    return user
