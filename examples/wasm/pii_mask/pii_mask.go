// pii_mask: masks personal data inside a JSON record value.
//
// Rules (the C and Zig versions implement exactly the same ones):
//   - a string or number whose member name contains "password", "secret",
//     "token" or "api_key" (any case) becomes the string "***";
//   - inside every other string, an e-mail address keeps the first character
//     of its local part: alice@example.com -> a***@example.com;
//   - inside every other string, a card number (13 to 19 digits, optionally
//     grouped by single spaces or dashes) keeps its last four digits:
//     4111 1111 1111 1111 -> **** **** **** 1111.
//
// A null or empty value is left alone; a value with an unterminated string
// fails the record.
package main

import (
	"bytes"
	"errors"

	smt "smtguest"
)

func main() {}

var secretWords = [][]byte{[]byte("password"), []byte("secret"), []byte("token"), []byte("api_key")}

var errUnterminated = errors.New("unterminated string")

func isLocalChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '.' || c == '_' || c == '%' || c == '+' || c == '-'
}

func isDomainChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isWhitespace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// isSecretName reports whether the member name contains one of secretWords, ignoring ASCII case.
func isSecretName(name []byte) bool {
	lower := make([]byte, len(name)) // ASCII only: bytes.ToLower would also fold e.g. the Kelvin sign to 'k'
	for i, c := range name {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[i] = c
	}
	for _, word := range secretWords {
		if bytes.Contains(lower, word) {
			return true
		}
	}
	return false
}

// stringEnd returns the offset just past the string starting at s[start] ('"').
func stringEnd(s []byte, start int) (int, error) {
	for i := start + 1; i < len(s); i++ {
		if s[i] == '\\' {
			i++
		} else if s[i] == '"' {
			return i + 1, nil
		}
	}
	return 0, errUnterminated
}

func skipWhitespace(s []byte, i int) int {
	for i < len(s) && isWhitespace(s[i]) {
		i++
	}
	return i
}

// scalarEnd returns the offset just past the number (or other bare word) starting at s[start].
func scalarEnd(s []byte, start int) int {
	i := start
	for i < len(s) && !bytes.ContainsRune([]byte(",}] \t\n\r:"), rune(s[i])) {
		i++
	}
	return i
}

// maskEmail writes the e-mail address starting at s[i] masked and returns its end, or -1.
func maskEmail(out *bytes.Buffer, s []byte, i int) int {
	at := i
	for at < len(s) && isLocalChar(s[at]) {
		at++
	}
	if at == i || at >= len(s) || s[at] != '@' {
		return -1
	}
	domainEnd := at + 1
	for domainEnd < len(s) && isDomainChar(s[domainEnd]) {
		domainEnd++
	}
	for domainEnd > at+1 && s[domainEnd-1] == '.' { // "mail me at a@b.com."
		domainEnd--
	}
	hasDot := false
	for k := at + 2; k+1 < domainEnd; k++ {
		hasDot = hasDot || s[k] == '.'
	}
	if !hasDot {
		return -1
	}
	out.WriteByte(s[i])
	out.WriteString("***")
	out.Write(s[at:domainEnd])
	return domainEnd
}

// maskCard writes the digit run starting at s[i] (masked when it is a card number) and returns its end.
func maskCard(out *bytes.Buffer, s []byte, i int) int {
	runEnd, digits := i, 0
	for runEnd < len(s) {
		if isDigit(s[runEnd]) {
			digits++
			runEnd++
		} else if (s[runEnd] == ' ' || s[runEnd] == '-') && runEnd+1 < len(s) && isDigit(s[runEnd+1]) {
			runEnd++
		} else {
			break
		}
	}
	isCard := digits >= 13 && digits <= 19
	seen := 0
	for _, c := range s[i:runEnd] {
		hide := false
		if isCard && isDigit(c) {
			hide = seen < digits-4
			seen++
		}
		if hide {
			out.WriteByte('*')
		} else {
			out.WriteByte(c)
		}
	}
	return runEnd
}

// maskText writes the contents of a JSON string (quotes excluded) with e-mails and cards masked.
func maskText(out *bytes.Buffer, s []byte) {
	i := 0
	for i < len(s) {
		c := s[i]
		if c == '\\' { // an escape is opaque: copy it whole
			out.Write(s[i:min(i+2, len(s))])
			i += 2
			continue
		}
		wordStart := i == 0 || !isLocalChar(s[i-1])
		if wordStart && isLocalChar(c) {
			if after := maskEmail(out, s, i); after >= 0 {
				i = after
				continue
			}
		}
		if isDigit(c) && (i == 0 || !isDigit(s[i-1])) {
			i = maskCard(out, s, i)
			continue
		}
		out.WriteByte(c)
		i++
	}
}

// maskJSON rewrites the JSON text s into out.
func maskJSON(out *bytes.Buffer, s []byte) error {
	secretMember := false // the last member name was a secret one
	var previous byte     // the last structural character written
	i := 0
	for i < len(s) {
		c := s[i]
		isMemberValue := previous == ':' && secretMember
		switch {
		case c == '"':
			end, err := stringEnd(s, i)
			if err != nil {
				return err
			}
			if next := skipWhitespace(s, end); next < len(s) && s[next] == ':' { // a member name
				secretMember = isSecretName(s[i+1 : end-1])
				out.Write(s[i:end])
			} else if isMemberValue {
				out.WriteString(`"***"`)
			} else {
				out.WriteByte('"')
				maskText(out, s[i+1:end-1])
				out.WriteByte('"')
			}
			previous = '"'
			i = end
		case isMemberValue && (c == '-' || isDigit(c)):
			out.WriteString(`"***"`)
			previous = '0'
			i = scalarEnd(s, i)
		default:
			if !isWhitespace(c) {
				previous = c
			}
			out.WriteByte(c)
			i++
		}
	}
	return nil
}

//go:wasmexport pii_mask
func piiMask() smt.Result {
	value := smt.GetValue()
	if value == nil {
		return smt.OK
	}
	var out bytes.Buffer
	out.Grow(len(value) + 16)
	if err := maskJSON(&out, value); err != nil {
		return smt.Fail("pii_mask: the record value is not valid JSON (unterminated string)")
	}
	smt.SetValue(out.Bytes())
	return smt.OK
}
