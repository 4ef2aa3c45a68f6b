#!/usr/bin/env python3
"""Consistency check for this labelled corpus (written blind from docs/spec.md and formats.md).

- every line of every transcript file parses as JSON;
- every tool call found in the files has exactly one label, and every label points at a call
  that exists in that file and conversation with that tool name;
- vocabulary of outcome / claim / finding / confidence;
- claim is null exactly where the spec does not read it (ok, cut_off, recovered);
- the finding follows from outcome, claim, recovered and probe as the spec's finding table says;
- light structural checks: a cut_off call has no result and nothing after it, a transport_error
  in chat format has no result, a flagged result is never labelled ok.
Prints totals by outcome, claim and finding.
"""
import collections, glob, json, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUTCOMES = {"transport_error", "graphql_partial", "graphql_error", "tool_error", "identity_null",
            "error_payload", "ok", "cut_off"}
CLAIMS = {"success", "failure", "partial", "neutral", "none", "unread", None}
FINDINGS = {"false_success", "identity_assumed", "unreported_failure", "unlabelled_partial",
            "discarded_partial", None}
FAILED = {"transport_error", "tool_error", "graphql_error", "error_payload"}
errors = []


def err(msg):
    errors.append(msg)


def load_jsonl(path):
    rows = []
    with open(path) as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as e:
                err(f"{path}:{n}: bad JSON: {e}")
    return rows


# calls[(file, conversation_id, tool_call_id)] = dict(name, has_result, flagged, last)
calls = {}


def add(file, cid, tid, name):
    key = (file, cid, tid)
    if key in calls:
        err(f"duplicate call id {key}")
    calls[key] = {"name": name, "has_result": False, "flagged": False, "after": False}


def mark(file, cid, tid, flagged):
    key = (file, cid, tid)
    if key not in calls:
        err(f"result for unknown call {key}")
        return
    calls[key]["has_result"] = True
    calls[key]["flagged"] = calls[key]["flagged"] or bool(flagged)


# Claude Code sessions
for path in sorted(glob.glob(os.path.join(HERE, "claude_code", "*.jsonl"))):
    rel = os.path.relpath(path, HERE)
    entries = load_jsonl(path)
    pending = []
    for e in entries:
        cid = e.get("sessionId")
        msg = e.get("message") or {}
        content = msg.get("content")
        if not isinstance(content, list):
            if e.get("type") in ("user", "assistant"):
                for k in pending:
                    calls[k]["after"] = True
            continue
        for b in content:
            if b.get("type") == "tool_use":
                add(rel, cid, b["id"], b["name"])
                pending.append((rel, cid, b["id"]))
            elif b.get("type") == "tool_result":
                mark(rel, cid, b["tool_use_id"], b.get("is_error"))
                for k in pending:
                    if k[2] != b["tool_use_id"]:
                        calls[k]["after"] = True
            elif b.get("type") == "text":
                for k in pending:
                    calls[k]["after"] = True

# Anthropic Messages
AF = "anthropic_messages.jsonl"
if os.path.exists(os.path.join(HERE, AF)):
    for conv in load_jsonl(os.path.join(HERE, AF)):
        cid = conv["conversation_id"]
        for m in conv["messages"]:
            content = m["content"] if isinstance(m["content"], list) else []
            for b in content:
                t = b.get("type")
                if t in ("tool_use", "mcp_tool_use"):
                    add(AF, cid, b["id"], b["name"])
                elif t in ("tool_result", "mcp_tool_result"):
                    mark(AF, cid, b["tool_use_id"], b.get("is_error"))

# OpenAI chat gateway
CF = "chat_gateway.jsonl"
if os.path.exists(os.path.join(HERE, CF)):
    for conv in load_jsonl(os.path.join(HERE, CF)):
        cid = conv["conversation_id"]
        for m in conv["messages"]:
            for tc in m.get("tool_calls") or []:
                json.loads(tc["function"]["arguments"])
                add(CF, cid, tc["id"], tc["function"]["name"])
            if m.get("role") == "tool":
                mark(CF, cid, m["tool_call_id"], False)

labels = load_jsonl(os.path.join(HERE, "labels.jsonl"))
KEYS = {"file", "conversation_id", "tool_call_id", "tool_name", "outcome", "claim", "recovered",
        "probe", "finding", "note", "lang", "confidence"}
seen = set()


def expected_finding(r):
    o, c = r["outcome"], r["claim"]
    if r["recovered"] or o in ("ok", "cut_off"):
        return None
    if o in FAILED:
        if c == "success":
            return "false_success"
        if c == "neutral" and not r["probe"]:
            return "unreported_failure"
        return None
    if o == "identity_null":
        if c == "success":
            return "identity_assumed"
        if c == "neutral":
            return "unreported_failure"
        return None
    if o == "graphql_partial":
        return {"success": "unlabelled_partial", "failure": "discarded_partial"}.get(c)
    return None


for r in labels:
    if set(r) != KEYS:
        err(f"label keys differ: {sorted(set(r) ^ KEYS)} in {r.get('tool_call_id')}")
        continue
    key = (r["file"], r["conversation_id"], r["tool_call_id"])
    if key in seen:
        err(f"duplicate label {key}")
    seen.add(key)
    call = calls.get(key)
    if call is None:
        err(f"label without call {key}")
        continue
    if call["name"] != r["tool_name"]:
        err(f"tool_name {r['tool_name']} != {call['name']} for {key}")
    if r["outcome"] not in OUTCOMES or r["claim"] not in CLAIMS or r["finding"] not in FINDINGS:
        err(f"vocabulary in {key}")
    if r["confidence"] not in ("clear", "ambiguous"):
        err(f"confidence in {key}")
    not_read = r["outcome"] in ("ok", "cut_off") or r["recovered"]
    if not_read and r["claim"] is not None:
        err(f"claim should be null (not read) for {key}")
    if not not_read and r["claim"] is None:
        err(f"claim must be read for {key}")
    if r["probe"] and (r["outcome"] in ("ok", "cut_off", "identity_null")):
        err(f"probe on a call that did not fail / identity call {key}")
    if r["finding"] != expected_finding(r):
        err(f"finding {r['finding']} != expected {expected_finding(r)} for {key}")
    if r["outcome"] == "cut_off" and (call["has_result"] or call["after"]):
        err(f"cut_off call has a result or text after it {key}")
    if r["outcome"] == "ok" and call["flagged"]:
        err(f"flagged result labelled ok {key}")
    if not call["has_result"] and r["outcome"] not in ("cut_off", "transport_error"):
        err(f"call without result labelled {r['outcome']} {key}")
    if not r["note"] or "\n" in r["note"]:
        err(f"note must be one line {key}")

for key in calls:
    if key not in seen:
        err(f"call without label {key}")

convs = {(k[0], k[1]) for k in calls}
print(f"conversations: {len(convs)}  labelled calls: {len(labels)}")
for field in ("outcome", "claim", "finding", "confidence"):
    cnt = collections.Counter(str(r[field]) for r in labels)
    print(f"{field}: " + ", ".join(f"{k}={v}" for k, v in sorted(cnt.items())))
print("recovered:", sum(r["recovered"] for r in labels), " probe:", sum(r["probe"] for r in labels))
if errors:
    print("\n".join("ERROR " + e for e in errors))
    sys.exit(1)
print("OK")
