package suite

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A driver's stderr often opens with what its SDK warns about
// (deprecations, version notices) and ends with the error that stopped
// it. What the reports show keeps both ends and says how much was cut
// between them.

// Sizes of what is kept of a driver's stderr: in memory while it runs,
// and in a report's message.
const (
	logHeadKeep    = 2048 // bytes kept from the start while the driver runs
	logTailKeep    = 8192 // bytes kept from the end while the driver runs
	logExcerptSize = 1200 // bytes of stderr in a report's message
	logHeadLines   = 2    // lines of the start an excerpt keeps
	logLineMax     = 200  // bytes of each of those lines
)

// driverLog keeps a driver's stderr: its first logHeadKeep bytes, its
// last logTailKeep bytes and the count of those dropped between.
type driverLog struct {
	head, tail []byte
	cut        int64
}

func (l *driverLog) Write(p []byte) (int, error) {
	n := len(p)
	if room := logHeadKeep - len(l.head); room > 0 {
		k := min(room, len(p))
		l.head = append(l.head, p[:k]...)
		p = p[k:]
	}
	l.tail = append(l.tail, p...)
	if over := len(l.tail) - logTailKeep; over > 0 {
		l.cut += int64(over)
		l.tail = append(l.tail[:0:0], l.tail[over:]...)
	}
	return n, nil
}

// String is what was kept, the gap marked with its size.
func (l *driverLog) String() string {
	if l.cut == 0 {
		return string(l.head) + string(l.tail)
	}
	return string(l.head) + cutMarker(l.cut) + string(l.tail)
}

func cutMarker(n int64) string { return "\n…(" + strconv.FormatInt(n, 10) + " bytes cut)…\n" }

// markerText finds the cut markers in a text (their sizes add up when an
// excerpt cuts across one).
var markerText = regexp.MustCompile(`\n?…\((\d+) bytes cut\)…\n?`)

// logExcerpt is the part of a driver's stderr a report shows, at most
// about limit bytes: the first logHeadLines lines (each cut to
// logLineMax bytes) and the end, starting at a line where one begins
// near the cut, with a marker saying how many bytes lie between.
func logExcerpt(s string, limit int) string {
	s = strings.TrimSpace(s)
	if len(s) <= limit {
		return s
	}
	var head []string
	rest := s
	for len(head) < logHeadLines && rest != "" {
		line, after, _ := strings.Cut(rest, "\n")
		if len(line) > logLineMax {
			// The rest of a long line counts as cut.
			after = line[runeStart(line, logLineMax):] + "\n" + after
			line = line[:runeStart(line, logLineMax)]
		}
		head = append(head, line)
		rest = after
	}
	headText := strings.Join(head, "\n")
	tailLen := max(limit-len(headText), limit/2)
	if tailLen >= len(rest) {
		return s
	}
	start := runeStart(rest, len(rest)-tailLen)
	if i := strings.IndexByte(rest[start:], '\n'); i >= 0 && i < tailLen/4 {
		start += i + 1
	}
	gap := rest[:start]
	cut := int64(len(gap))
	for _, m := range markerText.FindAllStringSubmatch(gap, -1) {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		cut += n - int64(len(m[0]))
	}
	return headText + cutMarker(cut) + rest[start:]
}

// runeStart is i, moved back to the start of the character it falls in.
func runeStart(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}
