package render

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/agentgate/agentgate/internal/safetext"
)

// SARIFSchema is the $schema SARIF writes: the OASIS SARIF 2.1.0 (errata 01)
// JSON Schema.
const SARIFSchema = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

// InformationURI is agentgate's home page, for report formats that name the tool.
const InformationURI = "https://github.com/agentgate/agentgate"

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool        sarifTool         `json:"tool"`
	Invocations []sarifInvocation `json:"invocations"`
	Results     []sarifResult     `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string         `json:"id"`
	Name                 string         `json:"name"`
	ShortDescription     sarifText      `json:"shortDescription"`
	Help                 sarifText      `json:"help"`
	HelpURI              string         `json:"helpUri"`
	DefaultConfiguration sarifConfig    `json:"defaultConfiguration"`
	Properties           map[string]any `json:"properties"`
}

type sarifConfig struct {
	Level string `json:"level"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifInvocation struct {
	ExecutionSuccessful        bool                `json:"executionSuccessful"`
	ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

type sarifNotification struct {
	Level   string    `json:"level"`
	Message sarifText `json:"message"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifText         `json:"message"`
	Locations           []sarifLocation   `json:"locations"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	Properties          map[string]any    `json:"properties"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifactLoc `json:"artifactLocation"`
	Region           *sarifRegion     `json:"region,omitempty"`
}

type sarifArtifactLoc struct {
	URI       string `json:"uri,omitempty"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

// SARIF renders r as a SARIF 2.1.0 log for GitHub code scanning: one run
// whose driver lists every rule of Rules (rule IDs as there, with the
// properties sarifRuleProperties gives), and one result
// per finding of r.Findings. A result's locations are the client config line
// that defines the server (when known; GitHub shows the first location) and
// the lockfile line of the server or tool, both relative to %SRCROOT% (the
// repository root). Messages carry the escaped text (Visible); the
// partialFingerprints "agentgate/v1" value is the SHA-256 of rule, server
// and tool, so an alert stays one alert across runs. A finding with triage
// labels takes its level from the highest label (high "error", medium
// "warning", low "note"), and carries the label ids as the result's
// properties.tags and that label's security-severity (9.0, 6.0, 3.0) in
// its properties.
// invocations[0].executionSuccessful is false only when r.Result is
// "invalid"; r.Errors are its toolExecutionNotifications. The JSON is
// indented by two spaces and ends with a newline; '<', '>' and '&' are
// written as \u003c, \u003e, \u0026, and hidden characters and "##[" as
// VisibleJSON writes them.
func SARIF(r *Review) []byte {
	driver := sarifDriver{Name: "agentgate", Version: r.Version, InformationURI: InformationURI, Rules: []sarifRule{}}
	for _, rule := range Rules {
		driver.Rules = append(driver.Rules, sarifRule{
			ID: rule.ID, Name: rule.Name,
			ShortDescription:     sarifText{rule.Short},
			Help:                 sarifText{rule.Help},
			HelpURI:              InformationURI + "/blob/main/docs/review-formats.md#" + rule.ID,
			DefaultConfiguration: sarifConfig{rule.Level},
			Properties:           sarifRuleProperties(rule),
		})
	}
	run := sarifRun{
		Tool:        sarifTool{driver},
		Invocations: []sarifInvocation{{ExecutionSuccessful: r.Result != "invalid"}},
		Results:     []sarifResult{},
	}
	for _, p := range r.Errors {
		run.Invocations[0].ToolExecutionNotifications = append(run.Invocations[0].ToolExecutionNotifications,
			sarifNotification{Level: "error", Message: sarifText{safetext.Visible(p.Text())}})
	}
	for _, f := range r.Findings() {
		var locs []sarifLocation
		if f.File != "" && !strings.HasPrefix(f.File, "/") {
			locs = append(locs, sarifLoc(f.File, f.Line))
		}
		locs = append(locs, sarifLoc(r.Lockfile, f.LockLine))
		props := map[string]any{"server": safetext.VisibleLine(f.Server)}
		if f.Tool != "" {
			props["tool"] = safetext.VisibleLine(f.Tool)
		}
		if f.Entry != "" {
			props["entry"] = safetext.VisibleLine(f.Entry)
		}
		level := Rules[ruleIndex[f.Rule]].Level
		if l, sev, _, ok := labelLevel(f.Labels); ok {
			level = l
			props["security-severity"] = sev
			var tags []string
			for _, lb := range f.Labels {
				tags = append(tags, lb.ID)
			}
			props["tags"] = tags
		}
		run.Results = append(run.Results, sarifResult{
			RuleID: f.Rule, RuleIndex: ruleIndex[f.Rule], Level: level,
			Message:             sarifText{f.Message},
			Locations:           locs,
			PartialFingerprints: map[string]string{"agentgate/v1": fingerprint(f)},
			Properties:          props,
		})
	}
	return JSON(sarifLog{Schema: SARIFSchema, Version: "2.1.0", Runs: []sarifRun{run}})
}

func sarifLoc(file string, line int) sarifLocation {
	loc := sarifLocation{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifactLoc{URI: uriPath(file), URIBaseID: "%SRCROOT%"}}}
	if line > 0 {
		loc.PhysicalLocation.Region = &sarifRegion{StartLine: line}
	}
	return loc
}

// uriPath percent-encodes a slash-separated relative path for a URI
// reference: every byte but unreserved characters and '/'.
func uriPath(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '/' || c == '-' || c == '.' || c == '_' || c == '~' ||
			(c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') {
			b.WriteByte(c)
			continue
		}
		b.WriteString("%" + strings.ToUpper(hex.EncodeToString([]byte{c})))
	}
	return b.String()
}

// fingerprint is the hex SHA-256 of rule, server and tool, NUL-separated
// (and a further NUL and the entry when there is one).
func fingerprint(f Finding) string {
	var b bytes.Buffer
	b.WriteString(f.Rule)
	b.WriteByte(0)
	b.WriteString(f.Server)
	b.WriteByte(0)
	b.WriteString(f.Tool)
	if f.Entry != "" {
		b.WriteByte(0)
		b.WriteString(f.Entry)
	}
	sum := sha256.Sum256(b.Bytes())
	return hex.EncodeToString(sum[:])
}

// sarifRuleProperties are a rule's properties as GitHub code scanning
// reads them: precision "very-high" and the tag "mcp"; for a security rule
// (Severity set) also the tag "security" and its security-severity, which
// make the alert a security alert of that severity. A rule without one
// (server-unverified) is an ordinary alert at its level.
func sarifRuleProperties(rule Rule) map[string]any {
	if rule.Severity == "" {
		return map[string]any{"tags": []string{"mcp"}, "precision": "very-high"}
	}
	return map[string]any{"tags": []string{"security", "mcp"}, "security-severity": rule.Severity, "precision": "very-high"}
}
