package protocol

// This file holds the judges of possible opening markers: tags, fences and
// a leading JSON object.

import "strings"

// matchOpener judges the possible tag at the start of s (s[0] == '<') and
// returns its closing tag.
func matchOpener(s string) (match, string) {
	for _, t := range tagOpeners {
		if len(s) <= len(t.open) {
			if strings.HasPrefix(t.open, s) {
				return matchMore, ""
			}
			continue
		}
		if strings.HasPrefix(s, t.open) {
			if c := s[len(t.open)]; isSpace(c) || c == '>' || c == '/' {
				return matchYes, t.close
			}
		}
	}
	return matchNo, ""
}

// tagFenceLangs are the fence languages whose content is tool markup.
var tagFenceLangs = []string{"xml", "tool_call", "tool_action", "tool_code"}

// matchTagFence judges whether s (starting with ```) opens a fence whose
// language is one of tagFenceLangs. It asks for more input until the
// language word is complete (at most a short line).
func matchTagFence(s string) match {
	rest := s[len(fence):]
	k := 0
	for k < len(rest) && (rest[k] == '_' || rest[k] >= 'a' && rest[k] <= 'z' || rest[k] >= 'A' && rest[k] <= 'Z') {
		k++
	}
	lang := strings.ToLower(rest[:k])
	for _, l := range tagFenceLangs {
		switch {
		case lang == l && k < len(rest):
			return matchYes
		case k == len(rest) && strings.HasPrefix(l, lang):
			return matchMore // the word may go on in the next chunk
		}
	}
	return matchNo
}

// matchFence judges "```json" or "```" followed by optional space and "{".
func matchFence(s string) match {
	if len(s) < len(fence) {
		if strings.HasPrefix(fence, s) {
			return matchMore
		}
		return matchNo
	}
	if !strings.HasPrefix(s, fence) {
		return matchNo
	}
	rest := s[len(fence):]
	const lang = "json"
	switch {
	case len(rest) < len(lang) && strings.HasPrefix(lang, strings.ToLower(rest)):
		return matchMore
	case len(rest) >= len(lang) && strings.EqualFold(rest[:len(lang)], lang):
		rest = rest[len(lang):]
	}
	for k := 0; k < len(rest); k++ {
		switch c := rest[k]; {
		case c == '{':
			return matchYes
		case !isSpace(c):
			return matchNo
		}
	}
	return matchMore
}

// matchLeading judges a JSON object at the start of the reply (s[0] == '{').
func (d *detector) matchLeading(s string) match {
	if d.cfg.leading == leadAny {
		return matchYes
	}
	k := 1
	for k < len(s) && isSpace(s[k]) {
		k++
	}
	if k == len(s) {
		return matchMore
	}
	if s[k] != '"' {
		return matchNo
	}
	key := s[k+1:]
	if q := strings.IndexByte(key, '"'); q >= 0 {
		key = key[:q]
		for _, want := range leadKeys {
			if key == want {
				return matchYes
			}
		}
		return matchNo
	}
	for _, want := range leadKeys {
		if strings.HasPrefix(want, key) {
			return matchMore
		}
	}
	return matchNo
}
