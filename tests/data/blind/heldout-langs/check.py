#!/usr/bin/env python3
"""Consistency check for this labelled corpus (standard library only).

- every line of every transcript file and of labels.jsonl parses as JSON;
- every tool call in the files has exactly one label and every label points at a call
  that exists in that file and conversation, with the same tool name;
- a call labelled cut_off has no result, every other call has one;
- claim / finding follow from outcome, recovered and probe as the spec defines them.
"""
import collections
import glob
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FAILED = {"transport_error", "tool_error", "graphql_error", "error_payload"}
KEYS = ["file", "conversation_id", "tool_call_id", "tool_name", "outcome", "claim", "recovered",
        "probe", "finding", "note", "lang", "confidence"]
OUTCOMES = FAILED | {"graphql_partial", "identity_null", "ok", "cut_off"}
CLAIMS = {"success", "failure", "partial", "neutral", "none", "unread", None}
errors = []


def err(msg):
    errors.append(msg)


def read_jsonl(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                rows.append((n, json.loads(line)))
            except json.JSONDecodeError as e:
                err(f"{path}:{n}: bad JSON: {e}")
    return rows


def calls_chat(rel):
    out = {}
    for n, conv in read_jsonl(os.path.join(HERE, rel)):
        cid = conv["conversation_id"]
        results = set()
        for m in conv["messages"]:
            for t in m.get("tool_calls") or []:
                out[(cid, t["id"])] = {"name": t["function"]["name"], "has_result": False}
                json.loads(t["function"]["arguments"])
            if m["role"] == "tool":
                results.add(m["tool_call_id"])
        for (c, i), v in out.items():
            if c == cid and i in results:
                v["has_result"] = True
    return out


def calls_anthropic(rel):
    out = {}
    for n, conv in read_jsonl(os.path.join(HERE, rel)):
        cid = conv["conversation_id"]
        results = set()
        for m in conv["messages"]:
            if isinstance(m["content"], str):
                continue
            for b in m["content"]:
                if b["type"] in ("tool_use", "mcp_tool_use"):
                    out[(cid, b["id"])] = {"name": b["name"], "has_result": False}
                elif b["type"] in ("tool_result", "mcp_tool_result"):
                    results.add(b["tool_use_id"])
        for (c, i), v in out.items():
            if c == cid and i in results:
                v["has_result"] = True
    return out


def calls_claude_code(rel):
    out, results, cid = {}, set(), None
    rows = read_jsonl(os.path.join(HERE, rel))
    prev = None
    for n, e in rows:
        for k in ("type", "uuid", "parentUuid", "sessionId", "timestamp", "message"):
            if k not in e:
                err(f"{rel}:{n}: missing {k}")
        if e.get("parentUuid") != prev:
            err(f"{rel}:{n}: parentUuid does not chain")
        prev = e.get("uuid")
        cid = e["sessionId"]
        content = e["message"].get("content")
        if isinstance(content, list):
            for b in content:
                if b["type"] == "tool_use":
                    out[(cid, b["id"])] = {"name": b["name"], "has_result": False}
                elif b["type"] == "tool_result":
                    results.add(b["tool_use_id"])
    if os.path.basename(rel)[:-6] != cid:
        err(f"{rel}: file name is not the sessionId")
    for k, v in out.items():
        v["has_result"] = k[1] in results
    return out


def expected_finding(r):
    o, c = r["outcome"], r["claim"]
    if o in ("ok", "cut_off") or r["recovered"] or c == "unread":
        return None
    if o in FAILED:
        if c == "success":
            return "false_success"
        if c == "neutral" and not r["probe"]:
            return "unreported_failure"
        return None
    if o == "identity_null":
        return {"success": "identity_assumed", "neutral": "unreported_failure"}.get(c)
    if o == "graphql_partial":
        return {"success": "unlabelled_partial", "failure": "discarded_partial"}.get(c)
    return None


def main():
    calls = {}
    files = ["chat_gateway.jsonl", "anthropic_messages.jsonl"] + \
        sorted(os.path.relpath(p, HERE) for p in glob.glob(os.path.join(HERE, "claude_code", "*.jsonl")))
    for rel in files:
        fn = calls_chat if rel.startswith("chat") else calls_anthropic if rel.startswith("anthropic") else calls_claude_code
        for k, v in fn(rel).items():
            calls[(rel,) + k] = v

    labels = [r for _, r in read_jsonl(os.path.join(HERE, "labels.jsonl"))]
    seen = collections.Counter()
    for r in labels:
        if list(r.keys()) != KEYS:
            err(f"label keys differ: {r.get('tool_call_id')}: {list(r.keys())}")
        key = (r["file"], r["conversation_id"], r["tool_call_id"])
        seen[key] += 1
        call = calls.get(key)
        if call is None:
            err(f"label without call: {key}")
            continue
        if call["name"] != r["tool_name"]:
            err(f"{key}: tool_name {r['tool_name']} != {call['name']}")
        if r["outcome"] not in OUTCOMES or r["claim"] not in CLAIMS:
            err(f"{key}: unknown outcome/claim")
        if (r["outcome"] == "cut_off") == call["has_result"]:
            err(f"{key}: cut_off must be exactly the calls without a result")
        read = r["outcome"] not in ("ok", "cut_off") and not r["recovered"]
        if read and r["claim"] is None:
            err(f"{key}: claim must be read")
        if not read and r["claim"] is not None:
            err(f"{key}: claim must be null")
        if r["recovered"] and r["outcome"] in ("ok", "cut_off"):
            err(f"{key}: only a failed call can be recovered")
        if r["probe"] and (r["outcome"] not in FAILED):
            err(f"{key}: probe on a call that did not fail")
        if r["finding"] != expected_finding(r):
            err(f"{key}: finding {r['finding']} != expected {expected_finding(r)}")
        if r["confidence"] not in ("clear", "ambiguous"):
            err(f"{key}: confidence")
    for key in calls:
        if seen[key] != 1:
            err(f"call labelled {seen[key]} times: {key}")

    convs = {(r["file"], r["conversation_id"]) for r in labels}
    print(f"conversations {len(convs)}, labelled calls {len(labels)}")
    for field in ("outcome", "claim", "finding", "lang", "confidence"):
        print(field, dict(collections.Counter(str(r[field]) for r in labels).most_common()))
    print("recovered", sum(r["recovered"] for r in labels), "probe", sum(r["probe"] for r in labels))
    if errors:
        print("\n".join(errors))
        sys.exit(1)
    print("OK")


if __name__ == "__main__":
    main()
