"""``manage.py export STUDY --format hf --push-to-hub REPO``: the Hugging Face folder pushed to a Hub
dataset repository, checked against the fake Hub of ``fake_hub.py`` on a loopback port (never the
real Hub): every file arrives as it was written, large and binary files through LFS, a release tagged."""

import base64
import hashlib
import io
import json
import socket
import urllib.error
import urllib.request
import zipfile

import pytest
from django.core.management import CommandError, call_command
from huggingface_hub import constants

from analysis.models import AnalysisRun
from analysis.services import analysis_run
from exports.hub import HubPushError, Release, hub_push, hub_release, unpacked_top
from tests.annotations import annotate, submitted
from tests.exports.fake_hub import GITATTRIBUTES, FakeHub

REPO = "my-lab/caire-small"


def analysed(study, owner):
    run = analysis_run(run_id=AnalysisRun.objects.create(study=study, requested_by=owner).pk)
    assert run.status == AnalysisRun.Status.DONE, run.error
    return study


def run(*args) -> str:
    out, err = io.StringIO(), io.StringIO()
    call_command("export", *map(str, args), stdout=out, stderr=err)
    return out.getvalue() + err.getvalue()


def folder_of(out) -> dict[str, bytes]:
    """The files of the one hf export written in ``out``, by their path in its top folder."""
    (written,) = out.glob("*.zip")
    with zipfile.ZipFile(written) as zf:
        top = zf.namelist()[0].split("/", 1)[0]
        return {n.removeprefix(f"{top}/"): zf.read(n) for n in zf.namelist() if not n.endswith("/")}


@pytest.fixture
def out(tmp_path):
    folder = tmp_path / "out"
    folder.mkdir()
    return folder


def test_every_file_of_the_folder_arrives_at_the_repository_root_large_and_binary_ones_through_lfs(
        caire, owner, fake_hub, out, capfd):
    study, _, _ = caire
    printed = run(analysed(study, owner).pk, "--format", "hf", "--images", "--out", out, "--push-to-hub", REPO)
    files = folder_of(out)
    repo = fake_hub.repos[REPO]
    assert repo.files() == {**files, ".gitattributes": GITATTRIBUTES.encode()}  # byte for byte, nothing else
    assert {"README.md", "manifest.json", "croissant.json", "data/items.parquet"} <= set(files)
    assert any(p.startswith("images/") for p in files) and any(p.startswith("data/raw/") for p in files)
    head = repo.resolve("main")
    stored_in_lfs = {p for p, blob in head.files.items() if blob.lfs}
    assert stored_in_lfs == {p for p in files if p.endswith((".parquet", ".png", ".jpg"))} and stored_in_lfs
    assert len(fake_hub.called("PUT", "^/lfs/")) == len({blob.oid for blob in head.files.values() if blob.lfs})
    assert head.message == f"Tessera study {study.pk} (CAIRE small): release 1 (v1.0.0)" and not repo.private
    assert repo.tags == {"v1.0.0": head.oid}  # the release, citable as a revision of the repository
    assert f"pushed {len(files)} files to {fake_hub.url}/datasets/{REPO} (main, commit {head.oid})" in printed
    assert "tagged v1.0.0" in printed
    captured = capfd.readouterr()
    assert fake_hub.token not in printed + captured.out + captured.err


def test_a_second_push_to_the_same_repository_is_a_second_commit_with_the_new_files(caire, owner, fake_hub, tmp_path):
    study, items, (_, _, c, _) = caire
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir(), second.mkdir()
    run(analysed(study, owner).pk, "--format", "hf", "--out", first, "--push-to-hub", REPO, "--private")
    annotate(c, items[1], submitted(items[1], {"relevance": "5"}))  # new data, analysed again
    run(analysed(study, owner).pk, "--format", "hf", "--out", second, "--push-to-hub", REPO)
    repo = fake_hub.repos[REPO]
    head = repo.resolve("main")
    assert head.parent is not None and repo.commits[head.parent].parent is not None  # initial, first, second
    assert repo.files(head.parent) == {**folder_of(first), ".gitattributes": GITATTRIBUTES.encode()}
    assert repo.files() == {**folder_of(second), ".gitattributes": GITATTRIBUTES.encode()}
    assert repo.tags == {"v1.0.0": head.parent, "v2.0.0": head.oid}  # each release tagged on its own commit
    assert [c.path for c in fake_hub.called("POST", "/api/repos/create")] == ["/api/repos/create"] * 2  # 409: kept
    assert repo.private  # created private; the second push left its visibility alone


def small_folder(path, text="first"):
    (path / "data").mkdir(parents=True, exist_ok=True)
    (path / "README.md").write_text(f"---\nlicense: cc-by-4.0\n---\n# {text}\n")
    (path / "data" / "train.parquet").write_bytes(b"PAR1\0" + text.encode() * 50)
    return path


def test_a_release_is_tagged_on_its_commit_and_the_same_release_again_keeps_its_tag(fake_hub, tmp_path):
    folder = small_folder(tmp_path / "f")
    release = hub_release({"number": 2, "version": "2.0.0", "previous": 1})
    assert release == Release(2, "2.0.0") and hub_release(None) is None
    pushed = hub_push(folder=folder, repo_id=REPO, token=fake_hub.token, endpoint=fake_hub.url, title="Study 7",
                      release=release)
    repo = fake_hub.repos[REPO]
    assert (pushed.tag, pushed.tag_existed, pushed.files) == ("v2.0.0", False, 2)
    assert repo.tags == {"v2.0.0": pushed.commit_oid} and repo.files("v2.0.0")["README.md"].endswith(b"# first\n")
    assert repo.resolve("main").message == "Study 7: release 2 (v2.0.0)"
    small_folder(folder, "changed")
    again = hub_push(folder=folder, repo_id=REPO, token=fake_hub.token, endpoint=fake_hub.url, title="Study 7",
                     release=release)
    assert again.commit_oid != pushed.commit_oid and (again.tag, again.tag_existed) == ("v2.0.0", True)
    assert repo.tags == {"v2.0.0": pushed.commit_oid}  # left where the release was first pushed


def test_pushing_an_unchanged_folder_sends_nothing_and_makes_no_commit(fake_hub, tmp_path):
    folder = small_folder(tmp_path / "f")
    first = hub_push(folder=folder, repo_id=REPO, token=fake_hub.token, endpoint=fake_hub.url, title="t")
    puts = len(fake_hub.called("PUT", "^/lfs/"))
    again = hub_push(folder=folder, repo_id=REPO, token=fake_hub.token, endpoint=fake_hub.url, title="t")
    assert again.commit_oid == first.commit_oid and len(fake_hub.repos[REPO].commits) == 2
    assert len(fake_hub.called("PUT", "^/lfs/")) == puts and len(fake_hub.called("POST", "/commit/")) == 1


def test_a_file_the_folder_no_longer_holds_is_deleted_from_the_repository(fake_hub, tmp_path):
    folder = small_folder(tmp_path / "f")
    hub_push(folder=folder, repo_id=REPO, token=fake_hub.token, endpoint=fake_hub.url, title="t")
    (folder / "data" / "train.parquet").unlink()
    (folder / "data" / "test.parquet").write_bytes(b"PAR1\0other")
    hub_push(folder=folder, repo_id=REPO, token=fake_hub.token, endpoint=fake_hub.url, title="t")
    assert set(fake_hub.repos[REPO].files()) == {".gitattributes", "README.md", "data/test.parquet"}


def test_it_refuses_without_HF_TOKEN_before_exporting(caire, owner, fake_hub, out, monkeypatch):
    study, _, _ = caire
    monkeypatch.delenv("HF_TOKEN")
    with pytest.raises(CommandError, match="HF_TOKEN environment variable"):
        run(analysed(study, owner).pk, "--format", "hf", "--out", out, "--push-to-hub", REPO)
    assert not any(out.iterdir()) and fake_hub.calls == []


@pytest.mark.parametrize("args, message", [
    (("--format", "csv", "--push-to-hub", REPO), "use --format hf, not csv"),
    (("--format", "hf", "--push-to-hub", "caire-small"), "write it as owner/name"),
    (("--format", "hf", "--push-to-hub", "my-lab/caire/small"), "write it as owner/name"),
    (("--format", "hf", "--push-to-hub", "my-lab/caire small"), "not a Hub repository id"),
    (("--format", "hf", "--push-to-hub", "my-lab/caire--small"), "not a Hub repository id"),
    (("--format", "hf", "--private"), "give --push-to-hub REPO"),
])
def test_it_refuses_what_cannot_be_pushed_before_exporting(caire, owner, fake_hub, out, args, message):
    study, _, _ = caire
    with pytest.raises(CommandError, match=message):
        run(analysed(study, owner).pk, *args, "--out", out)
    assert not any(out.iterdir()) and fake_hub.calls == []


def test_a_token_the_hub_refuses_is_a_clear_error_that_never_shows_the_token(caire, owner, fake_hub, out,
                                                                              monkeypatch, capfd):
    study, _, _ = caire
    monkeypatch.setenv("HF_TOKEN", "hf_not_the_right_secret")
    with pytest.raises(CommandError, match=r"refused the token \(401 Unauthorized\): check HF_TOKEN") as refused:
        run(analysed(study, owner).pk, "--format", "hf", "--out", out, "--push-to-hub", REPO)
    captured = capfd.readouterr()
    assert "hf_not_the_right_secret" not in str(refused.value) + captured.out + captured.err
    assert fake_hub.repos == {} and fake_hub.calls[0].path == "/api/repos/create"
    (written,) = out.iterdir()
    assert f"The export stays at {written}" in str(refused.value)


def test_an_unreachable_hub_is_a_clear_error(caire, owner, fake_hub, out, monkeypatch):
    study, _, _ = caire
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{port}")
    with pytest.raises(CommandError, match=rf"could not reach the Hub at http://127.0.0.1:{port} \(ConnectError\)"):
        run(analysed(study, owner).pk, "--format", "hf", "--out", out, "--push-to-hub", REPO)
    assert fake_hub.calls == []  # HF_ENDPOINT is what the push calls


def test_without_HF_ENDPOINT_the_push_goes_to_the_hub_itself(caire, owner, fake_hub, out, monkeypatch):
    study, _, _ = caire
    monkeypatch.delenv("HF_ENDPOINT")
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)  # the client stops every request before it leaves
    with pytest.raises(CommandError, match="HF_HUB_OFFLINE is set, so https://huggingface.co was not called"):
        run(analysed(study, owner).pk, "--format", "hf", "--out", out, "--push-to-hub", REPO)
    assert fake_hub.calls == []


def test_a_zip_with_a_file_outside_its_folder_is_not_pushed(tmp_path):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr("top/README.md", "card")
        zf.writestr("top/../../escape.txt", "x")
    with zipfile.ZipFile(buffer) as zf, pytest.raises(HubPushError, match="outside its folder top/"):
        unpacked_top(zf, "top", tmp_path)
    assert not any(tmp_path.iterdir())


def test_the_fake_hub_refuses_a_call_without_the_token(fake_hub, tmp_path):
    with pytest.raises(HubPushError, match="refused the token"):
        hub_push(folder=small_folder(tmp_path / "f"), repo_id=REPO, token="hf_other", endpoint=fake_hub.url, title="t")
    assert isinstance(fake_hub, FakeHub) and fake_hub.repos == {}


def call(method: str, url: str, token: str, body: bytes = b"", ndjson: bool = False) -> int:
    """The status the fake Hub answers a raw call with."""
    kind = "application/x-ndjson" if ndjson else "application/json"
    request = urllib.request.Request(url, data=body, method=method,
                                     headers={"Authorization": f"Bearer {token}", "Content-Type": kind})
    try:
        with urllib.request.urlopen(request) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_the_fake_hub_refuses_bytes_that_are_not_what_was_announced(fake_hub, tmp_path):
    hub_push(folder=small_folder(tmp_path / "f"), repo_id=REPO, token=fake_hub.token, endpoint=fake_hub.url, title="t")
    oid = hashlib.sha256(b"abc").hexdigest()
    batch = {"operation": "upload", "transfers": ["basic"], "objects": [{"oid": oid, "size": 3}]}
    assert call("POST", f"{fake_hub.url}/datasets/{REPO}.git/info/lfs/objects/batch", "hf_other",
                json.dumps(batch).encode()) == 401
    assert call("POST", f"{fake_hub.url}/datasets/{REPO}.git/info/lfs/objects/batch", fake_hub.token,
                json.dumps(batch).encode()) == 200
    signature = fake_hub.expected[oid][1]
    assert call("PUT", f"{fake_hub.url}/lfs/{oid}?sig=wrong", "", b"abc") == 403
    assert call("PUT", f"{fake_hub.url}/lfs/{oid}?sig={signature}", "", b"abd") == 400
    header = {"key": "header", "value": {"summary": "s", "description": ""}}
    for op, status in [({"key": "lfsFile", "value": {"path": "x.parquet", "algo": "sha256", "oid": oid, "size": 3}},
                        422),  # never uploaded
                       ({"key": "file", "value": {"path": "y.parquet", "encoding": "base64",
                                                  "content": base64.b64encode(b"PAR1").decode()}}, 400)]:  # not LFS
        lines = b"".join(json.dumps(line).encode() + b"\n" for line in (header, op))
        assert call("POST", f"{fake_hub.url}/api/datasets/{REPO}/commit/main", fake_hub.token, lines, True) == status
    assert len(fake_hub.repos[REPO].commits) == 2  # the initial commit and the push: nothing else went in
