package results

// reportTemplate is report.html's html/template (see WriteReportHTML).
const reportTemplate = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>lockcheck nightly report</title>
<style>
body{font:13px/1.35 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#212121}
h1{font-size:20px;margin:0 0 6px}
p.head{margin:0 0 12px;color:#424242}
table{border-collapse:collapse}
th,td{padding:4px 8px;border-bottom:1px solid #e0e0e0;text-align:left;vertical-align:middle}
td.seeds,td.num,td.name{white-space:nowrap}
td.exp{max-width:150px}
th{background:#f5f5f5;font-weight:600}
td.num{text-align:right;font-variant-numeric:tabular-nums}
tr.no td{background:#ffebee}
tr.reg td.status{color:#b71c1c;font-weight:600}
.warn{background:#fff3e0;border:1px solid #ef6c00;padding:6px 10px;margin:8px 0}
.ok{fill:#2e7d32}.caught{fill:#1565c0}.bad{fill:#c62828}.error{fill:#ef6c00}.skip{fill:#bdbdbd}.other{fill:#9e9d24}
svg text.seed{fill:#fff;font-size:11px;font-weight:600;text-anchor:middle;pointer-events:none}
.legend svg{vertical-align:middle}
.legend span{margin-right:14px}
td.status{max-width:220px}
</style></head><body>
<h1>lockcheck nightly report</h1>
<p class="head">{{.Headline}}</p>
{{if .MissingShards}}<p class="warn">Incomplete: no output from shard(s) {{join .MissingShards ", "}}.</p>{{end}}
<p class="legend">
<span><svg width="14" height="14"><rect class="ok" width="14" height="14" rx="2"/></svg> valid, as expected</span>
<span><svg width="14" height="14"><rect class="caught" width="14" height="14" rx="2"/></svg> violation detected, as expected</span>
<span><svg width="14" height="14"><rect class="bad" width="14" height="14" rx="2"/></svg> not as expected</span>
<span><svg width="14" height="14"><rect class="error" width="14" height="14" rx="2"/></svg> could not run</span>
<span><svg width="14" height="14"><rect class="skip" width="14" height="14" rx="2"/></svg> skipped</span>
<span><svg width="14" height="14"><rect class="other" width="14" height="14" rx="2"/></svg> informational (a mutant on a safe scenario) or undecided</span>
— each square is one seed; click it for the run's summary.
</p>
<table>
<tr><th>scenario</th><th>subject</th><th>kind</th><th>expected</th><th>seeds</th><th>detected (unsafe) /<br>false positives (safe)</th><th>first<br>detection</th><th>wall</th><th>as expected</th></tr>
{{range .Rows}}<tr class="{{if not .OK}}no{{end}}{{if .Regression}} reg{{end}}">
<td class="name">{{.Scenario}}</td><td class="name">{{.SubjectText}}</td><td>{{kind .Safe}}</td><td class="exp">{{expect .}}</td>
<td class="seeds"><svg width="{{svgw (len .Cells)}}" height="26" role="img">{{range $i, $c := .Cells}}{{if $c.Dir}}<a href="{{summary $c.Dir}}">{{end}}<g><title>{{title $c}}</title><rect class="{{class $c}}" x="{{x $i}}" y="2" width="22" height="22" rx="3"/><text class="seed" x="{{x $i}}" dx="11" y="17">{{$c.Seed}}</text></g>{{if $c.Dir}}</a>{{end}}{{end}}</svg></td>
<td>{{bar .}}</td><td class="num">{{dur .FirstDetection}}</td><td class="num">{{dur .Wall}}</td><td class="status">{{status .}}</td>
</tr>
{{end}}</table>
<h2 style="font-size:16px">Sources</h2>
<ul>{{range .Sources}}<li><code>{{.Path}}</code>: {{whole .Shard}}, {{.Cells}} cells, {{dur .Wall}}{{if .Interrupted}} (interrupted){{end}}</li>{{end}}</ul>
{{if .Dropped}}<p class="warn">In the baseline, not run now: {{join .Dropped ", "}}</p>{{end}}
</body></html>
`
