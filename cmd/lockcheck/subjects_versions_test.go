package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/lockcheck/lockcheck/workloads/subject"
)

// `subjects --versions NAME` marks each release the registry serves
// supported by the driver or not, in text and JSON.
func TestPrintVersionsMarksSupport(t *testing.T) {
	v := &subject.Versions{
		Registry: "a test registry", Pinned: "3.52.0",
		Supports: subject.Range{Min: "3.8.0", Max: "4.x", Note: "measured"},
	}
	served := []string{"2.15.2", "3.8.0", "3.52.0", "4.7.0", "5.0.0-rc1", "5.0.0"}
	var out bytes.Buffer
	if err := printVersions(&env{stdout: &out}, "lib", v, served, false); err != nil {
		t.Fatal(err)
	}
	want := "lib: a test registry serves 6 releases (oldest first); lockcheck pins 3.52.0, lib@latest is 5.0.0, which it does not support; the driver supports 3.8.0 to 4.x (measured)\n" +
		"supported (3): 3.8.0 3.52.0 4.7.0\n" +
		"not supported, refused (3): 2.15.2 5.0.0-rc1 5.0.0\n"
	if out.String() != want {
		t.Errorf("text:\n%s\nwant:\n%s", out.String(), want)
	}
	out.Reset()
	if err := printVersions(&env{stdout: &out}, "lib", v, served, true); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Supports, Min, Max, Latest string
		Releases                   []releaseMark
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	var marks []string
	for _, r := range got.Releases {
		marks = append(marks, r.Release+"="+map[bool]string{true: "yes", false: "no"}[r.Supported])
	}
	if got.Supports != "3.8.0 to 4.x (measured)" || got.Min != "3.8.0" || got.Max != "4.x" || got.Latest != "5.0.0" ||
		strings.Join(marks, " ") != "2.15.2=no 3.8.0=yes 3.52.0=yes 4.7.0=yes 5.0.0-rc1=no 5.0.0=no" {
		t.Errorf("JSON: %s", out.String())
	}
}
