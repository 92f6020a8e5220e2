#!/usr/bin/env node
// A stand-in MCP server script: its bytes are what the file ecosystem pins.
console.log("hello");
