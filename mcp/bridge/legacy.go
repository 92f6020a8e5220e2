package bridge

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/agentgate/agentgate/mcp/config"
)

// legacy is the HTTP+SSE transport of protocol 2024-11-05 (see the
// package doc).
type legacy struct {
	b        *bridge
	started  bool
	endpoint string        // where messages are POSTed, once the stream named it
	last     chan struct{} // closed once the last message's POST is done
}

func newLegacy(b *bridge) *legacy { return &legacy{b: b} }

func (l *legacy) send(m message) {
	b := l.b
	if !l.started {
		l.started = true
		if err := l.connect(); err != nil {
			if b.ctx.Err() == nil {
				b.answerError(m, err.Error())
				b.fail(err)
			}
			return
		}
	}
	if l.endpoint == "" || b.ctx.Err() != nil {
		return
	}
	// The POSTs go one after another, each once the previous one is
	// answered (so the server sees the messages in order), but in the
	// background: a server that answers a POST only when it has handled
	// the message (or never) must not stop the bridge from reading the
	// client, whose leaving then still ends the session.
	req, err := http.NewRequestWithContext(b.ctx, http.MethodPost, l.endpoint, bytes.NewReader(m.raw))
	if err != nil {
		b.fail(err)
		return
	}
	req.Header.Set("Content-Type", "application/json")
	prev, done := l.last, make(chan struct{})
	l.last = done
	b.goAsync(func() {
		defer close(done)
		if prev != nil {
			select {
			case <-prev:
			case <-b.ctx.Done():
				return
			}
		}
		if b.ctx.Err() != nil {
			return
		}
		resp, err := b.rm.HTTP.Do(req)
		if err != nil {
			if b.ctx.Err() == nil {
				text := b.reachText(err)
				b.answerError(m, text)
				b.fail(errors.New(text))
			}
			return
		}
		drain(resp.Body)
		if resp.StatusCode >= 400 {
			b.answerError(m, b.failureText(resp))
		}
	})
}

// connect opens the event stream and waits (at most Options.Timeout) for
// its endpoint event; the stream is then read in the background until
// it ends, which ends the bridge.
func (l *legacy) connect() error {
	b := l.b
	ctx, cancel := context.WithCancel(b.ctx)
	var timedOut atomic.Bool
	timer := time.AfterFunc(b.opts.Timeout, func() { timedOut.Store(true); cancel() })
	fail := func(err error) error {
		timer.Stop()
		cancel()
		if timedOut.Load() {
			return fmt.Errorf("the SSE server did not name its message endpoint within %s (check the url; raise the timeout for this server in agentgate.toml if it starts slowly)", b.opts.Timeout)
		}
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.r.URL, nil)
	if err != nil {
		return fail(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := b.rm.HTTP.Do(req)
	if err != nil {
		return fail(errors.New(b.reachText(err)))
	}
	if resp.StatusCode != http.StatusOK {
		drain(resp.Body)
		return fail(fmt.Errorf("legacy SSE: %s", b.failureText(resp)))
	}
	if !isEventStream(resp) {
		drain(resp.Body)
		return fail(fmt.Errorf("legacy SSE: GET %s answered %q, not an event stream (check the url and the transport)",
			config.StripURL(resp.Request.URL.String()), resp.Header.Get("Content-Type")))
	}
	sr := newSSEReader(resp.Body, b.opts.MaxResponseBytes)
	for l.endpoint == "" {
		ev, err := sr.next()
		if err != nil {
			resp.Body.Close()
			return fail(fmt.Errorf("legacy SSE: the event stream ended before naming the message endpoint (%v)", err))
		}
		switch ev.typ {
		case "endpoint":
			u, err := resp.Request.URL.Parse(strings.TrimSpace(string(ev.data)))
			if err != nil {
				resp.Body.Close()
				return fail(fmt.Errorf("legacy SSE: the endpoint event is not a URL: %v", err))
			}
			if o := u.Scheme + "://" + u.Host; o != b.rm.Origin() {
				resp.Body.Close()
				return fail(fmt.Errorf("legacy SSE: the server named a message endpoint on another origin, %s, which agentgate does not send messages to", o))
			}
			l.endpoint = u.String()
		case "", "message":
			b.emit(ev.data)
		}
	}
	timer.Stop()
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		defer cancel()
		defer resp.Body.Close()
		for {
			ev, err := sr.next()
			if err != nil {
				if b.ctx.Err() == nil {
					if errors.Is(err, errEventTooLarge) {
						b.fail(fmt.Errorf("the server sent an event larger than %d bytes, the limit per message", b.opts.MaxResponseBytes))
					} else {
						b.fail(errors.New("the server closed its SSE stream"))
					}
				}
				return
			}
			if ev.typ == "" || ev.typ == "message" {
				b.emit(ev.data)
			}
		}
	}()
	return nil
}

// close has nothing to end: the bridge's context closes the stream.
func (l *legacy) close() {}
