"""python manage.py create_researcher USERNAME [--email E] [--password-env VAR]: a researcher account
(may create studies, sees only its own and those shared with it), made by the deployment's operator.

The password is asked twice in a terminal, or read from the environment variable ``--password-env``
names (never from the command line, where it would stay in the shell's history and the process list),
and checked by the deployment's password validators. An existing account of that username is made a
researcher (its password changed only when one is given).
"""

import getpass
import os
import sys

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.core.validators import validate_email

from studies.services import researcher_create


class Command(BaseCommand):
    help = "Create a researcher account (or make an existing account a researcher)."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--email", default="", help="The researcher's email address (invitations match it).")
        parser.add_argument("--password-env", metavar="VAR",
                            help="Read the password from this environment variable instead of asking.")
        parser.add_argument("--no-input", action="store_true",
                            help="Never ask (an existing account keeps its password).")

    def handle(self, *args, username: str, email: str, password_env: str | None, no_input: bool, **options):
        username = username.strip()
        if not username:
            raise CommandError("Give a username.")
        email = email.strip()
        if email:
            try:
                validate_email(email)
            except ValidationError:
                raise CommandError(f"{email!r} is not an email address.") from None
        existing = get_user_model().objects.filter(username=username).first()
        password = self._password(password_env, no_input=no_input, needed=existing is None)
        if password is not None:
            try:
                validate_password(password, user=existing or get_user_model()(username=username, email=email))
            except ValidationError as exc:
                raise CommandError("The password is refused: " + " ".join(exc.messages)) from None
        user = researcher_create(username=username, password=password, email=email)
        done = "made a researcher" if existing is not None else "created"
        self.stdout.write(f"Researcher {user.get_username()} {done}: they log in at /login/ and create studies.")

    def _password(self, variable: str | None, *, no_input: bool, needed: bool) -> str | None:
        if variable:
            value = os.environ.get(variable)
            if not value:
                raise CommandError(f"The environment variable {variable} is not set or empty.")
            return value
        if no_input or not sys.stdin.isatty():
            if needed:
                raise CommandError("A new account needs a password: give --password-env VAR, or run in a terminal.")
            return None
        first = getpass.getpass("Password: ")
        if first != getpass.getpass("Password (again): "):
            raise CommandError("The two passwords differ.")
        return first or None
