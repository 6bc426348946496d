package protocol

import (
	"html"
	"strings"
)

// A lenient reader for the XML models write: unescaped "<" and "&" in text,
// unescaped or backslash-escaped quotes in attribute values, missing closing
// tags on parameter elements. encoding/xml rejects all of these.

// element is one parsed XML element.
type element struct {
	name    string
	attrs   map[string]string
	content string // raw text between the opening and closing tags
	self    bool   // written <name … />
	// unclosed marks an element whose closing tag is missing: its content
	// is unknown (it is never guessed, so a value is not silently emptied).
	unclosed bool
}

func (e element) attr(name string) string { return e.attrs[name] }

func isNameStart(c byte) bool {
	return c == '_' || c == ':' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isNameByte(c byte) bool {
	return isNameStart(c) || c == '-' || c == '.' || c >= '0' && c <= '9'
}

// scanOpenTag reads the opening tag that starts at s[i] ('<') and returns the
// element (without content) and the offset just past its '>'.
func scanOpenTag(s string, i int) (element, int, bool) {
	if i+1 >= len(s) || s[i] != '<' || !isNameStart(s[i+1]) {
		return element{}, 0, false
	}
	j := i + 1
	for j < len(s) && isNameByte(s[j]) {
		j++
	}
	el := element{name: s[i+1 : j]}
	for {
		for j < len(s) && isSpace(s[j]) {
			j++
		}
		if j >= len(s) {
			return element{}, 0, false
		}
		switch {
		case s[j] == '>':
			return el, j + 1, true
		case s[j] == '/' && j+1 < len(s) && s[j+1] == '>':
			el.self = true
			return el, j + 2, true
		case !isNameStart(s[j]):
			return element{}, 0, false
		}
		k := j
		for k < len(s) && isNameByte(s[k]) {
			k++
		}
		key := s[j:k]
		for k < len(s) && isSpace(s[k]) {
			k++
		}
		val := ""
		if k < len(s) && s[k] == '=' {
			k++
			for k < len(s) && isSpace(s[k]) {
				k++
			}
			if k >= len(s) {
				return element{}, 0, false
			}
			if q := s[k]; q == '"' || q == '\'' {
				end := attrEnd(s, k+1, q)
				if end < 0 {
					return element{}, 0, false
				}
				val = decodeAttr(s[k+1:end], q)
				k = end + 1
				if k < len(s) && s[k] == q {
					k++ // a stray doubled quote
				}
			} else {
				start := k
				for k < len(s) && !isSpace(s[k]) && s[k] != '>' && !(s[k] == '/' && k+1 < len(s) && s[k+1] == '>') {
					k++
				}
				val = unescape(s[start:k])
			}
		}
		if el.attrs == nil {
			el.attrs = make(map[string]string, 2)
		}
		if _, dup := el.attrs[key]; !dup {
			el.attrs[key] = val
		}
		j = k
	}
}

// attrEnd finds the quote that closes an attribute value starting at s[from].
// A quote counts only where the tag can go on after it (space and another
// attribute, "/>" or ">"), so quotes a model forgot to escape, such as JSON
// text in value="{"a": 1}", stay in the value.
func attrEnd(s string, from int, q byte) int {
	first := -1
	for k := from; k < len(s); k++ {
		if s[k] != q {
			continue
		}
		if first < 0 {
			first = k
		}
		if k+1 < len(s) && s[k+1] == q && attrEndAt(s, k+2) {
			return k // a doubled closing quote: value="x"" />
		}
		if attrEndAt(s, k+1) {
			return k
		}
	}
	return first
}

// attrEndAt reports whether the opening tag can go on at s[j] after an
// attribute value: space and another attribute, "/>", ">" or the end.
func attrEndAt(s string, j int) bool {
	k := j
	for j < len(s) && isSpace(s[j]) {
		j++
	}
	if j == len(s) || s[j] == '>' || s[j] == '/' && j+1 < len(s) && s[j+1] == '>' {
		return true
	}
	if j == k || !isNameStart(s[j]) {
		return false
	}
	for j < len(s) && isNameByte(s[j]) {
		j++
	}
	for j < len(s) && isSpace(s[j]) {
		j++
	}
	return j < len(s) && s[j] == '='
}

// decodeAttr decodes entities and backslash-escaped quotes in an attribute value.
func decodeAttr(v string, q byte) string {
	v = unescape(v)
	if strings.IndexByte(v, '\\') >= 0 {
		v = strings.ReplaceAll(v, `\`+string(q), string(q))
	}
	return v
}

// unescape decodes XML and HTML entities (&quot; &amp; &lt; &#233; &#x4e2d;);
// a lone "&" stays as it is.
func unescape(s string) string {
	if strings.IndexByte(s, '&') < 0 {
		return s
	}
	return html.UnescapeString(s)
}

// parseElements reads the elements in s, skipping comments and processing
// instructions. hasText reports text outside elements (other than
// whitespace), which means s is a text value rather than nested elements.
// An element without a closing tag is kept with unclosed set.
func parseElements(s string) (kids []element, hasText bool) {
	i := 0
	for i < len(s) {
		lt := strings.IndexByte(s[i:], '<')
		if lt < 0 {
			hasText = hasText || strings.TrimSpace(s[i:]) != ""
			break
		}
		hasText = hasText || strings.TrimSpace(s[i:i+lt]) != ""
		j := i + lt
		if skip := skipSpecial(s, j); skip > 0 {
			if strings.HasPrefix(s[j:], "<![CDATA[") {
				hasText = true
			}
			i = skip
			continue
		}
		el, end, ok := scanOpenTag(s, j)
		if !ok {
			hasText = true
			i = j + 1
			continue
		}
		if !el.self {
			if cl, after := matchingClose(s, end, el.name); cl >= 0 {
				el.content = s[end:cl]
				end = after
			} else {
				el.unclosed = true
			}
		}
		kids = append(kids, el)
		i = end
	}
	return kids, hasText
}

// skipSpecial returns the offset after a comment, CDATA section or
// processing instruction starting at s[j], or 0.
func skipSpecial(s string, j int) int {
	for _, p := range [...][2]string{{"<!--", "-->"}, {"<![CDATA[", "]]>"}, {"<?", "?>"}} {
		if strings.HasPrefix(s[j:], p[0]) {
			if k := strings.Index(s[j+len(p[0]):], p[1]); k >= 0 {
				return j + len(p[0]) + k + len(p[1])
			}
			return len(s)
		}
	}
	return 0
}

// matchingClose finds the </name> that closes an element whose content starts
// at s[from], counting nested elements of the same name. It returns the
// offset of the closing tag and the offset after it, or -1.
func matchingClose(s string, from int, name string) (int, int) {
	depth := 1
	for i := from; i < len(s); {
		lt := strings.IndexByte(s[i:], '<')
		if lt < 0 {
			return -1, -1
		}
		j := i + lt
		if strings.HasPrefix(s[j+1:], "/"+name) {
			k := j + 2 + len(name)
			for k < len(s) && isSpace(s[k]) {
				k++
			}
			if k < len(s) && s[k] == '>' {
				depth--
				if depth == 0 {
					return j, k + 1
				}
				i = k + 1
				continue
			}
		} else if strings.HasPrefix(s[j+1:], name) {
			if el, end, ok := scanOpenTag(s, j); ok && el.name == name {
				if !el.self {
					depth++
				}
				i = end
				continue
			}
		}
		i = j + 1
	}
	return -1, -1
}
