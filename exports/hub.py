"""Push a Hugging Face export to a dataset repository on the Hub, with ``huggingface_hub``. Pure: no
Django (``manage.py export --push-to-hub`` reads the token and endpoint from the environment and
calls ``hub_push_zip``).

The repository is created when missing (public unless asked private; an existing one is kept as it
is), then the export's folder is committed to its ``main`` branch so that the repository's root is the
folder (``README.md``, ``data/``, ``images/``, ``manifest.json``): files the folder no longer has are
deleted in the same commit (a repository is one release, not a heap of them), files unchanged since
the last push are not sent again, and a push that changes nothing makes no commit. Large and binary
files go through Git LFS over HTTP (the client's Xet path is turned off for the push: LFS is what
the tests check against a fake Hub, and the Hub accepts it). A numbered release is tagged
``v<version>`` on the commit; a tag that already exists is left where it is (the same release
pushed again). Every refusal and failure is a ``HubPushError`` whose message never holds the token.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
import threading
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import httpx2  # huggingface_hub's HTTP client: its connection errors are what an unreachable Hub raises
from huggingface_hub import HfApi, constants
from huggingface_hub.errors import HfHubHTTPError, HFValidationError, OfflineModeIsEnabled
from huggingface_hub.utils import validate_repo_id

DEFAULT_ENDPOINT = "https://huggingface.co"  # the real Hub, when HF_ENDPOINT is not set
REPO_TYPE = "dataset"
BRANCH = "main"
EVERYTHING = "*"  # upload_folder's delete pattern: every file of the repository the folder does not hold
_XET_LOCK = threading.Lock()


class HubPushError(Exception):
    """A push refused or failed; the message says why and what to check, without the token."""


@dataclass(frozen=True)
class Release:
    """The numbered release an export is of, as its manifest names it (``number``, ``version``)."""

    number: int
    version: str

    @property
    def tag(self) -> str:
        return f"v{self.version}"


@dataclass(frozen=True)
class Pushed:
    """What a push did: the repository's page, the commit (its page and id) on ``revision``, the tag
    given to it (None: no release), whether that tag was there already, and how many files the pushed
    folder holds."""

    repo_url: str
    commit_url: str
    commit_oid: str
    revision: str
    tag: str | None
    tag_existed: bool
    files: int


def hub_repo_id(repo_id: str) -> str:
    """``repo_id`` when it names a repository as ``owner/name`` the Hub accepts; else HubPushError."""
    if repo_id.count("/") != 1:
        raise HubPushError(f"{repo_id!r} is not a Hub repository id: write it as owner/name (e.g. my-lab/my-dataset).")
    try:
        validate_repo_id(repo_id)
    except HFValidationError as exc:
        raise HubPushError(f"{repo_id!r} is not a Hub repository id: {exc}") from None
    return repo_id


def hub_release(manifest_release: object) -> Release | None:
    """The release a manifest's ``release`` entry names ({"number": N, "version": "N.0.0", …}), or None."""
    if not isinstance(manifest_release, dict) or "number" not in manifest_release:
        return None
    number = int(manifest_release["number"])
    return Release(number=number, version=str(manifest_release.get("version") or f"{number}.0.0"))


@contextlib.contextmanager
def _over_lfs() -> Iterator[None]:
    """The client's uploads through Git LFS over HTTP while inside: ``huggingface_hub`` picks Xet
    itself whenever ``hf_xet`` is installed (``HF_HUB_DISABLE_XET``, read once at import, turns it off)."""
    with _XET_LOCK:
        before = constants.HF_HUB_DISABLE_XET
        constants.HF_HUB_DISABLE_XET = True
        try:
            yield
        finally:
            constants.HF_HUB_DISABLE_XET = before


def _failure(exc: BaseException, *, repo_id: str, endpoint: str, token: str) -> HubPushError:
    """``exc`` (or the error it wraps) as a HubPushError that says what to check, the token scrubbed."""
    cause: BaseException | None = exc
    while cause is not None and not isinstance(cause, HfHubHTTPError | httpx2.TransportError | OfflineModeIsEnabled):
        cause = cause.__cause__ or cause.__context__
    if isinstance(cause, HfHubHTTPError):
        status = cause.response.status_code
        if status == 401:
            text = f"the Hub at {endpoint} refused the token (401 Unauthorized): check HF_TOKEN"
        elif status == 403:
            text = f"the token may not write to {repo_id} (403 Forbidden): give HF_TOKEN write access to it"
        elif status == 404:
            text = f"{repo_id} or its branch was not found on the Hub at {endpoint} (404)"
        else:
            text = f"the Hub at {endpoint} answered {status}: {cause.server_message or 'no message'}"
    elif isinstance(cause, OfflineModeIsEnabled):
        text = f"HF_HUB_OFFLINE is set, so {endpoint} was not called; unset it to push"
    elif cause is not None:
        text = f"could not reach the Hub at {endpoint} ({type(cause).__name__}); check HF_ENDPOINT and the network"
    else:
        text = f"the push to {repo_id} failed: {exc}"
    message = f"Push to the Hub failed: {text}."
    return HubPushError(message.replace(token, "***") if token else message)


def hub_push(
    *, folder: Path, repo_id: str, token: str, endpoint: str | None = None, private: bool = False,
    title: str, release: Release | None = None,
) -> Pushed:
    """Commit ``folder``'s files to the root of the dataset repository ``repo_id`` at ``endpoint``
    (None: the real Hub) with ``token``, creating the repository when missing (``private`` then says
    its visibility), with ``title`` (and the release) as the commit's message; tag the commit
    ``v<version>`` when ``release`` is given."""
    hub_repo_id(repo_id)
    if not token:
        raise HubPushError("No Hub token: set HF_TOKEN to a token with write access.")
    endpoint = (endpoint or DEFAULT_ENDPOINT).rstrip("/")
    files = sum(1 for p in folder.rglob("*") if p.is_file())
    message = f"{title}: release {release.number} (v{release.version})" if release else title
    api = HfApi(endpoint=endpoint, token=token)
    try:
        with _over_lfs():
            repo_url = api.create_repo(repo_id, repo_type=REPO_TYPE, private=private, exist_ok=True)
            commit = api.upload_folder(repo_id=repo_id, repo_type=REPO_TYPE, folder_path=folder, revision=BRANCH,
                                       commit_message=message, delete_patterns=EVERYTHING)
        tag, existed = (_tag(api, repo_id, release, commit.oid, message) if release else (None, False))
    except (HfHubHTTPError, httpx2.TransportError, OfflineModeIsEnabled, RuntimeError, ValueError) as exc:
        raise _failure(exc, repo_id=repo_id, endpoint=endpoint, token=token) from None
    return Pushed(repo_url=str(repo_url), commit_url=commit.commit_url, commit_oid=commit.oid, revision=BRANCH,
                  tag=tag, tag_existed=existed, files=files)


def _tag(api: HfApi, repo_id: str, release: Release, oid: str, message: str) -> tuple[str, bool]:
    """Tag commit ``oid`` for ``release``: (the tag, whether it existed already and was left as it was)."""
    try:
        api.create_tag(repo_id, repo_type=REPO_TYPE, tag=release.tag, revision=oid, tag_message=message)
    except HfHubHTTPError as exc:
        if exc.response.status_code != 409:
            raise
        return release.tag, True
    return release.tag, False


def unpacked_top(zf: zipfile.ZipFile, top: str, into: Path) -> Path:
    """Extract the ZIP's folder ``top`` into ``into`` and return it; HubPushError when an entry lies
    outside it (the Hugging Face export keeps every file under its one top folder)."""
    for name in zf.namelist():
        path = PurePosixPath(name)
        if path.parts[:1] != (top,) or ".." in path.parts or path.is_absolute():
            raise HubPushError(f"The ZIP is not a Hugging Face export: {name!r} is outside its folder {top}/.")
    zf.extractall(into)
    return into / top


def hub_push_zip(
    *, zip_path: Path, top: str, repo_id: str, token: str, endpoint: str | None = None, private: bool = False,
    title: str, release: Release | None = None,
) -> Pushed:
    """Unpack the export ``zip_path`` to a temporary folder and push its top folder ``top`` (see ``hub_push``)."""
    hub_repo_id(repo_id)
    tmp = Path(tempfile.mkdtemp(prefix="tessera-hub-"))
    try:
        with zipfile.ZipFile(zip_path) as zf:
            folder = unpacked_top(zf, top, tmp)
        return hub_push(folder=folder, repo_id=repo_id, token=token, endpoint=endpoint, private=private,
                        title=title, release=release)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
