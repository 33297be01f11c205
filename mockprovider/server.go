// Package mockprovider is one HTTP handler that impersonates the OpenAI
// (Chat Completions and Responses), Anthropic Messages and Gemini APIs,
// strictly: a request that breaks a rule of the real API gets the real
// API's status, envelope and message, plus an X-Toolwire-Rule header.
//
//	srv := mockprovider.New(mockprovider.Options{})
//	http.ListenAndServe("127.0.0.1:8080", srv)
//
// In a Go test, NewTestServer starts one on a loopback port.
package mockprovider

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/model"
	"github.com/toolwire/toolwire/mockprovider/models"
	"github.com/toolwire/toolwire/mockprovider/rap"
	"github.com/toolwire/toolwire/mockprovider/record"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/scenario"
	"github.com/toolwire/toolwire/mockprovider/session"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// Version is the toolwire version reported by health and reports.
var Version = "0.1.0-dev"

// Options configure a Server. The zero value is a strict mock with the
// built-in scenarios and default limits.
type Options struct {
	Rules  rules.Options
	Limits session.Limits
	// BodyLimit caps request bodies (default 32 MiB, the Anthropic cap).
	BodyLimit int64
	// Scenarios replaces the built-in set.
	Scenarios *scenario.Set
	// Dialects replaces the built-in dialects (tests of a single dialect).
	Dialects []dialect.Dialect
	// Recorder, when set, forwards every request to the real API (after
	// journaling its violations) and records the exchange.
	Recorder *record.Recorder
	// Replayer, when set, answers from recordings instead of the model.
	Replayer *record.Replayer
	// RAP configures the Reactive Agent Protocol runtime under /_toolwire/rap/.
	RAP rap.Options
	// Logger, when set, gets one line per request (serve --log-format,
	// --log-level).
	Logger *slog.Logger
	// AdminToken, when set, is required (X-Toolwire-Admin-Token) on every
	// /_toolwire/ request but the health check and RAP callbacks; when
	// empty, the admin API answers loopback Host names only.
	AdminToken string
	// BodyReadTimeout bounds the time a request body may take to arrive
	// (default 30s); StreamWriteTimeout bounds each write of an answer,
	// every SSE event included (default 30s), so a client that stops
	// reading does not hold a stream open.
	BodyReadTimeout    time.Duration
	StreamWriteTimeout time.Duration
	// MaxConcurrentDecodes bounds how many requests are decoded and
	// checked at once (default DefaultMaxConcurrentDecodes): a decoded
	// request holds many times its size. The others wait, within
	// WorkTimeout.
	MaxConcurrentDecodes int
	// WorkTimeout bounds a request's work from the end of its body (and
	// of a latency fault, which is deliberate) until its answer starts:
	// waiting for a decode slot, decoding, the rules and the model
	// (default DefaultWorkTimeout). Past it the request gets the
	// provider's overloaded answer; a client that goes away stops the
	// work at the next stage. The answer's writes are bounded by
	// StreamWriteTimeout.
	WorkTimeout time.Duration
	// WebSocket bounds a dialect's WebSocket mode (sockets.go; the
	// Responses API's, openairesp/ws.go).
	WebSocket WebSocketOptions
	// Models adds to and overrides the built-in model catalog (serve
	// --models): an id no catalog entry names gets the API's 404, unless
	// an API's entries include the wildcard id "*".
	Models *models.Catalog
}

// Server is the mock provider.
type Server struct {
	opts     Options
	store    *session.Store
	engine   *model.Engine
	catalog  *rules.Catalog
	dialects map[conv.Dialect]dialect.Dialect
	mux      *http.ServeMux
	rap      *rap.Runtime
	decodes  *decodeSlots
	// routeDialects names the dialect serving each route path, whatever
	// its method: the request log's dialect (see loggedDialect).
	routeDialects map[string]conv.Dialect
	sockets       socketSet // the open WebSocket-mode sockets, for Shutdown
	models        *models.Catalog
}

// New builds a server. It panics only on a broken built-in catalog or
// scenario set, which are programming errors caught by the tests.
func New(opts Options) *Server {
	if opts.Rules == (rules.Options{}) {
		opts.Rules = rules.DefaultOptions()
	}
	if opts.Limits == (session.Limits{}) {
		opts.Limits = session.DefaultLimits()
	}
	if opts.BodyLimit <= 0 {
		opts.BodyLimit = 32 << 20
	}
	if opts.BodyReadTimeout <= 0 {
		opts.BodyReadTimeout = DefaultBodyReadTimeout
	}
	if opts.StreamWriteTimeout <= 0 {
		opts.StreamWriteTimeout = DefaultStreamWriteTimeout
	}
	if opts.MaxConcurrentDecodes <= 0 {
		opts.MaxConcurrentDecodes = DefaultMaxConcurrentDecodes()
	}
	if opts.WorkTimeout <= 0 {
		opts.WorkTimeout = DefaultWorkTimeout
	}
	if opts.Scenarios == nil {
		set, err := BuiltinScenarios()
		if err != nil {
			panic(err)
		}
		opts.Scenarios = set
	}
	if opts.Dialects == nil {
		opts.Dialects = builtinDialects()
	}
	s := &Server{
		opts:     opts,
		store:    session.NewStore(opts.Limits),
		engine:   &model.Engine{Scenarios: opts.Scenarios},
		dialects: map[conv.Dialect]dialect.Dialect{},
		mux:      http.NewServeMux(),
		decodes:  newDecodeSlots(opts.MaxConcurrentDecodes),

		routeDialects: map[string]conv.Dialect{},
		models:        models.Builtin().With(opts.Models),
	}
	var sets [][]rules.Rule
	for _, d := range opts.Dialects {
		s.dialects[d.Name()] = d
		sets = append(sets, d.Rules())
		for _, pattern := range d.Routes() {
			s.mux.HandleFunc(pattern, s.pipeline(d))
			s.routeDialects[patternPath(pattern)] = d.Name()
		}
		if ex, ok := d.(dialect.Extra); ok {
			for pattern, h := range ex.ExtraRoutes(s) {
				s.mux.HandleFunc(pattern, h)
				s.routeDialects[patternPath(pattern)] = d.Name()
			}
		}
	}
	s.rap = rap.New(s.store, opts.RAP)
	s.rap.Register(s.mux)
	s.catalog = rules.NewCatalog(append(sets, rap.Rules())...)
	s.routeModels()
	s.routeAdmin()
	// The most general pattern: a path no route serves, or a method a
	// route does not take, lands here instead of Go's plain-text 404/405.
	s.mux.HandleFunc("/", s.notFound)
	return s
}

// ServeHTTP implements http.Handler. The admin API is guarded (see
// guardAdmin); a write deadline a model request left on a kept-alive
// connection is lifted first.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.opts.Logger != nil {
		s.logRequest(w, r, s.serve)
		return
	}
	s.serve(w, r)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	_ = http.NewResponseController(w).SetWriteDeadline(time.Time{})
	if isAdminPath(r.URL.Path) && !s.guardAdmin(w, r) {
		return
	}
	s.mux.ServeHTTP(w, r)
}

// Recorder is the record-mode recorder, or nil.
func (s *Server) Recorder() *record.Recorder { return s.opts.Recorder }

// RAP is the Reactive Agent Protocol runtime.
func (s *Server) RAP() *rap.Runtime { return s.rap }

// Close waits for background RAP work (deadline timers, retries) to end.
func (s *Server) Close() { s.rap.Close() }

// Catalog is every rule the server enforces.
func (s *Server) Catalog() *rules.Catalog { return s.catalog }

// Sessions is the session store (journals, scenarios, faults).
func (s *Server) Sessions() *session.Store { return s.store }

// Scenarios is the scenario set.
func (s *Server) Scenarios() *scenario.Set { return s.opts.Scenarios }

// Dialect returns a dialect by name.
func (s *Server) Dialect(d conv.Dialect) (dialect.Dialect, bool) {
	x, ok := s.dialects[d]
	return x, ok
}

// WriteErrorFor renders an error in a dialect's envelope.
func (s *Server) WriteErrorFor(d conv.Dialect, w http.ResponseWriter, e *wire.APIError) {
	writeError(s.dialects[d], w, e)
}

func writeError(d dialect.Dialect, w http.ResponseWriter, e *wire.APIError) {
	for k, vs := range e.Headers {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	if e.RuleID != "" {
		w.Header().Set(wire.RuleHeader, e.RuleID)
	}
	d.WriteError(w, e)
}

// Headers a client may send to steer the mock per request.
const (
	ScenarioHeader = "X-Toolwire-Scenario"
	FaultHeader    = "X-Toolwire-Fault"
	StreamHeader   = "X-Toolwire-Stream"
)

// sessionKey reads the API key that names the session, answering the
// dialect's error when there is none or it is invalid. A key longer than
// a session may be named by is no real provider's key, and the mock will
// not keep it.
func sessionKey(d dialect.Dialect, w http.ResponseWriter, r *http.Request) (string, bool) {
	key, aerr := d.Key(r)
	if aerr == nil && len(key) > session.MaxKeyLength {
		aerr = d.InvalidKey(key)
	}
	if aerr != nil {
		writeError(d, w, aerr)
		return "", false
	}
	return key, true
}

// pipeline is the shared path of every model request, in the numbered
// stages ARCHITECTURE.md describes: key, body, faults, decode, rules, model,
// encode, with the journal written last (deferred) whatever happened.
func (s *Server) pipeline(d dialect.Dialect) http.HandlerFunc {
	// A dialect's rules are fixed once it is built; Rules may sort its
	// declarations, which is not work for every request.
	ruleSet := d.Rules()
	return func(w http.ResponseWriter, r *http.Request) {
		// 1. The API key names the session.
		key, ok := sessionKey(d, w, r)
		if !ok {
			return
		}
		sess := s.store.Get(key)
		// Stamped before the request counts as in flight: the journal
		// lists entries in arrival order (see session.Entry.Time).
		arrived := time.Now().UTC()
		sess.Begin()
		defer sess.End() // runs after the journal entry is recorded
		// One allocation for what every request needs, instead of four.
		st := &inflight{
			cw:    captureWriter{ResponseWriter: w, max: s.opts.Limits.JournalBodyMax, deadlines: deadlines{rc: http.NewResponseController(w), write: s.opts.StreamWriteTimeout}},
			env:   rules.Env{Options: s.opts.Rules},
			entry: session.Entry{Time: arrived, Dialect: d.Name(), Method: r.Method, Path: r.URL.Path},
		}
		cw, x, entry := &st.cw, &st.x, &st.entry
		*x = dialect.Exchange{W: cw, R: r, Session: sess, Env: &st.env}
		cw.x = x
		var body []byte
		// 8. The journal, written however the request ends.
		defer func() {
			// A decoded request is valid JSON already; only an undecodable
			// one needs checking before it goes into the journal, which
			// keeps one that is not JSON as a string.
			if len(body) > 0 {
				entry.Request = body
				entry.RequestRaw = entry.Conversation == nil && !jsontext.Value(body).IsValid()
			}
			status, answer, events := x.Result()
			if status == 0 { // written without x.JSON: an error, or a capture that may be clipped
				status, answer = cw.status, cw.buf.Bytes()
				if len(answer) > 0 && !jsontext.Value(answer).IsValid() {
					// A malformed-chunk fault's body, or an answer captured
					// up to the journal's limit only.
					entry.ResponseRaw = true
					entry.Truncated = entry.Truncated || cw.buf.Len() >= cw.max
				}
				answer = append(json.RawMessage(nil), answer...)
			}
			entry.Status, entry.Events = status, events
			if len(answer) > 0 {
				entry.Response = answer
			}
			sess.Record(*entry)
		}()
		fail := func(e *wire.APIError) {
			writeError(d, cw, e)
			if e.RuleID != "" {
				entry.Answered = e.RuleID
			}
		}

		// 2. The body, bounded in size and time.
		var err error
		body, err = s.readBodyBy(w, cw.rc, r)
		if err != nil {
			if errors.Is(err, wire.ErrTooLarge) {
				fail(d.Fault("too_large"))
			} else {
				fail(d.Fault("bad_body"))
			}
			return
		}
		// 3. Faults that answer before the model.
		fault, ferr := s.faultFor(r, sess)
		if ferr != nil {
			fail(ferr)
			return
		}
		if fault != nil {
			entry.Fault = fault.Kind
			if s.applyEarlyFault(d, fault, x, fail) {
				return
			}
		}

		// The work's deadline starts here: a latency fault's sleep is
		// deliberate. Between stages the request stops if its client went
		// away (nothing is sent) or, checking the deadline, if its work ran
		// past it (the provider's overloaded answer); the journal says why.
		deadline := time.Now().Add(s.opts.WorkTimeout)
		stop := func(stage string, gone bool) {
			note := "toolwire: stopped " + stage + ": the request's work ran past --work-timeout (" + s.opts.WorkTimeout.String() + ")"
			if gone {
				note = "toolwire: stopped " + stage + ": the client went away"
			} else {
				fail(d.Fault("overloaded"))
			}
			// The model's notes may be shared with other requests: a copy.
			entry.Notes = append(entry.Notes[:len(entry.Notes):len(entry.Notes)], note)
		}
		stopped := func(stage string, deadline time.Time) bool {
			switch {
			case r.Context().Err() != nil:
				stop(stage, true)
			case !deadline.IsZero() && !time.Now().Before(deadline):
				stop(stage, false)
			default:
				return false
			}
			return true
		}

		// 4. Decode: the typed wire request and the neutral conversation,
		// at most MaxConcurrentDecodes at once.
		if err := s.decodes.acquire(r.Context(), deadline); err != nil {
			stop("waiting for a decode slot", r.Context().Err() != nil)
			return
		}
		holding := true
		defer func() {
			if holding { // a decode error, a stop, a panic
				s.decodes.release()
			}
		}()
		req, c, aerr := d.Decode(x, body)
		if aerr != nil {
			fail(aerr)
			return
		}
		entry.Conversation = c
		x.Env.Model = c.Model
		if stopped("after decoding", deadline) {
			return
		}
		// 5. Rules, the model catalog's first; record and replay modes
		// answer from elsewhere.
		unknownModel := s.checkModel(d, r, x.Env)
		vs := rules.Run(ruleSet, req, x.Env)
		if unknownModel != nil {
			vs = append([]rules.Violation{*unknownModel}, vs...)
		}
		entry.Violations = vs
		holding = false
		s.decodes.release()
		if stopped("after the rules", deadline) {
			return
		}
		if s.opts.Recorder != nil {
			// The real API is the judge in record mode: forward even a
			// violating request, so its answer is recorded too.
			ex, err := s.opts.Recorder.Forward(d.Name(), key, cw, r, body)
			entry.Events = recordedEvents(ex.Events)
			if err != nil && ex.Status == 0 {
				// The upstream never answered: a gateway's failure, in the
				// provider's envelope (the error's text is safe to show).
				e := d.Fault("server_error")
				e.Status = http.StatusBadGateway
				e.Message = "toolwire record: " + err.Error()
				fail(e)
			}
			return
		}
		if v := rules.FirstMust(vs); v != nil && !s.opts.Rules.Lenient {
			fail(wire.FromViolation(v))
			return
		}
		if s.opts.Replayer != nil {
			ex, closest := s.opts.Replayer.FindRequest(d.Name(), r, string(body))
			if ex == nil {
				e := d.Fault("bad_request")
				e.Message = "toolwire replay: no recording matches this request; " + closest
				fail(e)
				return
			}
			ex.Write(cw)
			x.SetEvents(recordedEvents(ex.Events))
			return
		}

		// 6. The model: a scenario turn or the default, obeying the request.
		name := r.Header.Get(ScenarioHeader)
		if name == "" {
			name = sess.Scenario()
		}
		entry.Scenario, entry.Turn = name, c.AssistantTurns()
		reply, err := s.engine.NextContext(r.Context(), c, name, sessionMemo{sess})
		if reply != nil {
			entry.Notes = reply.Notes
		}
		if stopped("after the model", deadline) {
			return
		}
		if err != nil {
			e := d.Fault("bad_request")
			e.Message = err.Error()
			fail(e)
			return
		}
		if fault == nil && reply.Fault != nil {
			f := &session.Fault{Kind: reply.Fault.Kind, Remaining: 1, After: reply.Fault.After, MS: reply.Fault.MS}
			// A scripted fault with count N fails the first N attempts at
			// this turn: retries of the same turn are counted.
			n := max(reply.Fault.Count, 1)
			if scenarioFaults.Count(sess, scenarioTurn{name, entry.Turn}) <= n {
				fault = f
				entry.Fault = f.Kind
				if s.applyEarlyFault(d, fault, x, fail) {
					return
				}
			}
		}
		x.Stream = reply.Stream
		applyStreamHeader(r.Header.Get(StreamHeader), &x.Stream)
		if fault != nil && !c.Stream {
			switch fault.Kind {
			case "disconnect":
				closeConn(w)
				return
			case "malformed_chunk":
				cw.Header().Set("Content-Type", "application/json")
				cw.WriteHeader(http.StatusOK)
				_, _ = cw.Write([]byte(`{"toolwire": malformed`))
				return
			case "stream_error":
				fail(d.Fault("overloaded"))
				return
			}
		}
		if fault != nil {
			x.StreamHook = streamFault(d, fault)
		}
		// A scripted latency fault may have slept past the deadline on
		// purpose: only a client gone stops the answer now.
		if stopped("before encoding", time.Time{}) {
			return
		}
		// 7. Encode: one JSON body or a paced stream.
		d.Encode(x, req, c, reply)
	}
}

// inflight is the per-request state of the pipeline, allocated once.
type inflight struct {
	cw    captureWriter
	x     dialect.Exchange
	env   rules.Env
	entry session.Entry
}

// captureWriter keeps a copy of a non-streamed body for the journal.
type captureWriter struct {
	http.ResponseWriter
	status int
	buf    bytes.Buffer
	max    int
	// x is the request's exchange: once it holds a result (x.JSON sets it
	// before writing), the journal takes the answer from there, so the
	// bytes need no second copy here.
	x *dialect.Exchange
	deadlines
}

func (c *captureWriter) WriteHeader(code int) {
	if c.status == 0 {
		c.status = code
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *captureWriter) Write(b []byte) (int, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	// A stream is journaled event by event, not as bytes (Bedrock's is
	// binary frames, relayed or replayed as they came).
	if ct := c.Header().Get("Content-Type"); c.buf.Len() < c.max && !c.hasResult() && !strings.HasPrefix(ct, "text/event-stream") && !strings.HasPrefix(ct, record.EventStreamType) {
		c.buf.Write(b)
	}
	c.extendForWrite()
	return c.ResponseWriter.Write(b)
}

func (c *captureWriter) hasResult() bool {
	if c.x == nil {
		return false
	}
	status, _, _ := c.x.Result()
	return status != 0
}

func (c *captureWriter) Flush() {
	c.extendForFlush()
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Hijack lets a disconnect fault close the connection.
func (c *captureWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(c.ResponseWriter).Hijack()
}

func (c *captureWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// applyStreamHeader reads "fragment_size=1;chunk_delay_ms=5;first_token_ms=0".
func applyStreamHeader(h string, cfg *wire.StreamConfig) {
	for _, kv := range strings.Split(h, ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 0 {
			continue
		}
		switch strings.TrimSpace(k) {
		case "fragment_size", "fragment":
			cfg.FragmentSize = n
		case "chunk_delay_ms":
			cfg.ChunkDelay = time.Duration(n) * time.Millisecond
		case "first_token_ms":
			cfg.FirstTokenDelay = time.Duration(n) * time.Millisecond
		}
	}
}

// recordedEvents journals a recording's events as sent; data that is not
// JSON (OpenAI's [DONE]) is flagged raw when the journal is read.
func recordedEvents(evs []record.Event) []session.Event {
	out := make([]session.Event, 0, len(evs))
	for _, e := range evs {
		out = append(out, session.Event{Event: e.Event, Data: json.RawMessage(e.Data)})
	}
	return out
}
