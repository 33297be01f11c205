package openairesp

import (
	"context"
	"sync"

	"github.com/toolwire/toolwire/mockprovider/dialect"
)

// SocketCache is the in-memory state of one WebSocket connection to
// /v1/responses: the responses created on it that were not stored
// (store:false), so a later response.create on the same socket can continue
// them with previous_response_id while a new socket, or POST, cannot
// (https://developers.openai.com/api/docs/guides/websocket-mode: the
// connection keeps the previous response state in memory, which is why the
// mode works with store=false). Stored responses need no entry: the
// session has them for every transport.
type SocketCache struct {
	mu    sync.Mutex
	byID  map[string]*StoredResponse
	order []string // oldest first
}

// socketCacheSize bounds a socket's memory. The API does not document its
// cache size; a tool loop only ever continues its latest response, and a
// few more leave room for forks from recent ones.
const socketCacheSize = 16

// NewSocketCache returns an empty cache for a new connection.
func NewSocketCache() *SocketCache {
	return &SocketCache{byID: map[string]*StoredResponse{}}
}

type socketCacheKey struct{}

// WithSocketCache marks the requests a WebSocket connection runs through
// the pipeline: their store:false responses go to c, and their
// previous_response_id is looked up there too.
func WithSocketCache(ctx context.Context, c *SocketCache) context.Context {
	return context.WithValue(ctx, socketCacheKey{}, c)
}

func socketCacheOf(x *dialect.Exchange) *SocketCache {
	if x == nil || x.R == nil {
		return nil
	}
	c, _ := x.R.Context().Value(socketCacheKey{}).(*SocketCache)
	return c
}

// Evict forgets a response: a continuation that failed must not be retried
// from state the failure may have left stale.
func (c *SocketCache) Evict(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byID[id]; !ok {
		return
	}
	delete(c.byID, id)
	for i, v := range c.order {
		if v == id {
			c.order = append(c.order[:i], c.order[i+1:]...)
			break
		}
	}
}

// Len is how many responses the socket holds.
func (c *SocketCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.byID)
}

func (c *SocketCache) put(e *StoredResponse) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byID[e.ID]; !ok {
		c.order = append(c.order, e.ID)
	}
	c.byID[e.ID] = e
	for len(c.order) > socketCacheSize {
		delete(c.byID, c.order[0])
		c.order = c.order[1:]
	}
}

func (c *SocketCache) get(id string) (*StoredResponse, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byID[id]
	return e, ok
}

// lookupPrevious finds the response previous_response_id names: stored in
// the session, or held by the socket the request came on.
func lookupPrevious(x *dialect.Exchange, id string) (*StoredResponse, bool) {
	if stored, ok := storedResponse(x.Session, id); ok && stored.Body != nil {
		return stored, true
	}
	if c := socketCacheOf(x); c != nil {
		return c.get(id)
	}
	return nil, false
}
