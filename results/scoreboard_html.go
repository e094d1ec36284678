package results

import (
	"html/template"
	"io"
	"strings"
)

// writeScoreboardHTML writes scoreboard.html: the page's tables, rules,
// findings and grids, self-contained (inline CSS, no scripts).
func writeScoreboardHTML(w io.Writer, p ScoreboardPage) error {
	return scoreboardTmpl.Execute(w, struct {
		ScoreboardPage
		Headline string
		Intro    string
		Rules    []struct{ Term, Meaning string }
	}{p, scoreboardHeadline(p), scoreboardIntro, scoreboardRules})
}

var scoreboardTmpl = template.Must(template.New("scoreboard").Funcs(template.FuncMap{
	"props":  func() []Property { return Properties },
	"short":  func(s Score) string { return s.Short() },
	"text":   func(s Score) string { return s.Text() },
	"anchor": anchor,
	"cell":   func(m map[string]Score, k string) Score { return m[k] },
	"grid":   func(r ScoreRow, p, f string) Score { return r.Grid[p][f] },
	"line":   subjectLine,
	"join":   strings.Join,
	"plain":  func(s string) string { return strings.ReplaceAll(s, "`", "") },
	"multi":  func(sb Scoreboard) bool { return len(sb.Servers) > 1 },
	"name":   ScoreRow.name,
	"fname":  Finding.name,
}).Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>lockcheck scoreboard</title>
<style>body{font-family:sans-serif;margin:2em;max-width:110em}table{border-collapse:collapse;margin:.5em 0}
td,th{border:1px solid #ccc;padding:4px 8px;font-size:13px;vertical-align:top}th{background:#fafafa}
.holds{background:#e8f5e9}.broken{background:#ffcdd2}.reproduced{background:#ffccbc}.flaky{background:#ffe0b2}.unproven{background:#fff9c4}
.expected{background:#e3f2fd}.error,.unknown{background:#eeeeee}.not-claimed,.not-run,.not-checked{color:#777}
pre{background:#f5f5f5;padding:8px;overflow:auto;font-size:12px}</style></head><body>
<h1>Scoreboard: the Redis locks people run</h1>
<p>{{.Headline}}</p>
<h2>By property</h2>
<table><tr><th>library</th>{{if multi $.Scoreboard}}<th>server</th>{{end}}<th>version</th><th>claims</th>{{range props}}<th>{{.Name}}</th>{{end}}</tr>
{{range $r := .Rows}}<tr><td>{{$r.Subject.Name}}</td>{{if multi $.Scoreboard}}<td>{{$r.Server}}</td>{{end}}<td>{{$r.Subject.Version}}</td><td>{{join $r.Subject.Claims ", "}}</td>
{{range props}}{{$s := cell $r.Property .Name}}<td class="{{$s.State.Class}}">{{short $s}}{{range $s.Findings}} <a href="#{{anchor .}}">▸</a>{{end}}</td>{{end}}</tr>
{{end}}</table>
<h2>By fault class</h2>
<table><tr><th>library</th>{{if multi $.Scoreboard}}<th>server</th>{{end}}{{range .Faults}}<th>{{.}}</th>{{end}}</tr>
{{range $r := .Rows}}<tr><td>{{$r.Subject.Name}}</td>{{if multi $.Scoreboard}}<td>{{$r.Server}}</td>{{end}}{{range $.Faults}}{{$s := cell $r.Fault .}}<td class="{{$s.State.Class}}">{{short $s}}{{range $s.Findings}} <a href="#{{anchor .}}">▸</a>{{end}}</td>{{end}}</tr>
{{end}}</table>
<p>{{.Intro}}</p>
<ul>{{range .Rules}}<li><b>{{.Term}}</b>: {{plain .Meaning}}</li>{{end}}</ul>
<h2>Findings</h2>
{{range .Findings}}<h3 id="{{anchor .Key}}">{{fname .}}: {{.Property}} under {{.Scenario}} ({{.State}})</h3>
<p>Fault class {{.Fault}}; checker <code>{{.Checker}}</code>{{with .Class}}, class {{.}}{{end}}.
{{if .Known}}A script shows this library breaking {{.Property}} alone, without lockcheck or its adapter: <code>{{.Known.Script}}</code>: {{.Known.Claim}}. Whether this run broke it the same way is for the explanation below to say.{{else}}Adapter not yet ruled out: no script shows it against the library alone.{{end}}</p>
<ul>{{range .Runs}}<li>seed {{.Seed}}: broke in {{.Hits}} of {{.Runs}} runs of <code>{{.Command}}</code>{{if .Dir}}; <a href="{{.Dir}}/summary.md">history</a>{{end}}{{range $i, $d := .Reruns}}, <a href="{{$d}}/summary.md">rerun</a>{{end}}
{{if .Example}}<pre>{{.Example}}</pre>{{end}}</li>{{end}}</ul>
{{else}}<p>None: no library broke a property it claims, beyond what an unsafe scenario breaks in any lease lock.</p>{{end}}
{{if multi .Scoreboard}}<h2>Differs between servers</h2>
{{with .Uncompared}}<p>Not compared, as no two servers gave a verdict: {{join . ", "}}.</p>{{end}}
{{range .Differences}}<p>{{.Subject}}, {{.Scenario}}, {{.Property}}:{{range .Sides}} {{.Server}}: <span class="{{.Score.State.Class}}">{{text .Score}}</span>{{range .Score.Findings}} <a href="#{{anchor .}}">▸</a>{{end}}{{range $i, $d := .Runs}}{{if $d}} <a href="{{$d}}/summary.md">history</a>{{end}}{{end}};{{end}}</p>
{{else}}<p>None: every library scored the same on every server.</p>{{end}}{{end}}
<h2>Each library: property × fault class</h2>
{{range $r := .Rows}}<h3>{{name $r}}</h3><p>{{line $r.Subject}}</p>
<table><tr><th>property</th>{{range $.Faults}}<th>{{.}}</th>{{end}}</tr>
{{range $p := props}}<tr><td>{{$p.Name}}</td>{{range $.Faults}}{{$s := grid $r $p.Name .}}<td class="{{$s.State.Class}}">{{text $s}}{{range $s.Findings}} <a href="#{{anchor .}}">▸</a>{{end}}</td>{{end}}</tr>
{{end}}</table>
{{end}}
<p>Every run: <a href="report.html">report.html</a>.</p>
</body></html>
`))
