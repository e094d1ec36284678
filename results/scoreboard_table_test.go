package results

import "testing"

// ReadmeTable makes table.md's own-folder links reach the same files from
// the repository's root; anchors, URLs and absolute paths stay as they are.
func TestReadmeTable(t *testing.T) {
	table := "<!-- lockcheck scoreboard render wrote this -->\n" +
		"| a | [1](README.md#finding-x) [2](runs/s/x-1/summary.md) [3](#here) [4](https://redis.io/) [5](../../docs/x.md) |\n"
	got := ReadmeTable(table, "results/scoreboard")
	want := "| a | [1](results/scoreboard/README.md#finding-x) [2](results/scoreboard/runs/s/x-1/summary.md) [3](#here) [4](https://redis.io/) [5](docs/x.md) |\n"
	if got != want {
		t.Fatalf("ReadmeTable =\n%s\nwant\n%s", got, want)
	}
}
