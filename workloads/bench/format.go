package bench

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// count formats a rate or count with thousands separators: 12,345.
func count(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "-"
	}
	s := strconv.FormatInt(int64(math.Round(x)), 10)
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	out := make([]byte, 0, len(s)+len(s)/3)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}

// pct formats a share as a percentage with enough digits for small shares.
func pct(x float64) string {
	p := 100 * x
	switch {
	case p == 0:
		return "0%"
	case p < 1:
		return fmt.Sprintf("%.2f%%", p)
	case p < 10:
		return fmt.Sprintf("%.1f%%", p)
	default:
		return fmt.Sprintf("%.0f%%", p)
	}
}

// ms formats a duration in milliseconds (seconds from 10 s), 2-3 digits.
func ms(d time.Duration) string {
	m := float64(d) / float64(time.Millisecond)
	switch {
	case d == 0:
		return "0"
	case m < 1:
		return fmt.Sprintf("%.3f ms", m)
	case m < 10:
		return fmt.Sprintf("%.2f ms", m)
	case m < 100:
		return fmt.Sprintf("%.1f ms", m)
	case m < 10000:
		return fmt.Sprintf("%.0f ms", m)
	default:
		return fmt.Sprintf("%.1f s", m/1000)
	}
}

// ratio formats a / b as "1.23×" ("-" when b is 0).
func ratio(a, b float64) string {
	if b == 0 {
		return "-"
	}
	r := a / b
	if r >= 100 {
		return fmt.Sprintf("%.0f×", r)
	}
	return fmt.Sprintf("%.2f×", r)
}
