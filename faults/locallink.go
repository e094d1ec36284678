package faults

import "sync"

// LocalLink is a Link this process runs (a proxy on 127.0.0.1), closed by
// its owner.
type LocalLink interface {
	Link
	Close() error
}

var (
	localLinkMu    sync.Mutex
	startLocalLink func(name, upstream string) (LocalLink, error)
)

// RegisterLocalLink makes StartLink start links with start (toxiproxy.Register
// registers toxiproxy's in-process proxy; the CLI calls it when it assembles
// itself). The last registration wins.
func RegisterLocalLink(start func(name, upstream string) (LocalLink, error)) {
	localLinkMu.Lock()
	defer localLinkMu.Unlock()
	startLocalLink = start
}

// StartLink starts the client link named name in front of upstream: the
// registered kind (RegisterLocalLink), or this package's own Proxy when
// none is registered.
func StartLink(name, upstream string) (LocalLink, error) {
	localLinkMu.Lock()
	start := startLocalLink
	localLinkMu.Unlock()
	if start != nil {
		return start(name, upstream)
	}
	return StartProxy(name, upstream)
}
