package model

import "strings"

// MetaParts is the header key naming, comma-separated, the implementations a
// run's processes used: process p ran parts[p % len(parts)]. A run of one
// subject names just that subject; a mixed fleet names each of its parts.
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

// PartOf returns the implementation that process ran, given parts from
// Header.Parts ("" when parts is empty or process is negative).
func PartOf(parts []string, process int) string {
	if len(parts) == 0 || process < 0 {
		return ""
	}
	return parts[process%len(parts)]
}
