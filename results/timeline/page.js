"use strict";
// lockcheck's timeline (results.WriteTimeline): draws the ops, holds, fault
// windows and findings of timelineData on a canvas, only what is in view.
(function () {
  const D = JSON.parse(document.getElementById("timeline-data").textContent);
  const OS = 9, HS = 4; // strides of D.ops and D.holds (timeline_data.go)
  const O = { lane: 0, proc: 1, kind: 2, outcome: 3, call: 4, dur: 5, token: 6, err: 7, flags: 8 };
  const LANE_H = 16, GROUP_H = 17, LABEL_W = 170, AXIS_H = 20, FAULT_H = 13, FIND_H = 14, OVER_H = 30, SCROLL_W = 10;
  const MAX_FAULT_ROWS = 6, MIN_RANGE = 1000;
  const ops = D.ops, holds = D.holds, nLanes = D.lanes.length;
  const canvas = document.getElementById("timeline"), over = document.getElementById("overview");
  const ctx = canvas.getContext("2d"), octx = over.getContext("2d");
  const tip = document.getElementById("tip"), view = document.getElementById("view");

  // Kinds: 0 acquire, 1 release, 2 section, 3 expire, 4 other; colours by kind (ok) and outcome.
  const kindClass = D.kinds.map(k => ({ acquire: 0, release: 1, section: 2, expire: 3 })[k.replace(/\(.*/, "")] ?? 4);
  const OK_COLOURS = ["#2e7d32", "#1565c0", "#78909c", "#212121", "#00897b"], FAIL = "#fb8c00", INFO = "#8e24aa";
  const HOLD_COLOURS = ["#66bb6a", "#66bb6a", "#ffa726"];

  // Index: where each lane's ops and holds start, and the running latest end in each lane
  // (sorted by call within a lane), so the first op in view is found by binary search.
  function laneIndex(arr, stride, endOf) {
    const n = arr.length / stride, start = new Int32Array(nLanes + 1), endMax = new Float64Array(n);
    let lane = -1, m = -Infinity;
    for (let i = 0; i < n; i++) {
      const l = arr[i * stride];
      while (lane < l) { start[++lane] = i; m = -Infinity; }
      m = Math.max(m, endOf(i * stride));
      endMax[i] = m;
    }
    while (lane < nLanes) start[++lane] = n;
    return { start, endMax };
  }
  const opIx = laneIndex(ops, OS, b => ops[b + O.call] + ops[b + O.dur]);
  const holdIx = laneIndex(holds, HS, b => holds[b + 2]);

  // Layout: per lock a group row, then its lanes; the fault windows stacked in rows above.
  const rowY = new Float64Array(nLanes), groupY = [], groupEnd = [];
  let contentH = 0;
  for (let l = 0, lock = -1; l < nLanes; l++) {
    if (D.lanes[l].lock !== lock) {
      if (lock >= 0) groupEnd[lock] = contentH;
      lock = D.lanes[l].lock; groupY[lock] = contentH; contentH += GROUP_H;
    }
    rowY[l] = contentH; contentH += LANE_H;
    if (l === nLanes - 1) groupEnd[lock] = contentH;
  }
  const faultRow = stackFaults();
  const nFaultRows = Math.max(1, Math.min(MAX_FAULT_ROWS, 1 + Math.max(-1, ...faultRow)));
  const TOP = AXIS_H + nFaultRows * FAULT_H + FIND_H;
  const laneOf = new Map(); // "lock/proc" -> lane, for the labels of fault bands
  D.lanes.forEach((ln, l) => ln.procs.forEach(p => laneOf.set(ln.lock + "/" + p, l)));
  const findingsByTime = D.findings.map((f, i) => i).filter(i => D.findings[i].from >= 0)
    .sort((a, b) => D.findings[a].from - D.findings[b].from);

  // Fault windows stacked in rows so that overlapping ones do not hide each other.
  function stackFaults() {
    const rows = [], ends = [];
    D.faults.forEach((f, i) => {
      let r = ends.findIndex(e => e < f.start);
      if (r < 0 || r >= MAX_FAULT_ROWS) r = ends.length < MAX_FAULT_ROWS ? ends.length : MAX_FAULT_ROWS - 1;
      ends[r] = Math.max(ends[r] ?? -Infinity, f.end);
      rows[i] = r;
    });
    return rows;
  }

  // View state.
  const span0 = D.span[0], span1 = Math.max(D.span[1], D.span[0] + MIN_RANGE);
  let W = 0, H = 0, viewH = 0, plotW = 0, t0 = span0, t1 = span1, scrollY = 0;
  let pinned = null, hovered = null, pending = false, current = -1;
  const X0 = LABEL_W;
  const xOf = t => X0 + (t - t0) * plotW / (t1 - t0);
  const tOf = x => t0 + (x - X0) * (t1 - t0) / plotW;

  function resize() {
    const dpr = window.devicePixelRatio || 1;
    W = view.clientWidth; H = view.clientHeight;
    viewH = Math.max(0, H - OVER_H - TOP); plotW = Math.max(10, W - LABEL_W - SCROLL_W);
    for (const [c, h] of [[canvas, H - OVER_H], [over, OVER_H]]) {
      c.width = Math.round(W * dpr); c.height = Math.round(h * dpr);
      c.style.width = W + "px"; c.style.height = h + "px";
      c.getContext("2d").setTransform(dpr, 0, 0, dpr, 0, 0);
    }
    overviewBins = null;
    setScroll(scrollY);
    draw();
  }
  function schedule() {
    if (!pending) { pending = true; requestAnimationFrame(() => { pending = false; draw(); }); }
  }
  function setRange(a, b) {
    const pad = (span1 - span0) * 0.05, w = Math.min(Math.max(b - a, MIN_RANGE), span1 - span0 + 2 * pad);
    a = Math.min(Math.max(a, span0 - pad), span1 + pad - w);
    t0 = a; t1 = a + w; schedule();
  }
  function setScroll(y) { scrollY = Math.max(0, Math.min(y, contentH - viewH)); schedule(); }
  function zoom(f, at) { setRange(at - (at - t0) * f, at + (t1 - at) * f); }

  // Drawing.
  function draw() {
    ctx.clearRect(0, 0, W, H);
    const [l0, l1] = visibleLanes();
    ctx.save();
    ctx.beginPath(); ctx.rect(X0, TOP, plotW, viewH); ctx.clip();
    ctx.translate(0, TOP - scrollY);
    drawLaneBackgrounds(l0, l1);
    drawGrid();
    drawFaultBands(l0, l1);
    drawHolds(l0, l1);
    drawOps(l0, l1, false); drawOps(l0, l1, true);
    drawFaultStrips(l0, l1);
    drawFindings();
    ctx.restore();
    drawTop(); drawLabels(l0, l1); drawScrollbar(); drawOverview();
    document.getElementById("range").textContent = fmtT(t0) + " – " + fmtT(t1) + " (" + fmtD(t1 - t0) + ")";
  }
  function visibleLanes() {
    let l0 = 0;
    while (l0 < nLanes && rowY[l0] + LANE_H < scrollY) l0++;
    let l1 = l0;
    while (l1 < nLanes && rowY[l1] < scrollY + viewH) l1++;
    return [l0, l1];
  }
  function drawLaneBackgrounds(l0, l1) {
    ctx.fillStyle = "#eceff1";
    groupY.forEach(y => ctx.fillRect(X0, y, plotW, GROUP_H));
    ctx.fillStyle = "#fafafa";
    for (let l = l0; l < l1; l++) if (l % 2) ctx.fillRect(X0, rowY[l], plotW, LANE_H);
  }
  function drawGrid() {
    ctx.strokeStyle = "#e0e0e0"; ctx.lineWidth = 1; ctx.beginPath();
    for (const t of ticks()) { const x = Math.round(xOf(t)) + 0.5; ctx.moveTo(x, scrollY); ctx.lineTo(x, scrollY + viewH); }
    ctx.stroke();
  }
  function drawFaultBands(l0, l1) {
    ctx.fillStyle = "rgba(229,57,53,0.12)";
    for (const f of D.faults) {
      if (f.end < t0 || f.start > t1) continue;
      const x = xOf(f.start), w = Math.max(1, xOf(f.end) - x);
      if (f.all) { ctx.fillRect(x, scrollY, w, viewH); continue; }
      for (const [l, a, b] of f.bands || []) {
        if (l < l0 || l >= l1) continue;
        const xa = xOf(a); ctx.fillRect(xa, rowY[l], Math.max(1, xOf(b) - xa), LANE_H);
      }
    }
  }
  // drawFaultStrips marks, over the ops, the stretch of each lane a fault acted on.
  function drawFaultStrips(l0, l1) {
    ctx.fillStyle = "#e53935";
    for (const f of D.faults) {
      if (f.end < t0 || f.start > t1) continue;
      const bands = f.all ? [] : f.bands || [];
      for (const [l, a, b] of bands) {
        if (l < l0 || l >= l1) continue;
        const xa = xOf(a); ctx.fillRect(xa, rowY[l], Math.max(1, xOf(b) - xa), 2);
      }
    }
  }
  // firstEnding is the first record in [from, to) whose lane's running latest end reaches t.
  function firstEnding(endMax, from, to, t) {
    let lo = from, hi = to;
    while (lo < hi) { const m = (lo + hi) >> 1; if (endMax[m] < t) lo = m + 1; else hi = m; }
    return lo;
  }
  function drawHolds(l0, l1) {
    const k = plotW / (t1 - t0);
    for (let l = l0; l < l1; l++) {
      const y = rowY[l] + 1, end = holdIx.start[l + 1];
      let lastCol = -1, lastHow = -1;
      for (let i = firstEnding(holdIx.endMax, holdIx.start[l], end, t0); i < end; i++) {
        const b = i * HS, s = holds[b + 1];
        if (s > t1) break;
        const x0 = X0 + (s - t0) * k, x1 = X0 + (holds[b + 2] - t0) * k, how = holds[b + 3];
        if (x1 - x0 < 1 && Math.floor(x0) === lastCol && how === lastHow) continue;
        lastCol = Math.floor(x0); lastHow = how;
        ctx.fillStyle = HOLD_COLOURS[how];
        ctx.fillRect(x0, y, Math.max(1, x1 - x0), 4);
      }
    }
  }
  // drawOps draws the ok ops (bad false) or the fail and info ops on top (bad true); ops
  // narrower than a pixel that fall in a column already painted in their colour are skipped.
  function drawOps(l0, l1, bad) {
    const k = plotW / (t1 - t0), lastCol = new Float64Array(8);
    for (let l = l0; l < l1; l++) {
      const y = rowY[l], end = opIx.start[l + 1];
      lastCol.fill(-1);
      for (let i = firstEnding(opIx.endMax, opIx.start[l], end, t0); i < end; i++) {
        const b = i * OS, call = ops[b + O.call];
        if (call > t1) break;
        const out = ops[b + O.outcome];
        if ((out !== 0) !== bad) continue;
        const kc = kindClass[ops[b + O.kind]], c = out === 0 ? kc : 4 + out;
        const x0 = X0 + (call - t0) * k, w = ops[b + O.dur] * k, col = Math.floor(x0);
        if (w < 1 && lastCol[c] === col) continue;
        lastCol[c] = col;
        ctx.fillStyle = out === 1 ? FAIL : out === 2 ? INFO : OK_COLOURS[kc];
        if (out === 1) ctx.fillRect(x0, y + 10, Math.max(1, w), 4); // fail: the lower half
        else if (kc === 3 && out === 0) ctx.fillRect(x0, y + 13, Math.max(1, w), 2);
        else ctx.fillRect(x0, y + 6, Math.max(1, w > 4 ? w - 1 : w), 8); // a gap between wide ops
      }
    }
  }
  function findingColour(f) { return f.verdict === "invalid" ? "#d50000" : "#ff8f00"; }
  function drawFindings() {
    D.findings.forEach((f, i) => {
      if (f.from < 0 || f.to < t0 || f.from > t1) return;
      const x = xOf(f.from), w = Math.max(2, xOf(f.to) - x);
      const y0 = f.lock >= 0 ? groupY[f.lock] : 0, y1 = f.lock >= 0 ? groupEnd[f.lock] : contentH;
      const on = (pinned && pinned.type === "finding" && pinned.i === i) || (hovered && hovered.type === "finding" && hovered.i === i);
      ctx.fillStyle = on ? "rgba(213,0,0,0.18)" : "rgba(213,0,0,0.07)";
      ctx.fillRect(x, y0, w, y1 - y0);
      ctx.strokeStyle = findingColour(f); ctx.lineWidth = on ? 2 : 1;
      ctx.strokeRect(x, y0, w, y1 - y0);
      if (on) outlineOps(f.ops || []);
    });
  }
  function outlineOps(list) {
    ctx.strokeStyle = "#d50000"; ctx.lineWidth = 2;
    for (const i of list) {
      const b = i * OS, x = xOf(ops[b + O.call]);
      ctx.strokeRect(x - 1, rowY[ops[b + O.lane]] + 4, Math.max(2, xOf(ops[b + O.call] + ops[b + O.dur]) - x) + 2, 12);
    }
  }
  function ticks() {
    const raw = (t1 - t0) * 90 / plotW, p = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 5, 10].map(m => m * p).find(s => s >= raw);
    const out = [];
    for (let t = Math.ceil(t0 / step) * step; t <= t1; t += step) out.push(t);
    out.step = step;
    return out;
  }
  function drawTop() {
    ctx.fillStyle = "#fff"; ctx.fillRect(0, 0, W, TOP);
    const ts = ticks(), dec = Math.min(9, Math.max(0, Math.ceil(-Math.log10(ts.step / 1e9))));
    ctx.fillStyle = "#424242"; ctx.font = "11px system-ui,sans-serif"; ctx.textBaseline = "middle";
    for (const t of ts) {
      const x = xOf(t);
      ctx.fillRect(Math.round(x), AXIS_H - 5, 1, 5);
      ctx.fillText((t / 1e9).toFixed(dec) + "s", x + 3, AXIS_H / 2);
    }
    ctx.save(); ctx.beginPath(); ctx.rect(X0, 0, plotW, TOP); ctx.clip();
    D.faults.forEach((f, i) => {
      if (f.end < t0 || f.start > t1) return;
      const x = xOf(f.start), w = Math.max(2, xOf(f.end) - x), y = AXIS_H + faultRow[i] * FAULT_H;
      ctx.fillStyle = "rgba(229,57,53,0.35)"; ctx.fillRect(x, y + 1, w, FAULT_H - 2);
      const lx = Math.max(x, X0) + 2, room = x + w - lx;
      if (room > 12) { ctx.fillStyle = "#b71c1c"; ctx.fillText(faultLabel(f), lx, y + FAULT_H / 2, room); }
    });
    const fy = AXIS_H + nFaultRows * FAULT_H;
    D.findings.forEach(f => {
      if (f.from < 0 || f.to < t0 || f.from > t1) return;
      const x = xOf(f.from);
      ctx.fillStyle = findingColour(f);
      ctx.fillRect(x, fy + 2, Math.max(3, xOf(f.to) - x), FIND_H - 4);
    });
    ctx.restore();
    ctx.fillStyle = "#616161";
    ctx.fillText("faults", 6, AXIS_H + FAULT_H / 2);
    ctx.fillText("findings (" + D.findings.length + ")", 6, fy + FIND_H / 2);
    ctx.fillStyle = "#bdbdbd"; ctx.fillRect(0, TOP - 1, W, 1);
  }
  function faultLabel(f) {
    let s = f.name + (f.target ? " " + f.target : "");
    if (f.procs && f.procs.length) s += " (p" + f.procs.join(", p") + ")";
    return s;
  }
  function drawLabels(l0, l1) {
    ctx.save(); ctx.beginPath(); ctx.rect(0, TOP, X0, viewH); ctx.clip();
    ctx.fillStyle = "#fff"; ctx.fillRect(0, TOP, X0, viewH);
    ctx.translate(0, TOP - scrollY); ctx.textBaseline = "middle";
    ctx.font = "600 12px system-ui,sans-serif"; ctx.fillStyle = "#212121";
    D.locks.forEach((name, i) => { if (groupY[i] !== undefined) ctx.fillText(name, 6, groupY[i] + GROUP_H / 2, X0 - 10); });
    ctx.font = "11px system-ui,sans-serif"; ctx.fillStyle = "#616161";
    for (let l = l0; l < l1; l++) ctx.fillText(laneLabel(l), 16, rowY[l] + LANE_H / 2, X0 - 20);
    ctx.restore();
  }
  function laneLabel(l) {
    const ps = D.lanes[l].procs, shown = ps.slice(0, 4).map(p => "p" + p).join(" ");
    return ps.length > 4 ? shown + " +" + (ps.length - 4) : shown;
  }
  function drawScrollbar() {
    if (contentH <= viewH) return;
    const x = W - SCROLL_W, th = Math.max(20, viewH * viewH / contentH), ty = TOP + (viewH - th) * scrollY / (contentH - viewH);
    ctx.fillStyle = "#f5f5f5"; ctx.fillRect(x, TOP, SCROLL_W, viewH);
    ctx.fillStyle = "#9e9e9e"; ctx.fillRect(x + 2, ty, SCROLL_W - 4, th);
  }

  // The overview: the whole run's op density, faults and findings, and the part in view.
  let overviewBins = null;
  function binOverview() {
    const n = Math.max(1, Math.floor(W)), ok = new Float32Array(n), bad = new Float32Array(n), k = n / (span1 - span0);
    for (let b = 0; b < ops.length; b += OS) {
      const i = Math.min(n - 1, Math.max(0, Math.floor((ops[b + O.call] - span0) * k)));
      if (ops[b + O.outcome] === 0) ok[i]++; else bad[i]++;
    }
    let m = 1;
    for (let i = 0; i < n; i++) m = Math.max(m, ok[i] + bad[i]);
    return { n, ok, bad, m };
  }
  function drawOverview() {
    const B = overviewBins || (overviewBins = binOverview()), k = W / (span1 - span0), h = OVER_H - 4;
    octx.clearRect(0, 0, W, OVER_H);
    octx.fillStyle = "#f5f5f5"; octx.fillRect(0, 0, W, OVER_H);
    octx.fillStyle = "rgba(229,57,53,0.3)";
    for (const f of D.faults) octx.fillRect((f.start - span0) * k, 0, Math.max(1, (f.end - f.start) * k), OVER_H);
    const lm = Math.log1p(B.m);
    for (let i = 0; i < B.n; i++) {
      const a = h * Math.log1p(B.ok[i] + B.bad[i]) / lm, c = a * B.bad[i] / Math.max(1, B.ok[i] + B.bad[i]);
      octx.fillStyle = "#90a4ae"; octx.fillRect(i, OVER_H - a, 1, a - c);
      octx.fillStyle = FAIL; octx.fillRect(i, OVER_H - c, 1, c);
    }
    for (const f of D.findings) if (f.from >= 0) { octx.fillStyle = findingColour(f); octx.fillRect((f.from - span0) * k, 0, 2, 8); }
    const x = (t0 - span0) * k;
    octx.strokeStyle = "#1565c0"; octx.lineWidth = 2; octx.fillStyle = "rgba(21,101,192,0.12)";
    octx.fillRect(x, 1, Math.max(3, (t1 - t0) * k), OVER_H - 2); octx.strokeRect(x, 1, Math.max(3, (t1 - t0) * k), OVER_H - 2);
  }

  // What is under the pointer: a finding, an op, a hold or a fault window.
  function hit(x, y) {
    if (x < X0 || x > X0 + plotW) return null;
    const t = tOf(x), tol = 3 * (t1 - t0) / plotW;
    if (y < AXIS_H) return null;
    if (y < AXIS_H + nFaultRows * FAULT_H) {
      const r = Math.floor((y - AXIS_H) / FAULT_H);
      const i = D.faults.findIndex((f, j) => faultRow[j] === r && f.start - tol <= t && f.end + tol >= t);
      return i < 0 ? null : { type: "fault", i };
    }
    if (y < TOP) return findingAt(t, tol, -1);
    const cy = y - TOP + scrollY;
    const lock = groupY.findIndex((g, i) => g <= cy && cy < groupEnd[i]);
    const f = findingAt(t, tol, lock);
    if (f) return f;
    let l = -1;
    for (let j = 0; j < nLanes; j++) if (rowY[j] <= cy && cy < rowY[j] + LANE_H) l = j;
    if (l < 0) return null;
    const op = opAt(l, t, tol);
    if (op >= 0) return { type: "op", i: op };
    const hd = holdAt(l, t);
    if (hd >= 0) return { type: "hold", i: hd };
    const fi = D.faults.findIndex(f => f.start <= t && t <= f.end && (f.all || (f.bands || []).some(b => b[0] === l && b[1] <= t && t <= b[2])));
    return fi < 0 ? null : { type: "fault", i: fi };
  }
  function findingAt(t, tol, lock) {
    const i = D.findings.findIndex(f => f.from >= 0 && (lock < 0 || f.lock === lock || f.lock < 0) && f.from - tol <= t && t <= f.to + tol);
    return i < 0 ? null : { type: "finding", i };
  }
  // opAt is the shortest op of lane l within tol of t (-1: none).
  function opAt(l, t, tol) {
    const end = opIx.start[l + 1];
    let best = -1, bestDur = Infinity;
    for (let i = firstEnding(opIx.endMax, opIx.start[l], end, t - tol); i < end; i++) {
      const b = i * OS, c = ops[b + O.call], d = ops[b + O.dur];
      if (c > t + tol) break;
      if (c + d >= t - tol && d < bestDur) { best = i; bestDur = d; }
    }
    return best;
  }
  function holdAt(l, t) {
    const end = holdIx.start[l + 1];
    for (let i = firstEnding(holdIx.endMax, holdIx.start[l], end, t); i < end; i++) {
      const b = i * HS;
      if (holds[b + 1] > t) break;
      if (holds[b + 2] >= t) return i;
    }
    return -1;
  }
  function describe(h) {
    if (h.type === "op") {
      const b = h.i * OS, lock = D.locks[D.lanes[ops[b + O.lane]].lock], c = ops[b + O.call], d = ops[b + O.dur];
      const fl = ops[b + O.flags], out = ["ok", "fail", "info"][ops[b + O.outcome]];
      let s = "p" + ops[b + O.proc] + " " + D.kinds[ops[b + O.kind]] + " " + lock + " → " + out;
      s += "\n[" + fmtT(c) + ", " + fmtT(c + d) + "] " + fmtD(d);
      if (ops[b + O.token]) s += "\ntoken " + ops[b + O.token];
      const notes = [[1, "blocking"], [2, "cancelled by its process"], [4, "overran its lease on purpose"], [8, "a multilock op (other members moved with it)"]];
      for (const [bit, text] of notes) if (fl & bit) s += "\n" + text;
      if (ops[b + O.err]) s += "\nerror: " + D.errs[ops[b + O.err]];
      return s;
    }
    if (h.type === "hold") {
      const b = h.i * HS, ln = D.lanes[holds[b]];
      const how = ["released", "held to the end of the history", "ended without a release answered ok (expired, refused, retired or abandoned)"][holds[b + 3]];
      return "hold of " + D.locks[ln.lock] + " by " + laneLabel(holds[b]) + "\n[" + fmtT(holds[b + 1]) + ", " + fmtT(holds[b + 2]) + "] " + fmtD(holds[b + 2] - holds[b + 1]) + "\n" + how;
    }
    if (h.type === "fault") {
      const f = D.faults[h.i];
      return "fault " + faultLabel(f) + "\n" + (f.all ? "every process" : "processes p" + f.procs.join(", p")) +
        "\n[" + fmtT(f.start) + ", " + (f.open ? "never healed]" : fmtT(f.end) + "] " + fmtD(f.end - f.start));
    }
    const f = D.findings[h.i];
    let s = f.checker + " (" + f.verdict + (f.class ? ", " + f.class : "") + (f.beyond ? ", beyond the fault" : "") + ")";
    s += (f.lock >= 0 ? " on " + D.locks[f.lock] : "") + ": " + f.summary;
    if (f.from >= 0) s += "\n[" + fmtT(f.from) + ", " + fmtT(f.to) + "], " + (f.ops || []).length + " ops outlined";
    if (f.cause) s += "\n" + f.cause;
    if (f.allowed) s += "\nallowed by " + f.allowed;
    return s;
  }
  function showTip(h, x, y) {
    if (!h) { tip.hidden = true; return; }
    tip.textContent = describe(h);
    tip.hidden = false;
    tip.className = pinned === h ? "pinned" : "";
    const left = Math.min(x + 14, W - tip.offsetWidth - 4), top = y + 16 + tip.offsetHeight > H ? y - tip.offsetHeight - 8 : y + 16;
    tip.style.left = Math.max(0, left) + "px"; tip.style.top = Math.max(0, top) + "px";
  }
  function same(a, b) { return a && b && a.type === b.type && a.i === b.i; }

  // Pointer, wheel and keys.
  let drag = null;
  canvas.addEventListener("mousedown", e => {
    const sb = e.offsetX >= W - SCROLL_W && e.offsetY >= TOP;
    drag = { x: e.clientX, y: e.clientY, t0, t1, scrollY, moved: false, sb };
    canvas.style.cursor = "grabbing";
  });
  window.addEventListener("mousemove", e => {
    if (!drag) return;
    const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
    drag.moved = drag.moved || Math.abs(dx) + Math.abs(dy) > 3;
    if (drag.sb) { setScroll(drag.scrollY + dy * contentH / viewH); return; }
    const dt = dx * (drag.t1 - drag.t0) / plotW;
    setRange(drag.t0 - dt, drag.t1 - dt); setScroll(drag.scrollY - dy);
  });
  window.addEventListener("mouseup", e => {
    if (!drag) return;
    const click = !drag.moved && !drag.sb;
    drag = null; canvas.style.cursor = "grab";
    if (!click || e.target !== canvas) return;
    const h = hit(e.offsetX, e.offsetY);
    pinned = h && !same(h, pinned) ? h : null;
    showTip(pinned, e.offsetX, e.offsetY); schedule();
  });
  canvas.addEventListener("mousemove", e => {
    if (drag || pinned) return;
    const h = hit(e.offsetX, e.offsetY);
    if (!same(h, hovered)) {
      const redraw = (hovered && hovered.type === "finding") || (h && h.type === "finding");
      hovered = h;
      if (redraw) schedule();
    }
    showTip(h, e.offsetX, e.offsetY);
  });
  canvas.addEventListener("mouseleave", () => { if (!pinned) { hovered = null; tip.hidden = true; schedule(); } });
  canvas.addEventListener("wheel", e => {
    e.preventDefault();
    if (e.shiftKey) setScroll(scrollY + (e.deltaY || e.deltaX));
    else if (Math.abs(e.deltaX) > Math.abs(e.deltaY)) { const dt = e.deltaX * (t1 - t0) / plotW; setRange(t0 + dt, t1 + dt); }
    else zoom(Math.exp(e.deltaY * 0.0015), e.offsetX >= X0 ? tOf(e.offsetX) : (t0 + t1) / 2);
  }, { passive: false });
  let overDrag = false;
  function centreAt(x) { const t = span0 + x * (span1 - span0) / W, w = t1 - t0; setRange(t - w / 2, t + w / 2); }
  over.addEventListener("mousedown", e => { overDrag = true; centreAt(e.offsetX); });
  window.addEventListener("mousemove", e => { if (overDrag) centreAt(e.clientX - over.getBoundingClientRect().left); });
  window.addEventListener("mouseup", () => { overDrag = false; });
  const btn = (id, f) => document.getElementById(id).addEventListener("click", f);
  btn("zoom-in", () => zoom(0.5, (t0 + t1) / 2));
  btn("zoom-out", () => zoom(2, (t0 + t1) / 2));
  btn("fit", () => setRange(span0, span1));
  btn("next", () => step(1));
  btn("prev", () => step(-1));
  document.addEventListener("keydown", e => {
    if (e.target.tagName === "INPUT") return;
    const pan = (t1 - t0) / 5, keys = {
      "+": () => zoom(0.5, (t0 + t1) / 2), "=": () => zoom(0.5, (t0 + t1) / 2), "-": () => zoom(2, (t0 + t1) / 2),
      "0": () => setRange(span0, span1), ArrowLeft: () => setRange(t0 - pan, t1 - pan), ArrowRight: () => setRange(t0 + pan, t1 + pan),
      ArrowUp: () => setScroll(scrollY - LANE_H * 3), ArrowDown: () => setScroll(scrollY + LANE_H * 3),
      n: () => step(1), p: () => step(-1), Escape: () => { pinned = null; tip.hidden = true; schedule(); },
    };
    if (keys[e.key]) { keys[e.key](); e.preventDefault(); }
  });
  window.addEventListener("resize", resize);

  // Findings: the list in the header, and moving the view to one.
  function step(d) {
    if (!findingsByTime.length) return;
    current = (current + d + findingsByTime.length) % findingsByTime.length;
    focusFinding(findingsByTime[current]);
  }
  function focusFinding(i) {
    const f = D.findings[i];
    pinned = { type: "finding", i };
    if (f.from >= 0) {
      const w = Math.max(f.to - f.from, 1e5);
      setRange(f.from - 2 * w, f.to + 2 * w);
      if (f.lock >= 0) setScroll(groupY[f.lock] - LANE_H);
    }
    draw();
    const x = f.from >= 0 ? Math.min(W - 300, Math.max(X0, xOf(f.from))) : X0;
    showTip(pinned, x, TOP);
  }
  function listFindings() {
    const box = document.getElementById("findings"), ol = box.querySelector("ol"), n = D.findings.length;
    const bad = D.findings.filter(f => f.verdict === "invalid").length;
    box.querySelector("summary").textContent = n === 0 ? "No findings: no checker gave an example." :
      n + (n === 1 ? " finding" : " findings") + " (" + bad + " of checkers that say invalid), marked in place: click one to go there";
    D.findings.forEach((f, i) => {
      const li = document.createElement("li"), c = document.createElement("span");
      c.className = "c"; c.textContent = f.checker + (f.verdict === "invalid" ? "" : " (" + f.verdict + ")") + " · ";
      li.append(c, (f.lock >= 0 ? D.locks[f.lock] + ": " : "") + f.summary + (f.from >= 0 ? " at " + fmtT(f.from) : ""));
      li.addEventListener("click", () => focusFinding(i));
      ol.append(li);
    });
    if (bad > 0) box.open = true;
  }

  function fmtT(ns) { return (ns / 1e9).toFixed(6) + " s"; }
  function fmtD(ns) {
    const a = Math.abs(ns);
    if (a < 1e3) return ns.toFixed(0) + " ns";
    if (a < 1e6) return (ns / 1e3).toPrecision(3) + " µs";
    if (a < 1e9) return (ns / 1e6).toPrecision(3) + " ms";
    return (ns / 1e9).toPrecision(4) + " s";
  }

  // #view=FROM,TO (seconds) opens the page on that stretch.
  function fromHash() {
    const m = /view=([-\d.e]+),([-\d.e]+)/.exec(location.hash);
    if (m) setRange(parseFloat(m[1]) * 1e9, parseFloat(m[2]) * 1e9);
  }
  window.addEventListener("hashchange", fromHash);

  listFindings();
  fromHash();
  resize();
  // The first drawing is on screen after the next frame: then the page takes its title
  // (with #timing, followed by the time from navigation start, for make timeline-browser).
  requestAnimationFrame(() => setTimeout(() => {
    const ms = Math.round(performance.now());
    document.documentElement.dataset.drawnMs = ms;
    document.title = document.body.dataset.title + (/timing/.test(location.hash) ? " · drawn in " + ms + " ms" : "");
  }, 0));
})();
