"""Consistency check for this corpus: parsing, label coverage, and findings derived per the spec."""
import json, glob, os, sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
OUTCOMES = {"transport_error", "graphql_partial", "graphql_error", "tool_error", "identity_null", "error_payload", "ok", "cut_off"}
FAILURES = {"transport_error", "graphql_error", "tool_error", "error_payload"}
CLAIMS = {"success", "failure", "partial", "neutral", "none", "unread"}
KEYS = ["file", "conversation_id", "tool_call_id", "tool_name", "outcome", "claim", "recovered", "probe", "finding",
        "note", "lang", "confidence"]
errors = []


def err(msg):
    errors.append(msg)


calls = {}  # (file, conv, id) -> tool name


def load(path):
    rows = []
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            try:
                rows.append(json.loads(line))
            except Exception as e:  # noqa
                err(f"{path}:{n} does not parse: {e}")
    return rows


for path in sorted(glob.glob(os.path.join(HERE, "claude_code", "*.jsonl"))):
    rel = os.path.relpath(path, HERE)
    results = set()
    for e in load(path):
        msg = e.get("message") or {}
        content = msg.get("content")
        if isinstance(content, list):
            for b in content:
                if b.get("type") == "tool_use":
                    calls[(rel, e["sessionId"], b["id"])] = b["name"]
                if b.get("type") == "tool_result":
                    results.add(b["tool_use_id"])
    for (f, c, i) in list(calls):
        if f == rel and i not in results:
            pass  # allowed (cut_off / transport) — labels decide

for rel in ["anthropic_messages.jsonl", "chat_gateway.jsonl"]:
    path = os.path.join(HERE, rel)
    if not os.path.exists(path):
        continue
    for conv in load(path):
        cid = conv["conversation_id"]
        for m in conv["messages"]:
            if isinstance(m.get("content"), list):
                for b in m["content"]:
                    if b.get("type") in ("tool_use", "mcp_tool_use"):
                        calls[(rel, cid, b["id"])] = b["name"]
            for tc in m.get("tool_calls") or []:
                json.loads(tc["function"]["arguments"])
                calls[(rel, cid, tc["id"])] = tc["function"]["name"]


def expected_finding(l):
    o, c = l["outcome"], l["claim"]
    if l["recovered"] or o in ("ok", "cut_off") or c == "unread":
        return None
    if o == "graphql_partial":
        return {"success": "unlabelled_partial", "failure": "discarded_partial"}.get(c)
    if o == "identity_null":
        return {"success": "identity_assumed", "neutral": "unreported_failure"}.get(c)
    if o in FAILURES:
        if c == "success":
            return "false_success"
        if c == "neutral" and not l["probe"]:
            return "unreported_failure"
    return None


labels = load(os.path.join(HERE, "labels.jsonl"))
seen = set()
for l in labels:
    k = (l.get("file"), l.get("conversation_id"), l.get("tool_call_id"))
    if list(l.keys()) != KEYS:
        err(f"{k}: keys {list(l.keys())}")
    if k in seen:
        err(f"{k}: duplicate label")
    seen.add(k)
    if k not in calls:
        err(f"{k}: no such call in its file/conversation")
    elif calls[k] != l["tool_name"]:
        err(f"{k}: tool_name {l['tool_name']} != {calls[k]}")
    if l["outcome"] not in OUTCOMES:
        err(f"{k}: outcome {l['outcome']}")
    read = l["outcome"] not in ("ok", "cut_off") and not l["recovered"]
    if read and l["claim"] not in CLAIMS:
        err(f"{k}: claim must be read, got {l['claim']}")
    if not read and l["claim"] is not None:
        err(f"{k}: claim must be null (not read), got {l['claim']}")
    if l["probe"] and (l["outcome"] not in FAILURES):
        err(f"{k}: probe only for failed calls (identity calls never)")
    if l["outcome"] in ("ok", "cut_off") and l["recovered"]:
        err(f"{k}: ok call cannot be recovered")
    if l["finding"] != expected_finding(l):
        err(f"{k}: finding {l['finding']} != expected {expected_finding(l)}")
    if l["confidence"] not in ("clear", "ambiguous"):
        err(f"{k}: confidence {l['confidence']}")
    if l["confidence"] == "ambiguous" and "other reading" not in l["note"].lower():
        err(f"{k}: ambiguous label should state the other reading")
    if "\n" in l["note"]:
        err(f"{k}: note must be one line")

for k in calls:
    if k not in seen:
        err(f"{k}: call has no label")

if errors:
    print("\n".join(errors))
    sys.exit(1)
print(f"OK: {len(calls)} calls, {len(labels)} labels, "
      f"{len({(l['file'], l['conversation_id']) for l in labels})} conversations")
for field in ("outcome", "claim", "finding", "confidence"):
    print(field, dict(Counter(str(l[field]) for l in labels)))
print("recovered", sum(l["recovered"] for l in labels), "probe", sum(l["probe"] for l in labels))
