package journalpage_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolwire/toolwire/mockprovider/journalpage"
)

// chromium finds a headless-capable Chromium, or skips saying why.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no chromium on PATH (Debian: apt-get install chromium)")
	return ""
}

func headless(t *testing.T, bin string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--no-first-run", "--disable-dev-shm-usage", "--user-data-dir=" + t.TempDir()}
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, stderr.String())
	}
	return out
}

// TestChromiumRendersTheViolation loads the session page in a real browser
// and finds the violation in the DOM it built. With
// TOOLWIRE_SCREENSHOT=FILE it also writes a screenshot of the page there
// (docs/journal-page.png is made this way).
func TestChromiumRendersTheViolation(t *testing.T) {
	bin := chromium(t)
	page, mock := journaledServer(t)
	url := page.URL + "/_toolwire/?session=" + journalpage.KeyHash(secretKey)
	dom := string(headless(t, bin, "--dump-dom", url))
	v := mock.MustViolations(secretKey)[0]
	for _, want := range []string{`class="violation MUST"`, v.Rule, `class="hit"`, "How to fix:"} {
		if !strings.Contains(dom, want) {
			t.Errorf("the browser's DOM lacks %q", want)
		}
	}
	if strings.Contains(dom, secretKey) {
		t.Error("the page shows the API key")
	}

	shot := os.Getenv("TOOLWIRE_SCREENSHOT")
	if shot == "" {
		shot = filepath.Join(t.TempDir(), "journal-page.png")
	} else if shot, _ = filepath.Abs(shot); shot == "" {
		t.Fatal("TOOLWIRE_SCREENSHOT is not a usable path")
	}
	// The screenshot shows a session whose one exchange is the broken
	// turn, so the violation is in view.
	postChat(t, mock, "screenshot-session", wrongResultID)
	url = page.URL + "/_toolwire/?session=" + journalpage.KeyHash("screenshot-session")
	headless(t, bin, "--hide-scrollbars", "--window-size=1280,1000", "--screenshot="+shot, url)
	png, err := os.ReadFile(shot)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) || len(png) < 10_000 {
		t.Fatalf("screenshot is not a rendered PNG (%d bytes)", len(png))
	}
}
