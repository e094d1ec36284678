//go:build browser

package results

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/results/internal/synth"
)

// selfTest is appended to a timeline page: once it is drawn it zooms with
// the wheel, drags, fits, hovers an op, goes to a finding and pins it, and
// says what failed in the page's title ("selftest ok" when nothing did).
const selfTest = `<script>
window.addEventListener("error", e => { document.title = "selftest error: " + e.message; });
(async function () {
  const wait = ms => new Promise(r => setTimeout(r, ms));
  while (document.title.startsWith("drawing")) await wait(20);
  const c = document.getElementById("timeline"), range = document.getElementById("range"), tip = document.getElementById("tip");
  const box = c.getBoundingClientRect(), bad = [];
  const span = () => parseFloat(range.textContent.replace(/.*\(([\d.]+) (\S+)\).*/, (m, n, u) => n * ({s: 1e9, ms: 1e6, "µs": 1e3, ns: 1}[u])));
  const mouse = (type, x, y, o) => c.dispatchEvent(new MouseEvent(type, Object.assign({clientX: box.left + x, clientY: box.top + y, bubbles: true}, o)));
  const full = span();
  c.dispatchEvent(new WheelEvent("wheel", {deltaY: -1000, clientX: box.left + 700, clientY: box.top + 100, bubbles: true, cancelable: true}));
  await wait(100);
  if (!(span() < full / 2)) bad.push("wheel did not zoom in: " + range.textContent);
  const zoomed = range.textContent;
  mouse("mousedown", 700, 100); window.dispatchEvent(new MouseEvent("mousemove", {clientX: box.left + 500, clientY: box.top + 100}));
  window.dispatchEvent(new MouseEvent("mouseup", {clientX: box.left + 500, clientY: box.top + 100})); await wait(100);
  if (range.textContent === zoomed) bad.push("drag did not move the view");
  document.getElementById("fit").click(); await wait(100);
  if (Math.abs(span() - full) > full / 100) bad.push("fit did not show the whole run: " + range.textContent);
  let hovered = false;
  for (let x = 200; x < 1300 && !hovered; x += 3) { mouse("mousemove", x, LANE_Y); hovered = !tip.hidden && /^p\d+ /.test(tip.textContent); }
  if (!hovered) bad.push("no op under the pointer on the first lane");
  document.querySelector("#findings li").click(); await wait(100);
  if (tip.hidden || tip.className !== "pinned" || !tip.textContent.includes("two holders")) bad.push("a finding of the list is not pinned: " + tip.textContent);
  if (!(span() < full / 100)) bad.push("going to a finding did not zoom to it: " + range.textContent);
  document.title = bad.length ? "selftest failed: " + bad.join("; ") : "selftest ok";
})();
</script>`

// TestTimelineInteractsInBrowser runs selfTest on the timeline of a
// synthetic run in headless Chromium: wheel, drag, fit, hover, the
// findings list; a script error fails it too.
func TestTimelineInteractsInBrowser(t *testing.T) {
	bin := chromium(t)
	h := synth.Locks(1, 10*time.Second, 3)
	n := len(h.Ops)
	rep := model.Report{Verdict: model.Invalid, Results: []model.Result{{Checker: model.CheckMutualExclusion, Verdict: model.Invalid,
		Examples: []model.Example{{Lock: "L1", Summary: "two holders", Ops: h.Ops[n/2 : n/2+2]}}}}}
	dir := t.TempDir()
	path := filepath.Join(dir, HTMLFile)
	writeTimelineTo(t, path, Timeline{Subject: "synthetic", History: h, Report: rep})
	page, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The first lane's ops: below the axis, one row of faults, the findings row and the lock's row.
	script := strings.ReplaceAll(selfTest, "LANE_Y", "(20 + 13 + 14 + 17 + 10)")
	page = []byte(strings.Replace(string(page), "</body>", script+"</body>", 1))
	if err := os.WriteFile(path, page, 0o644); err != nil {
		t.Fatal(err)
	}
	title, err := startBrowser(t, bin).titled(path, "", func(title string) bool { return strings.HasPrefix(title, "selftest") })
	if err != nil {
		t.Fatal(err)
	}
	if title != "selftest ok" {
		t.Fatalf("the page's self test: %s", title)
	}
}
