package triage

// Finding is one item of a server that differs, with its labels (none
// for a removed item).
type Finding struct {
	Kind   string // KindTool, KindPrompt, KindResourceTemplate or KindInstructions
	Name   string // "" for instructions
	Change string // "added", "removed" or "changed"
	Labels []Label
}

// Highest is the highest severity of the finding's labels, 0 for none.
func (f Finding) Highest() Severity { return Highest(f.Labels) }

// Override changes the severity of one label on a server's items, or on
// one of its items (agentgate.toml's [servers.NAME.labels]).
type Override struct {
	Item     string   // the tool, prompt or template name; "" for every item of the server
	Label    string   // one of IDs
	Severity Severity // the new severity; 0 silences the label
}

// Apply returns fs with the overrides applied: for each label the
// override naming its item, else the one for the whole server; a
// silenced label is dropped. Labels are sorted again.
func Apply(fs []Finding, os []Override) []Finding {
	if len(os) == 0 {
		return fs
	}
	out := make([]Finding, len(fs))
	for i, f := range fs {
		out[i] = f
		var ls []Label
		for _, l := range f.Labels {
			o, ok := find(os, f.Name, l.ID)
			switch {
			case !ok:
				ls = append(ls, l)
			case o.Severity != 0:
				l.Severity = o.Severity
				ls = append(ls, l)
			}
		}
		out[i].Labels = Sort(ls)
	}
	return out
}

func find(os []Override, item, label string) (Override, bool) {
	var server *Override
	for i, o := range os {
		if o.Label != label {
			continue
		}
		if o.Item != "" && o.Item == item {
			return o, true
		}
		if o.Item == "" {
			server = &os[i]
		}
	}
	if server != nil {
		return *server, true
	}
	return Override{}, false
}
