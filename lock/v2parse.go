package lock

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// parseV2 reads a version 2 lockfile strictly (Parse calls it when
// lockfileVersion is 2). Besides what Parse checks for version 1 (types,
// unknown and missing members, sorted entries, 64-hex hashes, each
// nameHash and surfaceHash), it checks that every definitionHash is the
// definition hash of its definition, that a definition's name (and
// uriTemplate or uri) are the entry's, that a tool's descriptionHash and
// inputSchemaHash are those of its definition, that toolsSetHash and
// promptsSetHash are the set hashes of the entries, and that
// instructionsHash is the hash of instructions when the text is kept;
// all but the name checks are skipped for a kept text that holds the
// marker Redacted (agentgate replaced a secret there: its hashes are over
// the text as sent, which the file does not hold).
// A definition holds JSON (written indented); any whitespace is accepted.
//
// root is data's tree (see parseRecipe), from Parse's scan.
func parseV2(data []byte, root *rv) (*Lockfile, error) {
	p := &v2parser{data: data}
	return p.lockfile(root)
}

type v2parser struct {
	data []byte
}

func (p *v2parser) errAt(v *rv, path, format string, args ...any) error {
	return &ParseError{Line: line(p.data, v.off), Path: path, Msg: fmt.Sprintf(format, args...)}
}

// fields checks that obj is an object with every member of required and
// no member outside required and optional.
func (p *v2parser) fields(obj *rv, path string, required, optional []string) error {
	if obj.kind != '{' {
		return p.errAt(obj, path, "want an object, got %s", kindOf(obj))
	}
	for i, k := range obj.keys {
		if !slices.Contains(required, k) && !slices.Contains(optional, k) {
			all := append(slices.Clone(required), optional...)
			return &ParseError{Line: line(p.data, obj.kOffs[i]), Path: pathKey(path, k),
				Msg: "unknown field; here a version 2 lockfile has only " + strings.Join(all, ", ")}
		}
	}
	for _, k := range required {
		if _, ok := obj.member(k); !ok {
			return p.errAt(obj, path, "missing field %q", k)
		}
	}
	return nil
}

func kindOf(v *rv) string {
	switch v.kind {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case 'n':
		return "null"
	}
	return "a boolean"
}

func (p *v2parser) str(obj *rv, path, key string) (string, error) {
	v, _ := obj.member(key)
	switch {
	case v.kind != '"':
		return "", p.errAt(v, pathKey(path, key), "want a string, got %s", kindOf(v))
	case !utf8.ValidString(v.s): // an unpaired surrogate, as WTF-8
		return "", p.errAt(v, pathKey(path, key), "holds an unpaired surrogate escape")
	}
	return v.s, nil
}

func (p *v2parser) hash(obj *rv, path, key string) (string, error) {
	h, err := p.str(obj, path, key)
	if err == nil && !isHex64(h) {
		v, _ := obj.member(key)
		err = p.errAt(v, pathKey(path, key), "want 64 lowercase hex digits (a SHA-256), got %s", strconv.Quote(clip(h)))
	}
	return h, err
}

var v2Root = []string{"lockfileVersion", "generatedBy", "generatedAt", "servers"}

func (p *v2parser) lockfile(root *rv) (*Lockfile, error) {
	if err := p.fields(root, "", v2Root, nil); err != nil {
		return nil, err
	}
	l := &Lockfile{LockfileVersion: Version2, Servers: map[string]Server{}}
	var err error
	if l.GeneratedBy, err = p.str(root, "", "generatedBy"); err != nil {
		return nil, err
	}
	if l.GeneratedAt, err = p.str(root, "", "generatedAt"); err != nil {
		return nil, err
	}
	if !validTime(l.GeneratedAt) {
		v, _ := root.member("generatedAt")
		return nil, p.errAt(v, "generatedAt", "want an RFC 3339 time such as 2026-08-03T12:00:00.000Z, got %s", strconv.Quote(clip(l.GeneratedAt)))
	}
	servers, _ := root.member("servers")
	if servers.kind != '{' {
		return nil, p.errAt(servers, "servers", "want an object, got %s", kindOf(servers))
	}
	for i, name := range servers.keys {
		path := pathKey("servers", name)
		if !utf8.ValidString(name) || strings.Contains(name, "\xed\xa0") {
			return nil, p.errAt(servers.vals[i], path, "the server name holds an unpaired surrogate escape")
		}
		srv, err := p.server(servers.vals[i], path, name)
		if err != nil {
			return nil, err
		}
		l.Servers[name] = srv
	}
	return l, nil
}

var (
	v2ServerRequired = []string{"surfaceHash", "toolsSetHash", "instructionsHash", "tools", "promptsSetHash", "prompts", "resourceTemplates"}
	v2ServerOptional = []string{"instructions", "package", "resources"}
)

func (p *v2parser) server(obj *rv, path, name string) (Server, error) {
	if err := p.fields(obj, path, v2ServerRequired, v2ServerOptional); err != nil {
		return Server{}, err
	}
	var srv Server
	var err error
	if srv.SurfaceHash, err = p.hash(obj, path, "surfaceHash"); err != nil {
		return Server{}, err
	}
	if srv.ToolsSetHash, err = p.hash(obj, path, "toolsSetHash"); err != nil {
		return Server{}, err
	}
	if srv.PromptsSetHash, err = p.hash(obj, path, "promptsSetHash"); err != nil {
		return Server{}, err
	}
	if err := p.instructions(obj, path, name, &srv); err != nil {
		return Server{}, err
	}
	if pv, ok := obj.member("package"); ok {
		if srv.Package, err = p.pkg(pv, pathKey(path, "package")); err != nil {
			return Server{}, err
		}
	}
	if srv.Tools, err = p.tools(obj, path, name); err != nil {
		return Server{}, err
	}
	if srv.Prompts, err = p.entries(obj, path, name, "prompts", KindPrompt); err != nil {
		return Server{}, err
	}
	if srv.ResourceTemplates, err = p.entries(obj, path, name, "resourceTemplates", KindResourceTemplate); err != nil {
		return Server{}, err
	}
	if _, ok := obj.member("resources"); ok {
		if srv.Resources, err = p.entries(obj, path, name, "resources", KindResource); err != nil {
			return Server{}, err
		}
	}
	if err := p.setHashes(obj, name, srv); err != nil {
		return Server{}, err
	}
	return srv, nil
}

// instructions reads the server's instructionsHash (null when it sent
// none) and, when kept, its instructions text, which must hash to it
// unless it was redacted.
func (p *v2parser) instructions(obj *rv, path, name string, srv *Server) error {
	if ih, _ := obj.member("instructionsHash"); ih.kind != 'n' {
		h, err := p.hash(obj, path, "instructionsHash")
		if err != nil {
			return err
		}
		srv.InstructionsHash = &h
	}
	in, ok := obj.member("instructions")
	if !ok {
		return nil
	}
	if in.kind != '"' {
		return p.errAt(in, pathKey(path, "instructions"), "want a string, got %s", kindOf(in))
	}
	s := in.s
	srv.Instructions = &s
	if srv.InstructionsHash == nil || *InstructionsHash(&s) != *srv.InstructionsHash && !holdsRedacted(s) {
		return &IntegrityError{Line: line(p.data, in.off), Server: name, Field: "instructionsHash",
			Msg: "is not the hash of the instructions kept beside it: the text or its hash was edited by hand or damaged"}
	}
	return nil
}

// setHashes checks the server-level hashes of srv, read from obj, against
// the entries they cover (Rehash).
func (p *v2parser) setHashes(obj *rv, name string, srv Server) error {
	re := Rehash(srv)
	for _, h := range []struct{ field, want, got string }{
		{"surfaceHash", re.SurfaceHash, srv.SurfaceHash},
		{"toolsSetHash", re.ToolsSetHash, srv.ToolsSetHash},
		{"promptsSetHash", re.PromptsSetHash, srv.PromptsSetHash},
	} {
		if h.want != h.got {
			v, _ := obj.member(h.field)
			return &IntegrityError{Line: line(p.data, v.off), Server: name, Field: h.field,
				Msg: "does not match the entries it covers: a hash was edited by hand or damaged, or entries were added or removed without regenerating"}
		}
	}
	return nil
}

var (
	v2ToolRequired = []string{"name", "nameHash", "descriptionHash", "inputSchemaHash", "definitionHash"}
	optDefinition  = []string{"definition"}
)

func (p *v2parser) array(obj *rv, path, key string) (*rv, string, error) {
	arr, _ := obj.member(key)
	path = pathKey(path, key)
	if arr.kind != '[' {
		return nil, path, p.errAt(arr, path, "want an array, got %s", kindOf(arr))
	}
	return arr, path, nil
}

func (p *v2parser) tools(obj *rv, spath, server string) ([]Tool, error) {
	arr, path, err := p.array(obj, spath, "tools")
	if err != nil {
		return nil, err
	}
	tools := make([]Tool, 0, len(arr.vals))
	for i, v := range arr.vals {
		ipath := indexPath(path, i)
		if err := p.fields(v, ipath, v2ToolRequired, optDefinition); err != nil {
			return nil, err
		}
		var t Tool
		if t.Name, err = p.str(v, ipath, "name"); err != nil {
			return nil, err
		}
		if t.Name == "" {
			n, _ := v.member("name")
			return nil, p.errAt(n, pathKey(ipath, "name"), "must not be empty")
		}
		for _, f := range []struct {
			key string
			dst *string
		}{{"nameHash", &t.NameHash}, {"descriptionHash", &t.DescriptionHash}, {"inputSchemaHash", &t.InputSchemaHash}, {"definitionHash", &t.DefinitionHash}} {
			if *f.dst, err = p.hash(v, ipath, f.key); err != nil {
				return nil, err
			}
		}
		if i > 0 {
			switch prev := tools[i-1].Name; {
			case prev == t.Name:
				return nil, p.errAt(v, ipath, "duplicate tool %s (also at index %d); a name occurs once per server", strconv.Quote(t.Name), i-1)
			case prev > t.Name:
				return nil, p.errAt(v, ipath, "tools are not sorted by name: %s comes after %s", strconv.Quote(t.Name), strconv.Quote(prev))
			}
		}
		if HashName(t.Name) != t.NameHash {
			return nil, &IntegrityError{Line: line(p.data, v.off), Server: server, Tool: t.Name, Field: "nameHash",
				Msg: "is not the SHA-256 of the tool's name: the name or its hash was edited by hand or damaged"}
		}
		if def, ok := v.member("definition"); ok {
			if t.Definition, err = p.toolDefinition(def, v, server, t); err != nil {
				return nil, err
			}
		}
		tools = append(tools, t)
	}
	return tools, nil
}

// toolDefinition checks the definition kept for tool t (the lockfile's
// entry v) against the entry's hashes: its definition hash (definition),
// and the version 1 hashes, which must be those of the definition unless
// it was redacted. It returns the definition's canonical form.
func (p *v2parser) toolDefinition(def, v *rv, server string, t Tool) (string, error) {
	c, err := p.definition(def, server, KindTool, t.Name, "", t.DefinitionHash)
	if err != nil {
		return "", err
	}
	var desc *string
	if d, ok := def.member("description"); ok && d.kind == '"' {
		desc = &d.s
	}
	schema := []byte(nil)
	if s, ok := def.member("inputSchema"); ok {
		schema = appendRecipeCanonical(nil, s)
	}
	ih, herr := hashSchemaV2(schema)
	if (HashDescription(desc) != t.DescriptionHash || herr != nil || ih != t.InputSchemaHash) && !holdsRedacted(c) {
		return "", &IntegrityError{Line: line(p.data, v.off), Server: server, Tool: t.Name, Field: "descriptionHash",
			Msg: "descriptionHash or inputSchemaHash is not that of the tool's definition: the file was edited by hand or damaged"}
	}
	return c, nil
}

// definition checks one kept definition against its entry and returns its
// canonical form.
func (p *v2parser) definition(def *rv, server, kind, name, uri, hash string) (string, error) {
	ierr := func(msg string) error {
		return &IntegrityError{Line: line(p.data, def.off), Server: server, Tool: name, Field: "definitionHash", Msg: msg}
	}
	if def.kind != '{' {
		return "", ierr("the definition is not a JSON object")
	}
	c := appendRecipeCanonical(nil, def)
	// A redacted definition hashes to its definitionHash only as the
	// server sent it, which the file does not hold.
	if sha256Hex(c) != hash && !holdsRedacted(string(c)) {
		return "", ierr("is not the definition hash of the definition kept beside it: the definition or its hash was edited by hand or damaged")
	}
	if n, ok := def.member("name"); !ok || n.kind != '"' || n.s != name {
		return "", ierr("the definition's name is not the entry's name: the file was edited by hand or damaged")
	}
	if k := entryKey(kind); k != "" {
		if u, ok := def.member(k); !ok || u.kind != '"' || u.s != uri {
			return "", ierr("the definition's " + k + " is not the entry's: the file was edited by hand or damaged")
		}
	}
	return string(c), nil
}

func (p *v2parser) entries(obj *rv, spath, server, key, kind string) ([]Entry, error) {
	arr, path, err := p.array(obj, spath, key)
	if err != nil {
		return nil, err
	}
	required := []string{"name", "definitionHash"}
	k := entryKey(kind)
	if k != "" {
		required = []string{"name", k, "definitionHash"}
	}
	cmp := compareEntries(kind)
	out := make([]Entry, 0, len(arr.vals))
	for i, v := range arr.vals {
		ipath := indexPath(path, i)
		if err := p.fields(v, ipath, required, optDefinition); err != nil {
			return nil, err
		}
		var e Entry
		if e.Name, err = p.str(v, ipath, "name"); err != nil {
			return nil, err
		}
		if k != "" {
			if e.URI, err = p.str(v, ipath, k); err != nil {
				return nil, err
			}
		}
		if e.DefinitionHash, err = p.hash(v, ipath, "definitionHash"); err != nil {
			return nil, err
		}
		if e.Name == "" || (k != "" && e.URI == "") {
			return nil, p.errAt(v, ipath, "name and %s must not be empty", k)
		}
		if i > 0 {
			switch c := cmp(out[i-1], e); {
			case c == 0:
				return nil, p.errAt(v, ipath, "duplicate %s %s (also at index %d)", kind, strconv.Quote(entryID(kind, e)), i-1)
			case c > 0:
				return nil, p.errAt(v, ipath, "%s are not sorted: %s comes after %s", key, strconv.Quote(entryID(kind, e)), strconv.Quote(entryID(kind, out[i-1])))
			}
		}
		if def, ok := v.member("definition"); ok {
			if e.Definition, err = p.definition(def, server, kind, e.Name, e.URI, e.DefinitionHash); err != nil {
				return nil, err
			}
		}
		out = append(out, e)
	}
	return out, nil
}

var (
	v2PackageRequired = []string{"ecosystem", "name", "version", "integrity"}
	v2PackageOptional = []string{"registry"}
)

// pkg reads a server's package member: the four required strings, an
// optional non-empty registry, in the form Package.Validate checks.
func (p *v2parser) pkg(obj *rv, path string) (*Package, error) {
	if err := p.fields(obj, path, v2PackageRequired, v2PackageOptional); err != nil {
		return nil, err
	}
	var pk Package
	for _, f := range []struct {
		key string
		dst *string
	}{{"ecosystem", &pk.Ecosystem}, {"name", &pk.Name}, {"version", &pk.Version}, {"integrity", &pk.Integrity}, {"registry", &pk.Registry}} {
		if _, ok := obj.member(f.key); !ok {
			continue
		}
		var err error
		if *f.dst, err = p.str(obj, path, f.key); err != nil {
			return nil, err
		}
	}
	if r, ok := obj.member("registry"); ok && pk.Registry == "" {
		return nil, p.errAt(r, pathKey(path, "registry"), "must not be empty (omit it for the launcher's default registry)")
	}
	if err := pk.Validate(); err != nil {
		member, _, _ := strings.Cut(err.Error(), ":")
		v, ok := obj.member(member)
		if !ok {
			v = obj
		}
		return nil, p.errAt(v, pathKey(path, member), "%s", strings.TrimSpace(strings.TrimPrefix(err.Error(), member+":")))
	}
	return &pk, nil
}
