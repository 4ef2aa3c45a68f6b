#!/usr/bin/env python3
"""Consistency check for this labelled corpus (written from spec.md, not from the auditor).

- every line of every transcript and of labels.jsonl parses as JSON;
- every tool call in the transcripts has exactly one label, and every label names a call that
  exists in its file and conversation, with the same tool name;
- vocabularies and keys are the spec's;
- claim is null exactly where the spec says it is not read (ok, cut_off, recovered);
- the finding follows from outcome / claim / recovered / probe per the spec's finding table.
Prints totals by outcome, claim, finding, probe and recovered.
"""
import collections, glob, json, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUTCOMES = {"transport_error", "graphql_partial", "graphql_error", "tool_error", "identity_null",
            "error_payload", "ok", "cut_off"}
CLAIMS = {None, "success", "failure", "partial", "neutral", "none", "unread"}
FINDINGS = {None, "false_success", "identity_assumed", "unreported_failure", "unlabelled_partial",
            "discarded_partial"}
KEYS = {"file", "conversation_id", "tool_call_id", "tool_name", "outcome", "claim", "recovered",
        "probe", "finding", "note", "lang", "confidence"}
FAIL = {"transport_error", "tool_error", "graphql_error", "error_payload"}
errors = []


def err(msg):
    errors.append(msg)


def read_jsonl(path):
    out = []
    with open(path, encoding="utf-8") as f:
        for i, line in enumerate(f, 1):
            if not line.strip():
                err(f"{path}:{i}: blank line")
                continue
            try:
                out.append((i, json.loads(line)))
            except json.JSONDecodeError as e:
                err(f"{path}:{i}: {e}")
    return out


calls = {}  # (file, conv, id) -> tool name


def add_call(file, conv, cid, name):
    k = (file, conv, cid)
    if k in calls:
        err(f"duplicate call id {k}")
    calls[k] = name


# OpenAI Chat Completions
p = os.path.join(HERE, "chat_gateway.jsonl")
for ln, rec in read_jsonl(p):
    conv = rec["conversation_id"]
    results = set()
    for m in rec["messages"]:
        for t in m.get("tool_calls") or []:
            json.loads(t["function"]["arguments"])
            add_call("chat_gateway.jsonl", conv, t["id"], t["function"]["name"])
        if m["role"] == "tool":
            results.add(m["tool_call_id"])
    for (f, c, i) in list(calls):
        if f == "chat_gateway.jsonl" and c == conv and i not in results:
            err(f"chat_gateway {conv}/{i}: no tool message")

# Anthropic Messages
p = os.path.join(HERE, "anthropic_messages.jsonl")
for ln, rec in read_jsonl(p):
    conv = rec["conversation_id"]
    results = set()
    for m in rec["messages"]:
        if isinstance(m["content"], str):
            continue
        for b in m["content"]:
            if b["type"] in ("tool_use", "mcp_tool_use"):
                add_call("anthropic_messages.jsonl", conv, b["id"], b["name"])
            if b["type"] in ("tool_result", "mcp_tool_result"):
                results.add(b["tool_use_id"])
    for (f, c, i) in list(calls):
        if f == "anthropic_messages.jsonl" and c == conv and i not in results:
            err(f"anthropic {conv}/{i}: no tool_result")

# Claude Code sessions
for p in sorted(glob.glob(os.path.join(HERE, "claude_code", "*.jsonl"))):
    rel = os.path.relpath(p, HERE)
    seen_uuid = set()
    prev = None
    for ln, rec in read_jsonl(p):
        for k in ("type", "uuid", "parentUuid", "sessionId", "timestamp", "message"):
            if k not in rec:
                err(f"{rel}:{ln}: missing {k}")
        if rec["parentUuid"] != prev:
            err(f"{rel}:{ln}: parentUuid does not chain to previous line")
        if rec["uuid"] in seen_uuid:
            err(f"{rel}:{ln}: duplicate uuid")
        seen_uuid.add(rec["uuid"])
        prev = rec["uuid"]
        content = rec["message"]["content"]
        if isinstance(content, list):
            for b in content:
                if b.get("type") == "tool_use":
                    add_call(rel, rec["sessionId"], b["id"], b["name"])

# Labels
labels = read_jsonl(os.path.join(HERE, "labels.jsonl"))
labelled = set()
for ln, l in labels:
    where = f"labels.jsonl:{ln}"
    if set(l) != KEYS:
        err(f"{where}: keys {sorted(set(l) ^ KEYS)}")
        continue
    k = (l["file"], l["conversation_id"], l["tool_call_id"])
    if k in labelled:
        err(f"{where}: duplicate label {k}")
    labelled.add(k)
    if k not in calls:
        err(f"{where}: no such call {k}")
    elif calls[k] != l["tool_name"]:
        err(f"{where}: tool_name {l['tool_name']} != {calls[k]}")
    o, c, r, pr, fnd = l["outcome"], l["claim"], l["recovered"], l["probe"], l["finding"]
    if o not in OUTCOMES or c not in CLAIMS or fnd not in FINDINGS:
        err(f"{where}: vocabulary")
    if not isinstance(r, bool) or not isinstance(pr, bool):
        err(f"{where}: recovered/probe must be bool")
    if l["confidence"] not in ("clear", "ambiguous") or l["lang"] != "en" or not l["note"]:
        err(f"{where}: confidence/lang/note")
    if (o in ("ok", "cut_off")) and (r or pr):
        err(f"{where}: ok/cut_off call cannot be recovered or a probe")
    if pr and o == "identity_null":
        err(f"{where}: an identity call is never a probe")
    read = o not in ("ok", "cut_off") and not r
    if read and c is None:
        err(f"{where}: claim must be read")
    if not read and c is not None:
        err(f"{where}: claim must be null (not read)")
    # expected finding
    exp = None
    if not r and read:
        if o in FAIL and c == "success":
            exp = "false_success"
        elif o == "identity_null" and c == "success":
            exp = "identity_assumed"
        elif (o in FAIL or o == "identity_null") and c == "neutral" and not pr:
            exp = "unreported_failure"
        elif o == "graphql_partial" and c == "success":
            exp = "unlabelled_partial"
        elif o == "graphql_partial" and c == "failure":
            exp = "discarded_partial"
    if fnd != exp:
        err(f"{where}: finding {fnd} but spec gives {exp}")

for k in calls:
    if k not in labelled:
        err(f"unlabelled call {k}")

convs = {(f, c) for f, c, _ in calls}
rows = [l for _, l in labels]
print(f"conversations: {len(convs)}   labelled calls: {len(rows)}")
for key in ("outcome", "claim", "finding", "probe", "recovered", "confidence"):
    cnt = collections.Counter(str(l[key]) for l in rows)
    print(f"{key:11s}", dict(sorted(cnt.items())))
by_file = collections.Counter(l["file"].split("/")[0] for l in rows)
print("calls by file", dict(by_file))
if errors:
    print("\nFAILED:")
    for e in errors:
        print("  " + e)
    sys.exit(1)
print("\nOK")
