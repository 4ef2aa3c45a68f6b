#!/usr/bin/env python3
"""Consistency check for the s9-identity labelled corpus.

- every line of every transcript file and of labels.jsonl parses as JSON;
- every tool call in the files has exactly one label, and every label points at a real call
  (file, conversation_id, tool_call_id) with the same tool name;
- a call labelled cut_off has no result; every other call has one;
- claim is null exactly where the spec does not read it (ok, cut_off, recovered);
- the finding follows from outcome / claim / recovered / probe as the spec's table says;
- prints totals by outcome, claim, finding, language and confidence.
"""
import collections
import glob
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUTCOMES = {"transport_error", "graphql_partial", "graphql_error", "tool_error", "identity_null",
            "error_payload", "ok", "cut_off"}
CLAIMS = {"success", "failure", "partial", "neutral", "none", "unread", None}
FINDINGS = {"false_success", "identity_assumed", "unreported_failure", "unlabelled_partial",
            "discarded_partial", None}
FAILED = {"transport_error", "graphql_error", "tool_error", "error_payload"}
KEYS = ["file", "conversation_id", "tool_call_id", "tool_name", "outcome", "claim", "recovered",
        "probe", "finding", "note", "lang", "confidence"]
errors = []


def err(msg):
    errors.append(msg)


def read_jsonl(path):
    out = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as e:
                err(f"{path}:{n}: bad JSON: {e}")
    return out


calls = {}    # (file, conv, id) -> {"name":..., "has_result": bool}


def add_call(file, conv, cid, name):
    key = (file, conv, cid)
    if key in calls:
        err(f"duplicate call id {key}")
    calls[key] = {"name": name, "has_result": False}


def mark_result(file, conv, cid):
    key = (file, conv, cid)
    if key not in calls:
        err(f"result without call {key}")
    else:
        calls[key]["has_result"] = True


# OpenAI chat completions
f = "chat_gateway.jsonl"
for rec in read_jsonl(os.path.join(HERE, f)):
    conv = rec["conversation_id"]
    for m in rec["messages"]:
        for t in m.get("tool_calls") or []:
            json.loads(t["function"]["arguments"])
            add_call(f, conv, t["id"], t["function"]["name"])
        if m["role"] == "tool":
            mark_result(f, conv, m["tool_call_id"])

# Anthropic messages
f = "anthropic_messages.jsonl"
for rec in read_jsonl(os.path.join(HERE, f)):
    conv = rec["conversation_id"]
    for m in rec["messages"]:
        if isinstance(m["content"], str):
            continue
        for b in m["content"]:
            if b["type"] in ("tool_use", "mcp_tool_use"):
                add_call(f, conv, b["id"], b["name"])
            elif b["type"] in ("tool_result", "mcp_tool_result"):
                mark_result(f, conv, b["tool_use_id"])

# Claude Code sessions
for path in sorted(glob.glob(os.path.join(HERE, "claude_code", "*.jsonl"))):
    f = os.path.relpath(path, HERE)
    entries = read_jsonl(path)
    uuids = set()
    prev = None
    for e in entries:
        for k in ("type", "uuid", "parentUuid", "sessionId", "timestamp", "message"):
            if k not in e:
                err(f"{f}: entry missing {k}")
        if e["parentUuid"] != prev:
            err(f"{f}: parentUuid chain broken at {e['uuid']}")
        if os.path.basename(path) != e["sessionId"] + ".jsonl":
            err(f"{f}: sessionId does not match file name")
        uuids.add(e["uuid"])
        prev = e["uuid"]
        conv = e["sessionId"]
        content = e["message"]["content"]
        if isinstance(content, str):
            continue
        for b in content:
            if b["type"] == "tool_use":
                add_call(f, conv, b["id"], b["name"])
            elif b["type"] == "tool_result":
                mark_result(f, conv, b["tool_use_id"])

# labels
labels = read_jsonl(os.path.join(HERE, "labels.jsonl"))
seen = set()
for lab in labels:
    if list(lab.keys()) != KEYS:
        err(f"label keys differ: {list(lab.keys())}")
    key = (lab["file"], lab["conversation_id"], lab["tool_call_id"])
    if key in seen:
        err(f"duplicate label {key}")
    seen.add(key)
    if key not in calls:
        err(f"label points at no call: {key}")
        continue
    c = calls[key]
    if c["name"] != lab["tool_name"]:
        err(f"{key}: tool_name {lab['tool_name']} != {c['name']}")
    o, cl, rec, probe, fi = lab["outcome"], lab["claim"], lab["recovered"], lab["probe"], lab["finding"]
    if o not in OUTCOMES or cl not in CLAIMS or fi not in FINDINGS:
        err(f"{key}: vocabulary")
    if lab["confidence"] not in ("clear", "ambiguous"):
        err(f"{key}: confidence")
    if (o == "cut_off") == c["has_result"]:
        err(f"{key}: cut_off must be exactly the calls without result")
    read = o not in ("ok", "cut_off") and not rec
    if read and cl is None:
        err(f"{key}: claim must be read")
    if not read and cl is not None:
        err(f"{key}: claim must be null (not read)")
    if o in ("ok", "cut_off") and rec:
        err(f"{key}: ok/cut_off call cannot be recovered")
    if probe and (o in ("ok", "cut_off", "identity_null") or lab["tool_name"].endswith(("whoami", "me"))):
        err(f"{key}: probe only for failed non-identity reads")
    # expected finding
    exp = None
    if read:
        if o in FAILED and cl == "success":
            exp = "false_success"
        elif o == "identity_null" and cl == "success":
            exp = "identity_assumed"
        elif (o in FAILED or o == "identity_null") and cl == "neutral" and not probe:
            exp = "unreported_failure"
        elif o == "graphql_partial" and cl == "success":
            exp = "unlabelled_partial"
        elif o == "graphql_partial" and cl == "failure":
            exp = "discarded_partial"
    if fi != exp:
        err(f"{key}: finding {fi} but spec gives {exp}")
for key in calls:
    if key not in seen:
        err(f"call without label: {key}")

convs = {(k[0], k[1]) for k in calls}
print(f"{len(convs)} conversations, {len(calls)} tool calls, {len(labels)} labels")
for field in ("outcome", "claim", "finding", "lang", "confidence"):
    cnt = collections.Counter(str(l[field]) for l in labels)
    print(f"{field:11s}", dict(sorted(cnt.items())))
print("recovered  ", sum(l["recovered"] for l in labels))
if errors:
    print("\nERRORS:")
    for e in errors:
        print(" -", e)
    sys.exit(1)
print("OK")
