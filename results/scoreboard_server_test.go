package results

import (
	"strings"
	"testing"
)

// TestScoreboardHeadlineNamesServer: a page built from matrices that say
// their server names it.
func TestScoreboardHeadlineNamesServer(t *testing.T) {
	p := scoreboardPage{Meta: runMeta{Servers: []string{"valkey-8.1 (valkey-server 8.1.8), backend process"}}}
	if h := scoreboardHeadline(p); !strings.Contains(h, "Server: valkey-8.1 (valkey-server 8.1.8), backend process.") {
		t.Errorf("headline does not name the server: %s", h)
	}
	if h := scoreboardHeadline(scoreboardPage{}); strings.Contains(h, "Server:") {
		t.Errorf("headline names a server none recorded: %s", h)
	}
}
