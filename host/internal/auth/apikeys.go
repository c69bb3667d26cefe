package auth

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"unicode/utf8"
)

// MinSecretChars is the least length of a shared secret: MCPBASH_REMOTE_TOKEN (as in the
// original framework) and plain API keys.
const MinSecretChars = 32

// APIKeys maps static API keys to tenants. Only SHA-256 digests are held: a key file may store
// digests ("sha256:<64 hex>") so that the plain keys never rest on disk, or plain keys, which
// are hashed on load.
type APIKeys struct {
	entries []apiKey
}

type apiKey struct {
	digest [sha256.Size]byte
	tenant string
	name   string // for logs and Subject: "<tenant>#<line>", never the key
	scopes []string
}

// LoadAPIKeys reads a key file: one key per line, "TENANT KEY [SCOPE ...]", where KEY is
// "sha256:<hex digest>" or a plain key of at least MinSecretChars characters. Blank lines and
// lines starting with # are ignored. A malformed line is an error naming its line number (the
// key itself is never repeated in messages).
func LoadAPIKeys(path string) (*APIKeys, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("api keys: %w", err)
	}
	keys, err := ParseAPIKeys(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return keys, nil
}

// ParseAPIKeys parses the content of a key file (see LoadAPIKeys).
func ParseAPIKeys(data []byte) (*APIKeys, error) {
	k := &APIKeys{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	seen := map[[sha256.Size]byte]int{}
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 2 {
			return nil, fmt.Errorf("line %d: want TENANT KEY [SCOPE ...]", n)
		}
		e := apiKey{tenant: f[0], name: fmt.Sprintf("%s#%d", f[0], n), scopes: f[2:]}
		if hexDigest, ok := strings.CutPrefix(f[1], "sha256:"); ok {
			b, err := hex.DecodeString(hexDigest)
			if err != nil || len(b) != sha256.Size {
				return nil, fmt.Errorf("line %d: sha256: must be followed by 64 hex digits", n)
			}
			copy(e.digest[:], b)
		} else {
			if utf8.RuneCountInString(f[1]) < MinSecretChars {
				return nil, fmt.Errorf("line %d: a plain key must be at least %d characters (or store sha256:<digest>)", n, MinSecretChars)
			}
			e.digest = sha256.Sum256([]byte(f[1]))
		}
		for _, s := range e.scopes {
			if !validScope(s) {
				return nil, fmt.Errorf("line %d: %q is not a valid scope", n, s)
			}
		}
		if prev, dup := seen[e.digest]; dup {
			return nil, fmt.Errorf("line %d: the same key as line %d", n, prev)
		}
		seen[e.digest] = n
		k.entries = append(k.entries, e)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return k, nil
}

// Len is the number of keys.
func (k *APIKeys) Len() int { return len(k.entries) }

// Verify returns the principal of a presented key, or nil. The presented key is hashed and
// compared in constant time against every entry (no early exit), so response time says
// nothing about which digest bytes matched.
func (k *APIKeys) Verify(presented string) *Principal {
	d := sha256.Sum256([]byte(presented))
	match := -1
	for i := range k.entries {
		if subtle.ConstantTimeCompare(d[:], k.entries[i].digest[:]) == 1 {
			match = i
		}
	}
	if match < 0 {
		return nil
	}
	e := k.entries[match]
	return &Principal{Tenant: e.tenant, Subject: "api-key:" + e.name, Scopes: append([]string(nil), e.scopes...), Method: MethodAPIKey}
}

// DigestLine is the key-file line that stores key for tenant as a digest (for operators
// converting a file of plain keys).
func DigestLine(tenant, key string, scopes ...string) string {
	d := sha256.Sum256([]byte(key))
	return strings.Join(append([]string{tenant, "sha256:" + hex.EncodeToString(d[:])}, scopes...), " ")
}
