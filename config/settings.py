"""Tessera settings. Everything comes from environment variables (see the table in docs/deployment.md)."""

import base64
import re
import secrets
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from .cache import cache_settings
from .env import env_bool, env_int, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("TESSERA_VAR_DIR", str(BASE_DIR / "var")))

DEBUG = env_bool("DEBUG", False)


def _secret_key() -> str:
    key = env_str("SECRET_KEY")
    if key:
        return key
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY is not set. Set it in the environment (DEBUG=1 creates a development key)."
        )
    # Development only: one random key per checkout, kept out of the repository.
    path = VAR_DIR / "dev-secret-key"
    if not path.exists():
        VAR_DIR.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_urlsafe(50))
    return path.read_text().strip()


SECRET_KEY = _secret_key()
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
SITE_URL = env_str("SITE_URL", "http://127.0.0.1:8000").rstrip("/")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "jobs",
    "studies",
    "annotation",
    "analysis",
    "exports",
    "recruitment",
    "workspace",
    "api",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI's and Redoc's files, served from our static files (no CDN)
    "axes",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # before anything reads a body (the CSRF check reads a form): a body declared larger than its
    # route allows is a 413 at once (studies/uploads.py)
    "studies.uploads.UploadLimitMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",  # last: turns a locked-out login into the lockout page
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# Database: SQLite file by default, anything dj-database-url understands otherwise.
DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL") or f"sqlite:///{VAR_DIR / 'db.sqlite3'}",
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 0),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # IMMEDIATE transactions take the write lock up front, so concurrent writers wait
    # (up to `timeout`) instead of failing with "database is locked" mid-transaction.
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
# The annotator's hot queries run as prepared statements of each PostgreSQL connection, planned once
# per connection (annotation/compiled.py). Turn off (0) behind a pooler in transaction mode
# (PgBouncer's default), which does not keep a connection's prepared statements between transactions.
TESSERA_PREPARED_STATEMENTS = env_bool("TESSERA_PREPARED_STATEMENTS", True)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
# Login rate limiting (django-axes) on /login/ and /admin/login/ alike: it watches every
# authenticate() call. LOGIN_FAILURE_LIMIT wrong passwords lock out for LOGIN_LOCKOUT_MINUTES;
# LOGIN_LOCKOUT_PARAMETERS says what is counted: "username" (an account, from any address),
# "ip_address" (an address, on any account), or "username+ip_address" (the pair). A success resets
# only its own account's failures from its own address (config/lockout.py: never the address's
# failures on other accounts, which one valid account would otherwise wipe). Operators unlock with
# the admin's Axes pages or `manage.py axes_reset_username NAME` (`axes_reset_ip ADDRESS`,
# `axes_reset` for everything).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # first: refuses a locked-out login before the password is checked
    "django.contrib.auth.backends.ModelBackend",
]
AXES_ENABLED = env_bool("LOGIN_LOCKOUT", True)
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOGIN_LOCKOUT_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = [
    part.split("+") if "+" in part else part
    for part in env_list("LOGIN_LOCKOUT_PARAMETERS", ["username", "ip_address"])
]
AXES_RESET_ON_SUCCESS = True
AXES_HANDLER = "config.lockout.OwnFailuresResetHandler"
AXES_LOCKOUT_CALLABLE = "config.lockout.lockout_response"  # 429, the wait and what to do
AXES_HTTP_RESPONSE_CODE = 429
AXES_VERBOSE = False  # no banner on every start; lockouts are logged by axes as warnings
# The client's address (config/lockout.py): REMOTE_ADDR, or behind TRUSTED_PROXY_COUNT proxies
# that each append to X-Forwarded-For (default: one behind BEHIND_HTTPS_PROXY, else none, so a
# client can never choose its own address by sending the header).
AXES_CLIENT_IP_CALLABLE = "config.lockout.client_ip"
TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", 1 if env_bool("BEHIND_HTTPS_PROXY", False) else 0)


def _check_login_settings() -> None:
    if AXES_FAILURE_LIMIT < 1 or AXES_COOLOFF_TIME <= timedelta(0) or TRUSTED_PROXY_COUNT < 0:
        raise ImproperlyConfigured(
            "LOGIN_FAILURE_LIMIT and LOGIN_LOCKOUT_MINUTES must be at least 1, TRUSTED_PROXY_COUNT at least 0"
        )
    known = {"username", "ip_address", "user_agent"}
    for part in AXES_LOCKOUT_PARAMETERS:
        names = part if isinstance(part, list) else [part]
        if not names or not set(names) <= known:
            raise ImproperlyConfigured(
                "LOGIN_LOCKOUT_PARAMETERS must list username, ip_address or pairs like username+ip_address; "
                f"got {part!r}"
            )


_check_login_settings()

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "studies:study-list"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en"
# The languages of the annotator's pages: English and three spoken in the seed studies' pools, one
# written right to left. A pool chooses one (CountryPool.language); the annotator may switch.
LANGUAGES = [
    ("en", "English"),
    ("hi", "हिन्दी"),
    ("ja", "日本語"),
    ("ar", "العربية"),
]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# Files: local disk by default, S3 (django-storages) when a bucket is configured.
STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
STATICFILES_DIRS = [BASE_DIR / "static"]
MEDIA_URL = "media/"
MEDIA_ROOT = Path(env_str("MEDIA_ROOT", str(VAR_DIR / "media")))
AWS_STORAGE_BUCKET_NAME = env_str("AWS_STORAGE_BUCKET_NAME")
if AWS_STORAGE_BUCKET_NAME:
    _default_storage = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": AWS_STORAGE_BUCKET_NAME,
            "endpoint_url": env_str("AWS_S3_ENDPOINT_URL") or None,
            "region_name": env_str("AWS_S3_REGION_NAME") or None,
            "querystring_auth": True,
            "file_overwrite": False,
        },
    }
else:
    _default_storage = {"BACKEND": "django.core.files.storage.FileSystemStorage"}
STORAGES = {
    "default": _default_storage,
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "config.staticfiles.MinifiedStaticFilesStorage"  # hashed, minified, gzipped copies
    },
}

# Upload limits for imported item images.
IMAGE_MAX_BYTES = env_int("IMAGE_MAX_BYTES", 20 * 1024 * 1024)
IMAGE_MAX_PIXELS = env_int("IMAGE_MAX_PIXELS", 40_000_000)
# Imported images' lighter WebP copies (studies/derivatives.py) are made after the import commits: by a
# Celery task with a broker, else by a thread of the process (off: at once, as the tests do).
IMAGE_DERIVATIVES_BACKGROUND = env_bool("IMAGE_DERIVATIVES_BACKGROUND", True)
# The item page fetches the likely next item's image ahead (static/annotation/prefetch.js); off: it does not.
ITEM_PREFETCH = env_bool("ITEM_PREFETCH", True)
# Imports from the browser: the rows file and the images zip are refused above these sizes.
# Uploads above FILE_UPLOAD_MAX_MEMORY_SIZE (Django's 2.5 MB) go to a temporary file, never memory.
# The largest request body a route that declares no upload limit of its own accepts (the annotator's
# photo and the admin's item image are at most IMAGE_MAX_BYTES; 1 MiB more for the form around it).
REQUEST_MAX_BYTES = env_int("REQUEST_MAX_BYTES", IMAGE_MAX_BYTES + (1 << 20))
IMPORT_ROWS_MAX_BYTES = env_int("IMPORT_ROWS_MAX_BYTES", 50 * 1024 * 1024)
IMPORT_ZIP_MAX_BYTES = env_int("IMPORT_ZIP_MAX_BYTES", 2 * 1024 * 1024 * 1024)

# Celery: no broker means eager, in-process jobs; a configured broker that cannot be reached
# is an error (publishing fails fast and the job row records it), never a silent fallback.
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL")
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_IGNORE_RESULT = True
CELERY_BROKER_CONNECTION_TIMEOUT = 3
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_PUBLISH_RETRY = True
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.5, "interval_max": 1}
CELERY_BROKER_TRANSPORT_OPTIONS = {"max_retries": 2, "interval_start": 0, "interval_step": 0.5, "interval_max": 1}
# Acknowledged once a task returns, not when it starts: a worker that dies mid-task leaves its
# message to be delivered again (the job tasks also give it back at once when a prefork child is
# lost: ``reject_on_worker_lost`` in analysis/tasks.py and recruitment/tasks.py, which say why that
# is safe). Every task is safe to run twice: the jobs claim their row by a conditional UPDATE, the
# periodic tasks are idempotent sweeps.
CELERY_TASK_ACKS_LATE = True
# One message reserved per worker process: a long job does not hold others back in its prefetch
# (where a second worker could not take them) nor lose them all with its worker.
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# The queue the tasks go to and the worker reads by default ("celery"): a deployment (or a test's
# own worker) that shares a broker may name its own.
CELERY_TASK_DEFAULT_QUEUE = env_str("CELERY_TASK_DEFAULT_QUEUE", "celery") or "celery"
# Django's cache (config/cache.py): CACHE_URL (redis://, rediss:// or locmem://; anything else refused),
# else the broker's Redis when CELERY_BROKER_URL is redis:// (one cache for every web node: the API's
# throttle counts are shared), else each process's memory. Keys start with CACHE_KEY_PREFIX ("tessera").
# CACHES["local"] is always the process's own memory, for values safe to lose. An unreachable Redis is a
# miss, never a 500. Nothing calls cache.clear(): on the broker's database it would empty the queue.
CACHES = cache_settings(env_str("CACHE_URL"), CELERY_BROKER_URL,
                        key_prefix=env_str("CACHE_KEY_PREFIX", "tessera") or "tessera")
# Background jobs (jobs/lifecycle.py): a running job's lease, renewed by its progress at most every
# JOB_HEARTBEAT_SECONDS; past it the job's worker is taken for gone and jobs_reap queues it again
# or fails it. Every body reports progress far more often than the lease.
JOB_LEASE_SECONDS = env_int("JOB_LEASE_SECONDS", 300)
JOB_HEARTBEAT_SECONDS = env_int("JOB_HEARTBEAT_SECONDS", max(1, min(30, JOB_LEASE_SECONDS // 5)))
if not 0 < JOB_HEARTBEAT_SECONDS < JOB_LEASE_SECONDS:
    raise ImproperlyConfigured("JOB_HEARTBEAT_SECONDS must be positive and shorter than JOB_LEASE_SECONDS")
# A queued job that no worker has claimed JOB_QUEUED_GRACE_SECONDS after it was queued (its message
# lost with the broker, or no worker up) has its message sent again once by the reaper, then is
# failed with the reason; a new start of the same analysis does not wait for it. Longer than a job
# ever waits for a free worker. With no broker a job runs in-process as it is queued: nothing waits.
JOB_QUEUED_GRACE_SECONDS = env_int("JOB_QUEUED_GRACE_SECONDS", 600)
if JOB_QUEUED_GRACE_SECONDS < 1:
    raise ImproperlyConfigured("JOB_QUEUED_GRACE_SECONDS must be at least 1")
# With no broker there is no beat: the serving process runs these itself (config/embedded.py), unless
# TESSERA_EMBEDDED_SCHEDULER=0.
TESSERA_EMBEDDED_SCHEDULER = env_bool("TESSERA_EMBEDDED_SCHEDULER", True)
CELERY_BEAT_SCHEDULE = {
    "expire-leases": {"task": "annotation.tasks.assignments_expire_task", "schedule": 60.0},
    "reap-jobs": {"task": "jobs.tasks.jobs_reap_task", "schedule": 60.0},  # every kind of job
    # Prolific: entries let in unverified checked again; submissions, leases and places in step
    # (webhooks do it at once; the sync catches what they missed).
    "prolific-entries-recheck": {"task": "recruitment.tasks.prolific_entries_recheck_task", "schedule": 60.0},
    "prolific-sync": {"task": "recruitment.tasks.prolific_sync_task", "schedule": 600.0},
    # The adaptive comparison mode: a pool's extra budget placed, a step at a time, on its least certain pairs.
    "adapt-comparisons": {"task": "analysis.tasks.comparisons_adapt_task", "schedule": 300.0},
}

# Prolific (recruitment/): the API's base URL, and the deployment-wide token used when a researcher
# has not stored their own (on /prolific/settings/). Without either, Prolific features say so and
# the rest of the platform works as before. A launch needs SITE_URL on https, unless the API URL is
# a loopback address (the tests' fake Prolific, a local trial).
PROLIFIC_API_URL = env_str("PROLIFIC_API_URL", "https://api.prolific.com/api/v1/").rstrip("/") + "/"
PROLIFIC_API_TOKEN = env_str("PROLIFIC_API_TOKEN")
PROLIFIC_API_TIMEOUT = env_int("PROLIFIC_API_TIMEOUT", 15)
PROLIFIC_API_RETRIES = env_int("PROLIFIC_API_RETRIES", 2)
# Prolific's secured study URL (issue 28, part 2): the query parameter carrying its signed token, and
# the audience the token must name. Prolific's docs read so far do not name either: the parameter is
# "prolific_token" unless set, the audience the pool's Prolific study id unless set (docs/prolific.md).
PROLIFIC_ENTRY_TOKEN_PARAM = env_str("PROLIFIC_ENTRY_TOKEN_PARAM", "prolific_token")
PROLIFIC_ENTRY_TOKEN_AUDIENCE = env_str("PROLIFIC_ENTRY_TOKEN_AUDIENCE")
# Researchers' Prolific tokens are encrypted at rest with Fernet. TESSERA_ENCRYPTION_KEY: one or more
# Fernet keys, comma-separated (the first encrypts, every one decrypts: list a new key first to
# rotate). Unset: a key derived from SECRET_KEY with HKDF, so changing SECRET_KEY makes stored tokens
# unreadable (researchers then enter them again).
TESSERA_ENCRYPTION_KEY = env_list("TESSERA_ENCRYPTION_KEY", [])


def _check_prolific_settings() -> None:
    if not PROLIFIC_API_URL.startswith(("https://", "http://")):
        raise ImproperlyConfigured(f"PROLIFIC_API_URL must be an http(s) address; got {PROLIFIC_API_URL!r}")
    for key in TESSERA_ENCRYPTION_KEY:
        try:
            valid = len(base64.urlsafe_b64decode(key.encode("ascii"))) == 32
        except (ValueError, UnicodeEncodeError):
            valid = False
        if not valid:
            raise ImproperlyConfigured(
                "TESSERA_ENCRYPTION_KEY must hold Fernet keys (32 url-safe base64-encoded bytes, e.g. from "
                "`python -c 'from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())'`)"
            )


_check_prolific_settings()

# The researchers' REST API (api/): personal tokens (``Authorization: Bearer tsr_…``) or the browser's
# session (the docs page; CSRF enforced). JSON only, read within API_MAX_BODY_BYTES (default: Django's
# DATA_UPLOAD_MAX_MEMORY_SIZE, 2.5 MB) and json_bounded's depth; lists paged by a cursor, at most
# API_PAGE_SIZE (≤ 100) rows a page; requests throttled per token (per account on a session):
# API_THROTTLE_READS (GET, HEAD, OPTIONS) and API_THROTTLE_WRITES (the rest), e.g. "600/min".
API_MAX_BODY_BYTES = env_int("API_MAX_BODY_BYTES", 2_621_440)
API_PAGE_SIZE = env_int("API_PAGE_SIZE", 50)
if not 1 <= API_PAGE_SIZE <= 100:
    raise ImproperlyConfigured(f"API_PAGE_SIZE must be between 1 and 100; got {API_PAGE_SIZE}")
API_THROTTLE_READS = env_str("API_THROTTLE_READS", "600/min")
API_THROTTLE_WRITES = env_str("API_THROTTLE_WRITES", "60/min")
for _name, _rate in (("API_THROTTLE_READS", API_THROTTLE_READS), ("API_THROTTLE_WRITES", API_THROTTLE_WRITES)):
    if not re.fullmatch(r"[1-9][0-9]*/(s|sec|second|m|min|minute|h|hour|d|day)", _rate):
        raise ImproperlyConfigured(f"{_name} must read like 60/min (a count per s, min, hour or day); got {_rate!r}")
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "api.base.BearerTokenAuthentication",  # first: its WWW-Authenticate makes a missing login a 401
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["api.base.IsResearcher"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["api.base.BoundedJSONParser"],
    "DEFAULT_THROTTLE_CLASSES": ["api.base.TokenThrottle"],
    "DEFAULT_PAGINATION_CLASS": "api.base.CursorPage",
    "DEFAULT_METADATA_CLASS": None,  # OPTIONS is a 405: the schema describes the API
    "PAGE_SIZE": API_PAGE_SIZE,
    "EXCEPTION_HANDLER": "api.base.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    # A visitor without a login (the schema, the docs) is throttled by address: the one the nearest of
    # TRUSTED_PROXY_COUNT proxies wrote, as the login lockout reads it, never one the client sent.
    "NUM_PROXIES": TRUSTED_PROXY_COUNT,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Tessera API",
    "DESCRIPTION": "The researchers' API: the same rules as the pages. Authenticate with a personal token "
    "(`Authorization: Bearer tsr_…`, made on the API tokens page or with `manage.py api_token`).",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SERVE_PERMISSIONS": ["rest_framework.permissions.AllowAny"],  # the API's shape is no secret
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None},  # no call to swagger.io's validator
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "SCHEMA_PATH_PREFIX": "/api/v1",
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums", "api.schema.add_refusals"],
}

SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", not DEBUG)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", not DEBUG)
SESSION_COOKIE_AGE = 60 * 60 * 24 * 14
# An annotator's session is bound to the browser that started it; another browser continues it with
# the session's resume code. With ANNOTATOR_PROLIFIC_REBIND, an entry that Prolific's check verified
# (the SESSION_ID is PROLIFIC_PID's active submission) also moves the session to the new browser.
# Off by default: that check proves only what the link itself shows, so anyone holding another
# participant's link would pass it.
ANNOTATOR_PROLIFIC_REBIND = env_bool("ANNOTATOR_PROLIFIC_REBIND", False)
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if env_bool("BEHIND_HTTPS_PROXY", False) else None
# Behind HTTPS in production: redirect plain HTTP, and tell browsers to use HTTPS only (HSTS, off
# until the deployment sets a duration: it cannot be taken back for that long).
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
}

# Mail (the study invitations): sent through EMAIL_HOST when it is set; printed on the console in
# DEBUG; not sent otherwise (the owner is shown the invitation link to pass on).
EMAIL_HOST = env_str("EMAIL_HOST", "")
EMAIL_PORT = env_int("EMAIL_PORT", 587)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", True)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "tessera@localhost")
EMAIL_BACKEND = (
    "django.core.mail.backends.smtp.EmailBackend" if EMAIL_HOST or not DEBUG
    else "django.core.mail.backends.console.EmailBackend"
)
