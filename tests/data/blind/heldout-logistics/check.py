"""Sanity check for this labelled corpus: parsing, id coverage, finding logic per spec."""
import glob, json, os, sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
FAIL = {"transport_error", "tool_error", "graphql_error", "error_payload"}
KEYS = {"file", "conversation_id", "tool_call_id", "tool_name", "outcome", "claim", "recovered",
        "probe", "finding", "note", "lang", "confidence"}
errs = []


def calls_in(path):
    """Return {(conversation_id, tool_call_id): tool_name} for every tool call in a file."""
    out = {}
    rel = os.path.relpath(path, HERE)
    with open(path) as f:
        for n, line in enumerate(f, 1):
            try:
                rec = json.loads(line)
            except Exception as e:
                errs.append(f"{rel}:{n} does not parse: {e}")
                continue
            if rel.startswith("claude_code/"):
                cid = rec["sessionId"]
                content = rec.get("message", {}).get("content")
                if rec["type"] == "assistant" and isinstance(content, list):
                    for b in content:
                        if b.get("type") == "tool_use":
                            out[(cid, b["id"])] = b["name"]
                continue
            cid = rec["conversation_id"]
            for m in rec["messages"]:
                for t in m.get("tool_calls") or []:
                    out[(cid, t["id"])] = t["function"]["name"]
                if isinstance(m.get("content"), list):
                    for b in m["content"]:
                        if b.get("type") in ("tool_use", "mcp_tool_use"):
                            out[(cid, b["id"])] = b["name"]
    return out


def expected_finding(r):
    o, c = r["outcome"], r["claim"]
    if r["recovered"] or o in ("ok", "cut_off"):
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
all_calls = {}
for p in files:
    rel = os.path.relpath(p, HERE)
    for k, v in calls_in(p).items():
        all_calls[(rel,) + k] = v

labels = [json.loads(l) for l in open(os.path.join(HERE, "labels.jsonl"))]
seen = set()
for r in labels:
    k = (r["file"], r["conversation_id"], r["tool_call_id"])
    if set(r) != KEYS:
        errs.append(f"{k}: keys {sorted(set(r) ^ KEYS)}")
    if k in seen:
        errs.append(f"{k}: duplicate label")
    seen.add(k)
    if k not in all_calls:
        errs.append(f"{k}: no such call")
    elif all_calls[k] != r["tool_name"]:
        errs.append(f"{k}: tool_name {r['tool_name']} != {all_calls[k]}")
    needs_claim = not r["recovered"] and r["outcome"] not in ("ok", "cut_off")
    if needs_claim and r["claim"] is None:
        errs.append(f"{k}: claim must be read")
    if not needs_claim and r["claim"] is not None:
        errs.append(f"{k}: claim must be null")
    if r["outcome"] == "identity_null" and r["probe"]:
        errs.append(f"{k}: identity call cannot be a probe")
    if expected_finding(r) != r["finding"]:
        errs.append(f"{k}: finding {r['finding']} expected {expected_finding(r)}")
    if r["confidence"] not in ("clear", "ambiguous"):
        errs.append(f"{k}: confidence")
for k in all_calls:
    if k not in seen:
        errs.append(f"{k}: unlabelled call")

print(f"{len(files)} files, {len({(r['file'], r['conversation_id']) for r in labels})} conversations, {len(labels)} calls")
for col in ("outcome", "claim", "finding", "lang", "confidence"):
    print(col, dict(Counter(str(r[col]) for r in labels)))
print("recovered", sum(r["recovered"] for r in labels), "probe", sum(r["probe"] for r in labels))
if errs:
    print("\n".join(errs))
    sys.exit(1)
print("OK")
