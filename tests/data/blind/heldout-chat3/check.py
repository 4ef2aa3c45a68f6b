"""Consistency check for this labelled corpus (not the auditor).

- every line of every transcript file and of labels.jsonl parses;
- every tool call in the files has exactly one label and every label points at a real call;
- calls without a result are labelled transport_error (assistant spoke again) or cut_off (log ends);
- claim is null exactly where the spec says it is not read;
- the finding follows from outcome / claim / recovered / probe as the spec's findings table says.
"""
import json, os, sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
FAIL = {"transport_error", "tool_error", "graphql_error", "error_payload"}
OUTCOMES = FAIL | {"graphql_partial", "identity_null", "ok", "cut_off"}
CLAIMS = {"success", "failure", "partial", "neutral", "none", "unread"}


def load(path):
    rows = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if line.strip():
                rows.append(json.loads(line))  # raises on a bad line
    return rows


def calls_chat(conv):
    """yield (call_id, name, has_result, anything_after)"""
    msgs = conv["messages"]
    out = []
    for i, m in enumerate(msgs):
        for c in m.get("tool_calls") or []:
            json.loads(c["function"]["arguments"])
            res = any(x.get("role") == "tool" and x.get("tool_call_id") == c["id"] for x in msgs[i + 1:])
            out.append((c["id"], c["function"]["name"], res, i + 1 < len(msgs)))
    return out


def calls_anth(conv):
    msgs = conv["messages"]
    out = []
    for i, m in enumerate(msgs):
        if not isinstance(m["content"], list):
            continue
        for j, b in enumerate(m["content"]):
            if b["type"] in ("tool_use", "mcp_tool_use"):
                later_blocks = m["content"][j + 1:] + [x for mm in msgs[i + 1:] if isinstance(mm["content"], list) for x in mm["content"]]
                res = any(x.get("type") in ("tool_result", "mcp_tool_result") and x.get("tool_use_id") == b["id"] for x in later_blocks)
                after = bool(m["content"][j + 1:]) or i + 1 < len(msgs)
                out.append((b["id"], b["name"], res, after))
    return out


def expected_finding(r):
    o, c = r["outcome"], r["claim"]
    if o in ("ok", "cut_off") or r["recovered"]:
        return None
    if o in FAIL:
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
    raise ValueError(o)


def main():
    errors = []
    calls = {}
    for fname, fn in (("chat_gateway.jsonl", calls_chat), ("anthropic_messages.jsonl", calls_anth)):
        for conv in load(os.path.join(HERE, fname)):
            for cid, name, res, after in fn(conv):
                key = (fname, conv["conversation_id"], cid)
                if key in calls:
                    errors.append(f"duplicate call id {key}")
                calls[key] = (name, res, after)
    labels = load(os.path.join(HERE, "labels.jsonl"))
    keys = set()
    need = {"file", "conversation_id", "tool_call_id", "tool_name", "outcome", "claim", "recovered", "probe",
            "finding", "note", "lang", "confidence"}
    for r in labels:
        k = (r["file"], r["conversation_id"], r["tool_call_id"])
        if set(r) != need:
            errors.append(f"{k}: keys {sorted(set(r) ^ need)}")
        if k in keys:
            errors.append(f"{k}: labelled twice")
        keys.add(k)
        if k not in calls:
            errors.append(f"{k}: no such call")
            continue
        name, res, after = calls[k]
        if name != r["tool_name"]:
            errors.append(f"{k}: tool_name {r['tool_name']} != {name}")
        if r["outcome"] not in OUTCOMES:
            errors.append(f"{k}: bad outcome")
        if not res:
            want = "transport_error" if after else "cut_off"
            if r["outcome"] != want:
                errors.append(f"{k}: no result, expected {want}")
        elif r["outcome"] == "cut_off":
            errors.append(f"{k}: cut_off but has a result")
        read = r["outcome"] not in ("ok", "cut_off") and not r["recovered"]
        if read and r["claim"] not in CLAIMS:
            errors.append(f"{k}: claim must be read")
        if not read and r["claim"] is not None:
            errors.append(f"{k}: claim must be null")
        if r["probe"] and (r["outcome"] in ("ok", "cut_off", "identity_null")):
            errors.append(f"{k}: probe only for failed non-identity reads")
        if r["finding"] != expected_finding(r):
            errors.append(f"{k}: finding {r['finding']} != {expected_finding(r)}")
        if r["confidence"] not in ("clear", "ambiguous"):
            errors.append(f"{k}: confidence")
    for k in calls:
        if k not in keys:
            errors.append(f"{k}: call without label")
    for e in errors:
        print("ERROR", e)
    print(f"{len(labels)} labels, {len(calls)} calls, {len({(k[0], k[1]) for k in calls})} conversations")
    for field in ("outcome", "claim", "finding", "lang", "confidence"):
        print(field, dict(Counter(str(r[field]) for r in labels)))
    print("recovered", sum(r["recovered"] for r in labels), "probe", sum(r["probe"] for r in labels))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
