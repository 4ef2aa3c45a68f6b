#!/usr/bin/env python3
"""Consistency check for the dec-j labelled corpus (stdlib only).

- every line of every transcript file and of labels.jsonl parses as JSON;
- every labelled tool_call_id exists in its file and conversation, with the labelled tool name;
- every tool call in the files has exactly one label;
- label keys and vocabularies are as the spec says;
- claim is null exactly where the spec says it is not read (ok, cut_off, recovered);
- the finding follows from outcome / claim / recovered / probe per the spec's finding table.
"""
import glob, json, os, sys
from collections import Counter

ROOT = os.path.dirname(os.path.abspath(__file__))
KEYS = {"file", "conversation_id", "tool_call_id", "tool_name", "outcome", "claim", "recovered",
        "probe", "finding", "note", "lang", "confidence"}
OUTCOMES = {"transport_error", "graphql_partial", "graphql_error", "tool_error", "identity_null",
            "error_payload", "ok", "cut_off"}
CLAIMS = {"success", "failure", "partial", "neutral", "none", "unread"}
FINDINGS = {None, "false_success", "identity_assumed", "unreported_failure", "unlabelled_partial",
            "discarded_partial"}
FAILURES = {"transport_error", "tool_error", "graphql_error", "error_payload"}

errors = []

def err(msg):
    errors.append(msg)

def load_jsonl(path):
    rows = []
    with open(path, encoding="utf-8") as fh:
        for i, line in enumerate(fh, 1):
            if not line.strip():
                err(f"{path}:{i}: blank line")
                continue
            try:
                rows.append((i, json.loads(line)))
            except json.JSONDecodeError as e:
                err(f"{path}:{i}: does not parse: {e}")
    return rows

calls = {}  # (file, conversation_id, tool_call_id) -> tool name

def add_call(file, cid, tid, name):
    k = (file, cid, tid)
    if k in calls:
        err(f"duplicate tool call id {k}")
    calls[k] = name

# chat_gateway.jsonl (OpenAI Chat Completions)
p = os.path.join(ROOT, "chat_gateway.jsonl")
for ln, rec in load_jsonl(p):
    cid = rec.get("conversation_id") or f"chat_gateway.jsonl:{ln}"
    results = set()
    for m in rec["messages"]:
        for t in m.get("tool_calls") or []:
            add_call("chat_gateway.jsonl", cid, t["id"], t["function"]["name"])
            json.loads(t["function"]["arguments"])
        if m.get("role") == "tool":
            results.add(m["tool_call_id"])
    for k in [k for k in calls if k[0] == "chat_gateway.jsonl" and k[1] == cid]:
        if k[2] not in results:
            err(f"{k}: no tool result")

# anthropic_messages.jsonl
p = os.path.join(ROOT, "anthropic_messages.jsonl")
for ln, rec in load_jsonl(p):
    cid = rec.get("conversation_id") or f"anthropic_messages.jsonl:{ln}"
    results = set()
    for m in rec["messages"]:
        if isinstance(m["content"], str):
            continue
        for b in m["content"]:
            if b["type"] in ("tool_use", "mcp_tool_use"):
                add_call("anthropic_messages.jsonl", cid, b["id"], b["name"])
            elif b["type"] in ("tool_result", "mcp_tool_result"):
                results.add(b["tool_use_id"])
    for k in [k for k in calls if k[0] == "anthropic_messages.jsonl" and k[1] == cid]:
        if k[2] not in results:
            err(f"{k}: no tool result")

# claude_code/*.jsonl
for path in sorted(glob.glob(os.path.join(ROOT, "claude_code", "*.jsonl"))):
    rel = "claude_code/" + os.path.basename(path)
    rows = load_jsonl(path)
    sids = {r.get("sessionId") for _, r in rows if r.get("sessionId")}
    if len(sids) != 1:
        err(f"{rel}: expected one sessionId, got {sids}")
    sid = next(iter(sids))
    if os.path.basename(path) != sid + ".jsonl":
        err(f"{rel}: file name does not match sessionId")
    uuids, results = set(), set()
    for ln, r in rows:
        if r.get("type") not in ("user", "assistant"):
            continue
        for f in ("uuid", "parentUuid", "sessionId", "timestamp", "message"):
            if f not in r:
                err(f"{rel}:{ln}: missing {f}")
        if r["parentUuid"] is not None and r["parentUuid"] not in uuids:
            err(f"{rel}:{ln}: parentUuid points to an unknown/later line")
        uuids.add(r["uuid"])
        content = r["message"]["content"]
        if isinstance(content, str):
            continue
        for b in content:
            if b["type"] == "tool_use":
                add_call(rel, sid, b["id"], b["name"])
            elif b["type"] == "tool_result":
                results.add(b["tool_use_id"])
    for k in [k for k in calls if k[0] == rel]:
        if k[2] not in results:
            err(f"{k}: no tool result")

# labels
labels = [r for _, r in load_jsonl(os.path.join(ROOT, "labels.jsonl"))]
seen = set()
for l in labels:
    k = (l.get("file"), l.get("conversation_id"), l.get("tool_call_id"))
    if set(l) != KEYS:
        err(f"{k}: keys {sorted(set(l) ^ KEYS)} differ")
    if k in seen:
        err(f"{k}: labelled twice")
    seen.add(k)
    if k not in calls:
        err(f"{k}: labelled call not found in its file/conversation")
    elif calls[k] != l["tool_name"]:
        err(f"{k}: tool_name {l['tool_name']} != {calls[k]}")
    o, c, rec, probe, f = l["outcome"], l["claim"], l["recovered"], l["probe"], l["finding"]
    if o not in OUTCOMES:
        err(f"{k}: bad outcome {o}")
    if f not in FINDINGS:
        err(f"{k}: bad finding {f}")
    if l["confidence"] not in ("clear", "ambiguous"):
        err(f"{k}: bad confidence")
    if not isinstance(rec, bool) or not isinstance(probe, bool):
        err(f"{k}: recovered/probe must be booleans")
    read = o not in ("ok", "cut_off") and not rec
    if read and c not in CLAIMS:
        err(f"{k}: claim must be read here, got {c}")
    if not read and c is not None:
        err(f"{k}: claim must be null (not read), got {c}")
    if rec and o in ("ok", "cut_off"):
        err(f"{k}: an ok/cut_off call cannot be recovered")
    if probe and (o == "identity_null" or o in ("ok", "cut_off")):
        err(f"{k}: probe only for failed non-identity calls")
    # expected finding
    exp = None
    if read and c != "unread":
        if o in FAILURES:
            if c == "success":
                exp = "false_success"
            elif c == "neutral" and not probe:
                exp = "unreported_failure"
        elif o == "identity_null":
            if c == "success":
                exp = "identity_assumed"
            elif c == "neutral":
                exp = "unreported_failure"
        elif o == "graphql_partial":
            if c == "success":
                exp = "unlabelled_partial"
            elif c == "failure":
                exp = "discarded_partial"
    if f != exp:
        err(f"{k}: finding {f} but spec gives {exp}")
    if l["confidence"] == "ambiguous" and "reading" not in l["note"]:
        err(f"{k}: ambiguous row should state the other reading in the note")

for k in calls:
    if k not in seen:
        err(f"{k}: tool call without a label")

convs = {(l["file"], l["conversation_id"]) for l in labels}
print(f"conversations: {len(convs)}  labelled calls: {len(labels)}  files: "
      f"{dict(Counter(l['file'].split('/')[0] for l in labels))}")
print("outcome:", dict(Counter(l["outcome"] for l in labels)))
print("claim (read):", dict(Counter(l["claim"] for l in labels if l["claim"] is not None)))
print("finding:", dict(Counter(l["finding"] for l in labels)))
print("recovered:", sum(l["recovered"] for l in labels), " probe:", sum(l["probe"] for l in labels),
      " lang:", dict(Counter(l["lang"] for l in labels)),
      " confidence:", dict(Counter(l["confidence"] for l in labels)))
if errors:
    print("\nERRORS:")
    for e in errors:
        print(" -", e)
    sys.exit(1)
print("OK")
