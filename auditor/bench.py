"""A benchmark of the auditor against bare JSON parsing of the same files.

``auditor bench --size-mb 100`` writes a synthetic corpus with a realistic mix (OpenAI chat and
Anthropic conversations, 1 to 4 turns, 5-15% failing calls, GraphQL and MCP payloads of a few
KB, long assistant texts), then measures on those files, each in a fresh process: bare parsing
(``orjson.loads`` of every line, one core), the readers alone (conversations built, nothing
audited: the floor of any scan), ``scan`` on one core and ``scan`` on all cores. It
prints MB/s, conversations/s, the ratio of each scan to bare parsing, and peak resident memory.
"""

from __future__ import annotations

import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from auditor.readers import detect, read_file
from auditor.readers.streams import open_bytes
from auditor.run import stages
from auditor.run.inputs import expand
from auditor.run.jobs import SPAN_BYTES, Job, plan
from auditor.run.pipeline import scan
from auditor.run.worker import freeze_heap, job_bytes

FILES = 8

_TOOLS = [
    "update_ticket",
    "search_issues",
    "linear_graphql",
    "get_me",
    "slack_post_message",
    "run_sql",
    "calendar_create_event",
    "github_graphql",
]


def _payload(rng: random.Random, tool: str, failing: bool) -> dict:
    """A tool message in the MCP host's shape: content blocks, sometimes structuredContent."""
    rows = [
        {
            "id": f"ISS-{rng.randint(1, 9999)}",
            "title": " ".join(rng.choices(_WORDS, k=8)),
            "state": rng.choice(["open", "closed", "in review"]),
        }
        for _ in range(rng.randint(5, 25))
    ]
    if tool.endswith("graphql"):
        data = {"data": {"repository": {"issues": rows}}}
        if failing:
            data = {
                "data": {"repository": None},
                "errors": [{"message": "Resource not accessible"}],
            }
        return {"content": [{"type": "text", "text": json.dumps(data)}]}
    if tool == "get_me":
        body = "null" if failing else json.dumps({"login": "dana", "name": "Dana Whitfield"})
        return {"content": [{"type": "text", "text": body}]}
    if failing:
        return rng.choice(
            [
                {
                    "content": [{"type": "text", "text": "403 Forbidden: token lacks write scope"}],
                    "isError": True,
                },
                {"content": json.dumps({"ok": False, "error": "channel_not_found"})},
                {"error": {"code": -32001, "message": "Request timed out"}, "content": None},
            ]
        )
    return {"content": [{"type": "text", "text": json.dumps({"results": rows})}]}


_WORDS = [
    "the",
    "ticket",
    "update",
    "deploy",
    "invoice",
    "customer",
    "order",
    "report",
    "release",
    "cycle",
    "sprint",
    "team",
    "review",
    "branch",
    "merge",
    "cache",
    "latency",
    "error",
    "budget",
    "checkout",
    "payment",
    "refund",
]


def _reply(rng: random.Random, failing: bool) -> str:
    opening = rng.choice(
        ["All set — ", "Done. ", "I couldn't finish that: ", "Here's what I found: "]
    )
    body = " ".join(" ".join(rng.choices(_WORDS, k=rng.randint(8, 16))) + "." for _ in range(6))
    if failing and rng.random() < 0.5:
        opening = "Sorry, that didn't go through — "
    return opening + body


def _conversation(
    rng: random.Random, number: int, anthropic: bool, turns: int | None = None
) -> dict:
    messages: list[dict] = []
    for turn in range(turns or rng.randint(1, 4)):
        messages.append(
            {"role": "user", "content": "please " + " ".join(rng.choices(_WORDS, k=12))}
        )
        calls = [
            (f"call_{number}_{turn}_{i}", rng.choice(_TOOLS)) for i in range(rng.randint(1, 3))
        ]
        results = [(cid, tool, _payload(rng, tool, rng.random() < 0.10)) for cid, tool in calls]
        text = _reply(rng, any("isError" in p or "error" in p for _, _, p in results))
        if anthropic:
            messages.append(
                {
                    "role": "assistant",
                    "content": [
                        {"type": "tool_use", "id": cid, "name": tool, "input": {"q": "x"}}
                        for cid, tool in calls
                    ],
                }
            )
            messages.append(
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": cid,
                            "content": p.get("content") or "error",
                            "is_error": bool(p.get("isError") or p.get("error")),
                        }
                        for cid, _, p in results
                    ],
                }
            )
            messages.append({"role": "assistant", "content": [{"type": "text", "text": text}]})
        else:
            messages.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": cid,
                            "type": "function",
                            "function": {"name": tool, "arguments": "{}"},
                        }
                        for cid, tool in calls
                    ],
                }
            )
            messages.extend({"role": "tool", "tool_call_id": cid, **p} for cid, _, p in results)
            messages.append({"role": "assistant", "content": text})
    return {"conversation_id": f"bench-{number}", "messages": messages}


MANIFEST = ".bench-manifest.json"  # what the generator wrote (hidden: scans pass it over)


def generate(folder: Path, size_mb: float, seed: int = 7) -> tuple[int, int]:
    """Write about ``size_mb`` of transcripts in FILES files, one format per file (every third
    file Anthropic messages, the others OpenAI chat); (bytes, conversations) written. The
    counts, calls included, go to ``MANIFEST`` so that the bench can check that every call it
    generated is in the scan's table."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    target = int(size_mb * (1 << 20))
    written = conversations = calls = 0
    handles = [open(folder / f"part-{i:02d}.jsonl", "wb") for i in range(FILES)]  # noqa: SIM115
    try:
        while written < target:
            file = conversations % FILES
            conversation = _conversation(rng, conversations, anthropic=file % 3 == 0)
            calls += _calls_in(conversation)
            line = orjson.dumps(conversation) + b"\n"
            handles[file].write(line)
            written += len(line)
            conversations += 1
    finally:
        for handle in handles:
            handle.close()
    manifest = {"bytes": written, "conversations": conversations, "calls": calls}
    (folder / MANIFEST).write_bytes(orjson.dumps(manifest))
    return written, conversations


def generate_many(folder: Path, files: int, seed: int = 7) -> tuple[Path, Path]:
    """The same conversations twice: one a file in ``folder/many`` (``files`` tiny files, a
    thousand to a subfolder, as a log folder of one file per session is), and all in a few
    files in ``folder/few``. Scanning both says what many small files cost: time, open files,
    memory. Returns the two folders."""
    many, few = folder / "many", folder / "few"
    if (many / MANIFEST).is_file():
        return many, few
    rng = random.Random(seed)
    few.mkdir(parents=True, exist_ok=True)
    handles = [open(few / f"part-{i:02d}.jsonl", "wb") for i in range(FILES)]  # noqa: SIM115
    calls = 0
    try:
        for number in range(files):
            file = number % FILES
            conversation = _conversation(rng, number, anthropic=file % 3 == 0, turns=1)
            calls += _calls_in(conversation)
            line = orjson.dumps(conversation) + b"\n"
            handles[file].write(line)
            where = many / f"{number // 1000:04d}"
            if number % 1000 == 0:
                where.mkdir(parents=True, exist_ok=True)
            (where / f"session-{number:07d}.jsonl").write_bytes(line)
    finally:
        for handle in handles:
            handle.close()
    manifest = orjson.dumps({"conversations": files, "calls": calls})
    (few / MANIFEST).write_bytes(manifest)
    (many / MANIFEST).write_bytes(manifest)
    return many, few


def _calls_in(conversation: dict) -> int:
    """The tool calls of a generated conversation, in either of its formats."""
    count = 0
    for message in conversation["messages"]:
        if message["role"] != "assistant":
            continue
        count += len(message.get("tool_calls") or [])
        if isinstance(message["content"], list):
            count += sum(1 for block in message["content"] if block.get("type") == "tool_use")
    return count


@dataclass
class Measure:
    name: str
    seconds: float
    peak_mb: float
    stages: dict[str, float] = field(default_factory=dict)  # seconds per stage (1-core scan)
    formats: dict[str, tuple[int, float]] = field(default_factory=dict)  # (bytes, s) per reader
    calls: int | None = None  # rows of the calls table (scans)
    conversations: int = 0  # conversations read (scans)


def bare_parse(path: Path) -> None:
    """What any reader must at least do with a file: decompress it and parse its JSON, line by
    line when its first line is a JSON value of its own (lines that are not JSON are passed
    over), else as one document."""
    with open_bytes(path) as handle:
        first = handle.readline()
        try:
            orjson.loads(first)
        except orjson.JSONDecodeError:
            rest = first + handle.read()
            try:
                orjson.loads(rest)
                return
            except orjson.JSONDecodeError:
                lines: Iterable[bytes] = rest.splitlines()
        else:
            lines = handle
        for line in lines:
            try:
                orjson.loads(line)
            except orjson.JSONDecodeError:
                continue


READER_ROUNDS = 7  # reads of each file per reader figure, at least; the fastest counts
READER_SECONDS = 0.3  # and at least this much reading per reader, however small its files
READER_MAX_ROUNDS = 200


def _per_reader(read_jobs: list[tuple[Job, str, bool]]) -> dict[str, list[float]]:
    """(bytes, seconds) per reader: the reading alone, each file's fastest read in CPU time.
    Detecting the format costs the same for every reader and is left out. Every file is read
    in rounds, each round over all readers' files in turn, so that the machine's other load
    falls on all readers alike; a reader's files are read again, at least READER_ROUNDS times
    and until READER_SECONDS of reading, because the first run of a reader's code (paid once
    per process) and a busy moment would make a reader of a few small files look slow (one read
    of a 10 kB file is over in a tenth of a millisecond)."""
    fastest = [float("inf")] * len(read_jobs)
    spent: dict[str, float] = dict.fromkeys((name for _, name, _ in read_jobs), 0.0)
    for rounds in range(READER_MAX_ROUNDS):
        wanted = {
            name
            for name, seconds in spent.items()
            if rounds < READER_ROUNDS or seconds < READER_SECONDS
        }
        if not wanted:
            break
        for index, (job, name, known) in enumerate(read_jobs):
            if name not in wanted:
                continue
            began = time.process_time()
            read_file(job.path, job.source, name if known else None, job.span)
            took = time.process_time() - began
            fastest[index] = min(fastest[index], took)
            spent[name] += took
    formats: dict[str, list[float]] = {}
    for (job, name, _), seconds in zip(read_jobs, fastest, strict=True):
        mine = formats.setdefault(name, [0, 0.0])
        mine[0] += job_bytes(job)
        mine[1] += seconds
    return formats


def _child(mode: str, paths: list[str], jobs: int) -> None:
    """Run one measurement in this (fresh) process and print it as JSON."""
    if limit := os.environ.get("AUDITOR_BENCH_OPEN_FILES"):
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        resource.setrlimit(resource.RLIMIT_NOFILE, (int(limit), hard))
    # Listed for bare parsing only: a scan holding a list of 100,000 paths beside it would be
    # measured with memory that is not its own.
    files = [path for path, _ in expand(paths) if path is not None] if mode == "bare" else []
    found: dict = {}
    start = time.perf_counter()
    if mode == "bare":
        for path in files:
            bare_parse(path)
    elif mode == "read":
        # The readers alone, on the jobs a scan would give them (files, spans of large files),
        # in a process set up as a scan's is: every conversation built, nothing audited. No
        # scan can be faster.
        freeze_heap()
        read_jobs = []
        for job in plan(expand(paths), None, SPAN_BYTES):
            reader = detect(job.path) if job.input_format is None else None
            name = job.input_format or (reader.NAME if reader else "none")
            read_file(job.path, job.source, name if reader or job.input_format else None, job.span)
            read_jobs.append((job, name, bool(reader or job.input_format)))
        found["seconds"] = time.perf_counter() - start
        found["formats"] = _per_reader(read_jobs)
    else:
        # The scan exactly as a nightly job runs it (the pipeline behind ``auditor scan``),
        # tables and summary written.
        with tempfile.TemporaryDirectory(prefix="auditor-bench-") as out:
            result = scan(paths, out=out, jobs=jobs, fail_on="never")
            found["calls"] = result.run_summary["tool_calls"]
            found["conversations"] = result.run_summary["conversations"]
        found["stages"] = dict(stages.SECONDS)
    found.setdefault("seconds", time.perf_counter() - start)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    found["peak_kb"] = max(peak, children)
    print(json.dumps(found))


def measure(
    mode: str, paths: list[Path], jobs: int = 1, env: dict[str, str] | None = None
) -> Measure:
    output = subprocess.run(
        [sys.executable, "-m", "auditor.bench", mode, str(jobs), *map(str, paths)],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
    ).stdout
    found = json.loads(output.strip().splitlines()[-1])
    name = {
        "bare": "bare orjson parsing, 1 core",
        "read": "readers only (no audit), 1 core",
        "scan": f"auditor scan, {jobs} core(s)",
    }[mode]
    return Measure(
        name,
        found["seconds"],
        found["peak_kb"] / 1024,
        stages=found.get("stages", {}),
        formats={k: (int(v[0]), v[1]) for k, v in found.get("formats", {}).items()},
        calls=found.get("calls"),
        conversations=found.get("conversations", 0),
    )


@dataclass
class Report:
    megabytes: float
    conversations: int
    measures: list[Measure]
    generated_calls: int | None = None  # calls the bench generated (its own corpus only)

    def rows(self) -> list[tuple[str, float, float, float, float]]:
        """(name, MB/s, conversations/s, ratio to bare parsing, peak MB) per measure."""
        bare = self.measures[0].seconds
        return [
            (
                m.name,
                self.megabytes / m.seconds,
                self.conversations / m.seconds,
                bare / m.seconds,
                m.peak_mb,
            )
            for m in self.measures
        ]

    @property
    def calls(self) -> int:
        """Calls in the table of the one-core scan."""
        return self.measures[2].calls or 0

    @property
    def missing_calls(self) -> int:
        """Generated calls that are not in the table (0 for a user's own logs)."""
        return max(0, (self.generated_calls or 0) - self.calls)

    def stages(self) -> list[tuple[str, float, float]]:
        """(stage, seconds, share of the one-core scan) for each stage, then the rest."""
        scan = self.measures[2]
        found = [(name, scan.stages.get(name, 0.0)) for name in stages.STAGES]
        rest = scan.seconds - sum(seconds for _, seconds in found)
        found.append(("other (rules, plan, merging parts)", rest))
        return [(name, seconds, seconds / scan.seconds) for name, seconds in found]

    def formats(self) -> list[tuple[str, float, float]]:
        """(reader, MB, MB/s) of the readers-only measure, per reader."""
        read = self.measures[1]
        return [
            (name, size / (1 << 20), size / (1 << 20) / seconds if seconds else 0.0)
            for name, (size, seconds) in sorted(read.formats.items())
        ]


def run(folder: Path, size_mb: float, paths: list[Path] | None = None) -> Report:
    """Measure each way of reading ``paths`` (a user's own logs), or else the bench corpus in
    ``folder``, generated first when the folder holds none."""
    generated = None
    if not paths:
        if not (folder / MANIFEST).is_file():
            generate(folder, size_mb)
        generated = orjson.loads((folder / MANIFEST).read_bytes())
        paths = sorted(folder.glob("*.jsonl"))
    files = [path for path, _ in expand(paths) if path is not None]
    megabytes = sum(p.stat().st_size for p in files) / (1 << 20)
    cores = os.cpu_count() or 1
    # Bare parsing takes a fraction of a second, so another process on the machine moves it
    # most: the fastest of three is kept, which makes every ratio the less flattering one.
    bare = min((measure("bare", paths) for _ in range(3)), key=lambda m: m.seconds)
    measures = [
        bare,
        measure("read", paths),
        measure("scan", paths, 1),
        measure("scan", paths, cores),
    ]
    calls = generated["calls"] if generated else None
    return Report(megabytes, measures[2].conversations, measures, generated_calls=calls)


OPEN_FILES = 256  # the open-file limit a scan of many files is measured under


@dataclass
class ManyFiles:
    """A one-core scan of many tiny files against one of the same conversations in a few."""

    files: int
    megabytes: float
    calls: int  # calls generated
    many: Measure
    few: Measure

    @property
    def memory_ratio(self) -> float:
        return self.many.peak_mb / self.few.peak_mb

    @property
    def missing_calls(self) -> int:
        found = (self.many.calls or 0, self.few.calls or 0)
        return sum(max(0, self.calls - calls) for calls in found)


def run_many(folder: Path, files: int) -> ManyFiles:
    """Scan ``files`` tiny files (one conversation each), and the same conversations in a few
    files, each on one core under an open-file limit of OPEN_FILES: a scan that held its files
    open would lose calls to "too many open files"."""
    many, few = generate_many(folder, files)
    generated = orjson.loads((many / MANIFEST).read_bytes())
    megabytes = sum(p.stat().st_size for p in few.glob("*.jsonl")) / (1 << 20)
    limit = {"AUDITOR_BENCH_OPEN_FILES": str(OPEN_FILES)}
    return ManyFiles(
        files=generated["conversations"],
        megabytes=megabytes,
        calls=generated["calls"],
        many=measure("scan", [many], 1, limit),
        few=measure("scan", [few], 1, limit),
    )


if __name__ == "__main__":  # the child process of ``measure``
    _child(sys.argv[1], sys.argv[3:], int(sys.argv[2]))
