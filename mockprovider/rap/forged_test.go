package rap_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/rap"
)

// Hundreds of forged callbacks — no secret, a wrong secret, or a genuine
// capability naming an unknown group_id/id — race real traffic. Every
// delivered conversation must hold only genuine results.
func TestForgedCallbacksNeverDelivered(t *testing.T) {
	h := newHarness(t, rap.Options{})
	tool, url := startTool(t, "")
	const calls, forgers, perForger = 40, 8, 50

	var wg sync.WaitGroup
	outcomes := make([]*rap.Outcome, calls)
	for i := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outcomes[i] = invoke(t, h.rt, rap.InvokeRequest{ToolURL: url, Operation: "echo",
				Arguments: args(map[string]any{"text": fmt.Sprintf("genuine-%d", i)})})
		}()
	}
	var secretless atomic.Int64
	for f := range forgers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(f), 7))
			for j := range perForger {
				target := h.srv.URL + rap.CallbackPrefix + fmt.Sprintf("forged-secret-%d-%d", f, j)
				body := map[string]any{"type": "tool_result", "group_id": "thread_forged", "id": "call_forged", "text": "FORGED"}
				switch j % 3 {
				case 0:
					target = h.srv.URL + rap.CallbackPrefix
				case 2:
					// A genuine capability (as a confused tool would hold)
					// naming a thread or call it does not belong to.
					if invs := tool.Invocations(); len(invs) > 0 {
						inv := invs[rng.IntN(len(invs))]
						target = inv.CallbackURL
						if rng.IntN(2) == 0 {
							body["group_id"] = inv.GroupID // right thread, wrong call
						}
					}
				}
				if !strings.Contains(target, "forged-secret") && target != h.srv.URL+rap.CallbackPrefix {
					if st := post(t, target, "application/json", body); st == http.StatusOK {
						t.Errorf("a forged result was accepted on a genuine URL")
					}
					continue
				}
				secretless.Add(1)
				if st := post(t, target, "application/json", body); st != http.StatusNotFound {
					t.Errorf("forged callback answered %d", st)
				}
			}
		}()
	}
	wg.Wait()
	tool.Wait()

	if got := h.rt.Rejected(); got != secretless.Load() {
		t.Errorf("rejected %d, want %d", got, secretless.Load())
	}
	for i, o := range outcomes {
		if o == nil || o.Result == nil || o.Result.Text != fmt.Sprintf("genuine-%d", i) || o.Status != rap.StatusCompleted {
			t.Fatalf("call %d: %+v", i, o)
		}
	}
	groups := h.rt.Groups()
	if len(groups) != calls {
		t.Errorf("%d threads, want %d (a forged group_id must not create one)", len(groups), calls)
	}
	for _, g := range groups {
		c, _ := h.rt.Conversation(g)
		b, _ := json.Marshal(c)
		if strings.Contains(string(b), "FORGED") || len(c.Turns) != 2 {
			t.Errorf("thread %s: %s", g, b)
		}
	}
	// The journal shows discarded messages, but no delivered conversation
	// in it holds a forged result either.
	entries, _ := h.store.Get(rap.DefaultSession).Journal()
	for _, e := range entries {
		if e.Conversation != nil {
			b, _ := json.Marshal(e.Conversation)
			if strings.Contains(string(b), "FORGED") {
				t.Fatalf("journaled conversation holds a forged result: %s", b)
			}
		}
	}
}
