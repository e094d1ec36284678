package results

import (
	"html/template"
	"io"
)

func writeScoreboardHTML(w io.Writer, p scoreboardPage) error {
	return scoreboardTmpl.Execute(w, p)
}

var scoreboardTmpl = template.Must(template.New("scoreboard").Funcs(template.FuncMap{
	"props":  func() []Property { return Properties },
	"text":   func(s Score) string { return s.Text() },
	"state":  func(s Score) string { return string(s.State) },
	"anchor": anchor,
}).Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>lockcheck scoreboard</title>
<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;font-size:13px}
.holds{background:#e8f5e9}.broken{background:#ffcdd2}.flaky{background:#ffe0b2}.unproven{background:#fff9c4}.expected{background:#e3f2fd}
.error{background:#eeeeee}pre{background:#f5f5f5;padding:8px;overflow:auto}</style></head><body>
<h1>Scoreboard: the Redis locks people run</h1>
<h2>By property</h2>
<table><tr><th>library</th><th>version</th><th>claims</th>{{range props}}<th>{{.Name}}</th>{{end}}</tr>
{{range $r := .Rows}}<tr><td>{{$r.Subject.Name}}</td><td>{{$r.Subject.Version}}</td><td>{{range $r.Subject.Claims}}{{.}} {{end}}</td>
{{range props}}{{$s := index $r.Property .Name}}<td class="{{state $s}}">{{text $s}}{{range $s.Findings}} <a href="#{{anchor .}}">▸</a>{{end}}</td>{{end}}</tr>
{{end}}</table>
<h2>By fault class</h2>
<table><tr><th>library</th>{{range .Faults}}<th>{{.}}</th>{{end}}</tr>
{{range $r := .Rows}}<tr><td>{{$r.Subject.Name}}</td>{{range $.Faults}}{{$s := index $r.Fault .}}<td class="{{state $s}}">{{text $s}}</td>{{end}}</tr>
{{end}}</table>
<h2>Findings</h2>
{{range .Findings}}<h3 id="{{anchor .Key}}">{{.Subject}}: {{.Property}} under {{.Scenario}} ({{.State}})</h3>
<p>{{if .Known}}Against the library alone: <code>{{.Known.Script}}</code>: {{.Known.Claim}}.{{else}}Adapter not yet ruled out.{{end}}</p>
<ul>{{range .Runs}}<li>seed {{.Seed}}: broke in {{.Hits}} of {{.Runs}} runs of <code>{{.Command}}</code>{{if .Dir}}; <a href="{{.Dir}}/summary.md">history</a>{{end}}{{range $i, $d := .Reruns}}, <a href="{{$d}}/summary.md">rerun</a>{{end}}
{{if .Example}}<pre>{{.Example}}</pre>{{end}}</li>{{end}}</ul>
{{else}}<p>None.</p>{{end}}
<p>Every run: <a href="report.html">report.html</a>.</p>
</body></html>
`))
