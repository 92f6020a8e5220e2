package config

import (
	"bytes"
	"os"
	"strings"
)

// A minimal txtar (golang.org/x/tools/txtar format) reader and writer, so
// the tests need no module beyond go.mod's: a comment, then files each
// introduced by a "-- name --" line.
type archive struct {
	Comment []byte
	Files   []archiveFile
}

type archiveFile struct {
	Name string
	Data []byte
}

func parseArchive(data []byte) *archive {
	a := &archive{}
	var cur *archiveFile
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i+1], data[i+1:]
		} else {
			data = nil
		}
		s := strings.TrimRight(string(line), "\r\n")
		if strings.HasPrefix(s, "-- ") && strings.HasSuffix(s, " --") && len(s) > 6 {
			a.Files = append(a.Files, archiveFile{Name: strings.TrimSpace(s[3 : len(s)-3])})
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

func readArchive(file string) (*archive, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return parseArchive(data), nil
}

func (a *archive) format() []byte {
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
