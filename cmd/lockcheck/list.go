package main

import (
	"context"
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/lockcheck/lockcheck/workloads"
	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/permits"
	"github.com/lockcheck/lockcheck/workloads/scenario"
)

func subjectsCmd(ctx context.Context, e *env, args []string) (int, error) {
	fs := newFlags(e, "subjects", "subjects [--json] [--versions NAME]", "  lockcheck subjects\n  lockcheck subjects --versions redisson\n")
	asJSON := fs.Bool("json", false, "print JSON")
	versions := fs.String("versions", "", "list the releases of `NAME`'s library that its registry serves, each marked supported by its driver or not (NAME@VERSION runs one)")
	if err := parseFlags(fs, args, 0); err != nil {
		return exitUsage, err
	}
	if *versions != "" {
		return subjectVersions(ctx, e, *versions, *asJSON)
	}
	type row struct {
		Name      string `json:"name"`
		Kind      string `json:"kind"`
		Reentrant bool   `json:"reentrant"`
		Fair      bool   `json:"fair"`
		Catches   string `json:"catches,omitempty"`
		Doc       string `json:"doc"`
	}
	var rows []row
	for _, s := range catalog.Subjects.All() {
		rows = append(rows, row{s.Name, string(s.Kind), s.Reentrant, s.Fair, s.Catches, s.Doc})
	}
	// The semaphores and latches run in their kind's runner; they are
	// listed under that kind.
	for _, s := range permits.Subjects() {
		k, _ := scenario.Named(s.Name)
		rows = append(rows, row{s.Name, string(k.Kind), false, false, s.Catches, s.Doc})
	}
	if *asJSON {
		return exitValid, printJSON(e, rows)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tKIND\tREENTRANT\tFAIR\tDESCRIPTION")
	for _, r := range rows {
		doc := r.Doc
		if r.Catches != "" {
			doc += " [caught by: " + r.Catches + "]"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Name, r.Kind, yesNo(r.Reentrant), yesNo(r.Fair), doc)
	}
	return exitValid, tw.Flush()
}

func workloadsCmd(_ context.Context, e *env, args []string) (int, error) {
	fs := newFlags(e, "workloads", "workloads [--json]", "  lockcheck workloads\n")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseFlags(fs, args, 0); err != nil {
		return exitUsage, err
	}
	type row struct {
		Name    string         `json:"name"`
		Doc     string         `json:"doc"`
		Example workloads.Plan `json:"example_plan"`
	}
	var rows []row
	for _, w := range workloads.Workloads() {
		rows = append(rows, row{w.Name, w.Doc, w.Generate(1)})
	}
	if *asJSON {
		return exitValid, printJSON(e, rows)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tDESCRIPTION")
	for _, r := range rows {
		def := ""
		if r.Name == workloads.DefaultWorkload {
			def = " (default)"
		}
		fmt.Fprintf(tw, "%s\t%s%s\n", r.Name, r.Doc, def)
	}
	return exitValid, tw.Flush()
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func printJSON(e *env, v any) error {
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
