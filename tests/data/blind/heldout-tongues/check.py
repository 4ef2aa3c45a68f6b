#!/usr/bin/env python3
"""Consistency check for this labelled corpus (does not run or import the auditor)."""
import glob
import json
import os
import sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
FAIL = {"transport_error", "tool_error", "graphql_error", "error_payload"}
OUTCOMES = FAIL | {"graphql_partial", "identity_null", "ok", "cut_off"}
CLAIMS = {"success", "failure", "partial", "neutral", "none", "unread"}
KEYS = ["file", "conversation_id", "tool_call_id", "tool_name", "outcome", "claim", "recovered",
        "probe", "finding", "note", "lang", "confidence"]
errors = []


def err(m):
    errors.append(m)


def read_jsonl(path):
    out = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as e:
                err(f"{path}:{n}: does not parse: {e}")
    return out


calls = {}  # (file, conv, id) -> tool name

for o in read_jsonl(os.path.join(HERE, "chat_gateway.jsonl")):
    conv = o["conversation_id"]
    for m in o["messages"]:
        for tc in m.get("tool_calls") or []:
            json.loads(tc["function"]["arguments"])
            calls[("chat_gateway.jsonl", conv, tc["id"])] = tc["function"]["name"]

for o in read_jsonl(os.path.join(HERE, "anthropic_messages.jsonl")):
    conv = o["conversation_id"]
    for m in o["messages"]:
        if isinstance(m["content"], list):
            for b in m["content"]:
                if b.get("type") in ("tool_use", "mcp_tool_use"):
                    calls[("anthropic_messages.jsonl", conv, b["id"])] = b["name"]

for p in sorted(glob.glob(os.path.join(HERE, "claude_code", "*.jsonl"))):
    rel = os.path.relpath(p, HERE)
    entries = read_jsonl(p)
    uuids = set()
    for e in entries:
        for k in ("type", "uuid", "parentUuid", "sessionId", "timestamp", "message"):
            if k not in e:
                err(f"{rel}: entry without {k}")
        if e["parentUuid"] is not None and e["parentUuid"] not in uuids:
            err(f"{rel}: parentUuid {e['parentUuid']} not seen before")
        uuids.add(e["uuid"])
        c = e["message"]["content"]
        if e["type"] == "assistant":
            for b in c:
                if b.get("type") == "tool_use":
                    calls[(rel, e["sessionId"], b["id"])] = b["name"]
    if os.path.basename(p)[:-6] != entries[0]["sessionId"]:
        err(f"{rel}: file name is not the sessionId")

labels = read_jsonl(os.path.join(HERE, "labels.jsonl"))
seen = set()
for l in labels:
    key = (l["file"], l["conversation_id"], l["tool_call_id"])
    where = f"label {l['conversation_id']}/{l['tool_call_id']}"
    if list(l.keys()) != KEYS:
        err(f"{where}: keys {list(l.keys())}")
    if key in seen:
        err(f"{where}: duplicate")
    seen.add(key)
    if key not in calls:
        err(f"{where}: call not found in {l['file']}")
    elif calls[key] != l["tool_name"]:
        err(f"{where}: tool_name {l['tool_name']} != {calls[key]}")
    o, c, r, p, f = l["outcome"], l["claim"], l["recovered"], l["probe"], l["finding"]
    if o not in OUTCOMES:
        err(f"{where}: outcome {o}")
    if c is not None and c not in CLAIMS:
        err(f"{where}: claim {c}")
    if l["confidence"] not in ("clear", "ambiguous"):
        err(f"{where}: confidence")
    if r and o in ("ok", "cut_off", "graphql_partial"):
        err(f"{where}: recovered on a non-failed call")
    # claim is read only where a finding can follow
    readable = o not in ("ok", "cut_off") and not r
    if readable and c is None:
        err(f"{where}: claim must be read")
    if not readable and c is not None:
        err(f"{where}: claim must be null")
    if p and not (o in FAIL):
        err(f"{where}: probe on a call that did not fail")
    # expected finding
    exp = None
    if not r and c is not None and c != "unread":
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
    if f != exp:
        err(f"{where}: finding {f}, expected {exp}")

for key in calls:
    if key not in seen:
        err(f"call without label: {key}")

print(f"{len(calls)} calls, {len(labels)} labels")
for k in ("outcome", "claim", "finding", "lang", "confidence", "file"):
    print(k, dict(Counter(str(l[k]) for l in labels)))
print("conversations:", len({(l['file'], l['conversation_id']) for l in labels}))
if errors:
    print("\n".join(errors))
    sys.exit(1)
print("OK")
