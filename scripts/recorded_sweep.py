#!/usr/bin/env python3
"""Measures mcpgen's reading of Postman collections and HAR files against the API descriptions
they were made from (docs/inputs.md, "Measured").

    scripts/recorded_sweep.py --mcpgen MCPGEN [--o2p OPENAPI2POSTMANV2] [--prism PRISM] SPEC...

Without `--o2p`, the Postman columns are left out; without `--prism`, the recorded HAR columns.

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
- Recorded HAR: traffic is *recorded* against a validating mock of the original (`prism mock`):
  several calls per operation (CALLS_PER_OPERATION), path parameters drawn from a small pool of
  values per parameter name shared by every operation and weighted towards the first (the user
  works in one workspace mostly, another now and then), query parameters and JSON bodies from the
  examples or the schemas, the credentials the description asks for. Each exchange (the request
  sent, the mock's response) is written as a HAR 1.2 entry, with the API's own server URL in place
  of the mock's address (as if recorded against the API), then converted and measured as above.
  The recorder's own calls the mock refused are counted (`mock refused`).
"""

import argparse
import copy
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

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
    server = server_of(doc)
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


CALLS_PER_OPERATION = 3

# Values a user's traffic holds for string path parameters: plain words mostly, a slug now and then.
WORDS = ["acme", "globex", "initech", "umbrella", "hooli", "stark", "wayne", "tyrell", "cyberdyne",
         "webapp", "backend", "website", "mobile", "billing", "docs", "platform", "gateway", "frontend"]


def server_of(doc):
    first = (doc.get("servers") or [{}])[0]
    server = (first.get("url") or "https://api.example.com").rstrip("/")
    for name, var in (first.get("variables") or {}).items():
        server = server.replace("{" + name + "}", str(var.get("default", "")))
    if not server.startswith("http"):
        server = "https://api.example.com" + server
    return server


def pool_of(name, schema, example, doc, rng):
    """Three values a user would send for the path parameter `name`, the usual one first."""
    schema = resolve(doc, schema or {})
    t = schema.get("type")
    if isinstance(t, list):
        t = next((x for x in t if x != "null"), "string")
    if schema.get("enum"):
        values = [wire(v) for v in schema["enum"][:3]]
        return (values * 3)[:3]
    if t == "array":
        return pool_of(name, schema.get("items"), example[0] if isinstance(example, list) and example else None,
                       doc, rng)
    if t in ("integer", "number"):
        lo = schema.get("minimum", 1)
        hi = schema.get("maximum", lo + 100000)
        return [str(rng.randint(int(lo), int(hi))) for _ in range(3)]
    fmt = schema.get("format")
    if fmt == "uuid":
        return [str(__import__("uuid").UUID(int=rng.getrandbits(128), version=4)) for _ in range(3)]
    if fmt in ("date", "date-time"):
        return [f"2024-0{m}-1{d}" + ("T10:00:00Z" if fmt == "date-time" else "") for m, d in ((5, 1), (6, 2), (7, 3))]
    if fmt == "email":
        return ["ada@example.com", "grace@example.com", "alan@example.com"]
    words = WORDS[:]
    rng.shuffle(words)
    first = str(example) if isinstance(example, (str, int)) and re.fullmatch(r"[A-Za-z0-9_.~-]+", str(example)) else words[0]
    pool = [first, words[1], f"{words[2]}-{words[3]}"]
    lo, hi = schema.get("minLength", 0), schema.get("maxLength")
    pattern = schema.get("pattern")
    out = []
    for v in pool:
        if pattern and not re.search(pattern, v):
            v = str(example) if example is not None else v
        v = (v + "x" * lo)[:max(lo, len(v))]
        out.append(v[:hi] if hi else v)
    return out


def security_of(doc, op):
    """Headers and query parameters carrying the credentials the operation asks for."""
    headers, query = [], []
    reqs = op.get("security", doc.get("security")) or []
    schemes = (doc.get("components") or {}).get("securitySchemes") or {}
    for req in reqs[:1]:
        for name in req:
            sch = resolve(doc, schemes.get(name) or {})
            kind = sch.get("type")
            if kind == "apiKey" and sch.get("in") == "header":
                headers.append((sch.get("name", "X-API-Key"), "rec-key-0001"))
            elif kind == "apiKey" and sch.get("in") == "query":
                query.append((sch.get("name", "api_key"), "rec-key-0001"))
            elif kind == "apiKey" and sch.get("in") == "cookie":
                headers.append(("Cookie", f"{sch.get('name', 'session')}=rec-cookie-0001"))
            elif kind == "http" and str(sch.get("scheme", "")).lower() == "basic":
                headers.append(("Authorization", "Basic cmVjOnJlYw=="))
            elif kind in ("http", "oauth2", "openIdConnect"):
                headers.append(("Authorization", "Bearer rec-token-0001"))
    return headers, query


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Prism:
    """`prism mock` on the description, on 127.0.0.1, stopped by its process group."""

    def __init__(self, prism, spec, log):
        self.port = free_port()
        self.proc = subprocess.Popen([prism, "mock", "-h", "127.0.0.1", "-p", str(self.port), spec],
                                     stdout=open(log, "w"), stderr=subprocess.STDOUT, start_new_session=True)
        self.base = f"http://127.0.0.1:{self.port}"

    def ready(self, timeout=180):
        end = time.time() + timeout
        while time.time() < end and self.proc.poll() is None:
            try:
                urllib.request.urlopen(self.base + "/", timeout=2)
                return True
            except urllib.error.HTTPError:
                return True
            except (urllib.error.URLError, OSError):
                time.sleep(0.5)
        return False

    def stop(self):
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()


def send(base, method, target, headers, body):
    """One exchange with the mock: (status, status text, response headers, body text, refused)."""
    req = urllib.request.Request(base + target, data=body.encode() if body is not None else None,
                                 method=method, headers=dict(headers))
    try:
        r = urllib.request.urlopen(req, timeout=30)
        status, reason, rh, text = r.status, r.reason, list(r.headers.items()), r.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        status, reason, rh, text = e.code, e.reason, list(e.headers.items()), e.read().decode("utf-8", "replace")
    except (urllib.error.URLError, OSError) as e:
        return 0, str(e), [], "", True
    refused = False
    for k, v in rh:
        if k.lower() == "sl-violations":
            try:
                refused = any(x.get("severity") == "Error" and (x.get("location") or ["request"])[0] == "request"
                              for x in json.loads(v))
            except ValueError:
                pass
    if "stoplight.io/prism" in text and status >= 400:
        refused = True
    return status, reason, rh, text, refused


def record_har(doc, base, rng):
    """Traffic recorded against the mock at `base`, as a HAR 1.2 log; and how many calls it refused."""
    server = server_of(doc)
    pools = {}
    entries, refused, sent = [], 0, 0
    for path, m, item, op in operations(doc):
        if m in ("options", "head"):
            continue
        params = {}
        for p in item.get("parameters", []) + op.get("parameters", []):
            p = resolve(doc, p)
            params[(p.get("in"), p.get("name"))] = p
        sec_headers, sec_query = security_of(doc, op)
        for n in range(CALLS_PER_OPERATION):
            url, query, headers = path, [], list(sec_headers)
            for (where, name), p in params.items():
                schema = p.get("schema") or {}
                example = p.get("example", resolve(doc, schema).get("example"))
                if where == "path":
                    key = (name, json.dumps(resolve(doc, schema), sort_keys=True)[:200])
                    pool = pools.setdefault(key, pool_of(name, schema, example, doc, rng))
                    v = pool[0] if n == 0 else rng.choices(pool, weights=(5, 3, 2))[0]
                    url = url.replace("{" + name + "}", urllib.parse.quote(v, safe="-_.~"))
                elif where == "query" and (p.get("required") or rng.random() < 0.5):
                    v = example if example is not None else sample(schema, doc)
                    query += [(name, wire(x)) for x in (v if isinstance(v, list) else [v])]
                elif where == "header" and p.get("required"):
                    v = example if example is not None else sample(schema, doc)
                    headers.append((name, wire(v)))
            query += sec_query
            target = url + ("?" + urllib.parse.urlencode(query) if query else "")
            body, mime = None, None
            rb = resolve(doc, op.get("requestBody") or {})
            for mt, media in (rb.get("content") or {}).items():
                if "json" in mt:
                    body = json.dumps(media["example"] if "example" in media else sample(media.get("schema"), doc))
                    mime = "application/json"
                    break
                if mt in ("application/x-www-form-urlencoded", "multipart/form-data"):
                    # Both sent as a URL-encoded form: the mock reads either.
                    v = sample(media.get("schema"), doc)
                    body = urllib.parse.urlencode({k: wire(x) for k, x in (v or {}).items()})
                    mime = "application/x-www-form-urlencoded"
                    break
            if mime:
                headers.append(("Content-Type", mime))
            headers.append(("Accept", "*/*"))
            status, reason, rh, text, bad = send(base, m.upper(), target, headers, body)
            sent += 1
            refused += bad
            if status == 0:
                continue
            rtype = next((v for k, v in rh if k.lower() == "content-type"), "")
            req = {"method": m.upper(), "url": server + target, "httpVersion": "HTTP/1.1",
                   "headers": [{"name": k, "value": v} for k, v in headers],
                   "queryString": [{"name": k, "value": v} for k, v in query],
                   "cookies": [], "headersSize": -1, "bodySize": len(body or "")}
            if body is not None:
                req["postData"] = {"mimeType": mime, "text": body}
            res = {"status": status, "statusText": reason, "httpVersion": "HTTP/1.1",
                   "headers": [{"name": k, "value": v} for k, v in rh], "cookies": [],
                   "content": {"size": len(text), "mimeType": rtype, "text": text},
                   "redirectURL": "", "headersSize": -1, "bodySize": len(text)}
            entries.append({"startedDateTime": "2024-05-01T10:00:00.000Z", "time": 1, "request": req,
                            "response": res, "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}})
    har = {"log": {"version": "1.2", "creator": {"name": "recorded_sweep", "version": "1"}, "entries": entries}}
    return har, sent, refused


def har_figures(mcpgen, har, original, tmp, label):
    """(templates right, calls accepted, misses) of the HAR `har` read by mcpgen."""
    path = os.path.join(tmp, f"{label}.har")
    json.dump(har, open(path, "w"))
    out = os.path.join(tmp, f"{label}.json")
    r = run([mcpgen, "convert", path, "--to", "openapi", "-o", out])
    if r.returncode != 0:
        return 0, 0, [f"mcpgen failed: {r.stderr.strip()[:200]}"]
    hdoc = json.load(open(out))
    prefix = re.sub(r"^https?://[^/]+", "", server_of(original)).rstrip("/")
    ours = {(norm(p), m) for p, m, _, _ in operations(hdoc)}
    tpl, misses = 0, []
    for p, m, _, _ in operations(original):
        if (norm(prefix + p), m) in ours:
            tpl += 1
        else:
            misses.append(f"{m.upper()} {p}")
    shifted = copy.deepcopy(original)
    shifted["paths"] = {prefix + k: v for k, v in original.get("paths", {}).items()}
    _, ok, _ = measure(mcpgen, hdoc, shifted, label)
    return tpl, ok, misses


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mcpgen", required=True)
    ap.add_argument("--o2p", help="openapi2postmanv2 (the Postman columns)")
    ap.add_argument("--prism", help="prism (the recorded HAR columns)")
    ap.add_argument("--misses", action="store_true", help="list each API's first template misses on stderr")
    ap.add_argument("specs", nargs="+")
    a = ap.parse_args()
    mcpgen = a.mcpgen
    totals = {k: 0 for k in ("ops", "tools", "pm_ok", "har_tpl", "har_ok", "rec_tpl", "rec_ok", "rec_sent", "rec_refused")}
    cols = ["API", "operations"]
    if a.o2p:
        cols += ["tools", "calls accepted (Postman)"]
    cols += ["templates right (synthesised HAR)", "calls accepted (synthesised HAR)"]
    if a.prism:
        cols += ["calls recorded (mock refused)", "templates right (recorded HAR)", "calls accepted (recorded HAR)"]
    print("| " + " | ".join(cols) + " |")
    print("| --- |" + " ---: |" * (len(cols) - 1))
    pct = lambda x, y: f"{100 * x / y:.1f} %" if y else "-"
    for spec in a.specs:
        original = json.load(open(spec))
        name = os.path.relpath(spec, os.path.dirname(os.path.dirname(spec)) if "/" in spec else ".")
        n_ops = sum(1 for _ in operations(original))
        row = [name, str(n_ops)]
        totals["ops"] += n_ops
        with tempfile.TemporaryDirectory() as tmp:
            if a.o2p:
                coll = os.path.join(tmp, "c.json")
                cfg = os.path.join(tmp, "o.json")
                json.dump({"folderStrategy": "Tags", "parametersResolution": "Example"}, open(cfg, "w"))
                run([a.o2p, "-s", spec, "-o", coll, "-c", cfg])
                out = os.path.join(tmp, "api.json")
                r = run([mcpgen, "convert", coll, "--to", "openapi", "-o", out]) if os.path.exists(coll) else None
                if r is not None and r.returncode == 0:
                    inferred = json.load(open(out))
                    n_tools = sum(1 for _ in operations(inferred))
                    _, ok, _ = measure(mcpgen, inferred, original, "postman")
                else:
                    n_tools = ok = 0
                row += [str(n_tools), f"{ok}/{n_ops}"]
                totals["tools"] += n_tools
                totals["pm_ok"] += ok
            tpl, ok, misses = har_figures(mcpgen, har_of(original), original, tmp, "synthesised")
            row += [f"{tpl}/{n_ops}", f"{ok}/{n_ops}"]
            totals["har_tpl"] += tpl
            totals["har_ok"] += ok
            if a.misses:
                for f in misses[:8]:
                    print(f"<!-- synthesised {name}: {f} -->", file=sys.stderr)
            if a.prism:
                mock = Prism(a.prism, spec, os.path.join(tmp, "prism.log"))
                try:
                    if not mock.ready():
                        row += ["the mock did not start", "", ""]
                        print("| " + " | ".join(row) + " |", flush=True)
                        continue
                    har, sent, refused = record_har(original, mock.base, random.Random(name))
                finally:
                    mock.stop()
                tpl, ok, misses = har_figures(mcpgen, har, original, tmp, "recorded")
                row += [f"{sent} ({refused})", f"{tpl}/{n_ops}", f"{ok}/{n_ops}"]
                for k, v in (("rec_tpl", tpl), ("rec_ok", ok), ("rec_sent", sent), ("rec_refused", refused)):
                    totals[k] += v
                if a.misses:
                    for f in misses[:8]:
                        print(f"<!-- recorded {name}: {f} -->", file=sys.stderr)
        print("| " + " | ".join(row) + " |", flush=True)
    t = totals
    row = ["**all**", f"**{t['ops']}**"]
    frac = lambda x: f"**{x}/{t['ops']} ({pct(x, t['ops'])})**"
    if a.o2p:
        row += [f"**{t['tools']}**", frac(t["pm_ok"])]
    row += [frac(t["har_tpl"]), frac(t["har_ok"])]
    if a.prism:
        row += [f"**{t['rec_sent']} ({t['rec_refused']})**", frac(t["rec_tpl"]), frac(t["rec_ok"])]
    print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
