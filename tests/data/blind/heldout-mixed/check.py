#!/usr/bin/env python3
"""Consistency check for this labelled corpus (no auditor code involved).

- every line of every transcript file and of labels.jsonl parses as JSON;
- every tool call in the files has exactly one label, and every label points at a real call
  in the named file and conversation, with the same tool name;
- claim is null exactly where the spec says it is not read (ok, cut_off, recovered);
- the finding follows from outcome / claim / recovered / probe as the spec's finding table says;
- light cross-checks of outcome against the stored result (flags, missing results).
"""
import glob, json, os, sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
FAILS = {"transport_error", "tool_error", "graphql_error", "error_payload"}
OUTCOMES = FAILS | {"graphql_partial", "identity_null", "ok", "cut_off"}
CLAIMS = {"success", "failure", "partial", "neutral", "none", "unread"}
errors = []


def err(msg):
    errors.append(msg)


def load(path):
    out = []
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                out.append((n, json.loads(line)))
            except json.JSONDecodeError as e:
                err(f"{os.path.relpath(path, HERE)}:{n}: bad JSON: {e}")
    return out


def flagged_text(content):
    """True when a chat tool message carries an MCP-style {isError:true} envelope."""
    if isinstance(content, str):
        try:
            o = json.loads(content)
        except Exception:
            return False
        return isinstance(o, dict) and o.get("isError") is True
    return False


calls = {}  # (file, conv, id) -> dict(name, result_present, flagged)

# chat gateway
p = os.path.join(HERE, "chat_gateway.jsonl")
for n, rec in load(p):
    cid = rec.get("conversation_id")
    results = {m["tool_call_id"]: m for m in rec["messages"] if m.get("role") == "tool"}
    for m in rec["messages"]:
        for t in m.get("tool_calls") or []:
            json.loads(t["function"]["arguments"])  # arguments must be a JSON string
            r = results.get(t["id"])
            calls[("chat_gateway.jsonl", cid, t["id"])] = dict(
                name=t["function"]["name"], result=r is not None,
                flagged=flagged_text(r["content"]) if r else None)

# anthropic messages
p = os.path.join(HERE, "anthropic_messages.jsonl")
for n, rec in load(p):
    cid = rec.get("conversation_id")
    res = {}
    for m in rec["messages"]:
        if isinstance(m["content"], list):
            for b in m["content"]:
                if b.get("type") in ("tool_result", "mcp_tool_result"):
                    res[b["tool_use_id"]] = b
    for m in rec["messages"]:
        if m["role"] == "assistant" and isinstance(m["content"], list):
            for b in m["content"]:
                if b.get("type") in ("tool_use", "mcp_tool_use"):
                    r = res.get(b["id"])
                    calls[("anthropic_messages.jsonl", cid, b["id"])] = dict(
                        name=b["name"], result=r is not None, flagged=bool(r and r.get("is_error")))

# claude code
for p in sorted(glob.glob(os.path.join(HERE, "claude_code", "*.jsonl"))):
    rel = os.path.relpath(p, HERE)
    lines = load(p)
    uuids = set()
    res, uses = {}, []
    for n, e in lines:
        for k in ("type", "uuid", "parentUuid", "sessionId", "timestamp", "message"):
            if k not in e:
                err(f"{rel}:{n}: missing {k}")
        if e.get("parentUuid") is not None and e["parentUuid"] not in uuids:
            err(f"{rel}:{n}: parentUuid points nowhere")
        uuids.add(e["uuid"])
        if os.path.basename(p)[:-6] != e["sessionId"]:
            err(f"{rel}:{n}: sessionId differs from file name")
        c = e["message"].get("content")
        if isinstance(c, list):
            for b in c:
                if b.get("type") == "tool_use":
                    uses.append((e["sessionId"], b))
                if b.get("type") == "tool_result":
                    res[b["tool_use_id"]] = b
    for sid, b in uses:
        r = res.get(b["id"])
        calls[(rel, sid, b["id"])] = dict(name=b["name"], result=r is not None,
                                          flagged=bool(r and r.get("is_error")))

# labels
labels = load(os.path.join(HERE, "labels.jsonl"))
KEYS = {"file", "conversation_id", "tool_call_id", "tool_name", "outcome", "claim", "recovered",
        "probe", "finding", "note", "lang", "confidence"}
seen = set()


def expected_finding(o, c, rec, probe):
    if rec or o in ("ok", "cut_off") or c in (None, "unread"):
        return None
    if o in FAILS:
        if c == "success":
            return "false_success"
        if c == "neutral" and not probe:
            return "unreported_failure"
        return None
    if o == "identity_null":
        if c == "success":
            return "identity_assumed"
        if c == "neutral":
            return "unreported_failure"
        return None
    if o == "graphql_partial":
        return {"success": "unlabelled_partial", "failure": "discarded_partial",
                "neutral": "unreported_failure"}.get(c)
    return None


for n, l in labels:
    where = f"labels.jsonl:{n}"
    if set(l) != KEYS:
        err(f"{where}: keys {sorted(set(l) ^ KEYS)}")
    k = (l["file"], l["conversation_id"], l["tool_call_id"])
    if k in seen:
        err(f"{where}: duplicate label {k}")
    seen.add(k)
    call = calls.get(k)
    if call is None:
        err(f"{where}: no such call {k}")
        continue
    if call["name"] != l["tool_name"]:
        err(f"{where}: tool_name {l['tool_name']} != {call['name']}")
    o, c, rec, probe = l["outcome"], l["claim"], l["recovered"], l["probe"]
    if o not in OUTCOMES:
        err(f"{where}: bad outcome {o}")
    if c is not None and c not in CLAIMS:
        err(f"{where}: bad claim {c}")
    read = o not in ("ok", "cut_off") and not rec
    if read and c is None:
        err(f"{where}: claim must be read for a failed, unrecovered call")
    if not read and c is not None:
        err(f"{where}: claim must be null (not read)")
    if rec and o in ("ok", "cut_off"):
        err(f"{where}: only failed calls can be recovered")
    if probe and (o in ("ok", "cut_off", "identity_null")):
        err(f"{where}: probe only for failed non-identity calls")
    if l["finding"] != expected_finding(o, c, rec, probe):
        err(f"{where}: finding {l['finding']} but spec gives {expected_finding(o, c, rec, probe)}")
    if l["confidence"] not in ("clear", "ambiguous"):
        err(f"{where}: bad confidence")
    # light outcome cross-checks against stored results
    if o == "ok" and call["flagged"]:
        err(f"{where}: labelled ok but the result is flagged as an error")
    if o == "tool_error" and not call["flagged"]:
        err(f"{where}: labelled tool_error but the result is not flagged")
    if o == "cut_off" and call["result"]:
        err(f"{where}: labelled cut_off but a result exists")

for k in calls:
    if k not in seen:
        err(f"unlabelled call {k}")

if errors:
    print("\n".join(errors))
    sys.exit(1)
rows = [l for _, l in labels]
print(f"OK: {len(rows)} labelled calls in {len({(r['file'], r['conversation_id']) for r in rows})} conversations")
for col in ("outcome", "claim", "finding", "lang", "confidence"):
    print(f"  {col}: {dict(Counter(r[col] for r in rows))}")
print(f"  recovered: {sum(r['recovered'] for r in rows)}  probe: {sum(r['probe'] for r in rows)}")
