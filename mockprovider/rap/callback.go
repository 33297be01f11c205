package rap

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/sourcegraph/go-diff/diff"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/session"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// callbackBodyLimit bounds a callback body (image content included).
const callbackBodyLimit = 8 << 20

// maxSegmentText is the longest text segment still "short" (one line).
const maxSegmentText = 120

// handleCallback receives a tool's message on a capability URL. Without a
// known secret it is refused outright (404, nothing journaled against any
// call); with one, the message is judged and routed inside the thread's
// serial section.
func (rt *Runtime) handleCallback(w http.ResponseWriter, r *http.Request) {
	c := rt.lookupSecret(r.PathValue("secret"))
	if c == nil {
		rt.rejected.Add(1)
		rt.opts.Logger.Warn("rap: callback without a valid capability rejected", "remote", r.RemoteAddr)
		wire.WriteJSON(w, http.StatusNotFound, map[string]any{"error": "unknown callback URL"})
		return
	}
	body, err := wire.ReadBody(r, callbackBodyLimit)
	if err != nil {
		wire.WriteJSON(w, http.StatusRequestEntityTooLarge, map[string]any{"error": "callback body too large or unreadable"})
		return
	}
	release := c.group.enter()
	if rt.onSerial != nil {
		rt.onSerial(c.group.id)
	}
	status, resp, vs := c.process(r.Header.Get("Content-Type"), body)
	conversation := c.group.snapshot()
	release()

	entry := session.Entry{Dialect: conv.RAP, Method: r.Method, Path: CallbackPrefix + "<secret>", Status: status, Violations: vs, Conversation: conversation}
	if utf8.Valid(body) && json.Valid(body) {
		entry.Request = redact(body, c.secret)
	}
	entry.Response, _ = json.Marshal(resp)
	// Journal first, then wake Invoke: its summary entry must come after
	// the callback that settled the call.
	c.sess.Record(entry)
	c.settleIfDue()
	wire.WriteJSON(w, status, resp)
}

type msgFields = map[string]json.RawMessage

// process judges and routes one message for call c. It runs inside the
// group's serial section.
func (c *call) process(contentType string, body []byte) (int, map[string]any, []rules.Violation) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	var vs []rules.Violation
	add := func(id, path, format string, args ...any) {
		v := violation(id, path, fmt.Sprintf(format, args...))
		v.Order = c.seq
		vs = append(vs, v)
	}
	finish := func(status int, resp map[string]any) (int, map[string]any, []rules.Violation) {
		c.out.Violations = append(c.out.Violations, vs...)
		if status >= 400 {
			c.out.Discarded++
		}
		return status, resp, vs
	}
	reject := func(status int, msg string) (int, map[string]any, []rules.Violation) {
		c.rt.opts.Logger.Warn("rap: callback discarded", "group_id", c.inv.GroupID, "id", c.inv.ID, "reason", msg)
		return finish(status, map[string]any{"error": msg})
	}

	if mt, _, err := mime.ParseMediaType(contentType); err != nil || mt != "application/json" {
		add(RuleCallbackJSON, "", "callback Content-Type is %q; it must be application/json", contentType)
	}
	if !utf8.Valid(body) {
		// JSON is UTF-8 (RFC 8259 §8.1); invalid bytes would reach the
		// conversation and the journal API's answers.
		add(RuleCallbackJSON, "", "callback body is not valid UTF-8")
		return reject(http.StatusBadRequest, "body is not valid UTF-8")
	}
	var m msgFields
	if err := json.Unmarshal(body, &m); err != nil || m == nil {
		add(RuleCallbackJSON, "", "callback body is not a JSON object")
		return reject(http.StatusBadRequest, "body is not a JSON object")
	}
	var typ string
	if !str(m, "type", &typ) {
		add(RuleCallbackType, "type", "callback has no string type")
		return reject(http.StatusBadRequest, "missing type")
	}
	specs, known := fieldSpecs(c.rt.opts.Revision)[typ]
	if !known {
		add(RuleCallbackType, "type", "unknown callback type %q for RAP revision %s", typ, c.rt.opts.Revision)
		return reject(http.StatusBadRequest, "unknown type "+quote(typ))
	}
	if problems := checkFields(m, specs); len(problems) > 0 {
		for _, p := range problems {
			add(RuleCallbackFields, p.path, "%s: %s", typ, p.msg)
		}
		return reject(http.StatusBadRequest, typ+": "+problems[0].path+" "+problems[0].msg)
	}
	if typ == "tool_result" && c.rt.opts.Revision == RevisionHead {
		if problems := checkContentItems(m); len(problems) > 0 {
			for _, p := range problems {
				add(RuleCallbackFields, p.path, "%s: %s", typ, p.msg)
			}
			return reject(http.StatusBadRequest, typ+": "+problems[0].path+" "+problems[0].msg)
		}
	}

	// Routing: the capability names one call; the message must name the
	// same thread and call, or it is discarded. A message naming another
	// pending call is discarded too: one call's URL never reaches another.
	var groupID, id, idField string
	_ = str(m, "group_id", &groupID)
	switch typ {
	case "subscription_event":
		idField = "tool_call_id"
	case "view_update":
	default:
		idField = "id"
	}
	if idField != "" {
		_ = str(m, idField, &id)
	}
	groupOK, idOK := groupID == c.inv.GroupID, idField == "" || id == c.inv.ID
	if !groupOK {
		add(RuleGroupIDMatch, "group_id", "%s group_id %q matches no pending tool call (the invocation's group_id is %q); discarded", typ, groupID, c.inv.GroupID)
	}
	if !idOK {
		add(RuleIDMatch, idField, "%s %s %q matches no pending tool call (the invocation's id is %q); discarded", typ, idField, id, c.inv.ID)
	}
	if !groupOK || !idOK {
		return reject(http.StatusNotFound, "no pending tool call for this group_id and "+idField+"; the message was discarded")
	}

	if c.state.closed() {
		c.out.Ignored++
		return finish(http.StatusOK, map[string]any{"ok": true, "ignored": "the call was already closed by the runtime"})
	}

	switch typ {
	case "tool_result":
		return c.onResult(m, body, add, finish, reject)
	case "subscription_event":
		var e SubscriptionEvent
		_ = json.Unmarshal(body, &e)
		if !c.subActive {
			why := "no tool_result with subscription: true has started a subscription"
			if c.state == stDone {
				why = "the call's result did not start a subscription, or its final event was already delivered"
			}
			add(RuleSubscriptionEvent, "tool_call_id", "subscription_event for %q: %s; discarded", id, why)
			return reject(http.StatusConflict, "no active subscription for this tool_call_id")
		}
		c.checkLeaks(e.Text, "text", add)
		c.deliverEventLocked(&e)
		if e.Final {
			c.subActive = false
			c.settleDue = true
		}
		return finish(http.StatusOK, map[string]any{"ok": true})
	case "oauth":
		var o OAuthRequest
		_ = json.Unmarshal(body, &o)
		c.checkCallID(m, add)
		if u, err := url.Parse(o.AuthURL); err != nil || u.Scheme != "https" || u.Host == "" {
			add(RuleOAuthHTTPS, "auth_url", "auth_url %q is not an absolute https URL", o.AuthURL)
		}
		if c.state == stDone {
			add(RuleSingleResult, "", "oauth after the call's tool_result was delivered; discarded")
			return reject(http.StatusConflict, "the call already has its result")
		}
		c.out.OAuth = append(c.out.OAuth, o)
		c.state = stDeferred
		return finish(http.StatusOK, map[string]any{"ok": true})
	case "user_choice":
		var u UserChoice
		_ = json.Unmarshal(body, &u)
		c.checkCallID(m, add)
		if c.state == stDone {
			add(RuleSingleResult, "", "user_choice after the call's tool_result was delivered; discarded")
			return reject(http.StatusConflict, "the call already has its result")
		}
		c.out.UserChoices = append(c.out.UserChoices, u)
		c.state = stDeferred
		c.rt.answerChoice(c, u)
		return finish(http.StatusOK, map[string]any{"ok": true})
	case "view_update":
		var u ViewUpdate
		_ = json.Unmarshal(body, &u)
		c.out.ViewUpdates = append(c.out.ViewUpdates, u)
		return finish(http.StatusOK, map[string]any{"ok": true})
	}
	return reject(http.StatusBadRequest, "unhandled type")
}

type addFunc = func(id, path, format string, args ...any)

func (c *call) onResult(m msgFields, body []byte, add addFunc,
	finish func(int, map[string]any) (int, map[string]any, []rules.Violation),
	reject func(int, string) (int, map[string]any, []rules.Violation),
) (int, map[string]any, []rules.Violation) {
	key := canonical(body)
	if c.state == stDone {
		if key == c.resultKey {
			c.out.Duplicates++
			add(RuleDuplicateResult, "", "identical tool_result delivered again (%d duplicate(s)); acknowledged, not delivered twice", c.out.Duplicates)
			return finish(http.StatusOK, map[string]any{"ok": true, "duplicate": true})
		}
		add(RuleSingleResult, "", "a second, different tool_result for %q; the first was delivered, this one is discarded", c.inv.ID)
		return reject(http.StatusConflict, "the call already has a different result")
	}
	var r ToolResult
	_ = json.Unmarshal(body, &r)
	r.Synthetic = false
	c.checkCallID(m, add)
	c.checkDisplay(r.DisplayAs, add)
	text := r.ModelText()
	if !strings.HasPrefix(text, "Error: ") && (c.req.ExpectError || errorish.MatchString(text)) {
		add(RuleErrorPrefix, "text", "error result does not start with \"Error: \": %s", clipText(text, 80))
	}
	c.checkLeaks(text, "text", add)
	c.resultKey = key
	c.deliverLocked(&r)
	c.state = stDone
	if r.Subscription {
		c.subActive = true
	} else {
		c.settleDue = true
	}
	return finish(http.StatusOK, map[string]any{"ok": true})
}

func (c *call) checkCallID(m msgFields, add addFunc) {
	if c.inv.CallID == nil {
		return
	}
	var got string
	if !str(m, "call_id", &got) {
		add(RuleCallIDEcho, "call_id", "the invocation carried call_id %q but the callback does not echo it", *c.inv.CallID)
	} else if got != *c.inv.CallID {
		add(RuleCallIDEcho, "call_id", "call_id %q does not echo the invocation's %q", got, *c.inv.CallID)
	}
}

func (c *call) checkDisplay(segs []Segment, add addFunc) {
	for i, s := range segs {
		p := fmt.Sprintf("display_as[%d]", i)
		switch s.Type {
		case "":
			add(RuleDisplaySegment, p+".type", "segment has no string type")
		case "text":
			var t string
			if json.Unmarshal(s.Content, &t) != nil || len(s.Content) == 0 || s.Content[0] != '"' {
				add(RuleDisplaySegment, p+".content", "text segment content must be a string")
			} else if strings.Contains(t, "\n") || utf8.RuneCountInString(t) > maxSegmentText {
				add(RuleDisplayTextShort, p+".content", "text segment is not one short line (%d characters)", utf8.RuneCountInString(t))
			}
		case "diff":
			var d struct {
				Path  *string `json:"path"`
				Patch *string `json:"patch"`
			}
			if json.Unmarshal(s.Content, &d) != nil || d.Path == nil || d.Patch == nil || len(s.Content) == 0 || s.Content[0] != '{' {
				add(RuleDisplaySegment, p+".content", "diff segment content must be an object with string path and patch")
			} else if msg := checkPatch(*d.Patch); msg != "" {
				add(RuleDiffPatch, p+".content.patch", "%s", msg)
			}
		case "image":
			if c.rt.opts.Revision != RevisionHead {
				continue // unknown segment type in this revision: skipped, as runtimes do
			}
			var im struct {
				Data      *string `json:"data"`
				MediaType *string `json:"mediaType"`
			}
			if json.Unmarshal(s.Content, &im) != nil || im.Data == nil || im.MediaType == nil {
				add(RuleDisplaySegment, p+".content", "image segment content must be an object with string data and mediaType")
			} else if _, err := base64.StdEncoding.DecodeString(*im.Data); err != nil {
				add(RuleDisplaySegment, p+".content.data", "image segment data is not base64")
			}
		}
	}
	if n := len(segs); n > 0 && segs[n-1].Type != "text" {
		add(RuleDisplayTextLast, fmt.Sprintf("display_as[%d]", n-1), "display_as should end with a text segment as a fallback (last is %q)", segs[n-1].Type)
	}
}

// checkPatch parses a unified diff. Hunk line counts are not compared
// with their bodies: the protocol's own example miscounts them.
func checkPatch(patch string) string {
	fd, err := diff.ParseFileDiff([]byte(patch))
	if err != nil {
		return "patch is not a unified diff: " + err.Error()
	}
	if fd.OrigName == "" || fd.NewName == "" {
		return "patch has no ---/+++ file headers"
	}
	if len(fd.Hunks) == 0 {
		return "patch has no @@ hunk"
	}
	return ""
}

// errorish recognises text written as an error without the conventional
// prefix ("error: …", "ERROR - …", "failed: …").
var errorish = regexp.MustCompile(`(?i)^\s*(error|err|failed|failure|fatal|exception|panic)\s*[:!\-]`)

var stackTrace = []*regexp.Regexp{
	regexp.MustCompile(`goroutine \d+ \[`),                          // Go panic
	regexp.MustCompile(`(?m)^\s+\S+\.go:\d+(\s+\+0x[0-9a-f]+)?$`),   // Go frames
	regexp.MustCompile(`Traceback \(most recent call last\)`),       // Python
	regexp.MustCompile(`(?m)^\s*File "[^"]+", line \d+`),            // Python frames
	regexp.MustCompile(`(?m)^\s+at [\w$.<>]+\([\w$.]+\.java:\d+\)`), // Java
	regexp.MustCompile(`(?m)^\s+at .+ \(.+:\d+:\d+\)$`),             // JavaScript
	regexp.MustCompile(`Exception in thread "`),                     // Java
}

var keyLike = []*regexp.Regexp{
	regexp.MustCompile(`\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}`),
	regexp.MustCompile(`\bAKIA[0-9A-Z]{16}\b`),
	regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9]{36,}`),
	regexp.MustCompile(`\bxox[abprs]-[A-Za-z0-9-]{10,}`),
	regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}`),
	regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----`),
	regexp.MustCompile(`(?i)\bbearer\s+[A-Za-z0-9._~+/-]{20,}`),
	regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}`),
}

// checkLeaks looks for stack traces and credentials in model-facing text.
func (c *call) checkLeaks(text, path string, add addFunc) {
	for _, re := range stackTrace {
		if re.MatchString(text) {
			add(RuleNoStackTrace, path, "text contains a stack trace (%s)", clipText(re.FindString(text), 60))
			break
		}
	}
	if strings.Contains(text, c.secret) {
		add(RuleNoSecrets, path, "text contains the invocation's callback secret")
		return
	}
	for _, re := range keyLike {
		if s := re.FindString(text); s != "" {
			add(RuleNoSecrets, path, "text contains a key-like string (%s…)", clipText(s, 8))
			return
		}
	}
}

func clipText(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// canonical re-encodes a JSON body with sorted keys, so a retried
// delivery matches the original whatever its key order or spacing.
func canonical(body []byte) string {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return string(body)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// answerChoice posts the default selection to a user_choice's
// response_url, in the background (the runtime is the user here).
func (rt *Runtime) answerChoice(c *call, u UserChoice) {
	body, _ := json.Marshal(map[string]any{"id": u.ID, "selected": u.Default})
	rt.bg.Add(1)
	go func() {
		defer rt.bg.Done()
		e := session.Entry{Dialect: conv.RAP, Method: http.MethodPost, Path: pathOf(u.ResponseURL), Request: body}
		if c.req.restricted && rt.opts.Targets.checkSameOrigin(c.req.ToolURL, u.ResponseURL) != nil {
			e.Response, _ = json.Marshal(map[string]any{"error": "response_url is not on the tool's origin; not answered (allow its host with --rap-allow)"})
			c.sess.Record(e)
			return
		}
		status, err := rt.post(context.Background(), c.client, u.ResponseURL, body)
		e.Status = status
		if err != nil {
			e.Response, _ = json.Marshal(map[string]any{"error": c.errorText(err)})
		}
		c.sess.Record(e)
	}()
}
