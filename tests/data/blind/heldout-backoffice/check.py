#!/usr/bin/env python3
"""Consistency check for this labelled corpus (written from spec.md wording, not from any auditor code)."""
import json, os, sys, glob
from collections import Counter

ROOT = os.path.dirname(os.path.abspath(__file__))
FAILS = {"transport_error", "tool_error", "graphql_error", "error_payload"}
OUTCOMES = FAILS | {"graphql_partial", "identity_null", "ok", "cut_off"}
CLAIMS = {"success", "failure", "partial", "neutral", "none", "unread"}
FINDINGS = {None, "false_success", "identity_assumed", "unreported_failure", "unlabelled_partial", "discarded_partial"}
KEYS = ["file", "conversation_id", "tool_call_id", "tool_name", "outcome", "claim", "recovered", "probe",
        "finding", "note", "lang", "confidence"]
errors = []

def err(msg): errors.append(msg)

def read_jsonl(path):
    out = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                err(f"{path}:{n}: blank line"); continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as e:
                err(f"{path}:{n}: does not parse: {e}")
    return out

calls = {}  # (file, conv, id) -> name
convs = set()

def add(file, conv, cid, name):
    k = (file, conv, cid)
    if k in calls: err(f"duplicate call id {k}")
    calls[k] = name

for rec in read_jsonl(os.path.join(ROOT, "chat_gateway.jsonl")):
    conv = rec["conversation_id"]; convs.add(("chat_gateway.jsonl", conv))
    for m in rec["messages"]:
        for t in m.get("tool_calls") or []:
            json.loads(t["function"]["arguments"])
            add("chat_gateway.jsonl", conv, t["id"], t["function"]["name"])
        if m["role"] == "tool" and isinstance(m["content"], str) and m["content"][:1] in "{[":
            json.loads(m["content"])

for rec in read_jsonl(os.path.join(ROOT, "anthropic_messages.jsonl")):
    conv = rec["conversation_id"]; convs.add(("anthropic_messages.jsonl", conv))
    for m in rec["messages"]:
        if m["role"] == "assistant" and isinstance(m["content"], list):
            for b in m["content"]:
                if b["type"] in ("tool_use", "mcp_tool_use"):
                    add("anthropic_messages.jsonl", conv, b["id"], b["name"])

for path in sorted(glob.glob(os.path.join(ROOT, "claude_code", "*.jsonl"))):
    rel = os.path.relpath(path, ROOT)
    entries = read_jsonl(path)
    uuids = set()
    for e in entries:
        for k in ("type", "uuid", "parentUuid", "sessionId", "timestamp", "message"):
            if k not in e: err(f"{rel}: entry missing {k}")
        if e["parentUuid"] is not None and e["parentUuid"] not in uuids:
            err(f"{rel}: parentUuid {e['parentUuid']} not seen before")
        uuids.add(e["uuid"])
        convs.add((rel, e["sessionId"]))
        if e["type"] == "assistant":
            for b in e["message"]["content"]:
                if b["type"] == "tool_use":
                    add(rel, e["sessionId"], b["id"], b["name"])

labels = read_jsonl(os.path.join(ROOT, "labels.jsonl"))
seen = set()
for r in labels:
    k = (r["file"], r["conversation_id"], r["tool_call_id"])
    where = f"label {k}"
    if sorted(r) != sorted(KEYS): err(f"{where}: keys {sorted(r)}")
    if k in seen: err(f"{where}: labelled twice")
    seen.add(k)
    if k not in calls: err(f"{where}: no such call in file/conversation"); continue
    if calls[k] != r["tool_name"]: err(f"{where}: tool_name {r['tool_name']} != {calls[k]}")
    o, c, rec, pr, fnd = r["outcome"], r["claim"], r["recovered"], r["probe"], r["finding"]
    if o not in OUTCOMES: err(f"{where}: outcome {o}")
    if c is not None and c not in CLAIMS: err(f"{where}: claim {c}")
    if fnd not in FINDINGS: err(f"{where}: finding {fnd}")
    if not isinstance(rec, bool) or not isinstance(pr, bool): err(f"{where}: recovered/probe not bool")
    if r["confidence"] not in ("clear", "ambiguous"): err(f"{where}: confidence")
    if not r["note"] or "\n" in r["note"]: err(f"{where}: note must be one line")
    if rec and o in ("ok", "cut_off"): err(f"{where}: only failed calls can be recovered")
    if pr and (o in ("ok", "cut_off", "identity_null")): err(f"{where}: probe must be a failed non-identity call")
    # claim is read only where a finding can follow
    should_read = o not in ("ok", "cut_off") and not rec
    if should_read and c is None: err(f"{where}: claim must be read")
    if not should_read and c is not None: err(f"{where}: claim must be null")
    # finding per spec table
    exp = None
    if not rec and c is not None and c != "unread":
        if o in FAILS:
            exp = {"success": "false_success"}.get(c)
            if c == "neutral" and not pr: exp = "unreported_failure"
        elif o == "identity_null":
            exp = {"success": "identity_assumed", "neutral": "unreported_failure"}.get(c)
        elif o == "graphql_partial":
            if c == "neutral": err(f"{where}: graphql_partial + neutral is not settled by the spec; avoid")
            exp = {"success": "unlabelled_partial", "failure": "discarded_partial"}.get(c)
    if fnd != exp: err(f"{where}: finding {fnd}, spec gives {exp}")

for k in calls:
    if k not in seen: err(f"unlabelled call {k}")

if errors:
    print("\n".join(errors)); sys.exit(1)
print(f"OK: {len(convs)} conversations, {len(calls)} calls, {len(labels)} labels")
for field in ("file", "outcome", "claim", "finding", "lang", "confidence"):
    print(f"  {field}: " + ", ".join(f"{k}={v}" for k, v in sorted(Counter(str(r[field]) for r in labels).items())))
print(f"  recovered={sum(r['recovered'] for r in labels)} probe={sum(r['probe'] for r in labels)} "
      f"controls (no finding)={sum(r['finding'] is None for r in labels)}")
