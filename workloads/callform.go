package workloads

import (
	"context"

	"github.com/lockcheck/lockcheck/impl"
)

// withCallForm returns ctx carrying a call form drawn from the process's
// seeded draws when the plan varies the library's call forms
// (Plan.CallForms), and the form, whose Used the op then records; else ctx
// and nil, and no draw is made.
func (w *worker) withCallForm(ctx context.Context) (context.Context, *impl.CallForm) {
	if !w.r.plan.CallForms {
		return ctx, nil
	}
	f := &impl.CallForm{Draw: w.p.rng.Uint32()}
	return impl.WithCallForm(ctx, f), f
}

// formUsed is the form a call made with f made ("": the default, or f nil).
func formUsed(f *impl.CallForm) string {
	if f == nil {
		return ""
	}
	return f.Used
}
