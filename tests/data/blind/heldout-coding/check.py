#!/usr/bin/env python3
"""Consistency check for this labelled corpus (written from spec.md + formats.md only).

- every line of every transcript file and of labels.jsonl parses as JSON;
- every tool call in the files has exactly one label, and every label names a call that exists
  in that file and conversation, with the same tool name;
- label fields use the spec's vocabulary; claim is null exactly where the spec does not read it;
- the finding follows from outcome / claim / recovered / probe as the spec's finding table says;
- light cross-checks of outcome against the stored result (flag present, result present).
Run: python3 check.py   (exit 0 = all good)
"""
import json, os, re, sys, glob
from collections import Counter

ROOT = os.path.dirname(os.path.abspath(__file__))
OUTCOMES = {"transport_error", "graphql_partial", "graphql_error", "tool_error", "identity_null",
            "error_payload", "ok", "cut_off"}
CLAIMS = {"success", "failure", "partial", "neutral", "none", "unread", None}
FAILS = {"transport_error", "tool_error", "graphql_error", "error_payload"}
FINDINGS = {"false_success", "identity_assumed", "unreported_failure", "unlabelled_partial",
            "discarded_partial", None}
KEYS = ["file", "conversation_id", "tool_call_id", "tool_name", "outcome", "claim", "recovered",
        "probe", "finding", "note", "lang", "confidence"]
errors = []


def err(msg):
    errors.append(msg)


def load(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for i, line in enumerate(f, 1):
            if not line.strip():
                err(f"{path}:{i}: blank line")
                continue
            try:
                rows.append((i, json.loads(line)))
            except json.JSONDecodeError as e:
                err(f"{path}:{i}: bad JSON: {e}")
    return rows


def text_of(content):
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(b.get("text", "") for b in content if isinstance(b, dict))
    return json.dumps(content)


# calls[(file, conv, id)] = {"name", "has_result", "flag", "text"}
calls = {}


def add_call(file, conv, cid, name):
    key = (file, conv, cid)
    if key in calls:
        err(f"duplicate call id {key}")
    calls[key] = {"name": name, "has_result": False, "flag": False, "text": ""}


def add_result(file, conv, cid, flag, text):
    key = (file, conv, cid)
    if key not in calls:
        err(f"result without call {key}")
        return
    calls[key].update(has_result=True, flag=bool(flag), text=text)


# --- chat_gateway.jsonl (OpenAI Chat Completions)
p = os.path.join(ROOT, "chat_gateway.jsonl")
for ln, rec in load(p):
    conv = rec["conversation_id"]
    for m in rec["messages"]:
        for tc in m.get("tool_calls") or []:
            json.loads(tc["function"]["arguments"])
            add_call("chat_gateway.jsonl", conv, tc["id"], tc["function"]["name"])
        if m["role"] == "tool":
            c = m["content"]
            flag = False
            try:
                j = json.loads(c) if isinstance(c, str) else None
                flag = isinstance(j, dict) and j.get("isError") is True
            except json.JSONDecodeError:
                pass
            add_result("chat_gateway.jsonl", conv, m["tool_call_id"], flag, text_of(c))

# --- anthropic_messages.jsonl
p = os.path.join(ROOT, "anthropic_messages.jsonl")
for ln, rec in load(p):
    conv = rec["conversation_id"]
    for m in rec["messages"]:
        if isinstance(m["content"], str):
            continue
        for b in m["content"]:
            if b["type"] in ("tool_use", "mcp_tool_use"):
                add_call("anthropic_messages.jsonl", conv, b["id"], b["name"])
            elif b["type"] in ("tool_result", "mcp_tool_result"):
                add_result("anthropic_messages.jsonl", conv, b["tool_use_id"], b.get("is_error"), text_of(b.get("content")))

# --- claude_code/*.jsonl
for path in sorted(glob.glob(os.path.join(ROOT, "claude_code", "*.jsonl"))):
    rel = os.path.relpath(path, ROOT)
    rows = load(path)
    seen = set()
    sids = set()
    for ln, rec in rows:
        for k in ("type", "uuid", "parentUuid", "sessionId", "timestamp", "message"):
            if k not in rec:
                err(f"{rel}:{ln}: missing {k}")
        if rec.get("parentUuid") is not None and rec["parentUuid"] not in seen:
            err(f"{rel}:{ln}: parentUuid not an earlier uuid")
        seen.add(rec.get("uuid"))
        sids.add(rec.get("sessionId"))
        conv = rec.get("sessionId")
        content = rec["message"]["content"]
        if isinstance(content, str):
            continue
        for b in content:
            if b["type"] == "tool_use":
                add_call(rel, conv, b["id"], b["name"])
            elif b["type"] == "tool_result":
                add_result(rel, conv, b["tool_use_id"], b.get("is_error"), text_of(b.get("content")))
    if len(sids) != 1 or os.path.basename(path) != f"{next(iter(sids))}.jsonl":
        err(f"{rel}: file name / sessionId mismatch")

# --- labels
labels = load(os.path.join(ROOT, "labels.jsonl"))
labelled = set()
for ln, l in labels:
    where = f"labels.jsonl:{ln}"
    if list(l.keys()) != KEYS:
        err(f"{where}: keys {list(l.keys())}")
    key = (l["file"], l["conversation_id"], l["tool_call_id"])
    if key in labelled:
        err(f"{where}: duplicate label {key}")
    labelled.add(key)
    c = calls.get(key)
    if c is None:
        err(f"{where}: no such call {key}")
        continue
    if c["name"] != l["tool_name"]:
        err(f"{where}: tool_name {l['tool_name']} != {c['name']}")
    o, cl, rec, probe, f = l["outcome"], l["claim"], l["recovered"], l["probe"], l["finding"]
    if o not in OUTCOMES or cl not in CLAIMS or f not in FINDINGS:
        err(f"{where}: vocabulary")
    if not isinstance(rec, bool) or not isinstance(probe, bool):
        err(f"{where}: recovered/probe must be bool")
    if l["confidence"] not in ("clear", "ambiguous") or not l["lang"] or not l["note"] or "\n" in l["note"]:
        err(f"{where}: confidence/lang/note")
    failed = o in FAILS or o in ("identity_null", "graphql_partial")
    # recovered / probe only make sense for failures; identity calls are never probes
    if rec and not (o in FAILS or o == "identity_null"):
        err(f"{where}: recovered on a non-failure")
    if probe and not (o in FAILS):
        err(f"{where}: probe on {o}")
    # claim is read only where a finding can follow
    read = failed and not rec
    if read and cl is None:
        err(f"{where}: claim must be read")
    if not read and cl is not None:
        err(f"{where}: claim must be null (not read)")
    # expected finding
    exp = None
    if read and cl != "unread":
        if o in FAILS:
            if cl == "success":
                exp = "false_success"
            elif cl == "neutral" and not probe:
                exp = "unreported_failure"
        elif o == "identity_null":
            if cl == "success":
                exp = "identity_assumed"
            elif cl == "neutral":
                exp = "unreported_failure"
        elif o == "graphql_partial":
            exp = {"success": "unlabelled_partial", "failure": "discarded_partial"}.get(cl)
    if f != exp:
        err(f"{where}: finding {f} but spec gives {exp}")
    # cross-check outcome against the stored result
    mcp_proto = re.search(r"MCP error -32\d{3}", c["text"] or "") is not None
    if o == "transport_error":
        if c["has_result"] and not mcp_proto:
            err(f"{where}: transport_error but a normal result is stored")
    elif o == "cut_off":
        if c["has_result"]:
            err(f"{where}: cut_off but result exists")
    else:
        if not c["has_result"]:
            err(f"{where}: {o} but no result stored")
        if o == "tool_error" and not c["flag"]:
            err(f"{where}: tool_error without a flag")
        if o in ("ok", "error_payload", "identity_null") and c["flag"]:
            err(f"{where}: {o} but result is flagged")
        if mcp_proto:
            err(f"{where}: MCP protocol error text should be transport_error")

for key in calls:
    if key not in labelled:
        err(f"unlabelled call {key}")

convs = {(l['file'], l['conversation_id']) for _, l in labels}
print(f"conversations: {len(convs)}  labelled calls: {len(labels)}")
for fld in ("outcome", "claim", "finding"):
    print(f"  {fld}: " + ", ".join(f"{k}={v}" for k, v in sorted(Counter(str(l[fld]) for _, l in labels).items())))
print(f"  recovered={sum(l['recovered'] for _, l in labels)} probe={sum(l['probe'] for _, l in labels)} "
      f"ambiguous={sum(l['confidence'] == 'ambiguous' for _, l in labels)}")
if errors:
    print("\nFAIL")
    for e in errors:
        print(" -", e)
    sys.exit(1)
print("OK")
