// Package journalpage renders what the mock saw as HTML: every session
// (named by a hash of its API key, never the key), its exchanges in
// order, each request and answer pretty-printed, and every violation
// highlighted at its JSON path with the rule, its level, its source and
// what to change. Server-rendered with html/template: nothing to build.
package journalpage

import (
	"embed"
	"html/template"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/toolwire/toolwire/mockprovider/jsonview"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/session"
)

//go:embed page.html.tmpl
var templates embed.FS

var page = template.Must(template.New("page.html.tmpl").Funcs(template.FuncMap{
	"indent": func(n int) string { return strings.Repeat("  ", n) },
	"list":   func(p []string) string { return strings.Join(p, ", ") },
	"isURL":  func(s string) bool { return strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://") },
	"clock":  func(t time.Time) string { return t.UTC().Format("15:04:05.000") },
}).ParseFS(templates, "page.html.tmpl"))

// Handler serves the journal page of store. The rule summaries and
// sources come from catalog, the server's own (Server.Catalog()); nil
// shows the rule IDs alone. It answers the index at any path and one
// session with ?session=HASH, so it works wherever it is mounted.
func Handler(store *session.Store, catalog *rules.Catalog) http.Handler {
	return &handler{store: store, catalog: catalog}
}

type handler struct {
	store   *session.Store
	catalog *rules.Catalog
}

// KeyHash names a session on the page as the admin API and the request
// log do (session.ID): a hash of its API key, so the page never shows a key.
func KeyHash(key string) string { return session.ID(key) }

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	view := pageView{Sessions: h.sessions()}
	status := http.StatusOK
	if want := r.URL.Query().Get("session"); want != "" {
		for _, s := range view.Sessions {
			if s.Hash == want {
				view.Current = h.detail(s)
			}
		}
		if view.Current == nil {
			status, view.Missing = http.StatusNotFound, want
		}
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	// The page shows request bodies: keep it out of caches and frames.
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Frame-Options", "DENY")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	w.WriteHeader(status)
	if err := page.Execute(w, view); err != nil {
		// Headers are gone; the truncated page shows where it stopped.
		return
	}
}

type pageView struct {
	Sessions []sessionRow
	Current  *sessionDetail
	Missing  string
}

type sessionRow struct {
	Hash     string
	Scenario string
	Requests int
	Dropped  int
	Must     int
	Should   int
	LastSeen time.Time
	key      string
}

type sessionDetail struct {
	sessionRow
	Exchanges []exchange
}

type exchange struct {
	session.Entry
	Violations []violation
	Request    document
	Response   document
	Events     []event
}

type violation struct {
	rules.Violation
	Anchor  string
	Summary string // what the rule requires: the fix
	Refs    []rules.Ref
	Option  string
	Found   bool // the path was found in the request and is highlighted
}

type document struct {
	Lines []jsonview.Line
	Raw   string // shown as text when the body is not JSON (clipped)
}

type event struct {
	Name string
	Data string
}

func (h *handler) sessions() []sessionRow {
	var rows []sessionRow
	for _, info := range h.store.List() {
		row := sessionRow{Hash: info.ID, Scenario: info.Scenario, Requests: info.Requests, Dropped: info.Dropped, LastSeen: info.LastSeen, key: info.ID}
		for _, e := range h.journal(info.ID) {
			for _, v := range e.Violations {
				if v.Level == rules.MUST {
					row.Must++
				} else {
					row.Should++
				}
			}
		}
		rows = append(rows, row)
	}
	return rows
}

func (h *handler) journal(id string) []session.Entry {
	s, ok := h.store.LookupKeyOrID(id)
	if !ok {
		return nil
	}
	entries, _ := s.Journal()
	return entries
}

func (h *handler) detail(row sessionRow) *sessionDetail {
	d := &sessionDetail{sessionRow: row}
	for _, e := range h.journal(row.key) {
		x := exchange{Entry: e, Request: toDocument(e.Request), Response: toDocument(e.Response)}
		for i, v := range e.Violations {
			vv := violation{Violation: v, Anchor: "e" + strconv.Itoa(e.Seq) + "-v" + strconv.Itoa(i)}
			if r, ok := h.rule(v.Rule); ok {
				vv.Summary, vv.Refs, vv.Option = r.Summary, r.Refs, r.Option
			}
			vv.Found = jsonview.Mark(x.Request.Lines, v.Path, v.Rule)
			x.Violations = append(x.Violations, vv)
		}
		for _, ev := range e.Events {
			x.Events = append(x.Events, event{Name: ev.Event, Data: string(ev.Data)})
		}
		d.Exchanges = append(d.Exchanges, x)
	}
	return d
}

func toDocument(raw []byte) document {
	if len(raw) == 0 {
		return document{}
	}
	if lines, ok := jsonview.Lines(raw); ok {
		return document{Lines: lines}
	}
	return document{Raw: string(raw)}
}

// rule is the catalog entry of id, if the page has a catalog holding it.
func (h *handler) rule(id string) (rules.Rule, bool) {
	if h.catalog == nil {
		return rules.Rule{}, false
	}
	return h.catalog.Get(id)
}
