#!/usr/bin/env python3
"""Consistency check for this corpus: parsing, label coverage, finding derivation (spec rules)."""
import json, os, glob, collections, sys

HERE = os.path.dirname(os.path.abspath(__file__))
FAIL = {"transport_error", "tool_error", "graphql_error", "error_payload"}
errors = []


def calls_in(path):
    """Return {(conversation_id, tool_call_id): tool_name} for one transcript file."""
    out = {}
    rel = os.path.relpath(path, HERE)
    with open(path, encoding="utf-8") as f:
        lines = [json.loads(l) for l in f if l.strip()]
    if rel.startswith("claude_code/"):
        for e in lines:
            msg = e.get("message") or {}
            if e.get("type") == "assistant" and isinstance(msg.get("content"), list):
                for b in msg["content"]:
                    if b.get("type") in ("tool_use", "mcp_tool_use"):
                        out[(e["sessionId"], b["id"])] = b["name"]
    else:
        for rec in lines:
            cid = rec["conversation_id"]
            for m in rec["messages"]:
                for t in m.get("tool_calls") or []:
                    out[(cid, t["id"])] = t["function"]["name"]
                    json.loads(t["function"]["arguments"])
                if isinstance(m.get("content"), list):
                    for b in m["content"]:
                        if b.get("type") in ("tool_use", "mcp_tool_use"):
                            out[(cid, b["id"])] = b["name"]
    return out


def expected_finding(r):
    o, c, rec = r["outcome"], r["claim"], r["recovered"]
    if o in ("ok", "cut_off") or rec:
        return None
    if o in FAIL and c == "success":
        return "false_success"
    if o == "identity_null" and c == "success":
        return "identity_assumed"
    if (o in FAIL or o == "identity_null") and c == "neutral" and not r["probe"]:
        return "unreported_failure"
    if o == "graphql_partial" and c == "success":
        return "unlabelled_partial"
    if o == "graphql_partial" and c == "failure":
        return "discarded_partial"
    return None


files = [os.path.join(HERE, "chat_gateway.jsonl"), os.path.join(HERE, "anthropic_messages.jsonl")] + \
    sorted(glob.glob(os.path.join(HERE, "claude_code", "*.jsonl")))
allcalls = {}
for p in files:
    for k, v in calls_in(p).items():
        allcalls[(os.path.relpath(p, HERE),) + k] = v

KEYS = {"file", "conversation_id", "tool_call_id", "tool_name", "outcome", "claim", "recovered",
        "probe", "finding", "note", "lang", "confidence"}
labels = [json.loads(l) for l in open(os.path.join(HERE, "labels.jsonl"), encoding="utf-8") if l.strip()]
seen = set()
for r in labels:
    k = (r["file"], r["conversation_id"], r["tool_call_id"])
    if set(r) != KEYS:
        errors.append(f"keys {k}: {set(r) ^ KEYS}")
    if k in seen:
        errors.append(f"duplicate label {k}")
    seen.add(k)
    if k not in allcalls:
        errors.append(f"label without call {k}")
    elif allcalls[k] != r["tool_name"]:
        errors.append(f"tool_name mismatch {k}: {allcalls[k]} vs {r['tool_name']}")
    read = r["outcome"] not in ("ok", "cut_off") and not r["recovered"]
    if read and r["claim"] is None:
        errors.append(f"claim should be read {k}")
    if not read and r["claim"] is not None:
        errors.append(f"claim should be null {k}")
    if r["probe"] and (r["outcome"] in ("ok", "identity_null")):
        errors.append(f"probe on ok/identity call {k}")
    if expected_finding(r) != r["finding"]:
        errors.append(f"finding {k}: label {r['finding']} vs rule {expected_finding(r)}")
    if r["confidence"] not in ("clear", "ambiguous"):
        errors.append(f"confidence {k}")
for k in allcalls:
    if k not in seen:
        errors.append(f"call without label {k}")

c = collections.Counter
print("calls", len(labels), "conversations", len({(r['file'], r['conversation_id']) for r in labels}))
for key in ("outcome", "claim", "finding", "lang", "confidence", "file"):
    print(key, dict(c(r[key] for r in labels)))
print("recovered", sum(r["recovered"] for r in labels), "probe", sum(r["probe"] for r in labels))
if errors:
    print("\n".join(errors))
    sys.exit(1)
print("OK")
