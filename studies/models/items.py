"""What annotators are shown: items with their documents and quotas, the practice test's questions,
and the names every stored file of a study gets."""

import secrets

from django.db import models
from django.db.models import F, Q

from .. import protocol as protocol_engine
from .study import CountryPool, Study

STUDY_FILE_KINDS = ("items", "exports", "uploads", "imports")


def study_files_prefix(study_id: int, kind: str) -> str:
    """Every file stored for a study lives under one of these folders, so it can go with the study."""
    assert kind in STUDY_FILE_KINDS
    return f"{kind}/{study_id}"


def random_name(folder: str, stem: str, suffix: str) -> str:
    """A stored file's name: its folder, a readable stem and a random part, so that knowing (or
    guessing) what a file holds, or when it was written, never gives its name. Every file is stored
    under such a name and served only by scoped views; the name is a second wall, for a storage or
    a proxy that ever exposes them. A download is named for the user by its view, not by this."""
    return f"{folder}/{stem}-{secrets.token_hex(16)}{suffix}"


def stored_name(prefix: str, sha256: str, suffix: str) -> str:
    """A content-addressed file's name (an item image, an upload): its content's hash and a random part."""
    return random_name(f"{prefix}/{sha256[:2]}", sha256, suffix)


def item_image_path(item, filename):
    return stored_name(study_files_prefix(item.study_id, "items"), item.sha256, _suffix(filename))


def _suffix(filename: str) -> str:
    dot = filename.rfind(".")
    return filename[dot:].lower() if dot != -1 else ""


class CheckKind(models.TextChoices):
    """What an item is for quality control (``Item.check_kind``); an ordinary item is none."""

    NONE = "", "Ordinary item"
    ATTENTION = "attention", "Attention check"
    GOLD = "gold", "Gold item"


class ItemQuerySet(models.QuerySet):
    def ordinary(self) -> "ItemQuerySet":
        """The items annotators rate from a quota, that the agreement, reports and exports read:
        not a practice test's example, not an attention check or a gold item."""
        return self.filter(is_example=False, check_kind=CheckKind.NONE)

    def routed_to(self, pool: "CountryPool", *, study: Study | None = None) -> "ItemQuerySet":
        """The items of the pool's study that the study routes to the pool: those of the pool's
        country, or every item when the study routes every item to every pool (``study``: the
        pool's study when the caller has it, so that it is not read again)."""
        study = study or pool.study
        items = self.filter(study_id=study.pk)
        if study.by_country:
            items = items.filter(country=pool.country)
        return items


class Item(models.Model):
    """One thing shown to annotators: here a prompt and the image a model drew for it."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="items")
    external_id = models.CharField(max_length=200, help_text="The item's id in the researcher's own data.")
    country = models.CharField(max_length=2)
    prompt = models.TextField(blank=True)
    caption = models.TextField(blank=True)
    texts = models.JSONField(
        default=dict, blank=True,
        help_text=f"Further named texts: {', '.join(protocol_engine.spec.ITEM_FURTHER_TEXTS)}.",
    )
    candidates = models.JSONField(
        default=list, blank=True, help_text='Texts to choose among: [{"id": "sys-a", "text": "…"}, …].'
    )
    author_pid = models.CharField(
        max_length=64, blank=True, help_text="Prolific id of the annotator who wrote this item; never assigned to them."
    )
    derived = models.BooleanField(
        default=False, editable=False, help_text="Made from another study's annotations (seeding), not imported."
    )
    source = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="derivatives",
        help_text="The item this one refers to (an answer item refers to its question's image).",
    )
    model_name = models.CharField(max_length=200, blank=True)
    category = models.CharField(max_length=200, blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    image = models.ImageField(upload_to=item_image_path, max_length=300, blank=True)
    width = models.PositiveIntegerField(null=True, blank=True)
    height = models.PositiveIntegerField(null=True, blank=True)
    sha256 = models.CharField(max_length=64, blank=True, help_text="Of the image file; empty for an item without one.")
    derived_widths = models.JSONField(
        null=True, blank=True, editable=False,
        help_text="The widths of the image's lighter WebP copies (studies.derivatives); null while not made yet.",
    )
    is_example = models.BooleanField(default=False, help_text="Used by the practice test; never assigned.")
    check_kind = models.CharField(
        "quality check", max_length=10, choices=CheckKind.choices, default="", blank=True,
        help_text="An attention check or a gold item: served by a session's schedule, never from a quota, and "
        "never in the agreement or the exports.",
    )
    expected = models.JSONField(
        null=True, blank=True,
        help_text="A check item's answers by field key: the instructed answers of an attention check, the known "
        "answers of a gold item.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = ItemQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["study", "external_id"], name="item_external_id_unique"),
            # An image is imported once per study; items derived from another study's annotations
            # (answer items of several questions on one image) may share it.
            models.UniqueConstraint(
                fields=["study", "sha256"], condition=~Q(sha256="") & Q(derived=False), name="item_image_unique"
            ),
        ]
        indexes = [models.Index(fields=["study", "country"])]

    def __str__(self):
        return self.external_id

    def image_at(self, position: str):
        """The stored file of the image a request names: the item's own for "", else its several
        images' number ``position`` (as a query parameter gives it); None when there is no such image."""
        if not position:
            return self.image or None
        if not position.isdecimal():
            return None
        found = self.images.filter(position=int(position)).only("image").first()
        return found.image if found is not None else None

    def text_map(self) -> dict[str, str]:
        """The item texts a protocol field or the page may refer to, by name."""
        texts = {name: str(value) for name, value in (self.texts or {}).items()}
        return {**texts, "prompt": self.prompt, "caption": self.caption}


def item_images_path(image, filename):
    return stored_name(study_files_prefix(image.item.study_id, "items"), image.sha256, _suffix(filename))


MAX_ITEM_IMAGES = 8  # a comparison shows 2 to 8 images


class ItemImage(models.Model):
    """One of an item's several images, for a comparison (pairwise, best–worst, rank): the model
    that made it, with its seed and parameters as the researcher gave them. An answer names it by
    ``position`` (1…8), whatever order the annotator saw the images in. An item with one image
    keeps it on ``Item.image``, as before."""

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="images")
    position = models.PositiveSmallIntegerField()
    image = models.ImageField(upload_to=item_images_path, max_length=300)
    width = models.PositiveIntegerField()
    height = models.PositiveIntegerField()
    sha256 = models.CharField(max_length=64)
    derived_widths = models.JSONField(
        null=True, blank=True, editable=False,
        help_text="The widths of the image's lighter WebP copies (studies.derivatives); null while not made yet.",
    )
    model_name = models.CharField(max_length=200, blank=True, help_text="The model that made the image.")
    params = models.JSONField(default=dict, blank=True, help_text="Its seed and generation parameters, as given.")

    class Meta:
        ordering = ["item", "position"]
        constraints = [
            models.UniqueConstraint(fields=["item", "position"], name="item_image_position_unique"),
            models.CheckConstraint(
                condition=Q(position__gte=1) & Q(position__lte=MAX_ITEM_IMAGES), name="item_image_position_range"
            ),
        ]

    def __str__(self):
        return f"{self.item_id} image {self.position}"

    @property
    def ref_id(self) -> str:
        """Its name in answers (``studies.protocol.ImageRef.id``)."""
        return str(self.position)


class Document(models.Model):
    """A document shown with an item (RAVENEA: a retrieved Wikipedia article)."""

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="documents")
    position = models.PositiveSmallIntegerField()
    title = models.CharField(max_length=500)
    url = models.URLField(max_length=1000, blank=True)
    text = models.TextField(blank=True)

    class Meta:
        ordering = ["position"]
        constraints = [models.UniqueConstraint(fields=["item", "position"], name="document_position_unique")]

    def __str__(self):
        return self.title


class ItemQuotaQuerySet(models.QuerySet):
    def with_room(self) -> "ItemQuotaQuerySet":
        """The quotas with a free slot: ``done + leased < wanted``. Every slot is taken by a
        conditional UPDATE on this filter, so it is taken only if still free when the row is written."""
        return self.filter(leased__lt=F("wanted") - F("done"))


class ItemQuota(models.Model):
    """How many annotations one (item, pool) pair wants, has, and has out on lease.

    ``done + leased <= wanted`` is a database constraint; leases are taken with a conditional
    UPDATE on it, so concurrent annotators can never overfill an item.
    """

    # No index of their own: (item, pool) is unique and (pool, done, leased) is indexed, which
    # serve both; an index less is a write less on every lease and submit.
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="quotas", db_index=False)
    pool = models.ForeignKey(CountryPool, on_delete=models.CASCADE, related_name="quotas", db_index=False)
    wanted = models.PositiveSmallIntegerField()
    done = models.PositiveSmallIntegerField(default=0)
    leased = models.PositiveSmallIntegerField(default=0)
    reopened = models.PositiveSmallIntegerField(
        default=0, help_text="Annotations wanted again because a checker flagged one: on top of the pool's number."
    )
    added = models.PositiveSmallIntegerField(
        default=0, help_text="Annotations the adaptive comparison mode added: on top of the pool's number."
    )

    objects = ItemQuotaQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["item", "pool"], name="quota_one_per_item_pool"),
            models.CheckConstraint(condition=Q(done__lte=F("wanted") - F("leased")), name="quota_not_overfilled"),
        ]
        indexes = [models.Index(fields=["pool", "done", "leased"])]

    def __str__(self):
        return f"{self.item} in {self.pool}: {self.done}+{self.leased}/{self.wanted}"


class MockQuestion(models.Model):
    """One question of the practice test, asked about an example item, with its expected answer."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="mock_questions")
    item = models.ForeignKey(Item, on_delete=models.RESTRICT, null=True, blank=True, related_name="+")
    position = models.PositiveSmallIntegerField(default=0)
    text = models.CharField(max_length=500)
    choices = models.JSONField(help_text='A list of answer labels, e.g. ["No", "Partially", "Completely"].')
    expected = models.CharField(max_length=200, help_text="The one right answer: one of the choices.")
    explanation = models.TextField(blank=True, help_text="Shown after a failed attempt.")

    class Meta:
        ordering = ["position", "id"]
        verbose_name = "practice question"

    def __str__(self):
        return self.text
