package refdriver

import "testing"

type testRow struct {
	Mistake
	Reply func() string
}

func TestRowsFoundAndHooksSeen(t *testing.T) {
	rows := []testRow{
		{Mistake: Mistake{Name: "shared-hook", Hooks: Hooks{Body: func(b []byte) []byte { return b }}}},
		{Mistake: Mistake{Name: "own-hook"}, Reply: func() string { return "x" }},
		{Mistake: Mistake{Name: "no-hook", Description: "says what it does but does nothing"}},
	}
	if got := Find(rows, "own-hook"); got.Name != "own-hook" {
		t.Fatalf("Find = %q", got.Name)
	}
	if got := Find(rows, None); got.Name != "" || HasHook(*got) {
		t.Fatalf("no break must give the honest row, got %+v", got.Mistake)
	}
	if got := Table(rows); len(got) != 3 || got[2].Name != "no-hook" {
		t.Fatalf("Table = %+v", got)
	}
	for i, want := range []bool{true, true, false} {
		if HasHook(rows[i]) != want {
			t.Errorf("%s: HasHook = %v", rows[i].Name, !want)
		}
	}
}
