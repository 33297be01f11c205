package mockprovider

import (
	"net/http"

	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/models"
	"github.com/toolwire/toolwire/mockprovider/rules"
)

// checkModel is the pipeline's model stage, the same for every dialect
// and endpoint (generation, counting, streaming, WebSocket response.create):
// it gives the checks the model's catalog entry, and returns the
// dialect's not-found answer, as a MUST violation of its model-exists
// rule, for an id the API does not serve. An absent model is left to the
// dialect's required-field rules.
func (s *Server) checkModel(d dialect.Dialect, r *http.Request, env *rules.Env) *rules.Violation {
	if env.Model == "" {
		return nil
	}
	m, ok := s.models.Lookup(dialect.ModelAPI(d), env.Model)
	if ok {
		if !m.IsWildcard() {
			env.ModelInfo = m
		}
		return nil
	}
	e := d.ModelNotFound(r, env.Model)
	if e == nil {
		return nil
	}
	// Before every other breach: the API looks the model up first.
	return &rules.Violation{Rule: e.RuleID, Level: rules.MUST, Path: "model", Message: e.Message,
		Status: e.Status, ErrType: e.Type, Param: e.Param, Code: e.Code, Order: -1 << 40}
}

// Models is the model catalog the server answers from (the built-in one
// with Options.Models applied).
func (s *Server) Models() *models.Catalog { return s.models }

// AnyModel is a catalog that accepts every model id of every API (the
// catalog's models keep their capabilities), for tests written against
// made-up ids: NewTestServer(t, Options{Models: AnyModel()}).
func AnyModel() *models.Catalog {
	c, err := models.Parse([]byte(`{openai: [{id: "*"}], anthropic: [{id: "*"}], gemini: [{id: "*"}]}`))
	if err != nil {
		panic(err) // a constant
	}
	return c
}
