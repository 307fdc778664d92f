"""The whole API schema fuzzed by schemathesis, against a live server on a built study.

Every operation of ``/api/schema/`` is called with the schema's examples, its boundary values
(the coverage phase) and random valid and invalid inputs (fuzzing), by the study's owner's token.
The run passes when no response is a server error and every response is one the schema describes:
its status code, content type, headers and body (``CHECKS``). Path parameters are pinned to the
built study's objects (``path_values``) so that the fuzzing reaches past the 404 of an unknown id;
the ids left free are fuzzed as any other input.

Left out, and why: ``positive_data_acceptance`` expects every input the schema allows to be
accepted, but the schema gives types and the pages' forms give the rules (a 400 naming the field is
the promised answer to, say, a lease of 0 minutes); ``negative_data_rejection`` expects an unknown
or ill-typed query parameter to be refused, where the API, as DRF's, ignores what it does not read
(the cursor, say, is opaque). ``ignored_auth`` and ``missing_required_header`` run: a request
without the token must be refused.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from api.tokens import api_token_create
from studies.models import Study
from tests.recruitment.fake_prolific import fake_prolific_for
from tests.route_world import build_world

pytestmark = pytest.mark.django_db(transaction=True)

CHECKS = (
    "not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,"
    "response_schema_conformance,ignored_auth,missing_required_header,unsupported_method"
)
MAX_EXAMPLES = 25  # per operation and phase; with the coverage phase, some 3,000 requests in all
SEED = 20261127


def path_values(values: dict) -> dict[str, dict[str, int]]:
    """The built study's objects, by the path parameter that names them, per address (a path
    regex; "" for every address): a job's id is of its own kind."""
    return {
        "": {
            "path.id": values["study"], "path.pool_id": values["pool_pk"], "path.item_id": values["item_pk"],
            "path.run_id": values["run_pk"], "path.upload_id": values["metric_upload"],
            "path.review_id": values["annotation.review"], "path.sub_id": values["sub_pk"],
            "path.bonus_id": values["bonus_pk"],
        },
        "/imports/": {"path.job_id": values["import_job"]},
        "/exports/": {"path.job_id": values["export_job"]},
        "/prolific/": {"path.job_id": values["prolific_job"]},
    }


def schemathesis_config(path: Path, values: dict[str, dict[str, int]]) -> Path:
    lines = ["[parameters]", *(f'"{name}" = {value}' for name, value in values[""].items())]
    for regex, pinned in values.items():
        if regex:
            given = ", ".join(f'"{name}" = {value}' for name, value in pinned.items())
            lines += ["", "[[operations]]", f'include-path-regex = "{regex}"', f"parameters = {{ {given} }}"]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def prolific(settings):
    """Prolific, faked on a loopback port: the fuzzed actions never leave the machine."""
    with fake_prolific_for(settings, site_url=settings.SITE_URL, timeout=1, checked=False) as fake:
        yield fake  # the built study's Prolific study is unknown to it: Prolific answers 404, as it would


def test_the_whole_schema_answers_as_it_says(live_server, prolific, settings, tmp_path):
    settings.API_THROTTLE_READS = settings.API_THROTTLE_WRITES = "100000/min"
    world = build_world(str(tmp_path / "media"))
    owner = Study.objects.get(pk=world.values["study"]).owner
    _, token = api_token_create(user=owner, name="fuzz")
    config = schemathesis_config(tmp_path / "schemathesis.toml", path_values(world.values))
    report = tmp_path / "report.json"
    server = live_server.url.replace("//localhost:", "//127.0.0.1:")  # no name to resolve on each request
    command = [
        sys.executable, "-m", "schemathesis.cli", "--config-file", str(config), "run",
        f"{server}/api/schema/", "--url", server,
        "--header", f"Authorization: Bearer {token}",
        "--checks", CHECKS, "--phases", "examples,coverage,fuzzing",
        "--max-examples", str(MAX_EXAMPLES), "--seed", str(SEED), "--workers", "1",
        "--generation-database", "none", "--request-timeout", "30", "--no-color",
        "--output-sanitize", "true", "--report", "json", "--report-json-path", str(report),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900, cwd=tmp_path)
    said = done.stdout[-20000:] + done.stderr[-4000:]
    assert done.returncode == 0, said
    run = json.loads(report.read_text())
    assert run["complete"] and run["operations"]["tested"] == run["operations"]["total"] > 0, said
    assert run["test_cases"]["with_failures"] == 0 and run["test_cases"]["errored"] == 0, said
    assert run["test_cases"]["generated"] >= 20 * run["operations"]["total"], said  # it did fuzz
