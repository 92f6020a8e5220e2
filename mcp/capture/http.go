package capture

import (
	"context"
	"log/slog"
	"strings"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/agentgate/agentgate/mcp/auth"
	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/remote"
	"github.com/agentgate/agentgate/mcp/wire"
)

// quiet discards mcp-go's log lines, which could otherwise reach the
// user's terminal unredacted.
var quiet = slog.New(slog.DiscardHandler)

// startHTTP opens a streamable-HTTP or (sse) legacy SSE transport whose
// every request goes through the server's remote.Client.
func (s *session) startHTTP(ctx context.Context, sse bool) error {
	rm, err := remote.New(s.r, remote.Options{
		MaxResponseBytes: s.opts.MaxResponseBytes,
		CheckMembers:     true,
		Exchange:         &s.exchange,
		Auth:             auth.ForServer(s.r, s.opts.Timeout, s.opts.Interactive, s.opts.Progress),
		OnTooLarge:       func() { s.cancel(s.tooLarge()) },
		OnAmbiguous:      func(err error) { s.cancel(s.ambiguous(err)) },
		Refuse: func(msg string) error {
			err := s.errorf(wire.ErrHTTP, "%s", msg)
			s.cancel(err)
			return err
		},
		OnEvent: s.sseEvent(ctx, sse),
	})
	if err != nil {
		return s.errorf(wire.ErrConnect, "%v", err)
	}
	s.rt = rm
	hc := rm.HTTP
	if sse {
		tr, err := transport.NewSSE(s.r.URL, transport.WithHTTPClient(hc), transport.WithSSELogger(quiet),
			transport.WithEndpointTimeout(s.opts.Timeout), transport.WithResponseTimeout(s.opts.Timeout))
		if err != nil {
			return s.errorf(wire.ErrConnect, "%s", s.cleanURLs(err.Error()))
		}
		s.tr = tr
		if err := tr.Start(ctx); err != nil {
			return s.fail(ctx, err)
		}
		return nil
	}
	tr, err := transport.NewStreamableHTTP(s.r.URL, transport.WithHTTPBasicClient(hc), transport.WithHTTPLogger(quiet))
	if err != nil {
		return s.errorf(wire.ErrConnect, "%s", s.cleanURLs(err.Error()))
	}
	s.tr = tr
	return nil
}

// cleanURLs replaces the configured URL in text by its display form.
func (s *session) cleanURLs(text string) string {
	if s.r.URL == "" {
		return text
	}
	return strings.ReplaceAll(text, s.r.URL, config.StripURL(s.r.URL))
}
