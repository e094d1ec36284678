package faults

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// authConfigFile is the config file, in a server's data directory, that
// carries its password: on disk (mode 0600), never on the command line,
// which every local user can read in ps.
const authConfigFile = "lockcheck-auth.conf"

var processPassword = sync.OnceValue(func() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		// crypto/rand does not fail on Linux; a fixed password would
		// silently lose the protection, so refuse to go on.
		panic(fmt.Sprintf("faults: no randomness for the redis-server password: %v", err))
	}
	return hex.EncodeToString(b)
})

// ProcessPassword is the default password of every redis-server and
// Sentinel this process starts (ServerConfig.Password): 128 random bits,
// drawn once per process, so that the nodes of a topology (replicas,
// Sentinels, cluster nodes) authenticate to each other with one secret and
// no other local user can talk to them. It is never printed: lockcheck
// passes it to its own clients in go-redis options only.
func ProcessPassword() string { return processPassword() }

// writeAuthConfig writes the requirepass/masterauth config of a data node
// into dir and returns its path.
func writeAuthConfig(dir, password string) (string, error) {
	if strings.ContainsAny(password, " \t\r\n\"'") {
		return "", fmt.Errorf("redis-server password: whitespace and quotes are not allowed")
	}
	path := filepath.Join(dir, authConfigFile)
	conf := fmt.Sprintf("requirepass %s\nmasterauth %s\n", password, password)
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		return "", fmt.Errorf("redis-server auth config: %w", err)
	}
	return path, nil
}
