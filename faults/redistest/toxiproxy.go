package redistest

import (
	"net/http/httptest"
	"testing"

	"github.com/Shopify/toxiproxy/v2"
	"github.com/gorilla/mux"
	"github.com/rs/zerolog"
)

// ToxiproxyAPI runs a real toxiproxy HTTP API in this process on
// 127.0.0.1:0 and returns its endpoint, for tests of the remote-toxiproxy
// path. toxiproxy v2.5.0's ApiServer.Listen has no shutdown and exits the
// process on a bind error, so the library's own handlers are mounted on an
// httptest server instead (the routes Listen registers); t.Cleanup stops
// the proxies and the server.
func ToxiproxyAPI(t testing.TB) string {
	t.Helper()
	api := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(nil), zerolog.Nop())
	r := mux.NewRouter()
	r.HandleFunc("/reset", api.ResetState).Methods("POST")
	r.HandleFunc("/proxies", api.ProxyIndex).Methods("GET")
	r.HandleFunc("/proxies", api.ProxyCreate).Methods("POST")
	r.HandleFunc("/proxies/{proxy}", api.ProxyShow).Methods("GET")
	r.HandleFunc("/proxies/{proxy}", api.ProxyUpdate).Methods("POST")
	r.HandleFunc("/proxies/{proxy}", api.ProxyDelete).Methods("DELETE")
	r.HandleFunc("/proxies/{proxy}/toxics", api.ToxicIndex).Methods("GET")
	r.HandleFunc("/proxies/{proxy}/toxics", api.ToxicCreate).Methods("POST")
	r.HandleFunc("/proxies/{proxy}/toxics/{toxic}", api.ToxicShow).Methods("GET")
	r.HandleFunc("/proxies/{proxy}/toxics/{toxic}", api.ToxicUpdate).Methods("POST")
	r.HandleFunc("/proxies/{proxy}/toxics/{toxic}", api.ToxicDelete).Methods("DELETE")
	srv := httptest.NewServer(r)
	t.Cleanup(func() {
		srv.Close()
		_ = api.Collection.Clear()
	})
	return srv.URL
}
