package llm

import (
	"encoding/json"
	"strings"
	"testing"
)

// deltas decodes a JSON array of tool_calls deltas.
func deltas(t *testing.T, s string) []toolCallDelta {
	t.Helper()
	var d []toolCallDelta
	if err := json.Unmarshal([]byte(s), &d); err != nil {
		t.Fatal(err)
	}
	return d
}

func TestAccumulator(t *testing.T) {
	cases := []struct {
		name string
		in   string // JSON array of deltas, fed one by one
		want string // "id name args" per call, separated by " | "; "*" matches a generated id
	}{
		{"fragments", `[{"index":0,"id":"c1","function":{"name":"calc","arguments":"{\"a\""}},{"index":0,"function":{"arguments":":1}"}}]`,
			`c1 calc {"a":1}`},
		{"no index anywhere", `[{"id":"c1","function":{"name":"calc","arguments":"{"}},{"function":{"arguments":"}"}},{"id":"c2","function":{"name":"time"}},{"function":{"arguments":"{}"}}]`,
			`c1 calc {} | c2 time {}`},
		{"no index, no ids, name starts a call", `[{"function":{"name":"calc","arguments":"{}"}},{"function":{"name":"calc","arguments":"{\"a\":2}"}}]`,
			`* calc {} | * calc {"a":2}`},
		{"no index, repeated name mid-arguments continues", `[{"function":{"name":"calc","arguments":"{\"a\":"}},{"function":{"name":"calc","arguments":"2}"}}]`,
			`* calc {"a":2}`},
		{"first index 3 then 1", `[{"index":3,"id":"b","function":{"name":"x"}},{"index":1,"id":"a","function":{"name":"y"}}]`,
			`a y {} | b x {}`},
		{"object arguments", `[{"index":0,"id":"c","function":{"name":"calc","arguments":{"a": 1, "b": [2, 3]}}}]`,
			`c calc {"a":1,"b":[2,3]}`},
		{"object replaces earlier fragments", `[{"index":0,"id":"c","function":{"name":"calc","arguments":"{\"a\":"}},{"index":0,"function":{"arguments":{"a":1}}}]`,
			`c calc {"a":1}`},
		{"repeated id without index", `[{"index":0,"id":"c","function":{"name":"calc","arguments":"{\"a\":"}},{"id":"c","function":{"arguments":"5}"}}]`,
			`c calc {"a":5}`},
		{"id arrives late", `[{"index":0,"function":{"name":"calc"}},{"index":0,"id":"late","function":{"arguments":"{}"}}]`,
			`late calc {}`},
		{"empty deltas dropped", `[{"index":0,"function":{"arguments":""}}]`, ``},
		{"null arguments", `[{"index":0,"id":"c","function":{"name":"t","arguments":null}}]`, `c t {}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var a accumulator
			for _, d := range deltas(t, tc.in) {
				a.add(d)
			}
			var got []string
			for _, c := range a.result() {
				if c.Type != "function" {
					t.Errorf("type %q", c.Type)
				}
				id := c.ID
				if strings.HasPrefix(tc.want, "*") || strings.Contains(tc.want, "| *") {
					if !strings.HasPrefix(id, "call_") || len(id) != 29 {
						t.Errorf("generated id %q", id)
					}
					id = "*"
				}
				got = append(got, id+" "+c.Function.Name+" "+c.Function.Arguments)
			}
			if g := strings.Join(got, " | "); g != tc.want {
				t.Errorf("got  %s\nwant %s", g, tc.want)
			}
		})
	}
}

func TestNewCallIDUnique(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id := newCallID()
		if seen[id] || !strings.HasPrefix(id, "call_") {
			t.Fatalf("bad or repeated id %q", id)
		}
		seen[id] = true
	}
}
