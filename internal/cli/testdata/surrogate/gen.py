#!/usr/bin/env python3
"""Derives expected.json from tools.json, independently of agentgate's Go
code, from the rules docs/spec/lockfile-v2.md states for a tool whose text
holds an unpaired surrogate (and mcp-pin's published recipe for
definitionHash):

- definitionHash: SHA-256 of the recipe's canonical form: object members
  sorted by name as UTF-16 code units, no whitespace, strings escaping only
  '"', '\\' and U+0000-U+001F (\\b \\t \\n \\f \\r short, the rest \\u00xx),
  an unpaired surrogate as a lowercase \\udxxx escape, everything else raw
  UTF-8; integers as written (the test data has no other numbers).
- descriptionHash: SHA-256 of the description's WTF-8 bytes (what Python's
  "surrogatepass" error handler writes).
- inputSchemaHash: SHA-256 of the schema's canonical form, as above.
- nameHash: SHA-256 of the name's UTF-8 bytes.
- surfaceHash: SHA-256 of the canonical JSON of the [nameHash,
  descriptionHash, inputSchemaHash] triples in name order.

Run: python3 gen.py > expected.json
"""
import hashlib
import json
import sys

SHORT = {'"': '\\"', '\\': '\\\\', '\b': '\\b', '\t': '\\t', '\n': '\\n', '\f': '\\f', '\r': '\\r'}


def string(s):
    out = ['"']
    for ch in s:
        c = ord(ch)
        if ch in SHORT:
            out.append(SHORT[ch])
        elif c < 0x20:
            out.append('\\u%04x' % c)
        elif 0xD800 <= c <= 0xDFFF:  # json.loads keeps unpaired surrogates as such
            out.append('\\u%04x' % c)
        else:
            out.append(ch)
    out.append('"')
    return ''.join(out)


def canonical(v):
    if isinstance(v, dict):
        keys = sorted(v, key=lambda k: k.encode('utf-16-be', 'surrogatepass'))
        return '{' + ','.join(string(k) + ':' + canonical(v[k]) for k in keys) + '}'
    if isinstance(v, list):
        return '[' + ','.join(canonical(e) for e in v) + ']'
    if isinstance(v, str):
        return string(v)
    if v is True:
        return 'true'
    if v is False:
        return 'false'
    if v is None:
        return 'null'
    if isinstance(v, int):
        return str(v)
    raise ValueError('no numbers but integers in the test data')


def sha(b):
    return hashlib.sha256(b).hexdigest()


def utf8(s):
    return s.encode('utf-8', 'surrogatepass')


tools = json.load(open(sys.argv[1] if len(sys.argv) > 1 else 'tools.json'))
out, triples = {}, []
for t in sorted(tools, key=lambda t: utf8(t['name'])):
    e = {
        'nameHash': sha(utf8(t['name'])),
        'descriptionHash': sha(utf8(t.get('description') or '')),
        'inputSchemaHash': sha(utf8(canonical(t['inputSchema']))) if t.get('inputSchema') is not None else sha(b'{}'),
        'definitionHash': sha(utf8(canonical(t))),
    }
    out[t['name']] = e
    triples.append([e['nameHash'], e['descriptionHash'], e['inputSchemaHash']])
out['surfaceHash'] = sha(canonical(triples).encode())
json.dump(out, sys.stdout, indent=2, sort_keys=True)
print()
