"""The language of the annotator's pages: the one the annotator chose (the bar's language menu, kept in
Django's language cookie), else their pool's, else their study's, else English.

Only the annotator's pages are translated; the researcher's workspace stays in ``LANGUAGE_CODE``, so
there is no site-wide ``LocaleMiddleware``: each annotator view renders inside ``annotator_language``."""

from __future__ import annotations

from contextlib import contextmanager
from functools import wraps

from django.conf import settings
from django.utils import translation
from django.utils.cache import patch_vary_headers

CODES = frozenset(code for code, _ in settings.LANGUAGES)


def chosen_language(request) -> str | None:
    """The language the annotator picked in the bar's menu, if it is one we ship."""
    code = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME)
    return code if code in CODES else None


def pool_language(pool, study=None) -> str:
    """The language ``pool``'s annotators see first: the pool's own, else its study's texts' language
    (``study``: the pool's study when the caller has it loaded, saving a query on the hot path)."""
    code = pool.language or (study or pool.study).language
    return code if code in CODES else settings.LANGUAGE_CODE


def page_language(request, pool=None, study=None) -> str:
    """The language of an annotator page for ``request``: their choice, else ``pool``'s; without a pool
    (a link that names no study) the browser's preferred language among ours."""
    chosen = chosen_language(request)
    if chosen:
        return chosen
    if pool is not None:
        return pool_language(pool, study)
    return translation.get_language_from_request(request)


@contextmanager
def annotator_language(request, pool=None, study=None):
    """Render inside the annotator's language; ``request.LANGUAGE_CODE`` says which."""
    code = page_language(request, pool, study)
    request.LANGUAGE_CODE = code
    with translation.override(code):
        yield code


def language_response(response, code: str):
    """Mark ``response`` as in ``code``, varying with the cookie that may choose it."""
    response.headers.setdefault("Content-Language", code)
    patch_vary_headers(response, ("Cookie",))
    return response


def in_annotator_language(pool_of=None):
    """A view decorator: the view renders in the annotator's language. ``pool_of(request, *args,
    **kwargs)`` names the pool when the view knows it before it runs (None: the browser's language)."""

    def decorator(view):
        @wraps(view)
        def wrapped(request, *args, **kwargs):
            pool = pool_of(request, *args, **kwargs) if pool_of else None
            with annotator_language(request, pool) as code:
                return language_response(view(request, *args, **kwargs), code)

        return wrapped

    return decorator
