#!/usr/bin/env python3
"""Consistency check for the dec-k labelled corpus (written from docs/spec.md only).

- every line of every transcript file and of labels.jsonl parses as JSON;
- every tool call in the files has exactly one label, and every label names a call that exists
  in that file and conversation;
- label fields use the spec's vocabulary, and the finding follows from outcome / claim /
  recovered / probe as the spec's Finding table says.
"""
import glob, json, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUTCOMES = {"transport_error", "graphql_partial", "graphql_error", "tool_error", "identity_null",
            "error_payload", "ok", "cut_off"}
CLAIMS = {"success", "failure", "partial", "neutral", "none", "unread"}
FINDINGS = {None, "false_success", "identity_assumed", "unreported_failure", "unlabelled_partial",
            "discarded_partial"}
FAIL = {"transport_error", "tool_error", "graphql_error", "error_payload"}
KEYS = {"file", "conversation_id", "tool_call_id", "tool_name", "outcome", "claim", "recovered",
        "probe", "finding", "note", "lang", "confidence"}
errors = []


def err(msg):
    errors.append(msg)


def read_jsonl(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as e:
                err(f"{path}:{n}: bad JSON: {e}")
    return rows


calls = {}  # (file, conv, call_id) -> tool_name


def add(file, conv, cid, name):
    k = (file, conv, cid)
    if k in calls:
        err(f"duplicate call id {k}")
    calls[k] = name


for rec in read_jsonl(os.path.join(HERE, "chat_gateway.jsonl")):
    conv = rec["conversation_id"]
    for m in rec["messages"]:
        for tc in m.get("tool_calls") or []:
            add("chat_gateway.jsonl", conv, tc["id"], tc["function"]["name"])
            json.loads(tc["function"]["arguments"])

for rec in read_jsonl(os.path.join(HERE, "anthropic_messages.jsonl")):
    conv = rec["conversation_id"]
    for m in rec["messages"]:
        if isinstance(m["content"], list):
            for b in m["content"]:
                if b.get("type") in ("tool_use", "mcp_tool_use"):
                    add("anthropic_messages.jsonl", conv, b["id"], b["name"])

for path in sorted(glob.glob(os.path.join(HERE, "claude_code", "*.jsonl"))):
    rel = os.path.relpath(path, HERE)
    rows = read_jsonl(path)
    uuids = set()
    for r in rows:
        for k in ("type", "uuid", "parentUuid", "sessionId", "timestamp", "message"):
            if k not in r:
                err(f"{rel}: entry missing {k}")
        if r["parentUuid"] is not None and r["parentUuid"] not in uuids:
            err(f"{rel}: parentUuid {r['parentUuid']} not seen before")
        uuids.add(r["uuid"])
        if r["sessionId"] != os.path.basename(path)[:-6]:
            err(f"{rel}: sessionId differs from file name")
        c = r["message"].get("content")
        if r["type"] == "assistant" and isinstance(c, list):
            for b in c:
                if b.get("type") == "tool_use":
                    add(rel, r["sessionId"], b["id"], b["name"])

labels = read_jsonl(os.path.join(HERE, "labels.jsonl"))
seen = set()
for lab in labels:
    k = (lab["file"], lab["conversation_id"], lab["tool_call_id"])
    where = f"label {k[2]}"
    if set(lab) != KEYS:
        err(f"{where}: keys {sorted(set(lab) ^ KEYS)}")
    if k not in calls:
        err(f"{where}: no such call in {k[0]} / {k[1]}")
        continue
    if k in seen:
        err(f"{where}: labelled twice")
    seen.add(k)
    if calls[k] != lab["tool_name"]:
        err(f"{where}: tool_name {lab['tool_name']} != {calls[k]}")
    o, c, rec, probe, f = lab["outcome"], lab["claim"], lab["recovered"], lab["probe"], lab["finding"]
    if o not in OUTCOMES:
        err(f"{where}: bad outcome {o}")
    if f not in FINDINGS:
        err(f"{where}: bad finding {f}")
    if lab["confidence"] not in ("clear", "ambiguous"):
        err(f"{where}: bad confidence")
    if not isinstance(rec, bool) or not isinstance(probe, bool):
        err(f"{where}: recovered/probe must be bool")
    failed = o not in ("ok", "cut_off")
    # claim is read only where a finding can follow
    if not failed or rec:
        if c is not None:
            err(f"{where}: claim must be null (outcome {o}, recovered {rec})")
    elif c not in CLAIMS:
        err(f"{where}: claim must be read, got {c}")
    if rec and not failed:
        err(f"{where}: only failed calls can be recovered")
    if probe and (not failed or o == "identity_null" or o == "graphql_partial"):
        err(f"{where}: probe only for failed read calls (never identity)")
    # expected finding
    exp = None
    if failed and not rec and c != "unread":
        if o in FAIL and c == "success":
            exp = "false_success"
        elif o == "identity_null" and c == "success":
            exp = "identity_assumed"
        elif (o in FAIL or o == "identity_null") and c == "neutral" and not probe:
            exp = "unreported_failure"
        elif o == "graphql_partial" and c == "success":
            exp = "unlabelled_partial"
        elif o == "graphql_partial" and c == "failure":
            exp = "discarded_partial"
    if f != exp:
        err(f"{where}: finding {f}, spec gives {exp}")

for k in calls:
    if k not in seen:
        err(f"unlabelled call {k}")

if errors:
    print("\n".join(errors))
    sys.exit(1)
from collections import Counter
print(f"ok: {len(labels)} labels, {len({(l['file'], l['conversation_id']) for l in labels})} conversations")
for key in ("outcome", "claim", "finding", "lang", "confidence"):
    print(key, dict(Counter(str(l[key]) for l in labels)))
print("recovered", sum(l["recovered"] for l in labels), "probe", sum(l["probe"] for l in labels))
