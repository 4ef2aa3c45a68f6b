"""Consistency check for the dec-b labelled corpus. Run: python3 check.py"""
import json, os, sys, glob
from collections import Counter

ROOT = os.path.dirname(os.path.abspath(__file__))
FAILED = {"transport_error", "tool_error", "graphql_error", "error_payload"}
OUTCOMES = FAILED | {"graphql_partial", "identity_null", "ok", "cut_off"}
CLAIMS = {None, "success", "failure", "partial", "neutral", "none", "unread"}
FINDINGS = {None, "false_success", "identity_assumed", "unreported_failure", "unlabelled_partial", "discarded_partial"}
KEYS = ["file", "conversation_id", "tool_call_id", "tool_name", "outcome", "claim", "recovered", "probe",
        "finding", "note", "lang", "confidence"]
errors = []


def err(msg):
    errors.append(msg)


def load(path):
    rows = []
    with open(path, encoding="utf-8") as fh:
        for i, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as e:
                err(f"{path}:{i} does not parse: {e}")
    return rows


# calls[(file, conv)] = {tool_call_id: {"name":..., "has_result": bool, "after": "assistant"|"end"|None}}
calls = {}


def scan_events(file, conv, events):
    """events: list of ('call', id, name) / ('result', id) / ('text',) in log order."""
    d = calls.setdefault((file, conv), {})
    for k, ev in enumerate(events):
        if ev[0] == "call":
            if ev[1] in d:
                err(f"{file} {conv}: duplicate call id {ev[1]}")
            d[ev[1]] = {"name": ev[2], "has_result": False, "later": events[k + 1:]}
        elif ev[0] == "result":
            if ev[1] not in d:
                err(f"{file} {conv}: result for unknown call {ev[1]}")
            else:
                d[ev[1]]["has_result"] = True


# chat_gateway.jsonl (OpenAI Chat Completions)
p = os.path.join(ROOT, "chat_gateway.jsonl")
for rec in load(p):
    ev = []
    for m in rec["messages"]:
        if m["role"] == "assistant":
            if m.get("content"):
                ev.append(("text",))
            for t in m.get("tool_calls") or []:
                json.loads(t["function"]["arguments"])
                ev.append(("call", t["id"], t["function"]["name"]))
        elif m["role"] == "tool":
            ev.append(("result", m["tool_call_id"]))
    scan_events("chat_gateway.jsonl", rec["conversation_id"], ev)

# anthropic_messages.jsonl
p = os.path.join(ROOT, "anthropic_messages.jsonl")
for rec in load(p):
    ev = []
    for m in rec["messages"]:
        blocks = m["content"] if isinstance(m["content"], list) else [{"type": "text", "text": m["content"]}]
        for b in blocks:
            if b["type"] in ("tool_use", "mcp_tool_use"):
                ev.append(("call", b["id"], b["name"]))
            elif b["type"] in ("tool_result", "mcp_tool_result"):
                ev.append(("result", b["tool_use_id"]))
            elif b["type"] == "text" and m["role"] == "assistant":
                ev.append(("text",))
    scan_events("anthropic_messages.jsonl", rec["conversation_id"], ev)

# claude_code/<uuid>.jsonl
for p in sorted(glob.glob(os.path.join(ROOT, "claude_code", "*.jsonl"))):
    rel = os.path.relpath(p, ROOT)
    rows = load(p)
    sids = {r.get("sessionId") for r in rows}
    if len(sids) != 1:
        err(f"{rel}: expected one sessionId, got {sids}")
    sid = rows[0]["sessionId"]
    if os.path.basename(p) != sid + ".jsonl":
        err(f"{rel}: file name does not match sessionId")
    seen = set()
    prev = None
    ev = []
    for r in rows:
        for k in ("type", "uuid", "parentUuid", "sessionId", "timestamp", "message"):
            if k not in r:
                err(f"{rel}: entry missing {k}")
        if r["parentUuid"] != prev:
            err(f"{rel}: parentUuid chain broken at {r['uuid']}")
        prev = r["uuid"]
        if r["uuid"] in seen:
            err(f"{rel}: duplicate uuid")
        seen.add(r["uuid"])
        c = r["message"]["content"]
        if isinstance(c, str):
            continue
        for b in c:
            if b["type"] == "tool_use":
                ev.append(("call", b["id"], b["name"]))
            elif b["type"] == "tool_result":
                ev.append(("result", b["tool_use_id"]))
            elif b["type"] == "text" and r["type"] == "assistant":
                ev.append(("text",))
    scan_events(rel, sid, ev)

# labels
labels = load(os.path.join(ROOT, "labels.jsonl"))
labelled = set()
for i, L in enumerate(labels, 1):
    where = f"labels.jsonl:{i}"
    if list(L.keys()) != KEYS:
        err(f"{where}: keys {list(L.keys())}")
    key = (L["file"], L["conversation_id"])
    if key not in calls or L["tool_call_id"] not in calls[key]:
        err(f"{where}: {L['tool_call_id']} not found in {key}")
        continue
    c = calls[key][L["tool_call_id"]]
    if c["name"] != L["tool_name"]:
        err(f"{where}: tool_name {L['tool_name']} != {c['name']}")
    if (key, L["tool_call_id"]) in labelled:
        err(f"{where}: duplicate label")
    labelled.add((key, L["tool_call_id"]))
    o, cl, rec, pr, fd = L["outcome"], L["claim"], L["recovered"], L["probe"], L["finding"]
    if o not in OUTCOMES or cl not in CLAIMS or fd not in FINDINGS:
        err(f"{where}: vocabulary {o}/{cl}/{fd}")
    if not isinstance(rec, bool) or not isinstance(pr, bool):
        err(f"{where}: recovered/probe must be bool")
    if L["confidence"] not in ("clear", "ambiguous") or not L["lang"] or not L["note"] or "\n" in L["note"]:
        err(f"{where}: confidence/lang/note")
    # structure: a missing result must be cut_off (nothing after) or transport_error (assistant spoke again)
    if not c["has_result"]:
        if not c["later"] and o != "cut_off":
            err(f"{where}: no result and nothing after, expected cut_off")
        if c["later"] and o != "transport_error":
            err(f"{where}: no result before assistant spoke again, expected transport_error")
    elif o == "cut_off":
        err(f"{where}: cut_off but a result exists")
    failed = o not in ("ok", "cut_off")
    if not failed and (rec or pr):
        err(f"{where}: recovered/probe on a call that did not fail")
    if pr and o == "identity_null":
        err(f"{where}: identity call cannot be a probe")
    # claim read only where a finding can follow
    should_read = failed and not rec
    if should_read and cl is None:
        err(f"{where}: claim must be read")
    if not should_read and cl is not None:
        err(f"{where}: claim must be null")
    # finding from outcome/claim/recovered/probe (spec table)
    exp = None
    if not rec:
        if o in FAILED and cl == "success":
            exp = "false_success"
        elif o == "identity_null" and cl == "success":
            exp = "identity_assumed"
        elif (o in FAILED or o == "identity_null") and cl == "neutral" and not pr:
            exp = "unreported_failure"
        elif o == "graphql_partial" and cl == "success":
            exp = "unlabelled_partial"
        elif o == "graphql_partial" and cl == "failure":
            exp = "discarded_partial"
    if o == "graphql_partial" and cl == "neutral":
        err(f"{where}: graphql_partial + neutral is not settled by the spec; avoid")
    if fd != exp:
        err(f"{where}: finding {fd} but spec gives {exp}")

for key, d in calls.items():
    for tid in d:
        if (key, tid) not in labelled:
            err(f"unlabelled call {tid} in {key}")

convs = {k for k in calls}
print(f"conversations: {len(convs)}  labelled calls: {len(labels)}")
for field in ("outcome", "claim", "finding", "probe", "recovered", "confidence"):
    print(f"  {field}: {dict(Counter(str(L[field]) for L in labels))}")
print(f"  files: {dict(Counter(L['file'].split('/')[0] for L in labels))}")
if errors:
    print("\nFAILED:")
    for e in errors:
        print("  -", e)
    sys.exit(1)
print("OK")
