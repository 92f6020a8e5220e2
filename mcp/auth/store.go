package auth

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/agentgate/agentgate/internal/atomicfile"
	"github.com/zalando/go-keyring"

	"golang.org/x/oauth2"
)

// StoreEnv selects the token store: "file" (the file only), "keyring"
// (the OS credential store only) or "" / "auto" (the credential store
// when one is available, else the file).
const StoreEnv = "AGENTGATE_TOKEN_STORE"

// keyringService is the service name of agentgate's credential store
// entries.
const keyringService = "agentgate"

// Entry is what agentgate keeps for one server and client: the tokens and
// what refreshing them needs. It never leaves the store except to the
// token endpoint and the server.
type Entry struct {
	ServerURL    string    `json:"serverUrl"`
	ClientID     string    `json:"clientId"`
	ClientSecret string    `json:"clientSecret,omitempty"` // from dynamic registration or agentgate.toml's variable at login
	AuthMethod   string    `json:"authMethod"`
	ClientSource string    `json:"clientSource"`
	Grant        string    `json:"grant"`
	Issuer       string    `json:"issuer"`
	TokenURL     string    `json:"tokenUrl"`
	Resource     string    `json:"resource"`
	Scope        string    `json:"scope,omitempty"`
	AccessToken  string    `json:"accessToken"`
	RefreshToken string    `json:"refreshToken,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
	Updated      time.Time `json:"updated"`
}

// Valid reports whether the access token may still be used (with a minute
// to spare).
func (e *Entry) Valid(now time.Time) bool {
	return e.AccessToken != "" && (e.Expiry.IsZero() || now.Add(time.Minute).Before(e.Expiry))
}

func newEntry(s Server, d *Discovery, c Client, tok *oauth2.Token) *Entry {
	e := &Entry{
		ServerURL: s.URL, ClientID: c.ID, AuthMethod: c.Method, ClientSource: c.Source, Grant: s.grant(),
		Issuer: d.Issuer, TokenURL: d.Metadata.TokenEndpoint, Resource: d.Resource,
		AccessToken: tok.AccessToken, RefreshToken: tok.RefreshToken, Expiry: tok.Expiry,
		Updated: time.Now().UTC().Truncate(time.Second),
	}
	if c.Source == "dynamic registration" {
		e.ClientSecret = c.Secret // agentgate.toml's secret stays in its variable
	}
	if sc, ok := tok.Extra("scope").(string); ok {
		e.Scope = sc
	}
	return e
}

// Store keeps entries, keyed by server URL and configured client id, in the
// OS credential store (macOS Keychain, Windows Credential Manager, the
// Secret Service on Linux) or in a file only the user may read.
type Store struct {
	// File is the fallback file: tokens.json in agentgate's directory
	// under the user's config directory ($XDG_CONFIG_HOME/agentgate/ on
	// Linux).
	File string
	mode string // "auto", "file" or "keyring"
}

// OpenStore returns the store getenv selects (see StoreEnv).
func OpenStore(getenv func(string) string) (*Store, error) {
	mode := getenv(StoreEnv)
	switch mode {
	case "", "auto":
		mode = "auto"
	case "file", "keyring":
	default:
		return nil, fmt.Errorf("%s=%q: want file, keyring or auto", StoreEnv, mode)
	}
	dir := ""
	if x := getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		dir = x
	} else {
		d, err := os.UserConfigDir()
		if err != nil {
			return nil, fmt.Errorf("no config directory for the token file: %v", err)
		}
		dir = d
	}
	s := &Store{File: filepath.Join(dir, "agentgate", "tokens.json"), mode: mode}
	if mode == "auto" && !keyringLikely(getenv) {
		s.mode = "file"
	}
	return s, nil
}

// keyringLikely reports whether an OS credential store may be there: on
// Linux only with a D-Bus session (without one, go-keyring would try to
// start a bus).
func keyringLikely(getenv func(string) string) bool {
	if runtime.GOOS == "linux" || runtime.GOOS == "freebsd" || runtime.GOOS == "openbsd" || runtime.GOOS == "netbsd" {
		return getenv("DBUS_SESSION_BUS_ADDRESS") != ""
	}
	return true
}

// Key is the store key of a server and configured client id.
func Key(serverURL, clientID string) string {
	h := sha256.Sum256([]byte(serverURL + "\n" + clientID))
	return hex.EncodeToString(h[:16])
}

// Get returns the entry for key and where it was found ("" if nowhere).
func (s *Store) Get(key string) (*Entry, string, error) {
	if s.mode != "file" {
		v, err := keyring.Get(keyringService, key)
		switch {
		case err == nil:
			var e Entry
			if json.Unmarshal([]byte(v), &e) == nil {
				return &e, "OS credential store", nil
			}
		case s.mode == "keyring" && !errors.Is(err, keyring.ErrNotFound):
			return nil, "", fmt.Errorf("OS credential store: %v", err)
		}
		if s.mode == "keyring" {
			return nil, "", nil
		}
	}
	all, err := s.readFile()
	if err != nil {
		return nil, "", err
	}
	if e, ok := all[key]; ok {
		return e, s.File, nil
	}
	return nil, "", nil
}

// Put stores e under key: in the OS credential store when possible, else
// (mode auto) in the file.
func (s *Store) Put(key string, e *Entry) (string, error) {
	data, err := json.Marshal(e)
	if err != nil {
		return "", err
	}
	if s.mode != "file" {
		err := keyring.Set(keyringService, key, string(data))
		if err == nil {
			_ = s.deleteFromFile(key) // one place per key
			return "OS credential store", nil
		}
		if s.mode == "keyring" {
			return "", fmt.Errorf("OS credential store: %v", err)
		}
	}
	all, err := s.readFile()
	if err != nil {
		return "", err
	}
	all[key] = e
	return s.File, s.writeFile(all)
}

// Delete removes key from both places; it reports whether there was one.
func (s *Store) Delete(key string) (bool, error) {
	found := false
	if s.mode != "file" {
		if err := keyring.Delete(keyringService, key); err == nil {
			found = true
		}
	}
	if s.mode != "keyring" {
		all, err := s.readFile()
		if err != nil {
			return found, err
		}
		if _, ok := all[key]; ok {
			found = true
			delete(all, key)
			if err := s.writeFile(all); err != nil {
				return found, err
			}
		}
	}
	return found, nil
}

func (s *Store) deleteFromFile(key string) error {
	all, err := s.readFile()
	if err != nil {
		return err
	}
	if _, ok := all[key]; !ok {
		return nil
	}
	delete(all, key)
	return s.writeFile(all)
}

// readFile reads the token file; a missing file is empty. A file that
// others may read is refused (its tokens may be compromised).
func (s *Store) readFile() (map[string]*Entry, error) {
	fi, err := os.Stat(s.File)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]*Entry{}, nil
	}
	if err != nil {
		return nil, err
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
		return nil, &PermError{File: s.File, Mode: fi.Mode().Perm()}
	}
	data, err := os.ReadFile(s.File)
	if err != nil {
		return nil, err
	}
	all := map[string]*Entry{}
	if err := json.Unmarshal(data, &all); err != nil {
		return nil, fmt.Errorf("%s: not a token file agentgate wrote (%v); delete it and log in again", s.File, shortErr(err))
	}
	return all, nil
}

// PermError is a token file that others may read.
type PermError struct {
	File string
	Mode os.FileMode
}

func (e *PermError) Error() string {
	return fmt.Sprintf("%s has mode %04o: group or others may read it, so agentgate does not use it (chmod 600 it after checking who read it, or delete it and log in again)", e.File, e.Mode)
}

// writeFile writes the token file atomically with mode 0600 in a
// directory of mode 0700.
func (s *Store) writeFile(all map[string]*Entry) error {
	dir := filepath.Dir(s.File)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	data, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return err
	}
	// atomicfile.WriteFile keeps the mode of the file it replaces, which
	// readFile has checked is 0600 (or sets 0600 for a new one).
	return atomicfile.WriteFile(s.File, append(data, '\n'), 0o600)
}
