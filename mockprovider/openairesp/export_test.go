package openairesp

// SetMemosOff makes every decode start afresh (off) or go through the
// tools and items memos (the default), so tests can compare the two.
func SetMemosOff(off bool) { memosOff.Store(off) }
