package model

import "strings"

// MetaParts is the header key naming, comma-separated, the implementations a
// run's processes used: process p ran parts[p % len(parts)], or, when its ops
// record their client process c (Op.Client, owners sharing client
// processes), parts[(c-1) % len(parts)]: every owner of a client process
// runs its library (PartIndex). A run of one subject names just that
// subject; a mixed fleet names each of its parts.
const MetaParts = "parts"

// Parts returns the implementations named by the header's MetaParts (nil
// when the header has none).
func (h Header) Parts() []string {
	v := h.Meta[MetaParts]
	if v == "" {
		return nil
	}
	return strings.Split(v, ",")
}

// PartOf returns the implementation that op's process ran, given parts
// from Header.Parts ("" when parts is empty or the process is negative).
func PartOf(parts []string, o Op) string {
	if len(parts) == 0 || o.Process < 0 {
		return ""
	}
	return parts[PartIndex(o, len(parts))]
}

// PartIndex is the index of the part, of n, that op's process ran (see
// MetaParts). n must be positive and the process not negative.
func PartIndex(o Op, n int) int {
	if o.Client > 0 {
		return (o.Client - 1) % n
	}
	return o.Process % n
}
