"""Settings come from the environment, with working defaults, and fail loudly on nonsense.

Settings are read once per process, so each case starts a fresh interpreter with an environment
built here: nothing from the caller's environment (CI sets DATABASE_URL, CELERY_BROKER_URL and
SECRET_KEY) leaks into what is being checked.
"""

import json
from pathlib import Path

from tests.helpers import start_django


def settings_values(tmp_path: Path, expressions: dict[str, str], **env: str) -> dict:
    """Evaluate each expression after setup and return the results by name."""
    body = ", ".join(f"{name!r}: {expr}" for name, expr in expressions.items())
    result = start_django(tmp_path, f"print(json.dumps({{{body}}}, default=str))", **env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_production_refuses_to_start_without_secret_key(tmp_path):
    result = start_django(tmp_path)

    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert "SECRET_KEY is not set" in result.stderr
    assert not (tmp_path / "var" / "dev-secret-key").exists()


def test_production_refuses_an_empty_secret_key(tmp_path):
    result = start_django(tmp_path, SECRET_KEY="")

    assert result.returncode != 0
    assert "SECRET_KEY is not set" in result.stderr


def test_debug_without_secret_key_creates_a_development_key(tmp_path):
    first = settings_values(tmp_path, {"key": "settings.SECRET_KEY", "debug": "settings.DEBUG"}, DEBUG="1")
    second = settings_values(tmp_path, {"key": "settings.SECRET_KEY"}, DEBUG="1")

    key_file = tmp_path / "var" / "dev-secret-key"
    assert first["debug"] is True
    assert key_file.read_text().strip() == first["key"]
    assert len(first["key"]) >= 40
    assert second["key"] == first["key"], "the development key must survive a restart"


def test_an_explicit_secret_key_wins_over_the_development_key(tmp_path):
    values = settings_values(tmp_path, {"key": "settings.SECRET_KEY"}, DEBUG="1", SECRET_KEY="from-the-env")

    assert values["key"] == "from-the-env"
    assert not (tmp_path / "var" / "dev-secret-key").exists()


def test_it_refuses_a_nonsense_debug_value(tmp_path):
    result = start_django(tmp_path, DEBUG="maybe", SECRET_KEY="x")

    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert "DEBUG must be one of" in result.stderr
    assert "'maybe'" in result.stderr


def test_it_refuses_a_nonsense_integer(tmp_path):
    result = start_django(tmp_path, SECRET_KEY="x", IMAGE_MAX_BYTES="20MB")

    assert result.returncode != 0
    assert "IMAGE_MAX_BYTES must be an integer" in result.stderr


def test_production_defaults_are_safe(tmp_path):
    values = settings_values(
        tmp_path,
        {
            "debug": "settings.DEBUG",
            "hosts": "settings.ALLOWED_HOSTS",
            "session_secure": "settings.SESSION_COOKIE_SECURE",
            "csrf_secure": "settings.CSRF_COOKIE_SECURE",
            "proxy_header": "settings.SECURE_PROXY_SSL_HEADER",
        },
        SECRET_KEY="x",
    )

    assert values == {
        "debug": False,
        "hosts": [],
        "session_secure": True,
        "csrf_secure": True,
        "proxy_header": None,
    }


def test_lists_and_flags_are_read_from_the_environment(tmp_path):
    values = settings_values(
        tmp_path,
        {
            "hosts": "settings.ALLOWED_HOSTS",
            "origins": "settings.CSRF_TRUSTED_ORIGINS",
            "site": "settings.SITE_URL",
            "proxy_header": "settings.SECURE_PROXY_SSL_HEADER",
        },
        SECRET_KEY="x",
        ALLOWED_HOSTS="tessera.example.org, www.tessera.example.org",
        CSRF_TRUSTED_ORIGINS="https://tessera.example.org",
        SITE_URL="https://tessera.example.org/",
        BEHIND_HTTPS_PROXY="yes",
    )

    assert values == {
        "hosts": ["tessera.example.org", "www.tessera.example.org"],
        "origins": ["https://tessera.example.org"],
        "site": "https://tessera.example.org",
        "proxy_header": ["HTTP_X_FORWARDED_PROTO", "https"],
    }


def test_database_url_is_parsed(tmp_path):
    values = settings_values(
        tmp_path,
        {"db": "settings.DATABASES['default']"},
        SECRET_KEY="x",
        DATABASE_URL="postgres://tessera:s3cret@db.example.org:6543/tessera_prod",
        DATABASE_CONN_MAX_AGE="60",
    )

    db = values["db"]
    assert db["ENGINE"] == "django.db.backends.postgresql"
    assert (db["NAME"], db["USER"], db["PASSWORD"]) == ("tessera_prod", "tessera", "s3cret")
    assert (db["HOST"], int(db["PORT"])) == ("db.example.org", 6543)
    assert db["CONN_MAX_AGE"] == 60


def test_the_default_database_is_a_sqlite_file_in_the_var_dir(tmp_path):
    values = settings_values(tmp_path, {"db": "settings.DATABASES['default']"}, SECRET_KEY="x")

    db = values["db"]
    assert db["ENGINE"] == "django.db.backends.sqlite3"
    assert Path(db["NAME"]) == tmp_path / "var" / "db.sqlite3"
    assert db["CONN_MAX_AGE"] == 0
    assert db["OPTIONS"]["transaction_mode"] == "IMMEDIATE"


def test_without_a_broker_tasks_run_eagerly(tmp_path):
    values = settings_values(
        tmp_path,
        {
            "eager": "settings.CELERY_TASK_ALWAYS_EAGER",
            "app_eager": "__import__('config.celery').celery.app.conf.task_always_eager",
        },
        SECRET_KEY="x",
    )

    assert values == {"eager": True, "app_eager": True}


def test_with_a_broker_tasks_are_not_eager(tmp_path):
    values = settings_values(
        tmp_path,
        {
            "eager": "settings.CELERY_TASK_ALWAYS_EAGER",
            "app_eager": "__import__('config.celery').celery.app.conf.task_always_eager",
            "broker": "__import__('config.celery').celery.app.conf.broker_url",
        },
        SECRET_KEY="x",
        CELERY_BROKER_URL="redis://127.0.0.1:6379/0",
    )

    assert values == {"eager": False, "app_eager": False, "broker": "redis://127.0.0.1:6379/0"}


def test_login_lockout_is_on_by_default_and_read_from_the_environment(tmp_path):
    names = {"on": "settings.AXES_ENABLED", "limit": "settings.AXES_FAILURE_LIMIT",
             "minutes": "settings.AXES_COOLOFF_TIME.total_seconds() / 60",
             "params": "settings.AXES_LOCKOUT_PARAMETERS", "proxies": "settings.TRUSTED_PROXY_COUNT"}
    default = settings_values(tmp_path, names, SECRET_KEY="x")
    behind_proxy = settings_values(tmp_path, names, SECRET_KEY="x", BEHIND_HTTPS_PROXY="1", LOGIN_FAILURE_LIMIT="8",
                                   LOGIN_LOCKOUT_MINUTES="30", LOGIN_LOCKOUT_PARAMETERS="username+ip_address")

    assert default == {"on": True, "limit": 5, "minutes": 15, "params": ["username", "ip_address"], "proxies": 0}
    assert behind_proxy == {"on": True, "limit": 8, "minutes": 30, "params": [["username", "ip_address"]],
                            "proxies": 1}


def test_it_refuses_nonsense_lockout_parameters(tmp_path):
    result = start_django(tmp_path, SECRET_KEY="x", LOGIN_LOCKOUT_PARAMETERS="username,cookie")

    assert result.returncode != 0
    assert "LOGIN_LOCKOUT_PARAMETERS" in result.stderr


def test_the_api_settings_have_working_defaults(tmp_path):
    values = settings_values(tmp_path, {
        "reads": "settings.API_THROTTLE_READS", "writes": "settings.API_THROTTLE_WRITES",
        "page": "settings.API_PAGE_SIZE", "body": "settings.API_MAX_BODY_BYTES",
    }, DEBUG="1")
    assert values == {"reads": "600/min", "writes": "60/min", "page": 50, "body": 2_621_440}


def test_it_refuses_a_nonsense_api_rate_or_page_size(tmp_path):
    rate = start_django(tmp_path, DEBUG="1", API_THROTTLE_WRITES="lots")
    assert rate.returncode != 0 and "API_THROTTLE_WRITES must read like 60/min" in rate.stderr
    page = start_django(tmp_path, DEBUG="1", API_PAGE_SIZE="500")
    assert page.returncode != 0 and "API_PAGE_SIZE must be between 1 and 100" in page.stderr


CACHE_NAMES = {"backend": "settings.CACHES['default']['BACKEND']",
               "location": "settings.CACHES['default'].get('LOCATION')",
               "prefix": "settings.CACHES['default'].get('KEY_PREFIX')",
               "local": "settings.CACHES['local']['BACKEND']"}
LOCMEM = "django.core.cache.backends.locmem.LocMemCache"


def test_with_a_redis_broker_the_cache_is_that_redis_shared_by_every_node(tmp_path):
    values = settings_values(tmp_path, CACHE_NAMES, SECRET_KEY="x", CELERY_BROKER_URL="redis://127.0.0.1:6379/3")
    assert values == {"backend": "config.redis_cache.RedisCache", "location": "redis://127.0.0.1:6379/3",
                      "prefix": "tessera", "local": LOCMEM}


def test_without_a_broker_the_cache_is_the_process_memory(tmp_path):
    values = settings_values(tmp_path, CACHE_NAMES, SECRET_KEY="x")
    assert values["backend"] == LOCMEM and values["local"] == LOCMEM and values["prefix"] is None
    amqp = settings_values(tmp_path, CACHE_NAMES, SECRET_KEY="x", CELERY_BROKER_URL="amqp://guest@127.0.0.1//")
    assert amqp["backend"] == LOCMEM  # a broker that is not Redis: no cache there


def test_cache_url_wins_over_the_broker(tmp_path):
    redis = settings_values(tmp_path, CACHE_NAMES, SECRET_KEY="x", CELERY_BROKER_URL="redis://127.0.0.1:6379/0",
                            CACHE_URL="rediss://cache.example:6380/2", CACHE_KEY_PREFIX="site-b")
    assert redis == {"backend": "config.redis_cache.RedisCache", "location": "rediss://cache.example:6380/2",
                     "prefix": "site-b", "local": LOCMEM}
    locmem = settings_values(tmp_path, CACHE_NAMES, SECRET_KEY="x", CELERY_BROKER_URL="redis://127.0.0.1:6379/0",
                             CACHE_URL="locmem://")
    assert locmem["backend"] == LOCMEM


def test_it_refuses_a_cache_url_it_cannot_use(tmp_path):
    result = start_django(tmp_path, SECRET_KEY="x", CACHE_URL="memcached://user:pw@127.0.0.1:11211")
    assert result.returncode != 0
    assert "CACHE_URL must be a redis://, rediss:// or locmem:// address" in result.stderr
    assert "pw" not in result.stderr.split("CACHE_URL must be")[-1]  # a password in it is not shown
