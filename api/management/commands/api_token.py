"""python manage.py api_token USERNAME --name NAME: make a researcher's API token and print it once.

  api_token USERNAME --name NAME     a new token (printed once: only its hash is kept)
  api_token USERNAME --list          the account's tokens (prefix, name, made, last used, revoked)
  api_token USERNAME --revoke PREFIX revoke one (the prefix shown by --list: tsr_<prefix>_…)
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from ...models import ApiToken
from ...tokens import TokenRefused, api_token_create, api_token_revoke


class Command(BaseCommand):
    help = "Make (--name), list (--list) or revoke (--revoke PREFIX) a researcher's API tokens."

    def add_arguments(self, parser):
        parser.add_argument("username")
        action = parser.add_mutually_exclusive_group(required=True)
        action.add_argument("--name", help="the new token's name")
        action.add_argument("--list", action="store_true", help="list the account's tokens")
        action.add_argument("--revoke", metavar="PREFIX", help="revoke the token of this prefix")

    def handle(self, *args, username: str, name: str | None, list: bool, revoke: str | None, **options):
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"No account named {username!r}.")
        if list:
            for token in ApiToken.objects.filter(user=user):
                used = f"{token.last_used_at:%Y-%m-%d %H:%M}" if token.last_used_at else "never used"
                state = f"revoked {token.revoked_at:%Y-%m-%d %H:%M}" if token.revoked_at else "live"
                made = f"made {token.created_at:%Y-%m-%d %H:%M}"
                self.stdout.write(f"tsr_{token.prefix}_…  {token.name}  {made}  {used}  {state}")
            return
        if revoke is not None:
            prefix = revoke.removeprefix("tsr_").split("_")[0]
            if not api_token_revoke(user=user, prefix=prefix):
                raise CommandError(f"{username} has no live token tsr_{prefix}_….")
            self.stdout.write(f"Revoked tsr_{prefix}_….")
            return
        try:
            _, plain = api_token_create(user=user, name=name or "")
        except TokenRefused as refused:
            raise CommandError(str(refused)) from None
        self.stderr.write("The token, shown this once (only its hash is kept):")
        self.stdout.write(plain)
