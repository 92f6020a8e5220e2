// Package fakeserver is a small MCP server of agentgate's own, speaking raw
// JSON-RPC over stdio or HTTP, serving tools from a JSON file. It exists for
// tests, benchmarks and `agentgate demo`, and can misbehave on request
// (pagination, delays, crashes, garbage, a rug pull).
package fakeserver
