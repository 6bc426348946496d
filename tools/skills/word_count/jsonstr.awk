# Decodes the value of the top-level key "text" of a JSON object read on
# stdin; writes it to the file `out` and prints 1 if it ends in "\n", else 0.
# Run with LC_ALL=C so that strings are bytes and printf "%c" writes one byte.
function hexval(h,    i, c, v) {
  v = 0
  for (i = 1; i <= length(h); i++) {
    c = index("0123456789abcdef", tolower(substr(h, i, 1)))
    if (c == 0) return -1
    v = v * 16 + c - 1
  }
  return v
}
function utf8(cp) {
  if (cp < 128) return sprintf("%c", cp)
  if (cp < 2048) return sprintf("%c%c", 192 + int(cp / 64), 128 + cp % 64)
  if (cp < 65536) return sprintf("%c%c%c", 224 + int(cp / 4096), 128 + int(cp / 64) % 64, 128 + cp % 64)
  return sprintf("%c%c%c%c", 240 + int(cp / 262144), 128 + int(cp / 4096) % 64, 128 + int(cp / 64) % 64, 128 + cp % 64)
}
# readstr decodes the JSON string starting at the quote at position p of src;
# it sets the global `pos` to the position after the closing quote.
function readstr(p,    s, c, e, cp, lo) {
  s = ""
  p++
  while (p <= n) {
    c = substr(src, p, 1)
    if (c == "\"") { pos = p + 1; return s }
    if (c != "\\") { s = s c; p++; continue }
    e = substr(src, p + 1, 1)
    p += 2
    if (e == "n") s = s "\n"
    else if (e == "t") s = s "\t"
    else if (e == "r") s = s "\r"
    else if (e == "b") s = s "\b"
    else if (e == "f") s = s "\f"
    else if (e == "u") {
      cp = hexval(substr(src, p, 4)); p += 4
      if (cp >= 55296 && cp < 56320 && substr(src, p, 2) == "\\u") {
        lo = hexval(substr(src, p + 2, 4))
        if (lo >= 56320 && lo < 57344) { cp = 65536 + (cp - 55296) * 1024 + (lo - 56320); p += 6 }
      }
      if (cp > 0) s = s utf8(cp)
    } else s = s e
  }
  print "word_count: unterminated JSON string" > "/dev/stderr"
  exit 2
}
{ src = src (NR > 1 ? "\n" : "") $0 }
END {
  n = length(src); depth = 0; found = 0; want = 0
  for (i = 1; i <= n; i++) {
    c = substr(src, i, 1)
    if (c == "\"") {
      v = readstr(i)
      i = pos - 1
      if (want) { text = v; found = 1; break }
      if (depth == 1) {
        rest = substr(src, pos)
        if (v == "text" && rest ~ /^[ \t\r\n]*:[ \t\r\n]*"/) want = 1
      }
    } else if (c == "{" || c == "[") depth++
    else if (c == "}" || c == "]") depth--
  }
  if (!found) { print "word_count: the arguments have no \"text\" string" > "/dev/stderr"; exit 2 }
  printf "%s", text > out
  print (substr(text, length(text), 1) == "\n") ? 1 : 0
}
