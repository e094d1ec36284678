package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// repoFile reads a file from the repository's root.
func repoFile(t *testing.T, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// ghWorkflow is the part of a GitHub Actions workflow the test checks.
type ghWorkflow struct {
	Jobs map[string]struct {
		Needs    any `yaml:"needs"`
		If       string
		Strategy struct {
			FailFast *bool `yaml:"fail-fast"`
			Matrix   struct {
				Shard []int `yaml:"shard"`
			}
		}
		Steps []struct {
			Uses string
			Run  string
			If   string
			With map[string]any
		}
	}
}

// TestNightlyWorkflow: the shard jobs cover shards 1..N, each runs make deps
// and `lockcheck nightly --shard ${{ matrix.shard }}/N` and uploads its
// output; the report job waits for them, downloads and runs lockcheck report.
func TestNightlyWorkflow(t *testing.T) {
	var wf ghWorkflow
	if err := yaml.Unmarshal(repoFile(t, ".github/workflows/nightly.yml"), &wf); err != nil {
		t.Fatalf("nightly.yml: %v", err)
	}
	shard, report := wf.Jobs["shard"], wf.Jobs["report"]
	n := len(shard.Strategy.Matrix.Shard)
	for i, s := range shard.Strategy.Matrix.Shard {
		if s != i+1 {
			t.Errorf("matrix.shard = %v, want 1..%d", shard.Strategy.Matrix.Shard, n)
		}
	}
	if n < 2 || shard.Strategy.FailFast == nil || *shard.Strategy.FailFast {
		t.Errorf("want >= 2 shards and fail-fast: false (one shard's finding must not cancel the others): n=%d", n)
	}
	var runs, uses []string
	for _, st := range shard.Steps {
		runs, uses = append(runs, st.Run), append(uses, st.Uses)
	}
	all := strings.Join(runs, "\n")
	want := fmt.Sprintf("lockcheck nightly --seeds \"$SEEDS\" --shard ${{ matrix.shard }}/%d ", n)
	if !strings.Contains(all, "make deps") || !strings.Contains(all, want) {
		t.Errorf("shard steps lack make deps or %q:\n%s", want, all)
	}
	if !strings.Contains(strings.Join(uses, " "), "actions/upload-artifact@") {
		t.Errorf("shard job uploads nothing: %v", uses)
	}
	if fmt.Sprint(report.Needs) != "shard" || report.If != "always()" {
		t.Errorf("report job: needs %v, if %q; want needs shard, if always()", report.Needs, report.If)
	}
	var rruns, ruses []string
	for _, st := range report.Steps {
		rruns, ruses = append(rruns, st.Run), append(ruses, st.Uses)
	}
	if !strings.Contains(strings.Join(ruses, " "), "actions/download-artifact@") || !strings.Contains(strings.Join(rruns, "\n"), "lockcheck report ") {
		t.Errorf("report job does not download the shards and run lockcheck report: %v %v", ruses, rruns)
	}
}

// k8sObject is the part of a Kubernetes object the test checks.
type k8sObject struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string
	Metadata   struct{ Name string }
	Spec       struct {
		CompletionMode string `yaml:"completionMode"`
		Completions    *int
		Parallelism    *int
		Template       struct {
			Spec struct {
				RestartPolicy string `yaml:"restartPolicy"`
				Containers    []struct {
					Image   string
					Command []string
					Args    []string
					Env     []struct{ Name, Value string }
				}
			}
		}
	}
}

// TestNightlyK8sJob: an Indexed Job of N completions whose pods run shard
// JOB_COMPLETION_INDEX+1 of N, and a Job that runs lockcheck report.
func TestNightlyK8sJob(t *testing.T) {
	dec := yaml.NewDecoder(bytes.NewReader(repoFile(t, "deploy/k8s/nightly-job.yaml")))
	var jobs []k8sObject
	for {
		var o k8sObject
		err := dec.Decode(&o)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("nightly-job.yaml: %v", err)
		}
		if o.APIVersion == "" || o.Kind == "" || o.Metadata.Name == "" {
			t.Fatalf("an object without apiVersion, kind or name: %+v", o)
		}
		if o.Kind == "Job" {
			jobs = append(jobs, o)
		}
	}
	if len(jobs) != 2 {
		t.Fatalf("%d Jobs, want the shards and the report", len(jobs))
	}
	shards, report := jobs[0], jobs[1]
	if shards.Spec.CompletionMode != "Indexed" || shards.Spec.Completions == nil || shards.Spec.Parallelism == nil {
		t.Fatalf("shard Job: completionMode %q, completions/parallelism unset", shards.Spec.CompletionMode)
	}
	n := *shards.Spec.Completions
	if *shards.Spec.Parallelism != n {
		t.Errorf("parallelism %d != completions %d", *shards.Spec.Parallelism, n)
	}
	for _, j := range jobs {
		if j.Spec.Template.Spec.RestartPolicy != "Never" || len(j.Spec.Template.Spec.Containers) != 1 {
			t.Fatalf("%s: want restartPolicy Never and one container", j.Metadata.Name)
		}
		c := j.Spec.Template.Spec.Containers[0]
		for _, e := range c.Env {
			if e.Name == "SHARDS" && e.Value != strconv.Itoa(n) {
				t.Errorf("%s: SHARDS=%s, completions %d", j.Metadata.Name, e.Value, n)
			}
		}
	}
	script := strings.Join(shards.Spec.Template.Spec.Containers[0].Args, "\n")
	for _, re := range []string{`I=\$\(\(JOB_COMPLETION_INDEX \+ 1\)\)`, `lockcheck nightly .*--shard "\$I/\$SHARDS"`} {
		if !regexp.MustCompile(re).MatchString(script) {
			t.Errorf("shard script lacks %s:\n%s", re, script)
		}
	}
	if rs := strings.Join(report.Spec.Template.Spec.Containers[0].Args, "\n"); !strings.Contains(rs, "lockcheck report ") {
		t.Errorf("report Job does not run lockcheck report:\n%s", rs)
	}
}
