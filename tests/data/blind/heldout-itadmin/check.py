"""Consistency check for this labelled corpus (not an auditor: it reads the labels, not the replies)."""
import json, os, sys, glob
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
FAILED = {"transport_error", "tool_error", "graphql_error", "error_payload"}
OUTCOMES = FAILED | {"graphql_partial", "identity_null", "ok", "cut_off"}
CLAIMS = {"success", "failure", "partial", "neutral", "none", "unread"}
KEYS = ["file", "conversation_id", "tool_call_id", "tool_name", "outcome", "claim", "recovered",
        "probe", "finding", "note", "lang", "confidence"]
errors = []

def load(path):
    rows = []
    with open(path) as f:
        for i, line in enumerate(f, 1):
            try:
                rows.append(json.loads(line))
            except Exception as e:
                errors.append(f"{path}:{i}: does not parse: {e}")
    return rows

calls = {}  # (file, conv, id) -> tool name

def chat(fname):
    for rec in load(os.path.join(HERE, fname)):
        cid = rec["conversation_id"]
        for m in rec["messages"]:
            for t in m.get("tool_calls") or []:
                json.loads(t["function"]["arguments"])
                calls[(fname, cid, t["id"])] = t["function"]["name"]

def anthropic(fname):
    for rec in load(os.path.join(HERE, fname)):
        cid = rec["conversation_id"]
        for m in rec["messages"]:
            if isinstance(m["content"], list):
                for b in m["content"]:
                    if b["type"] in ("tool_use", "mcp_tool_use"):
                        calls[(fname, cid, b["id"])] = b["name"]

def claude_code(fname):
    rows = load(os.path.join(HERE, fname))
    uuids = set()
    for i, e in enumerate(rows):
        for k in ("type", "uuid", "parentUuid", "sessionId", "timestamp", "message"):
            if k not in e:
                errors.append(f"{fname}:{i+1}: missing {k}")
        if e["parentUuid"] is not None and e["parentUuid"] not in uuids:
            errors.append(f"{fname}:{i+1}: parentUuid not seen before")
        uuids.add(e["uuid"])
        if os.path.basename(fname)[:-6] != e["sessionId"]:
            errors.append(f"{fname}:{i+1}: sessionId differs from file name")
        c = e["message"]["content"]
        if isinstance(c, list):
            for b in c:
                if b["type"] == "tool_use":
                    calls[(fname, e["sessionId"], b["id"])] = b["name"]

chat("chat_gateway.jsonl")
anthropic("anthropic_messages.jsonl")
for p in sorted(glob.glob(os.path.join(HERE, "claude_code", "*.jsonl"))):
    claude_code(os.path.relpath(p, HERE))

labels = load(os.path.join(HERE, "labels.jsonl"))
seen = set()
for i, l in enumerate(labels, 1):
    where = f"labels.jsonl:{i}"
    if list(l.keys()) != KEYS:
        errors.append(f"{where}: keys {list(l.keys())}")
    key = (l["file"], l["conversation_id"], l["tool_call_id"])
    if key in seen:
        errors.append(f"{where}: duplicate label")
    seen.add(key)
    if key not in calls:
        errors.append(f"{where}: no such call in its file and conversation")
    elif calls[key] != l["tool_name"]:
        errors.append(f"{where}: tool_name {l['tool_name']} != {calls[key]}")
    o, c, r, p, f = l["outcome"], l["claim"], l["recovered"], l["probe"], l["finding"]
    if o not in OUTCOMES: errors.append(f"{where}: bad outcome {o}")
    if c is not None and c not in CLAIMS: errors.append(f"{where}: bad claim {c}")
    if l["confidence"] not in ("clear", "ambiguous"): errors.append(f"{where}: bad confidence")
    if l["confidence"] == "ambiguous" and "other reading" not in l["note"].lower():
        errors.append(f"{where}: ambiguous label without the other reading in the note")
    # claim is read only for failed (non-ok, non-cut_off) calls that were not recovered
    read = o not in ("ok", "cut_off") and not r
    if read and c is None: errors.append(f"{where}: claim must be read")
    if not read and c is not None: errors.append(f"{where}: claim must be null")
    if o in ("ok", "cut_off") and (r or p): errors.append(f"{where}: ok/cut_off call cannot be recovered or a probe")
    if o == "identity_null" and p: errors.append(f"{where}: identity call is never a probe")
    # finding derived from the spec table
    exp = None
    if not r:
        if o in FAILED and c == "success": exp = "false_success"
        elif o == "identity_null" and c == "success": exp = "identity_assumed"
        elif (o in FAILED or o == "identity_null") and c == "neutral" and not p: exp = "unreported_failure"
        elif o == "graphql_partial" and c == "success": exp = "unlabelled_partial"
        elif o == "graphql_partial" and c == "failure": exp = "discarded_partial"
    if f != exp:
        errors.append(f"{where}: finding {f}, spec gives {exp}")

for k in calls:
    if k not in seen:
        errors.append(f"unlabelled call {k}")

if errors:
    print("\n".join(errors)); sys.exit(1)
print(f"OK: {len(calls)} calls, {len(labels)} labels, {len({(k[0], k[1]) for k in calls})} conversations")
for col in ("outcome", "claim", "finding", "lang", "confidence"):
    print(col, dict(Counter(l[col] for l in labels)))
print("recovered", sum(l["recovered"] for l in labels), "probe", sum(l["probe"] for l in labels))
