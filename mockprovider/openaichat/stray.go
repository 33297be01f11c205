package openaichat

import "net/http"

// StrayScore takes any request no route serves that no other provider's
// marks claim: the OpenAI SDKs send only a bearer key.
func (d *Dialect) StrayScore(*http.Request) int { return 1 }
