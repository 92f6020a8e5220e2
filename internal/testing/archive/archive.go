// Package archive is a minimal txtar (golang.org/x/tools/txtar format)
// reader and writer for the golden files of mcp/config and
// mcp/configedit: a comment, then files each introduced by a "-- name --"
// line. Unlike go-internal's txtar it keeps a file's data exactly as
// written (no newline is added at its end), which the tests of edits
// that keep a file's last line compare byte for byte. It is test support:
// no product package imports it.
package archive

import (
	"bytes"
	"os"
	"strings"
)

// Archive is a parsed txtar file.
type Archive struct {
	Comment []byte
	Files   []File
}

// File is one file of an Archive.
type File struct {
	Name string
	Data []byte
}

// Parse parses data as a txtar archive.
func Parse(data []byte) *Archive {
	a := &Archive{}
	var cur *File
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i+1], data[i+1:]
		} else {
			data = nil
		}
		s := strings.TrimRight(string(line), "\r\n")
		if strings.HasPrefix(s, "-- ") && strings.HasSuffix(s, " --") && len(s) > 6 {
			a.Files = append(a.Files, File{Name: strings.TrimSpace(s[3 : len(s)-3])})
			cur = &a.Files[len(a.Files)-1]
			continue
		}
		if cur == nil {
			a.Comment = append(a.Comment, line...)
		} else {
			cur.Data = append(cur.Data, line...)
		}
	}
	return a
}

// Read reads and parses the txtar file named file.
func Read(file string) (*Archive, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return Parse(data), nil
}

// Format is the text of a: the comment, then each file after its
// "-- name --" line, a newline added to data that does not end in one.
func (a *Archive) Format() []byte {
	var b bytes.Buffer
	b.Write(a.Comment)
	for _, f := range a.Files {
		b.WriteString("-- " + f.Name + " --\n")
		b.Write(f.Data)
		if len(f.Data) > 0 && f.Data[len(f.Data)-1] != '\n' {
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}
