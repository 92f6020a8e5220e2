package configedit

// SetArgument is here, beside the tests, because only they call it: pin
// edits through setEdit with every pin of a file at once (PinFile); the
// edit goldens (testdata/edit, "set" sections) check one edit alone.

// SetArgument rewrites one argument of a stdio server in data, a config
// file of client (its path relative to the root is file): argument i of
// the server's args as written, or its command when i is -1 (the
// indices of PackageSpec.Arg). Only that value's bytes change; the new
// value keeps the old one's quoting style where it can hold it (a TOML
// literal or YAML single-quoted string stays one).
func SetArgument(client, file string, data []byte, server string, i int, value string) ([]byte, error) {
	d, err := locate(client, file, data)
	if err != nil {
		return nil, err
	}
	ed, argv, err := d.setEdit(server, i, value)
	if err != nil {
		return nil, err
	}
	out, err := applyEdits(data, []Edit{ed})
	if err != nil {
		return nil, err
	}
	if err := d.verifyEdit(out, map[string][]string{server: argv}); err != nil {
		return nil, err
	}
	return out, nil
}
