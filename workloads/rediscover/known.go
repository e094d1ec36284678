package rediscover

import (
	"slices"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// Has reports whether release version of the bug's subject is known to
// have it, or may: from Since (or, unknown, any older release) up to
// Buggy, and on past it for an open bug.
func (b Bug) Has(version string) bool {
	v, err := subject.ParseRelease(version)
	if err != nil {
		return false
	}
	if b.Since != "" {
		if since, err := subject.ParseRelease(b.Since); err != nil || v.Compare(since) < 0 {
			return false
		}
	}
	if b.Open() {
		return true
	}
	buggy, err := subject.ParseRelease(b.Buggy)
	return err == nil && v.Compare(buggy) <= 0
}

// knownAt returns the other catalog bugs (of all) that b's release on
// side has, or may have, and a hunt may meet there. On the fixed side:
// those b's KnownInFixed names, and those of the same subject whose
// stated range (Since ... Buggy, or on for an open bug) spans the
// release; nothing else absorbs a flag there. On the buggy side, where
// they only let the hunt go on: the bugs of the same subject that may
// span it (Has; without a Since any older release may), and those
// KnownInFixed names unless their Since shows they came later (a bug the
// fix left in was most likely there before it).
func knownAt(all []Bug, b Bug, side Side) []Bug {
	version := b.Buggy
	if side == SideFixed {
		version = b.Fixed
	}
	named := map[string]bool{}
	for _, id := range b.KnownInFixed {
		named[id] = true
	}
	var out []Bug
	for _, o := range all {
		switch {
		case o.ID == b.ID:
		case o.Subject == b.Subject && o.Has(version) && (side == SideBuggy || o.Since != ""):
			out = append(out, o)
		case named[o.ID] && (side == SideFixed || o.Since == "" || o.Has(version)):
			out = append(out, o)
		}
	}
	return out
}

// knownMatch returns the ID of the first of known whose signature one of
// sigs matches ("" when none does).
func knownMatch(known []Bug, sigs []model.Signature) string {
	for _, k := range known {
		if k.Matches(sigs...) {
			return k.ID
		}
	}
	return ""
}

// sharedAt returns the other catalog bugs that b's release on side is
// known to have and whose signatures may explain a find of b's there as
// well: those the fix left in (knownAt's fixed side), and, on the buggy
// side, those of them that were already there (Has). A find whose every
// signature with b's shape one of them matches too is not b's on either
// side (claims): it neither shows b on the buggy release nor its return
// on the fixed one. Other bugs the buggy release alone has do not count:
// the fixed release cannot show them, so they cannot stand in for b there.
func sharedAt(all []Bug, b Bug, side Side) []Bug {
	kept := knownAt(all, b, SideFixed)
	if side == SideFixed {
		return kept
	}
	var out []Bug
	for _, o := range kept {
		if o.Has(b.Buggy) {
			out = append(out, o)
		}
	}
	return out
}

// claims reports whether sigs show b beyond doubt: one of them has b's
// signature and no bug of shared (sharedAt) has it too. A signature
// "during:" faults (one its checker did not judge against them) claims
// nothing when the find has others: the fault-allowance checker judged
// that anomaly, allowed or beyond the faults, and its verdict is among
// the others.
func claims(b Bug, shared []Bug, sigs []model.Signature) bool {
	judged := slices.ContainsFunc(sigs, func(s model.Signature) bool { return !s.During() })
	for _, s := range sigs {
		if (!judged || !s.During()) && b.Matches(s) && knownMatch(shared, []model.Signature{s}) == "" {
			return true
		}
	}
	return false
}
