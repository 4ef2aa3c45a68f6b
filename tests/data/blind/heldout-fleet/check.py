#!/usr/bin/env python3
"""Consistency check for this labelled corpus (written from spec.md, not from the auditor).

- every transcript line parses;
- every tool call in the transcripts has exactly one label, and every label's
  tool_call_id exists in its file and conversation with the same tool name;
- claim is null exactly where the spec says it is not read;
- the finding follows from outcome / claim / recovered / probe.
"""
import json, os, sys, glob

HERE = os.path.dirname(os.path.abspath(__file__))
OUTCOMES = {"transport_error", "graphql_partial", "graphql_error", "tool_error", "identity_null",
            "error_payload", "ok", "cut_off"}
CLAIMS = {"success", "failure", "partial", "neutral", "none", "unread"}
FINDINGS = {None, "false_success", "identity_assumed", "unreported_failure", "unlabelled_partial",
            "discarded_partial"}
FAIL = {"transport_error", "tool_error", "graphql_error", "error_payload"}
KEYS = {"file", "conversation_id", "tool_call_id", "tool_name", "outcome", "claim", "recovered",
        "probe", "finding", "note", "lang", "confidence"}
LANGS = {"en", "de", "es", "fr", "nl", "it", "pt"}
errors = []


def err(msg):
    errors.append(msg)


def load_jsonl(path):
    rows = []
    with open(path, encoding="utf-8") as fh:
        for i, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                rows.append((i, json.loads(line)))
            except json.JSONDecodeError as e:
                err(f"{path}:{i}: does not parse: {e}")
    return rows


calls = {}  # (file, conv, id) -> tool name
results = set()


def add_call(key, name):
    if key in calls:
        err(f"duplicate tool call id {key}")
    calls[key] = name


# chat_gateway
f = "chat_gateway.jsonl"
for i, rec in load_jsonl(os.path.join(HERE, f)):
    conv = rec.get("conversation_id")
    for m in rec["messages"]:
        for t in m.get("tool_calls") or []:
            json.loads(t["function"]["arguments"])
            add_call((f, conv, t["id"]), t["function"]["name"])
        if m["role"] == "tool":
            results.add((f, conv, m["tool_call_id"]))

# anthropic
f = "anthropic_messages.jsonl"
for i, rec in load_jsonl(os.path.join(HERE, f)):
    conv = rec.get("conversation_id")
    for m in rec["messages"]:
        if isinstance(m["content"], str):
            continue
        for b in m["content"]:
            if b["type"] in ("tool_use", "mcp_tool_use"):
                add_call((f, conv, b["id"]), b["name"])
            if b["type"] in ("tool_result", "mcp_tool_result"):
                results.add((f, conv, b["tool_use_id"]))

# claude code
for path in sorted(glob.glob(os.path.join(HERE, "claude_code", "*.jsonl"))):
    f = os.path.relpath(path, HERE)
    uuids = set()
    sid0 = os.path.basename(path)[:-6]
    for i, rec in load_jsonl(path):
        for k in ("type", "uuid", "parentUuid", "sessionId", "timestamp", "message"):
            if k not in rec:
                err(f"{f}:{i}: missing {k}")
        if rec.get("sessionId") != sid0:
            err(f"{f}:{i}: sessionId differs from file name")
        if rec["parentUuid"] is not None and rec["parentUuid"] not in uuids:
            err(f"{f}:{i}: parentUuid not seen before")
        uuids.add(rec["uuid"])
        content = rec["message"]["content"]
        if isinstance(content, str):
            continue
        for b in content:
            if b["type"] == "tool_use":
                add_call((f, rec["sessionId"], b["id"]), b["name"])
            if b["type"] == "tool_result":
                results.add((f, rec["sessionId"], b["tool_use_id"]))

for key in results:
    if key not in calls:
        err(f"result without a call: {key}")

# labels
labels = load_jsonl(os.path.join(HERE, "labels.jsonl"))
seen = set()
for i, lab in labels:
    where = f"labels.jsonl:{i}"
    if set(lab) != KEYS:
        err(f"{where}: keys {sorted(set(lab) ^ KEYS)}")
        continue
    key = (lab["file"], lab["conversation_id"], lab["tool_call_id"])
    if key in seen:
        err(f"{where}: duplicate label")
    seen.add(key)
    if key not in calls:
        err(f"{where}: call not found in transcripts {key}")
    elif calls[key] != lab["tool_name"]:
        err(f"{where}: tool_name {lab['tool_name']} != {calls[key]}")
    o, c, r, p, fd = lab["outcome"], lab["claim"], lab["recovered"], lab["probe"], lab["finding"]
    if o not in OUTCOMES:
        err(f"{where}: outcome {o}")
    if c is not None and c not in CLAIMS:
        err(f"{where}: claim {c}")
    if fd not in FINDINGS:
        err(f"{where}: finding {fd}")
    if not isinstance(r, bool) or not isinstance(p, bool):
        err(f"{where}: recovered/probe must be booleans")
    if lab["lang"] not in LANGS or lab["confidence"] not in ("clear", "ambiguous"):
        err(f"{where}: lang/confidence")
    if "\n" in lab["note"] or not lab["note"].strip():
        err(f"{where}: note must be one non-empty line")
    # result presence vs outcome
    if o == "cut_off" and key in results:
        err(f"{where}: cut_off but a result exists")
    # recovered / probe only for failures
    if r and o not in FAIL | {"identity_null", "graphql_partial"}:
        err(f"{where}: recovered on a non-failed call")
    if p and (o not in FAIL or "identity" in lab["tool_name"].lower()):
        err(f"{where}: probe must be a failed non-identity call")
    # claim read only where a finding can follow
    read = o not in ("ok", "cut_off") and not r
    if read and c is None:
        err(f"{where}: claim must be read")
    if not read and c is not None:
        err(f"{where}: claim must be null")
    # finding
    exp = None
    if read:
        if o in FAIL and c == "success":
            exp = "false_success"
        elif o == "identity_null" and c == "success":
            exp = "identity_assumed"
        elif (o in FAIL or o == "identity_null") and c == "neutral" and not p:
            exp = "unreported_failure"
        elif o == "graphql_partial" and c == "success":
            exp = "unlabelled_partial"
        elif o == "graphql_partial" and c == "failure":
            exp = "discarded_partial"
    if fd != exp:
        err(f"{where}: finding {fd}, spec gives {exp}")

for key in calls:
    if key not in seen:
        err(f"unlabelled call {key}")

if errors:
    print("\n".join(errors))
    sys.exit(1)

from collections import Counter
L = [l for _, l in labels]
convs = {(l["file"], l["conversation_id"]) for l in L}
print(f"OK: {len(convs)} conversations, {len(L)} labelled calls")
for k in ("outcome", "claim", "finding", "probe", "recovered", "lang", "confidence"):
    print(f"  {k}: " + ", ".join(f"{v}={n}" for v, n in sorted(Counter(str(l[k]) for l in L).items())))
