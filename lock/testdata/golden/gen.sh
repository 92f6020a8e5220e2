#!/bin/sh
# Regenerates the golden lockfiles in this directory with sha256sum, not with
# agentgate, so that their hashes are derived independently of package lock.
# Each hash input is written out literally below; canonical schemas are typed
# by hand in RFC 8785 form.
set -eu
cd "$(dirname "$0")"
h() { printf '%s' "$1" | sha256sum | cut -d' ' -f1; }
E=$(h '')   # absent description
O=$(h '{}') # absent inputSchema

# server "filesystem"
rf_n=$(h 'read_file')
rf_d=$(h 'Read the complete contents of a file.')
rf_i=$(h '{"properties":{"path":{"type":"string"}},"required":["path"],"type":"object"}')
wf_n=$(h 'write_file')
wf_d=$(h 'Create or overwrite a file <safely> & "atomically".')
wf_i=$(h '{"additionalProperties":false,"properties":{"content":{"type":"string"},"path":{"type":"string"}},"required":["path","content"],"type":"object"}')
fs_s=$(h "[[\"$rf_n\",\"$rf_d\",\"$rf_i\"],[\"$wf_n\",\"$wf_d\",\"$wf_i\"]]")

# server "memory server": tool names sorted as UTF-8 bytes
z_n=$(h 'Zebra')
c_n=$(h "$(printf 'cr\303\251er')")          # "créer"
c_d=$(h "$(printf 'Cr\303\251e une entit\303\251.')") # "Crée une entité."
e_n=$(h "$(printf 'evil\342\200\256txt')")   # "evil" U+202E "txt"
e_i=$(h '{"type":"object"}')
m_s=$(h "[[\"$z_n\",\"$E\",\"$O\"],[\"$c_n\",\"$c_d\",\"$O\"],[\"$e_n\",\"$E\",\"$e_i\"]]")

empty_s=$(h '[]')

cat > empty.lock <<END
{
  "lockfileVersion": 1,
  "generatedBy": "agentgate@v0.0.0-test",
  "generatedAt": "2026-08-03T12:00:00.000Z",
  "servers": {}
}
END

cat > zero-tools.lock <<END
{
  "lockfileVersion": 1,
  "generatedBy": "agentgate@v0.0.0-test",
  "generatedAt": "2026-08-03T12:00:00.000Z",
  "servers": {
    "silent": {
      "surfaceHash": "$empty_s",
      "tools": []
    }
  }
}
END

cat > two-servers.lock <<END
{
  "lockfileVersion": 1,
  "generatedBy": "agentgate@v0.0.0-test",
  "generatedAt": "2026-08-03T12:00:00.000Z",
  "servers": {
    "filesystem": {
      "surfaceHash": "$fs_s",
      "tools": [
        {
          "name": "read_file",
          "nameHash": "$rf_n",
          "descriptionHash": "$rf_d",
          "inputSchemaHash": "$rf_i"
        },
        {
          "name": "write_file",
          "nameHash": "$wf_n",
          "descriptionHash": "$wf_d",
          "inputSchemaHash": "$wf_i"
        }
      ]
    },
    "memory server": {
      "surfaceHash": "$m_s",
      "tools": [
        {
          "name": "Zebra",
          "nameHash": "$z_n",
          "descriptionHash": "$E",
          "inputSchemaHash": "$O"
        },
        {
          "name": "$(printf 'cr\303\251er')",
          "nameHash": "$c_n",
          "descriptionHash": "$c_d",
          "inputSchemaHash": "$O"
        },
        {
          "name": "evil\\u202etxt",
          "nameHash": "$e_n",
          "descriptionHash": "$E",
          "inputSchemaHash": "$e_i"
        }
      ]
    }
  }
}
END
