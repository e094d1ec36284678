package impl

import "context"

// CallForm asks a handle to make one call in one of the equivalent forms
// its library offers, and tells which form it made. Applications call one
// operation many ways: Redisson's lock(10, SECONDS) and lockAsync(10000,
// MILLISECONDS), tryLock() and tryLock(-1, lease, unit), python-redis-lock's
// acquire(blocking=True) with and without a timeout. Each form is a path
// of its own through the library, and real bugs live in one form only (a
// lease passed on in the wrong unit, a wait of -1 read as a lease).
//
// Draw picks the form: a handle whose library offers several forms that fit
// the call's arguments makes form Draw mod their number, in an order the
// handle fixes (its default form first); Draw 0 asks for the default.
// Used is set by the handle to the form it made, in the library's own
// terms; it stays "" for a handle with one form, which ignores Draw. The
// same Draw with the same arguments makes the same form, so a run replays.
type CallForm struct {
	Draw uint32
	Used string
}

type callFormKey struct{}

// WithCallForm returns ctx carrying f: the call made with it draws its form
// from f.Draw and reports it in f.Used. f is written only by that call.
func WithCallForm(ctx context.Context, f *CallForm) context.Context {
	return context.WithValue(ctx, callFormKey{}, f)
}

// CallFormOf returns the CallForm ctx carries, or nil.
func CallFormOf(ctx context.Context) *CallForm {
	f, _ := ctx.Value(callFormKey{}).(*CallForm)
	return f
}
