package registry

import (
	"bufio"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// checkNPMCache compares npm's cache with the integrity the registry
// names for tarball. npm (through make-fetch-happen and cacache) indexes
// a fetched tarball under the key "make-fetch-happen:request-cache:" +
// its URL, in CACHE/_cacache/index-v5/AA/BB/REST where AABBREST is the
// hex SHA-256 of the key; each line is "SHA1HEX\tJSON", SHA1HEX the SHA-1
// of JSON, and the last valid line for the key wins (a null integrity
// deletes). The tarball's bytes live in CACHE/_cacache/content-v2/ALGO/
// named by the hex of their digest.
//
// The check: when the index has an entry for tarball, its integrity must
// share a hash with want; and when the content file for want's strongest
// hash exists, its bytes must hash to it. It returns the index file it
// checked ("" when npm's cache has no entry for the tarball), or an error
// describing a mismatch. An unreadable cache is not an error (nothing to
// compare).
func checkNPMCache(cache, tarball, want string) (string, error) {
	root := filepath.Join(cache, "_cacache")
	key := "make-fetch-happen:request-cache:" + tarball
	sum := sha256.Sum256([]byte(key))
	hx := hex.EncodeToString(sum[:])
	index := filepath.Join(root, "index-v5", hx[:2], hx[2:4], hx[4:])
	f, err := os.Open(index)
	if err != nil {
		return "", nil
	}
	defer f.Close()
	var got string
	found := false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	for sc.Scan() {
		h, js, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			continue
		}
		s1 := sha1.Sum([]byte(js))
		if hex.EncodeToString(s1[:]) != h {
			continue
		}
		var e struct {
			Key       string  `json:"key"`
			Integrity *string `json:"integrity"`
		}
		if json.Unmarshal([]byte(js), &e) != nil || e.Key != key {
			continue
		}
		found = e.Integrity != nil
		if found {
			got = *e.Integrity
		}
	}
	if !found {
		return "", nil
	}
	if !sriOverlap(got, want) {
		return index, fmt.Errorf("npm's cache (%s) holds %s for %s, the registry names %s: the tarball npx would run from the cache is not the locked one", index, got, redactString(tarball), want)
	}
	algo, digest := strongestSRI(want)
	if algo == "" {
		return index, nil
	}
	content := filepath.Join(root, "content-v2", algo, hex.EncodeToString(digest)[:2], hex.EncodeToString(digest)[2:4], hex.EncodeToString(digest)[4:])
	cf, err := os.Open(content)
	if err != nil {
		return index, nil
	}
	defer cf.Close()
	h := newSRIHash(algo)
	if _, err := io.Copy(h, cf); err != nil {
		return index, nil
	}
	if string(h.Sum(nil)) != string(digest) {
		return index, fmt.Errorf("npm's cached tarball %s does not hash to %s: the cache was altered", content, want)
	}
	return index, nil
}

var sriRank = map[string]int{"sha1": 1, "sha256": 2, "sha384": 3, "sha512": 4}

func newSRIHash(algo string) hash.Hash {
	switch algo {
	case "sha1":
		return sha1.New()
	case "sha256":
		return sha256.New()
	case "sha384":
		return sha512.New384()
	}
	return sha512.New()
}

// parseSRI splits an SRI string ("algo-base64[?opts] ...") into digests.
func parseSRI(s string) map[string][][]byte {
	out := map[string][][]byte{}
	for _, tok := range strings.Fields(s) {
		algo, b64, ok := strings.Cut(tok, "-")
		if !ok || sriRank[algo] == 0 {
			continue
		}
		b64, _, _ = strings.Cut(b64, "?")
		d, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			continue
		}
		out[algo] = append(out[algo], d)
	}
	return out
}

// sriOverlap reports whether a and b agree: for the strongest algorithm
// both name, some digest is in both. Strings with no algorithm in common
// cannot disagree.
func sriOverlap(a, b string) bool {
	pa, pb := parseSRI(a), parseSRI(b)
	best := ""
	for algo := range pa {
		if _, ok := pb[algo]; ok && sriRank[algo] > sriRank[best] {
			best = algo
		}
	}
	if best == "" {
		return true
	}
	for _, x := range pa[best] {
		for _, y := range pb[best] {
			if string(x) == string(y) {
				return true
			}
		}
	}
	return false
}

func strongestSRI(s string) (string, []byte) {
	var best string
	var digest []byte
	for algo, ds := range parseSRI(s) {
		if sriRank[algo] > sriRank[best] {
			best, digest = algo, ds[0]
		}
	}
	return best, digest
}

// sha1SRI is the SRI form of an npm dist.shasum (hex SHA-1), which npm
// uses as the integrity of versions published before dist.integrity.
func sha1SRI(shasum string) string {
	d, err := hex.DecodeString(shasum)
	if err != nil || len(d) != sha1.Size {
		return ""
	}
	return "sha1-" + base64.StdEncoding.EncodeToString(d)
}
