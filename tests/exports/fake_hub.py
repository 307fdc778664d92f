"""A fake Hugging Face Hub on a loopback port: the endpoints ``huggingface_hub`` calls to create a
dataset repository, upload a folder and tag a commit, answered as the Hub answers them when the
client uploads through Git LFS (no Xet), and checked as the Hub checks them.

- ``POST /api/repos/create``: a new repository starts with one commit holding ``.gitattributes``
  (the Hub's LFS patterns); an existing one is a 409;
- ``POST /api/validate-yaml``: the card's YAML header must parse (400 with ``errors`` otherwise);
- ``GET /api/datasets/<repo>/tree/<rev>``: the files of a revision (``upload_folder`` lists them to delete);
- ``POST /api/datasets/<repo>/preupload/<rev>``: each file ``lfs`` when ``.gitattributes`` says so,
  when it is 10 MB or more, or when its first 512 bytes are binary, else ``regular``; with the oid
  the revision holds for that path (a git blob sha1, or the LFS sha256) so an unchanged file is skipped;
- ``POST /datasets/<repo>.git/info/lfs/objects/batch``: the ``basic`` transfer (refused without it),
  an upload action per object not yet stored (a signed URL) and a verify action;
- ``PUT /lfs/<oid>?sig=…``: the object's bytes, checked against the sha256 and size the batch named
  (no Authorization: a signed URL, as S3's are); ``POST …/verify``: the object is stored;
- ``POST /api/datasets/<repo>/commit/<rev>``: NDJSON, a header, ``file`` (base64, refused for a path
  that must be LFS), ``lfsFile`` (its object uploaded, of that size), ``deletedFile``/``deletedFolder``;
- ``POST /api/datasets/<repo>/tag/<rev>``: a tag on a branch or commit, 409 when it exists;
- ``GET /api/datasets/<repo>[/revision/<rev>]``: the repository's info (its head commit).

Every call but the signed PUT must carry ``Authorization: Bearer <token>`` (401 otherwise, as the Hub
answers a bad token). Calls are recorded in ``calls``; repositories keep every commit's files.
"""

from __future__ import annotations

import base64
import fnmatch
import hashlib
import json
import re
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import pytest
import yaml

from tests.fake_http import send_json

LFS_THRESHOLD = 10 * 1024 * 1024  # the Hub stores files from this size in LFS whatever their type
GITATTRIBUTES = "".join(f"{p} filter=lfs diff=lfs merge=lfs -text\n" for p in (
    "*.arrow", "*.bin", "*.gz", "*.npy", "*.parquet", "*.pickle", "*.pkl", "*.pt", "*.safetensors", "*.tar",
    "*.zip", "*.zst", "*.png", "*.jpg", "*.jpeg", "*.webp", "*.gif", "*.bmp", "*.tiff", "*.mp3", "*.wav", "*.mp4",
))
BAD_TOKEN = "Invalid credentials in Authorization header"  # the Hub's message for a token it does not know
REPO = r"(?P<repo>[^/]+/[^/]+)"


def git_blob_sha1(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()  # noqa: S324 - git's object id


@dataclass(frozen=True)
class Blob:
    data: bytes
    lfs: bool

    @property
    def oid(self) -> str:  # what the Hub's preupload and tree answer: the LFS sha256 or the git blob sha1
        return hashlib.sha256(self.data).hexdigest() if self.lfs else git_blob_sha1(self.data)


@dataclass
class Commit:
    oid: str
    message: str
    parent: str | None
    files: dict[str, Blob]


@dataclass
class Repo:
    repo_id: str
    private: bool
    commits: dict[str, Commit] = field(default_factory=dict)
    branches: dict[str, str] = field(default_factory=dict)
    tags: dict[str, str] = field(default_factory=dict)

    def resolve(self, rev: str) -> Commit | None:
        oid = self.branches.get(rev) or self.tags.get(rev) or rev
        return self.commits.get(oid)

    def files(self, rev: str = "main") -> dict[str, bytes]:
        """The files of ``rev`` (a branch, tag or commit) by path, as bytes."""
        commit = self.resolve(rev)
        assert commit is not None, f"no revision {rev} in {self.repo_id}"
        return {path: blob.data for path, blob in commit.files.items()}

    def commit(self, rev: str, message: str, files: dict[str, Blob]) -> Commit:
        parent = self.branches.get(rev)
        made = Commit(secrets.token_hex(20), message, parent, files)
        self.commits[made.oid] = made
        self.branches[rev] = made.oid
        return made

    def lfs_patterns(self, rev: str) -> list[str]:
        commit = self.resolve(rev)
        attributes = commit.files.get(".gitattributes") if commit else None
        lines = attributes.data.decode().splitlines() if attributes else []
        return [line.split()[0] for line in lines if "filter=lfs" in line]


@dataclass(frozen=True)
class Call:
    method: str
    path: str
    body: Any  # the JSON sent (NDJSON: a list of lines), or the number of bytes of an upload


class Answer(Exception):
    def __init__(self, status: int, body: Any = None, message: str | None = None):
        super().__init__(status)
        self.status, self.body, self.message = status, body, message


class FakeHub(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self, token: str):
        super().__init__(("127.0.0.1", 0), Handler)
        self.token = token
        self.repos: dict[str, Repo] = {}
        self.lfs: dict[str, bytes] = {}  # uploaded LFS objects by sha256
        self.expected: dict[str, tuple[int, str]] = {}  # oid -> (size, signature) of batch uploads under way
        self.calls: list[Call] = []
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def called(self, method: str, pattern: str) -> list[Call]:
        return [c for c in self.calls if c.method == method and re.search(pattern, c.path)]

    def repo(self, repo_id: str) -> Repo:
        if repo_id not in self.repos:
            raise Answer(404, {"error": "Repository not found"}, "Repository not found")
        return self.repos[repo_id]

    def is_lfs(self, repo: Repo, rev: str, path: str, size: int, sample: bytes) -> bool:
        name = path.rsplit("/", 1)[-1]
        matched = any(fnmatch.fnmatch(path if "/" in p else name, p) for p in repo.lfs_patterns(rev))
        return matched or size >= LFS_THRESHOLD or is_binary(sample)


def is_binary(sample: bytes) -> bool:
    """Whether a file's first bytes are not text: a NUL, or not UTF-8 (a character cut at the end is text)."""
    if b"\0" in sample:
        return True
    try:
        sample.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start < len(sample) - 3
    return False


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: FakeHub

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        self.handle_call("GET")

    def do_POST(self) -> None:
        self.handle_call("POST")

    def do_PUT(self) -> None:
        self.handle_call("PUT")

    def body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = b""
            while size := int(self.rfile.readline().strip() or b"0", 16):
                data += self.rfile.read(size)
                self.rfile.readline()
            self.rfile.readline()
            return data
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def handle_call(self, method: str) -> None:
        url = urlsplit(self.path)
        path, query = unquote(url.path), parse_qs(url.query)
        data, hub = self.body(), self.server
        try:
            with hub.lock:
                hub.calls.append(Call(method, path, parsed(path, data)))
                if not path.startswith("/lfs/") and self.headers.get("Authorization") != f"Bearer {hub.token}":
                    raise Answer(401, {"error": BAD_TOKEN}, BAD_TOKEN)
                status, answer, headers = route(hub, method, path, query, data)
        except Answer as exc:
            status, answer, headers = exc.status, exc.body, {"X-Error-Message": exc.message} if exc.message else {}
        self.send(status, answer, headers)

    def send(self, status: int, answer: Any, headers: dict[str, str]) -> None:
        send_json(self, status, answer, headers)


Result = tuple[int, Any, dict[str, str]]


def parsed(path: str, data: bytes) -> Any:
    """A call's body as recorded: an upload's size, a commit's NDJSON lines, else its JSON (None: no body)."""
    if path.startswith("/lfs/"):
        return len(data)
    if "/commit/" in path:
        return [json.loads(line) for line in data.splitlines()]
    return json.loads(data) if data else None


def route(hub: FakeHub, method: str, path: str, query: dict[str, list[str]], data: bytes) -> Result:
    """Answer one authorised call (``hub.lock`` held)."""
    if method == "PUT" and (m := re.fullmatch(r"/lfs/(?P<oid>[0-9a-f]{64})", path)):
        return lfs_put(hub, m["oid"], (query.get("sig") or [""])[0], data)
    body = parsed(path, data)
    if method == "POST" and path == "/api/repos/create":
        return repo_create(hub, body)
    if method == "POST" and path == "/api/validate-yaml":
        return validate_yaml(body)
    if m := re.fullmatch(rf"/datasets/{REPO}\.git/info/lfs/objects/(?P<op>batch|verify)", path):
        hub.repo(m["repo"])
        return lfs_batch(hub, m["repo"], body) if m["op"] == "batch" else lfs_verify(hub, body)
    if m := re.fullmatch(rf"/api/datasets/{REPO}/(?P<op>preupload|commit|tag|tree|revision)/(?P<rev>[^/]+)", path):
        repo, rev = hub.repo(m["repo"]), m["rev"]
        if repo.resolve(rev) is None:
            raise Answer(404, {"error": f"Invalid rev id: {rev}"}, "Invalid rev id")
        return OPERATIONS[m["op"]](hub, repo, rev, body)
    if method == "GET" and (m := re.fullmatch(rf"/api/datasets/{REPO}", path)):
        return info(hub, hub.repo(m["repo"]), "main", None)
    raise Answer(404, {"error": f"no route {method} {path}"})


def repo_create(hub: FakeHub, body: dict[str, Any]) -> Result:
    assert body["type"] == "dataset", body
    repo_id = f"{body['organization']}/{body['name']}"
    if repo_id in hub.repos:
        raise Answer(409, {"error": "You already created this dataset repo", "url": f"{hub.url}/datasets/{repo_id}"})
    repo = hub.repos[repo_id] = Repo(repo_id, private=body.get("visibility") == "private")
    repo.commit("main", "initial commit", {".gitattributes": Blob(GITATTRIBUTES.encode(), lfs=False)})
    return 200, {"url": f"{hub.url}/datasets/{repo_id}", "name": repo_id}, {}


def validate_yaml(body: dict[str, Any]) -> Result:
    text = body["content"]
    if text.startswith("---"):
        header = text.split("---", 2)[1]
        try:
            yaml.safe_load(header)
        except yaml.YAMLError as exc:
            raise Answer(400, {"errors": [{"message": f"Invalid YAML: {exc}"}]}) from None
    return 200, {"errors": [], "warnings": []}, {}


def tree(hub: FakeHub, repo: Repo, rev: str, body: Any) -> Result:
    commit = repo.resolve(rev)
    assert commit is not None
    listed = [{"type": "file", "path": p, "size": len(b.data), "oid": git_blob_sha1(b.data),
               **({"lfs": {"oid": b.oid, "size": len(b.data), "pointerSize": 134}} if b.lfs else {})}
              for p, b in sorted(commit.files.items())]
    folders = sorted({p.rsplit("/", 1)[0] for p in commit.files if "/" in p})
    return 200, [{"type": "directory", "path": f, "oid": "0" * 40} for f in folders] + listed, {}


def info(hub: FakeHub, repo: Repo, rev: str, body: Any) -> Result:
    commit = repo.resolve(rev)
    assert commit is not None
    return 200, {"id": repo.repo_id, "sha": commit.oid, "private": repo.private,
                 "siblings": [{"rfilename": p} for p in sorted(commit.files)]}, {}


def preupload(hub: FakeHub, repo: Repo, rev: str, body: dict[str, Any]) -> Result:
    commit = repo.resolve(rev)
    assert commit is not None
    files = []
    for f in body["files"]:
        lfs = hub.is_lfs(repo, rev, f["path"], f["size"], base64.b64decode(f["sample"]))
        held = commit.files.get(f["path"])
        files.append({"path": f["path"], "uploadMode": "lfs" if lfs else "regular", "shouldIgnore": False,
                      "oid": held.oid if held else None})
    return 200, {"files": files, "commitOid": commit.oid}, {}


def lfs_batch(hub: FakeHub, repo_id: str, body: dict[str, Any]) -> Result:
    if body.get("operation") != "upload" or "basic" not in body.get("transfers", []):
        raise Answer(422, {"message": "only the basic transfer is offered"})
    objects = []
    for obj in body["objects"]:
        oid, size = obj["oid"], obj["size"]
        answer: dict[str, Any] = {"oid": oid, "size": size, "authenticated": True}
        if oid not in hub.lfs:
            signature = secrets.token_hex(8)
            hub.expected[oid] = (size, signature)
            answer["actions"] = {
                "upload": {"href": f"{hub.url}/lfs/{oid}?sig={signature}", "expires_in": 900},
                "verify": {"href": f"{hub.url}/datasets/{repo_id}.git/info/lfs/objects/verify", "expires_in": 900},
            }
        objects.append(answer)
    return 200, {"transfer": "basic", "objects": objects, "hash_algo": "sha256"}, {}


def lfs_put(hub: FakeHub, oid: str, signature: str, data: bytes) -> Result:
    size, expected = hub.expected.get(oid, (-1, ""))
    if not signature or signature != expected:
        raise Answer(403, {"error": "bad signature"})
    if len(data) != size or hashlib.sha256(data).hexdigest() != oid:
        raise Answer(400, {"error": f"the object is not {oid} of {size} bytes"})
    hub.lfs[oid] = data
    del hub.expected[oid]
    return 200, None, {"ETag": f'"{oid[:32]}"'}


def lfs_verify(hub: FakeHub, body: dict[str, Any]) -> Result:
    stored = hub.lfs.get(body["oid"])
    if stored is None or len(stored) != body["size"]:
        raise Answer(404, {"error": "object not uploaded"})
    return 200, {}, {}


def commit(hub: FakeHub, repo: Repo, rev: str, lines: list[dict[str, Any]]) -> Result:
    header, *operations = lines
    assert header["key"] == "header", header
    if rev in repo.tags or rev not in repo.branches:
        raise Answer(400, {"error": f"cannot commit to {rev}: not a branch"})
    head = repo.resolve(rev)
    assert head is not None
    files = dict(head.files)
    for op in operations:
        key, value = op["key"], op["value"]
        if key == "file":
            content = base64.b64decode(value["content"])
            if hub.is_lfs(repo, rev, value["path"], len(content), content[:512]):
                raise Answer(400, {"error": f"{value['path']} must be stored with LFS"})
            files[value["path"]] = Blob(content, lfs=False)
        elif key == "lfsFile":
            stored = hub.lfs.get(value["oid"])
            if stored is None or len(stored) != value["size"]:
                raise Answer(422, {"error": f"LFS object {value['oid']} of {value['path']} was not uploaded"})
            files[value["path"]] = Blob(stored, lfs=True)
        elif key == "deletedFile":
            if files.pop(value["path"], None) is None:
                raise Answer(404, {"error": "A file with this name doesn't exist"})
        elif key == "deletedFolder":
            files = {p: b for p, b in files.items() if not p.startswith(value["path"].rstrip("/") + "/")}
        else:
            raise Answer(400, {"error": f"unknown operation {key}"})
    made = repo.commit(rev, header["value"]["summary"], files)
    url = f"{hub.url}/datasets/{repo.repo_id}/commit/{made.oid}"
    return 200, {"success": True, "commitOid": made.oid, "commitUrl": url, "hookOutput": ""}, {}


def tag(hub: FakeHub, repo: Repo, rev: str, body: dict[str, Any]) -> Result:
    name = body["tag"]
    if name in repo.tags or name in repo.branches:
        raise Answer(409, {"error": f"Tag {name} already exists"}, f"Tag {name} already exists")
    target = repo.resolve(rev)
    assert target is not None
    repo.tags[name] = target.oid
    return 200, {}, {}


OPERATIONS: dict[str, Callable[[FakeHub, Repo, str, Any], Result]] = {
    "preupload": preupload, "commit": commit, "tag": tag, "tree": tree, "revision": info,
}


@pytest.fixture
def fake_hub(monkeypatch):
    """A FakeHub serving on 127.0.0.1 in a thread, with HF_ENDPOINT and HF_TOKEN set to it."""
    from huggingface_hub.utils import close_session

    hub = FakeHub(token=f"hf_{secrets.token_hex(12)}")
    thread = threading.Thread(target=hub.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("HF_ENDPOINT", hub.url)
    monkeypatch.setenv("HF_TOKEN", hub.token)
    try:
        yield hub
    finally:
        hub.shutdown()
        hub.server_close()
        close_session()  # the client's kept-alive connections to this server
