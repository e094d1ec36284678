package faults

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParseRedisAddr(t *testing.T) {
	tests := []struct {
		in, redacted, addr string
		tls                bool
		user, pass         string
		db                 int
	}{
		{in: "127.0.0.1:6379", redacted: "redis://127.0.0.1:6379", addr: "127.0.0.1:6379"},
		{in: ":7000", redacted: "redis://127.0.0.1:7000", addr: "127.0.0.1:7000"},
		{in: "redis://localhost:6390/3", redacted: "redis://localhost:6390/3", addr: "localhost:6390", db: 3},
		{in: "redis://:s3cret@h:1", redacted: "redis://:***@h:1", addr: "h:1", pass: "s3cret"},
		{in: "rediss://app:p%40ss@cache.example:6380/2", redacted: "rediss://app:***@cache.example:6380/2",
			addr: "cache.example:6380", tls: true, user: "app", pass: "p@ss", db: 2},
		{in: "redis://app@h:1", redacted: "redis://app@h:1", addr: "h:1", user: "app"},
		{in: "redis://h:1?max_retries=5", redacted: "redis://h:1", addr: "h:1"},
	}
	for _, tt := range tests {
		a, err := ParseRedisAddr(tt.in)
		if err != nil {
			t.Errorf("ParseRedisAddr(%q): %v", tt.in, err)
			continue
		}
		o := a.Options()
		if got := a.Redacted(); got != tt.redacted {
			t.Errorf("Redacted(%q) = %q; want %q", tt.in, got, tt.redacted)
		}
		if tt.pass != "" && strings.Contains(a.String(), tt.pass) {
			t.Errorf("String of %q shows the password", tt.in)
		}
		if o.Addr != tt.addr || a.TLS() != tt.tls || o.Username != tt.user || o.Password != tt.pass || o.DB != tt.db {
			t.Errorf("%q: got addr %q tls %v user %q pass %q db %d", tt.in, o.Addr, a.TLS(), o.Username, o.Password, o.DB)
		}
		if o.MaxRetries != -1 || !o.ContextTimeoutEnabled {
			t.Errorf("%q: MaxRetries %d ContextTimeoutEnabled %v; want -1, true", tt.in, o.MaxRetries, o.ContextTimeoutEnabled)
		}
	}
}

func TestParseRedisAddrErrors(t *testing.T) {
	for _, in := range []string{"", "localhost", "h:0", "h:http", "http://h:1", "redis://:topsecret@h:notaport", "redis://h:1/x"} {
		_, err := ParseRedisAddr(in)
		if !errors.Is(err, ErrBadRedisAddr) {
			t.Errorf("ParseRedisAddr(%q) = %v; want ErrBadRedisAddr", in, err)
			continue
		}
		if strings.Contains(err.Error(), "topsecret") {
			t.Errorf("error shows the password: %v", err)
		}
	}
}

func TestConnectPing(t *testing.T) {
	if testing.Short() {
		t.Skip("needs redis-server")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := StartServer(ctx, ServerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	admin, err := ParseRedisAddr("redis://:" + s.Password() + "@" + s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	adm, err := admin.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer adm.Close()
	if err := adm.Do(ctx, "ACL", "SETUSER", "app", "on", ">topsecret", "~*", "&*", "+@all").Err(); err != nil {
		t.Fatal(err)
	}
	good, err := ParseRedisAddr("redis://app:topsecret@" + s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	rdb, err := good.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_ = rdb.Close()
	bad, _ := ParseRedisAddr("redis://app:wrongpass@" + s.Addr())
	if _, err := bad.Connect(ctx); err == nil || strings.Contains(err.Error(), "wrongpass") {
		t.Fatalf("Connect with a wrong password = %v; want an error without the password", err)
	}
}
