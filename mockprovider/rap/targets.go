package rap

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Targets is what POST /_toolwire/rap/invoke may reach: loopback always,
// plus what Options.Allow names. Without it the admin endpoint would fetch
// any URL its caller names (server-side request forgery).
type Targets struct {
	any   bool
	hosts map[string]bool
	nets  []*net.IPNet
}

// ErrTargetNotAllowed is the dial error for an address outside the
// allow-list.
var ErrTargetNotAllowed = errors.New("rap: target not allowed")

// ParseAllow reads allow-list entries: "*" (anything), a CIDR
// ("10.0.0.0/8"), an IP, or a host name (matched exactly, any port).
func ParseAllow(entries []string) (*Targets, error) {
	t := &Targets{hosts: map[string]bool{}}
	for _, e := range entries {
		for _, e := range strings.Split(e, ",") {
			e = strings.ToLower(strings.TrimSpace(e))
			switch {
			case e == "":
			case e == "*":
				t.any = true
			case strings.Contains(e, "/"):
				_, n, err := net.ParseCIDR(e)
				if err != nil {
					return nil, fmt.Errorf("--rap-allow %q: %v", e, err)
				}
				t.nets = append(t.nets, n)
			case net.ParseIP(strings.Trim(e, "[]")) != nil:
				ip := net.ParseIP(strings.Trim(e, "[]"))
				t.nets = append(t.nets, &net.IPNet{IP: ip, Mask: net.CIDRMask(len(ip)*8, len(ip)*8)})
			default:
				if strings.ContainsAny(e, ":@ ") {
					return nil, fmt.Errorf("--rap-allow %q: want a host name, an IP, a CIDR or *", e)
				}
				t.hosts[strings.TrimSuffix(e, ".")] = true
			}
		}
	}
	return t, nil
}

// explicitly reports whether the allow-list itself names host (a name, or
// an IP inside one of its ranges).
func (t *Targets) explicitly(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if t.any || t.hosts[host] {
		return true
	}
	if ip := net.ParseIP(host); ip != nil {
		for _, n := range t.nets {
			if n.Contains(ip) {
				return true
			}
		}
	}
	return false
}

// allowsHost reports whether a URL's host may be named at all: a loopback
// IP, localhost, or an allow-list entry. (A name is checked again, by
// address, when it is dialed.)
func (t *Targets) allowsHost(host string) bool {
	h := strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if h == "localhost" {
		return true
	}
	if ip := net.ParseIP(h); ip != nil && ip.IsLoopback() {
		return true
	}
	return t.explicitly(h)
}

// allowsIP reports whether an address may be dialed.
func (t *Targets) allowsIP(ip net.IP) bool {
	if t.any || ip.IsLoopback() {
		return true
	}
	for _, n := range t.nets {
		if n.Contains(ip) {
			return true
		}
	}
	return false
}

// checkURL refuses a URL whose host is outside the allow-list.
func (t *Targets) checkURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || !t.allowsHost(u.Hostname()) {
		return ErrTargetNotAllowed
	}
	return nil
}

// checkSameOrigin refuses a URL a tool's answer named (its endpoint, a
// user_choice response_url) unless it is on the tool's own origin or its
// host is on the allow-list: a loopback tool must not steer the runtime
// to another local service.
func (t *Targets) checkSameOrigin(toolURL, raw string) error {
	tu, err1 := url.Parse(toolURL)
	u, err2 := url.Parse(raw)
	if err1 != nil || err2 != nil {
		return ErrTargetNotAllowed
	}
	if strings.EqualFold(tu.Scheme, u.Scheme) && strings.EqualFold(tu.Host, u.Host) || t.explicitly(u.Hostname()) {
		return nil
	}
	return ErrTargetNotAllowed
}

// dial connects only to allowed addresses: a host name on the allow-list
// as it resolves, anything else only if every address it resolves to is
// allowed, and then to the address checked (so a second lookup cannot
// rebind it elsewhere).
func (t *Targets) dial(d *net.Dialer) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		if t.any || t.hosts[strings.TrimSuffix(strings.ToLower(host), ".")] {
			return d.DialContext(ctx, network, addr)
		}
		ips, err := net.DefaultResolver.LookupIP(ctx, "ip", host)
		if err != nil || len(ips) == 0 {
			return nil, ErrTargetNotAllowed
		}
		for _, ip := range ips {
			if !t.allowsIP(ip) {
				return nil, ErrTargetNotAllowed
			}
		}
		return d.DialContext(ctx, network, net.JoinHostPort(ips[0].String(), port))
	}
}

// noRedirects makes a client hand back a redirect as it is: the runtime
// follows none (a redirect would leave the allow-list's reach).
func noRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// guardedClient is the client for admin-requested invocations: the
// configured one with redirects refused, or, by default, one that dials
// allowed addresses only.
func (t *Targets) guardedClient(configured *http.Client) *http.Client {
	if configured != nil {
		c := *configured
		c.CheckRedirect = noRedirects
		return &c
	}
	// No proxy: a proxy would dial for us, past the check.
	tr := &http.Transport{
		DialContext:           t.dial(&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}),
		MaxIdleConns:          100,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 30 * time.Second,
	}
	return &http.Client{Transport: tr, CheckRedirect: noRedirects}
}
