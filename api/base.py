"""The API's conventions, in one place: who may call it (a token or the browser's session, of a
researcher), how much (throttles per token), how bodies are read (JSON within a size and a depth),
how lists are paged (a cursor, at most 100 rows) and how refusals read (400 naming the field with the
pages' own messages, 401, 403, 404; never a 500 for a refusal)."""

from __future__ import annotations

from base64 import b64decode
from collections.abc import Callable
from urllib import parse

from django.conf import settings
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import exceptions, status
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.pagination import Cursor, CursorPagination
from rest_framework.parsers import BaseParser, MultiPartParser
from rest_framework.permissions import BasePermission
from rest_framework.throttling import SimpleRateThrottle

from studies.protocol import JsonRefused, SpecError, json_bounded
from studies.services import WorkspaceError

from .models import ApiToken
from .tokens import NOT_RESEARCHER, TokenInvalid, api_token_authenticate, is_researcher

# --- who calls -----------------------------------------------------------------------------------


class BearerTokenAuthentication(BaseAuthentication):
    """``Authorization: Bearer tsr_…``: the token's account, ``request.auth`` the token's row. A header
    that names another scheme is left to the next class (the session)."""

    def authenticate(self, request):
        parts = get_authorization_header(request).split()
        if not parts or parts[0].lower() != b"bearer":
            return None
        if len(parts) != 2:
            raise exceptions.AuthenticationFailed("The Authorization header reads 'Bearer <token>': one token.")
        try:
            token = api_token_authenticate(parts[1].decode("ascii"))
        except UnicodeDecodeError:
            raise exceptions.AuthenticationFailed("Malformed API token: it is plain ASCII.") from None
        except TokenInvalid as refused:
            raise exceptions.AuthenticationFailed(str(refused)) from None
        return token.user, token

    def authenticate_header(self, request) -> str:
        return 'Bearer realm="api"'


class BearerTokenScheme(OpenApiAuthenticationExtension):
    target_class = "api.base.BearerTokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema):
        return {"type": "http", "scheme": "bearer", "description": "A personal API token, tsr_<prefix>_<secret>."}


class IsResearcher(BasePermission):
    """A logged-in researcher (``tokens.is_researcher``); a checker's account is refused (403)."""

    message = NOT_RESEARCHER

    def has_permission(self, request, view) -> bool:
        return is_researcher(request.user)


# --- how much ------------------------------------------------------------------------------------


class TokenThrottle(SimpleRateThrottle):
    """Requests per token (per account on a session): API_THROTTLE_READS for reads,
    API_THROTTLE_WRITES for the rest (settings read on each request)."""

    scope = "api-read"

    def get_rate(self) -> str:
        return settings.API_THROTTLE_READS if self.scope == "api-read" else settings.API_THROTTLE_WRITES

    def allow_request(self, request, view) -> bool:
        self.scope = "api-read" if request.method in ("GET", "HEAD", "OPTIONS") else "api-write"
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)
        return super().allow_request(request, view)

    def get_cache_key(self, request, view) -> str | None:
        if isinstance(request.auth, ApiToken):
            return f"throttle:{self.scope}:token:{request.auth.pk}"
        if request.user and request.user.is_authenticated:
            return f"throttle:{self.scope}:user:{request.user.pk}"
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


# --- how bodies are read -------------------------------------------------------------------------


class BodyTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "too_large"


class BoundedJSONParser(BaseParser):
    """JSON read within API_MAX_BODY_BYTES and ``json_bounded``'s depth (Django's own limit,
    DATA_UPLOAD_MAX_MEMORY_SIZE, guards ``request.body``, which DRF's stream reading skips)."""

    media_type = "application/json"

    def parse(self, stream, media_type=None, parser_context=None):
        limit = settings.API_MAX_BODY_BYTES
        body = stream.read(limit + 1) if stream is not None else b""
        if len(body) > limit:
            raise BodyTooLarge(f"The request body is larger than {limit} bytes.")
        try:
            return json_bounded(body, max_chars=limit)
        except JsonRefused as refused:
            raise exceptions.ParseError(str(refused)) from None


class UploadLimited:
    """A view taking a multipart upload of at most ``upload_limit()`` bytes (a class attribute: a
    function of no argument). A body declared larger is a 413 before anything reads it, by the rule
    the pages share (``studies.uploads.UploadLimitMiddleware``, ahead of every parser and of the
    session's CSRF check)."""

    parser_classes = [MultiPartParser]
    upload_limit: Callable[[], int]


# --- how lists are paged -------------------------------------------------------------------------


CURSOR_MAX_CHARS = 200  # a cursor the API gives is some 20 characters (its position an id)
CURSOR_KEYS = {"o": "offset", "r": "reverse", "p": "position"}


class CursorPage(CursorPagination):
    """A cursor over ``ordering``; ``page_size`` rows a page (API_PAGE_SIZE), at most 100. A cursor
    the API did not give (not base64, an unknown key, a position its ordering's column cannot hold)
    is a 400 naming ``cursor``, on every paged list, never a 500 of the database's."""

    ordering = "-pk"
    page_size_query_param = "page_size"
    max_page_size = 100
    cursor_query_description = (
        "The cursor of a `next` or `previous` link, as given; any other value is a 400 naming `cursor`."
    )
    invalid_cursor_message = "Not a cursor of this list: follow the next and previous links as the API gives them."

    def paginate_queryset(self, queryset, request, view=None):
        self.model = queryset.model  # whose column the cursor's position is checked against
        return super().paginate_queryset(queryset, request, view)

    def decode_cursor(self, request) -> Cursor | None:
        """DRF's cursor (base64 of ``o=<offset>&r=<0|1>&p=<position>``), read strictly: each key at
        most once, the offset up to ``offset_cutoff``, the position a value of the ordering's column."""
        encoded = request.query_params.get(self.cursor_query_param)
        if encoded is None:
            return None
        try:
            if len(encoded) > CURSOR_MAX_CHARS:
                raise ValueError("too long")
            text = b64decode(encoded.encode("ascii"), validate=True).decode("ascii")
            pairs = parse.parse_qsl(text, keep_blank_values=True, strict_parsing=True, max_num_fields=3)
            tokens = dict(pairs)
            if len(tokens) != len(pairs) or not set(tokens) <= set(CURSOR_KEYS):
                raise ValueError("a key unknown or given twice")
            offset, reverse = tokens.get("o", "0"), tokens.get("r", "0")
            if not (offset.isascii() and offset.isdigit() and int(offset) <= self.offset_cutoff):
                raise ValueError("an offset out of range")
            if reverse not in ("0", "1"):
                raise ValueError("a direction out of range")
            position = tokens.get("p")
            if position is not None:
                self._position_check(position)
        except (ValueError, DjangoValidationError):  # binascii.Error and UnicodeError are ValueErrors
            raise exceptions.ValidationError({self.cursor_query_param: [self.invalid_cursor_message]}) from None
        return Cursor(offset=int(offset), reverse=reverse == "1", position=position)

    def _position_check(self, position: str) -> None:
        """A position the ordering's column can hold (its type and, for a number, its range), or a
        ValidationError: the database is never asked to compare the column with what it cannot hold."""
        name = self.ordering[0].lstrip("-")
        opts = self.model._meta
        field = opts.pk if name == "pk" else opts.get_field(name)
        if "\x00" in position:
            raise ValueError("a NUL")
        field.run_validators(field.to_python(position))

    def get_page_size(self, request) -> int:
        """API_PAGE_SIZE, or ``page_size`` when given: a whole number from 1 to 100 (else a 400)."""
        self.page_size = settings.API_PAGE_SIZE
        given = request.query_params.get(self.page_size_query_param)
        if given is None:
            return self.page_size
        if not (given.isascii() and given.isdigit() and 1 <= int(given) <= self.max_page_size):
            raise exceptions.ValidationError(
                {self.page_size_query_param: [f"A whole number from 1 to {self.max_page_size}."]})
        return int(given)

    def get_schema_operation_parameters(self, view) -> list[dict]:
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_size_query_param:
                parameter["schema"] |= {"minimum": 1, "maximum": self.max_page_size}
            if parameter["name"] == self.cursor_query_param:
                parameter["schema"] |= {"maxLength": CURSOR_MAX_CHARS}
        return parameters


# --- how files are served ----------------------------------------------------------------------


class AnyAccept(BaseContentNegotiation):
    """A file's address answers whatever the client accepts (its refusals in JSON)."""

    def select_parser(self, request, parsers):
        return parsers[0] if parsers else None

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


# --- how refusals read ---------------------------------------------------------------------------


def exception_handler(exc, context):
    """DRF's, with the services' refusals as 400s: a WorkspaceError under its field, a protocol
    SpecError under "protocol" (every problem); Django's 404 and 403 keep their message."""
    if isinstance(exc, WorkspaceError):
        exc = exceptions.ValidationError({exc.field or "non_field_errors": [str(exc)]})
    elif isinstance(exc, SpecError):
        exc = exceptions.ValidationError({"protocol": list(exc.errors)})
    elif isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied(str(exc) or None)
    from rest_framework.views import exception_handler as drf_exception_handler  # it imports this module

    return drf_exception_handler(exc, context)
