package results

import (
	"strings"
	"testing"

	"github.com/lockcheck/lockcheck/model"
)

// TestScoreboardHeadlineNamesServer: a page built from matrices that say
// their server names it.
func TestScoreboardHeadlineNamesServer(t *testing.T) {
	p := ScoreboardPage{Meta: RunMeta{Servers: []string{"valkey-8.1 (valkey-server 8.1.8), backend process"}}}
	if h := scoreboardHeadline(p); !strings.Contains(h, "Server: valkey-8.1 (valkey-server 8.1.8), backend process.") {
		t.Errorf("headline does not name the server: %s", h)
	}
	if h := scoreboardHeadline(ScoreboardPage{}); strings.Contains(h, "Server:") {
		t.Errorf("headline names a server none recorded: %s", h)
	}
}

// TestRunServer: summary.md names the server the run's config records.
func TestRunServer(t *testing.T) {
	h := &model.History{Header: model.Header{Meta: map[string]string{"config": `{"subject":"fair","server":"redis-6.2 (redis-server 6.2.14)","backend":"container"}`}}}
	if got, want := runServer(h), "redis-6.2 (redis-server 6.2.14), backend container"; got != want {
		t.Errorf("runServer = %q, want %q", got, want)
	}
	if got := runServer(&model.History{}); got != "" {
		t.Errorf("runServer of a history without a server = %q", got)
	}
}
