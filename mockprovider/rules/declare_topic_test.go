package rules

// addInTopicFile declares a rule from a second file, for the topic order
// test.
func addInTopicFile(s *Set[fakeRequest], id string) {
	s.Add(Rule{ID: id, Level: MUST, Summary: "s", Source: "https://example.com"}, nil)
}
