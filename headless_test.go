package main

import "testing"

func TestTypeFirstKeepsTypeFirstAndDoesNotEscapeHTML(t *testing.T) {
	got := string(typeFirst(map[string]any{"text": "a<b && c>d", "type": "text"}))
	if want := `{"type":"text","text":"a<b && c>d"}`; got != want {
		t.Errorf("typeFirst = %s, want %s", got, want)
	}
	if got := string(typeFirst(map[string]any{"type": "done"})); got != `{"type":"done"}` {
		t.Errorf("typeFirst with only a type = %s", got)
	}
}
