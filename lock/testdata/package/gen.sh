#!/bin/sh
# Regenerates packages.lock with sha256sum, openssl and base64, not with
# agentgate, so that the package integrity values (and the hashes of the
# empty surfaces) are derived independently of package lock.
set -eu
cd "$(dirname "$0")"
h() { printf '%s' "$1" | sha256sum | cut -d' ' -f1; }
EMPTY_TOOLS=$(h '[]') # surfaceHash of no tools (version 1 meaning)
EMPTY_SET=$(h '')     # toolsSetHash / promptsSetHash of an empty listing

# file: SRI sha256 of the script's bytes.
FILE_SRI="sha256-$(openssl dgst -sha256 -binary server.js | base64)"
# pypi: SRI sha256 of the version's file list as sha256sum prints it,
# sorted by filename.
PYPI_SRI="sha256-$(cd pypi-files && sha256sum * | sort -k2 | openssl dgst -sha256 -binary | base64)"
# npm: dist.integrity of @modelcontextprotocol/server-memory@2026.8.31, as
# testdata/npm/package-lock.json records it from the registry.
NPM_SRI=$(sed -n '/"node_modules\/@modelcontextprotocol\/server-memory"/,/integrity/s/.*"integrity": "\(.*\)",/\1/p' ../../../testdata/npm/package-lock.json)
# go: go.sum's h1: hash of github.com/BurntSushi/toml v1.6.0 (this
# repository's go.sum).
GO_H1=$(sed -n 's|^github.com/BurntSushi/toml v1.6.0 \(h1:.*\)$|\1|p' ../../../go.sum)
# oci: a manifest digest (the SHA-256 of a manifest's bytes).
OCI_DIGEST="sha256:$(h '{"schemaVersion":2}')"

server() { # name, package JSON ("" for none)
	printf '    "%s": {\n      "surfaceHash": "%s",\n      "toolsSetHash": "%s",\n      "instructionsHash": null,\n' "$1" "$EMPTY_TOOLS" "$EMPTY_SET"
	if [ -n "$2" ]; then printf '      "package": %s,\n' "$2"; fi
	printf '      "tools": [],\n      "promptsSetHash": "%s",\n      "prompts": [],\n      "resourceTemplates": []\n    }' "$EMPTY_SET"
}
pkg() { # ecosystem, name, version, integrity, [registry]
	printf '{\n        "ecosystem": "%s",\n        "name": "%s",\n        "version": "%s",\n        "integrity": "%s"' "$1" "$2" "$3" "$4"
	if [ $# -gt 4 ]; then printf ',\n        "registry": "%s"' "$5"; fi
	printf '\n      }'
}
{
	printf '{\n  "lockfileVersion": 2,\n  "generatedBy": "agentgate@test",\n  "generatedAt": "2026-08-03T12:00:00.000Z",\n  "servers": {\n'
	server fetch "$(pkg pypi mcp-server-fetch 2025.4.7 "$PYPI_SRI" http://127.0.0.1:8080/simple)"; printf ',\n'
	server github "$(pkg oci ghcr.io/github/github-mcp-server latest "$OCI_DIGEST")"; printf ',\n'
	server local "$(pkg file tools/server.js '' "$FILE_SRI")"; printf ',\n'
	server memory "$(pkg npm @modelcontextprotocol/server-memory 2026.8.31 "$NPM_SRI")"; printf ',\n'
	server remote ""; printf ',\n'
	server toml "$(pkg go github.com/BurntSushi/toml v1.6.0 "$GO_H1")"
	printf '\n  }\n}\n'
} > packages.lock
