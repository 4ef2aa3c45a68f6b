"""Inputs of a scan: files and folders as given, standard input, and fsspec URLs."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import sys
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

STDIN = "-"
# Transcripts their tools write under a hidden name, read when a folder is walked.
HIDDEN_TRANSCRIPTS = frozenset({".aider.chat.history.md"})


def _visible_parts(parts: Iterable[str]) -> bool:
    """No hidden folder on the way, and the file is not hidden unless it is a transcript."""
    *folders, name = parts
    return not any(part.startswith(".") for part in folders) and (
        not name.startswith(".") or name in HIDDEN_TRANSCRIPTS
    )


def _walk(folder: Path) -> Iterator[Path]:
    """The visible files under ``folder`` in the order of ``sorted(folder.rglob("*"))``, found
    as they are reached: a folder's entries sorted by name, each folder walked where its name
    falls, hidden folders and symbolic links to folders not entered. Only the names of the
    folders on the way are held, not a path for every file of a log folder of 100,000
    sessions. A folder that cannot be listed (no permission, removed meanwhile) gives nothing."""
    try:
        with os.scandir(folder) as entries:
            folders = set()
            names = []
            for entry in entries:
                names.append(entry.name)
                if _is_folder(entry):
                    folders.add(entry.name)
    except OSError:
        return
    names.sort()
    for name in names:
        if name in folders:
            if not name.startswith("."):
                yield from _walk(folder / name)
        elif not name.startswith(".") or name in HIDDEN_TRANSCRIPTS:
            child = folder / name
            if child.is_file():
                yield child


def _is_folder(entry: os.DirEntry) -> bool:
    """A folder to walk into (a symbolic link to one is not, as with ``rglob``)."""
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def expand(paths: Iterable[str | Path]) -> Iterator[tuple[Path | None, str]]:
    """(file, source name) for each input: files as given, folders walked in sorted order
    (hidden files and folders, such as ``.git``, are left out, except transcripts written under
    a hidden name: ``.aider.chat.history.md``). A URL input (``s3://…``) gives
    (None, URL) for each file under it, read through fsspec."""
    for given in paths:
        path = Path(given)
        if is_url(given):
            yield from ((None, url) for url in expand_url(str(given)))
        elif str(given) == STDIN:
            yield path, STDIN
        elif path.is_dir():
            for child in _walk(path):
                yield child, str(child)
        else:
            yield path, str(given)


def copy_of_stdin() -> Path:
    """Standard input saved to a temporary file, so that detection can look at its start."""
    with tempfile.NamedTemporaryFile(prefix="auditor-stdin-", delete=False) as handle:
        shutil.copyfileobj(sys.stdin.buffer, handle)
    return Path(handle.name)


MISSING = (
    "the dask engine and URL inputs need the optional extra: pip install 'transcript-auditor[dask]'"
)


def available() -> bool:
    """Are Dask and fsspec installed (the ``dask`` extra)?"""
    return all(importlib.util.find_spec(name) for name in ("distributed", "fsspec"))


def is_url(name: str | Path) -> bool:
    """An input named by a URL (``s3://…``, ``gs://…``, ``file://…``) rather than a path."""
    return "://" in str(name)


def _fsspec() -> Any:
    try:
        import fsspec
    except ImportError as exc:  # pragma: no cover - depends on the installed extras
        raise RuntimeError(MISSING) from exc
    return fsspec


def expand_url(url: str) -> Iterator[str]:
    """The files under a URL (a folder is walked in sorted order, hidden entries left out),
    each as a full URL."""
    fs, root = _fsspec().core.url_to_fs(url)
    if not fs.isdir(root):
        yield url
        return
    for found in sorted(fs.find(root)):
        relative = found[len(root.rstrip("/")) + 1 :]
        if _visible_parts(relative.split("/")):
            yield fs.unstrip_protocol(found)


@contextlib.contextmanager
def fetched(url: str) -> Iterator[Path]:
    """A local copy of the file at ``url`` for the readers (which detect formats and
    compression from the bytes), removed afterwards; the name keeps the file's suffixes."""
    name = url.rstrip("/").rsplit("/", 1)[-1]
    with tempfile.TemporaryDirectory(prefix="auditor-fetch-") as folder:
        local = Path(folder) / (name or "input")
        with _fsspec().open(url, "rb") as remote, open(local, "wb") as copy:
            shutil.copyfileobj(remote, copy, 1 << 20)
        yield local
