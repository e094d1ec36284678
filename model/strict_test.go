package model

import (
	"errors"
	"strings"
	"testing"
)

// Records that cannot come from a run are refused, each naming its line
// (or the record), by ReadHistory or by Validate.
func TestCorruptHistoriesRejected(t *testing.T) {
	const hdr = `{"header":{"version":1,"ends":true}}` + "\n"
	acq := `{"op":{"p":1,"lock":"L","kind":"acquire","call":10,"ret":20,"outcome":"ok","lease":1000}}` + "\n"
	rel := `{"op":{"p":1,"lock":"L","kind":"release","call":30,"ret":40,"outcome":"ok"}}` + "\n"
	end := `{"end":{"at":100}}` + "\n"
	for _, tc := range []struct{ name, history, want string }{
		{"unknown op key", hdr + `{"op":{"p":1,"lock":"L","kind":"acquire","call":10,"ret":20,"outcome":"ok","blockino":true}}` + "\n" + end, "line 2"},
		{"misspelt lease", hdr + `{"op":{"p":1,"lock":"L","kind":"acquire","call":10,"ret":20,"outcome":"ok","leas":5}}` + "\n" + end, "line 2"},
		{"unknown record", hdr + acq + `{"opp":{}}` + "\n", "line 3"},
		{"unknown header key", `{"header":{"version":1,"endz":true}}` + "\n" + acq, "line 1"},
		{"data after the record", hdr + strings.TrimSuffix(acq, "\n") + ` {}` + "\n" + end, "line 2"},
		{"enqueue before call", hdr + `{"op":{"p":1,"lock":"L","kind":"acquire","call":10,"ret":20,"enq":5,"outcome":"ok"}}` + "\n" + end, "line 2"},
		{"enqueue after return", hdr + `{"op":{"p":1,"lock":"L","kind":"acquire","call":10,"ret":20,"enq":25,"outcome":"ok"}}` + "\n" + end, "line 2"},
		{"record after the end record", hdr + acq + end + rel, "line 4"},
		{"op later than the end", hdr + acq + `{"op":{"p":1,"lock":"L","kind":"release","call":130,"ret":140,"outcome":"ok"}}` + "\n" + end, "line 3"},
		{"end earlier than the ops", hdr + acq + rel + `{"end":{"at":35}}` + "\n", "line 3"},
		{"negative end", hdr + acq + `{"end":{"at":-1}}` + "\n", "line 3"},
		{"fault at a negative time", hdr + acq + `{"fault":{"name":"pause","start":-5,"end":15}}` + "\n" + end, "line 3"},
		{"fault after the end", hdr + acq + `{"fault":{"name":"pause","start":50,"end":150}}` + "\n" + end, "line 3"},
		{"op called at 9.2e18", hdr + `{"op":{"p":1,"lock":"L","kind":"acquire","call":9200000000000000000,"ret":9200000000000000001,"outcome":"ok"}}` + "\n", "line 2"},
		{"fault ending at MaxInt64", hdr + acq + `{"fault":{"name":"pause","start":5,"end":9223372036854775807}}` + "\n", "line 3"},
		{"negative call", hdr + `{"op":{"p":1,"lock":"L","kind":"acquire","call":-10,"ret":20,"outcome":"ok"}}` + "\n", "line 2"},
		{"deadline before call", hdr + `{"op":{"p":1,"lock":"L","kind":"acquire","call":10,"ret":20,"deadline":3,"outcome":"info"}}` + "\n", "line 2"},
		{"huge lease", hdr + `{"op":{"p":1,"lock":"L","kind":"acquire","call":10,"ret":20,"lease":9223372036854775807,"outcome":"ok"}}` + "\n", "line 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := ReadHistory(strings.NewReader(tc.history))
			if err == nil {
				err = h.Validate()
			}
			if err == nil {
				t.Fatalf("accepted:\n%s", tc.history)
			}
			if !strings.Contains(err.Error(), tc.want) || !(errors.Is(err, ErrMalformed) || errors.Is(err, ErrInvalid)) {
				t.Errorf("error %q should name %q and wrap ErrMalformed or ErrInvalid", err, tc.want)
			}
		})
	}
}
