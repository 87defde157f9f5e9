#!/usr/bin/env python3
"""Measures mcpgen's reading of Postman collections and HAR files against the API descriptions
they were made from (docs/inputs.md, "Measured").

    scripts/recorded_sweep.py MCPGEN OPENAPI2POSTMANV2 SPEC...

For each OpenAPI document SPEC:
- Postman: the collection `openapi2postmanv2` makes of it (folders by tags, parameters resolved
  to examples) is converted by `mcpgen convert`; tools are counted against the operations; one
  call per operation is synthesised from the inferred schemas (each parameter's example or a value
  of its type; the body's example or a value of its schema) and validated against the original
  operation: its required parameters present, each parameter's value (as text on the wire, read
  back by the original's type, as a validating mock does) valid for its schema, the JSON body
  valid for the original request body's schema.
- HAR: a HAR is synthesised from the same calls the original's examples make (path parameters
  filled with two distinct identifier-like values per operation), converted, and each operation's
  template compared with the original's (parameter names aside); the same acceptance is measured.
"""

import copy
import json
import re
import subprocess
import sys
import tempfile
import os

import jsonschema

METHODS = ["get", "put", "post", "delete", "patch", "head", "options"]


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def resolve(doc, node, depth=0):
    if depth > 20:
        return {}
    if isinstance(node, dict) and "$ref" in node and isinstance(node["$ref"], str) and node["$ref"].startswith("#/"):
        target = doc
        for part in node["$ref"][2:].split("/"):
            target = target.get(part.replace("~1", "/").replace("~0", "~"), {}) if isinstance(target, dict) else {}
        return resolve(doc, target, depth + 1)
    return node


def operations(doc):
    for path, item in sorted((doc.get("paths") or {}).items()):
        item = resolve(doc, item)
        for m in METHODS:
            if m in item:
                yield path, m, item, resolve(doc, item[m])


def norm(path):
    return re.sub(r"\{[^}]*\}", "{}", path.rstrip("/") or "/")


def sample(schema, doc, depth=0):
    schema = resolve(doc, schema or {})
    if depth > 6:
        return None
    if "example" in schema:
        return schema["example"]
    if schema.get("examples"):
        return schema["examples"][0]
    if "enum" in schema:
        return schema["enum"][0]
    for key in ("anyOf", "oneOf", "allOf"):
        if schema.get(key):
            return sample(schema[key][0], doc, depth + 1)
    t = schema.get("type")
    if isinstance(t, list):
        t = next((x for x in t if x != "null"), "string")
    fmt = schema.get("format")
    if t == "object" or "properties" in schema:
        req = schema.get("required", [])
        return {k: sample(v, doc, depth + 1) for k, v in (schema.get("properties") or {}).items() if k in req}
    if t == "array":
        return [sample(schema.get("items", {}), doc, depth + 1)]
    if t == "integer":
        return schema.get("minimum", 1)
    if t == "number":
        return schema.get("minimum", 1.5)
    if t == "boolean":
        return True
    return {"date-time": "2024-05-01T10:00:00Z", "date": "2024-05-01", "uuid": "6f1c1c4e-8a5b-4c1d-9f2e-3b7a2d1e0c9f",
            "email": "ada@example.com", "uri": "https://example.com/a"}.get(fmt, "abc")


def wire(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (dict, list)):
        return json.dumps(v)
    return str(v)


def coerce(text, schema, doc):
    schema = resolve(doc, schema or {})
    t = schema.get("type")
    if isinstance(t, list):
        t = next((x for x in t if x != "null"), None)
    try:
        if t == "integer":
            return int(text)
        if t == "number":
            return float(text)
        if t == "boolean":
            return {"true": True, "false": False}[text]
        if t == "array":
            return [coerce(x, schema.get("items", {}), doc) for x in text.split(",")]
    except (ValueError, KeyError):
        return text
    return text


def valid(value, schema, doc):
    s = copy.deepcopy(resolve(doc, schema or {}))
    if not isinstance(s, dict):
        return True
    s["components"] = doc.get("components", {})
    s.pop("example", None)
    try:
        jsonschema.Draft4Validator(s, format_checker=None).validate(value)
        return True
    except jsonschema.ValidationError:
        return False
    except Exception:
        return True


def call_of(op, doc):
    """A call synthesised from an (inferred) operation: {(in, name): text}, body."""
    params = {}
    for p in op.get("parameters", []):
        p = resolve(doc, p)
        if p.get("in") == "header" or (not p.get("required") and "example" not in p):
            continue
        v = p["example"] if "example" in p else sample(p.get("schema"), doc)
        params[(p["in"], p["name"].lower())] = wire(v)
    body = None
    rb = resolve(doc, op.get("requestBody") or {})
    for mt, media in (rb.get("content") or {}).items():
        if "json" in mt:
            body = media["example"] if "example" in media else sample(media.get("schema"), doc)
    return params, body


def accepted(call, op, doc, by_position):
    params, body = call
    for p in op.get("parameters", []):
        p = resolve(doc, p)
        if p.get("in") == "header":
            continue
        key = (p["in"], p["name"].lower())
        if p["in"] == "path":
            key = by_position.get(p["name"], key)
        if key not in params:
            if p.get("required"):
                return False, f"missing {p['in']} {p['name']}"
            continue
        if not valid(coerce(params[key], p.get("schema"), doc), p.get("schema"), doc):
            return False, f"{p['in']} {p['name']}={params[key]!r}"
    rb = resolve(doc, op.get("requestBody") or {})
    json_media = [m for t, m in (rb.get("content") or {}).items() if "json" in t]
    if json_media:
        if body is None and rb.get("required"):
            return False, "no body"
        if body is not None and not valid(body, json_media[0].get("schema"), doc):
            return False, "body"
    return True, ""


def path_names(path):
    return re.findall(r"\{([^}]*)\}", path)


def measure(mcpgen, inferred_doc, original, label):
    ours = {(norm(p), m): (p, op) for p, m, _, op in operations(inferred_doc)}
    total = ok = 0
    failures = []
    for path, m, _, op in operations(original):
        total += 1
        found = ours.get((norm(path), m))
        if not found:
            failures.append(f"{m.upper()} {path}: no operation")
            continue
        our_path, our_op = found
        by_position = {o: ("path", n.lower()) for o, n in zip(path_names(path), path_names(our_path))}
        good, why = accepted(call_of(our_op, inferred_doc), op, original, by_position)
        ok += good
        if not good:
            failures.append(f"{m.upper()} {path}: {why}")
    return total, ok, failures


def har_of(doc):
    """A HAR of two calls per operation, made from the original's examples."""
    first = (doc.get("servers") or [{}])[0]
    server = (first.get("url") or "https://api.example.com").rstrip("/")
    for name, var in (first.get("variables") or {}).items():
        server = server.replace("{" + name + "}", str(var.get("default", "")))
    if not server.startswith("http"):
        server = "https://api.example.com" + server
    entries = []
    for path, m, item, op in operations(doc):
        for n in (0, 1):
            params = [resolve(doc, p) for p in item.get("parameters", []) + op.get("parameters", [])]
            url = path
            query = []
            for p in params:
                if p.get("in") == "path":
                    v = p.get("example", sample(p.get("schema"), doc))
                    t = resolve(doc, p.get("schema") or {}).get("type")
                    v = (1001 + n) if t in ("integer", "number") else (f"{v}-{n}" if n else v)
                    url = url.replace("{" + p["name"] + "}", str(v))
                elif p.get("in") == "query" and p.get("required"):
                    query.append(f"{p['name']}={wire(p.get('example', sample(p.get('schema'), doc)))}")
            req = {"method": m.upper(), "url": server + url + ("?" + "&".join(query) if query else ""), "headers": []}
            rb = resolve(doc, op.get("requestBody") or {})
            for mt, media in (rb.get("content") or {}).items():
                if "json" in mt:
                    req["postData"] = {"mimeType": "application/json", "text": json.dumps(sample(media.get("schema"), doc))}
                    break
            entries.append({"request": req, "response": {"status": 200, "content": {"mimeType": "application/json", "text": "{}"}}})
    return {"log": {"version": "1.2", "creator": {"name": "sweep", "version": "1"}, "entries": entries}}


def main():
    mcpgen, o2p, specs = sys.argv[1], sys.argv[2], sys.argv[3:]
    totals = {"ops": 0, "tools": 0, "pm_ok": 0, "har_tpl": 0, "har_ok": 0}
    print("| API | operations | tools | calls accepted (Postman) | templates right (HAR) | calls accepted (HAR) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for spec in specs:
        with tempfile.TemporaryDirectory() as tmp:
            original = json.load(open(spec))
            coll = os.path.join(tmp, "c.json")
            cfg = os.path.join(tmp, "o.json")
            json.dump({"folderStrategy": "Tags", "parametersResolution": "Example"}, open(cfg, "w"))
            r = run([o2p, "-s", spec, "-o", coll, "-c", cfg])
            if r.returncode != 0 or not os.path.exists(coll):
                print(f"| {spec} | conversion to Postman failed | | | | |")
                continue
            out = os.path.join(tmp, "api.json")
            r = run([mcpgen, "convert", coll, "--to", "openapi", "-o", out])
            if r.returncode != 0:
                print(f"| {spec} | mcpgen failed: {r.stderr.strip()[:80]} | | | | |")
                continue
            inferred = json.load(open(out))
            n_ops = sum(1 for _ in operations(original))
            n_tools = sum(1 for _ in operations(inferred))
            total, ok, fails = measure(mcpgen, inferred, original, "postman")
            har = os.path.join(tmp, "t.har")
            json.dump(har_of(original), open(har, "w"))
            hout = os.path.join(tmp, "har.json")
            r = run([mcpgen, "convert", har, "--to", "openapi", "-o", hout])
            htpl = hok = 0
            hfails = []
            if r.returncode == 0:
                hdoc = json.load(open(hout))
                first = (original.get("servers") or [{}])[0]
                base = first.get("url", "")
                for name, var in (first.get("variables") or {}).items():
                    base = base.replace("{" + name + "}", str(var.get("default", "")))
                prefix = re.sub(r"^https?://[^/]+", "", base).rstrip("/")
                ours = {(norm(p), m) for p, m, _, _ in operations(hdoc)}
                for p, m, _, _ in operations(original):
                    if (norm(prefix + p), m) in ours:
                        htpl += 1
                    else:
                        hfails.append(f"{m.upper()} {p}")
                # acceptance: compare with the original under the server's path prefix
                shifted = copy.deepcopy(original)
                shifted["paths"] = {prefix + k: v for k, v in original.get("paths", {}).items()}
                _, hok, _ = measure(mcpgen, hdoc, shifted, "har")
            name = os.path.relpath(spec, os.path.dirname(os.path.dirname(spec)) if "/" in spec else ".")
            print(f"| {name} | {n_ops} | {n_tools} | {ok}/{total} | {htpl}/{n_ops} | {hok}/{n_ops} |")
            for f in fails[:5]:
                print(f"<!-- postman {name}: {f} -->", file=sys.stderr)
            for f in hfails[:5]:
                print(f"<!-- har {name}: {f} -->", file=sys.stderr)
            totals["ops"] += n_ops
            totals["tools"] += n_tools
            totals["pm_ok"] += ok
            totals["har_tpl"] += htpl
            totals["har_ok"] += hok
    t = totals
    pct = lambda a, b: f"{100 * a / b:.1f} %" if b else "-"
    print(f"| **all** | {t['ops']} | {t['tools']} | {t['pm_ok']}/{t['ops']} ({pct(t['pm_ok'], t['ops'])}) | "
          f"{t['har_tpl']}/{t['ops']} ({pct(t['har_tpl'], t['ops'])}) | {t['har_ok']}/{t['ops']} ({pct(t['har_ok'], t['ops'])}) |")


if __name__ == "__main__":
    main()
