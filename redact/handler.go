package redact

import (
	"context"
	"fmt"
	"log/slog"
)

// NewHandler wraps h so that no secret value reaches it: the message, every
// string attribute (also inside groups and attributes added with With), and
// every other attribute whose printed form (an error's text, a Stringer, a
// struct) contains a secret are redacted. Attributes without a secret pass
// through untouched. With no secrets of at least MinSecretLen bytes, h is
// returned as is.
func NewHandler(h slog.Handler, secrets []string) slog.Handler {
	r := New(secrets)
	if r.Empty() {
		return h
	}
	return &handler{next: h, r: r}
}

type handler struct {
	next slog.Handler
	r    *Redactor
}

// Enabled implements slog.Handler.
func (h *handler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.next.Enabled(ctx, level)
}

// Handle implements slog.Handler.
func (h *handler) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, h.r.String(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.next.Handle(ctx, out)
}

// WithAttrs implements slog.Handler.
func (h *handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	clean := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		clean[i] = h.attr(a)
	}
	return &handler{next: h.next.WithAttrs(clean), r: h.r}
}

// WithGroup implements slog.Handler.
func (h *handler) WithGroup(name string) slog.Handler {
	return &handler{next: h.next.WithGroup(h.r.String(name)), r: h.r}
}

// attr returns a with secrets removed from its key and value.
func (h *handler) attr(a slog.Attr) slog.Attr {
	a.Key = h.r.String(a.Key)
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		a.Value = slog.StringValue(h.r.String(v.String()))
	case slog.KindGroup:
		group := v.Group()
		clean := make([]slog.Attr, len(group))
		for i, g := range group {
			clean[i] = h.attr(g)
		}
		a.Value = slog.GroupValue(clean...)
	case slog.KindAny:
		// fmt prints an error's Error() and a Stringer's String(), and
		// recovers if they panic.
		text := fmt.Sprint(v.Any())
		if h.r.Contains(text) {
			a.Value = slog.StringValue(h.r.String(text))
		} else {
			a.Value = v
		}
	default:
		a.Value = v
	}
	return a
}
