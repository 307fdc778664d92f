from django.conf import settings
from django.db import models


class ApiToken(models.Model):
    """A researcher's personal API token. Only the SHA-256 of its secret is stored: the whole token
    (``tsr_<prefix>_<secret>``) is shown once, when it is made. ``prefix`` names it in lists and
    finds its row; ``revoked_at`` ends it for good."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=16, unique=True)
    secret_hash = models.CharField(max_length=64)  # hex SHA-256 of the secret part, never the secret
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self):
        return f"{self.name} (tsr_{self.prefix}…)"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None
