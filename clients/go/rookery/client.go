// Package rookery is the client library of the Go kit: one BotService.Connect session that plays
// any number of tables at once, one Bot per table, with pings, reconnection with backoff and
// session resume; plus card and action helpers.
package rookery

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	pb "rookery/kit/gen/rookery/v1"
)

// ClientName is sent in Hello.client.
const ClientName = "rookery-go/0.1.0"

// DefaultServer is used when neither the options nor ROOKERY_SERVER name a server.
const DefaultServer = "127.0.0.1:50051"

// TableInfo is what a bot knows about one of its tables.
type TableInfo struct {
	TableID     string
	Seat        int32
	Ruleset     *pb.Ruleset
	Seats       []*pb.SeatInfo
	TimeControl *pb.TimeControl
	GameNumber  int32
	// BotSeed seeds this seat's own randomness in this game (0 from a server that sends none):
	// with it a rerun, a resume or a Ray run of the same tournament plays the same game. It tells
	// nothing of the deal.
	BotSeed uint64
}

// Bot plays one table. Act must return one of the request's legal actions; ctx ends at the
// request's deadline. A Bot may also implement JoinHandler, EventHandler, SnapshotHandler,
// RejectionHandler and FinishHandler. All calls for one table come from one goroutine, in order.
type Bot interface {
	Act(ctx context.Context, req *pb.ActionRequest, table *TableInfo) (*pb.Action, error)
}

// JoinHandler is told when the bot is seated.
type JoinHandler interface{ OnJoined(table *TableInfo) }

// EventHandler receives every event of the table that the seat may see, in order.
type EventHandler interface {
	OnEvent(ev *pb.Event, table *TableInfo)
}

// SnapshotHandler receives the table's snapshot after a resumed session (before the missed events).
type SnapshotHandler interface {
	OnSnapshot(snap *pb.TableSnapshot, table *TableInfo)
}

// RejectionHandler is told when the server refused a reply.
type RejectionHandler interface {
	OnRejected(r *pb.ActionRejected, table *TableInfo)
}

// FinishHandler is told the table's result.
type FinishHandler interface {
	OnFinished(result *pb.GameResult, table *TableInfo)
}

// BotFactory makes the Bot of a newly joined table.
type BotFactory func(table *TableInfo) Bot

// Options configure a Client. Zero values take the defaults in the comments.
type Options struct {
	Server         string        // host:port; ROOKERY_SERVER, else DefaultServer
	Name           string        // the bot's name; ROOKERY_BOT_NAME (required)
	Version        string        // the bot's own version, sent in Hello; ROOKERY_BOT_VERSION, else none
	Token          string        // token mode; ROOKERY_TOKEN
	MaxTables      int32         // tables at once; 1
	TLS            bool          // connect with TLS (system roots)
	MaxGames       int           // stop after this many finished tables; 0: until stopped
	BackoffInitial time.Duration // first reconnection delay; 200ms
	BackoffMax     time.Duration // largest delay; 5s
	MaxAttempts    int           // failed attempts in a row before giving up; 30 (negative: forever)
	ConnectTimeout time.Duration // how long to wait for the server at start; 10s
	Strict         bool          // send the bot's action even when it is illegal (default: replace it)
	NoBatching     bool          // send and receive every message alone (default: offer batching)
	Logger         *log.Logger   // default: stderr, prefixed with the bot's name
}

// FatalError is a failure that reconnecting cannot fix: a bad token, a refused Hello, no server.
type FatalError struct {
	Code    codes.Code
	Message string
}

func (e *FatalError) Error() string { return e.Message }

// TableResult is the end of one table.
type TableResult struct {
	TableID string
	Seat    int32
	Result  *pb.GameResult
}

// Stats count what a client did.
type Stats struct {
	TablesJoined, TablesFinished       int
	ActionsSent, Rejections, Fallbacks int
	Reconnects, Resumes                int // streams opened again after a drop; of them, resumed
	BatchesReceived, BatchesSent       int // ConnectResponse.batch read, ConnectRequest.batch sent
	Results                            []TableResult
}

type table struct {
	info    TableInfo
	bot     Bot
	lastSeq uint64
	work    chan func()
	done    chan struct{}
}

// Client is one bot session. Create it with NewClient and call Run.
type Client struct {
	opts    Options
	factory BotFactory
	log     *log.Logger

	mu             sync.Mutex
	tables         map[string]*table
	welcome        *pb.Welcome
	disconnectedAt time.Time
	stats          Stats
	cancel         context.CancelFunc
	stopped        bool

	sendMu sync.Mutex // held while writing to the stream
	stream pb.BotService_ConnectClient

	outMu    sync.Mutex // guards out
	out      *outbox    // the current stream's outgoing messages; nil when not connected
	batching atomic.Bool
}

// outbox queues one stream's outgoing messages for its writer goroutine.
type outbox struct {
	msgs  []*pb.ConnectRequest
	ready chan struct{} // signalled when msgs is not empty
}

// NewClient checks the options, fills in the defaults from the environment, and returns a client.
func NewClient(factory BotFactory, opts Options) (*Client, error) {
	if opts.Server == "" {
		opts.Server = os.Getenv("ROOKERY_SERVER")
	}
	if opts.Server == "" {
		opts.Server = DefaultServer
	}
	if opts.Name == "" {
		opts.Name = os.Getenv("ROOKERY_BOT_NAME")
	}
	if opts.Name == "" {
		return nil, errors.New("no bot name: pass -name or set ROOKERY_BOT_NAME")
	}
	if opts.Token == "" {
		opts.Token = os.Getenv("ROOKERY_TOKEN")
	}
	if opts.Version == "" {
		opts.Version = os.Getenv("ROOKERY_BOT_VERSION")
	}
	if opts.MaxTables <= 0 {
		opts.MaxTables = 1
	}
	if opts.BackoffInitial <= 0 {
		opts.BackoffInitial = 200 * time.Millisecond
	}
	if opts.BackoffMax <= 0 {
		opts.BackoffMax = 5 * time.Second
	}
	if opts.MaxAttempts == 0 {
		opts.MaxAttempts = 30
	}
	if opts.ConnectTimeout <= 0 {
		opts.ConnectTimeout = 10 * time.Second
	}
	logger := opts.Logger
	if logger == nil {
		logger = log.New(os.Stderr, "["+opts.Name+"] ", log.Lmsgprefix)
	}
	return &Client{opts: opts, factory: factory, log: logger, tables: map[string]*table{}}, nil
}

// Stats returns a copy of the client's counters.
func (c *Client) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	s.Results = append([]TableResult(nil), c.stats.Results...)
	return s
}

// Stop ends the session; Run returns.
func (c *Client) Stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopped = true
	if c.cancel != nil {
		c.cancel()
	}
}

func fatal(code codes.Code) bool {
	switch code {
	case codes.Unauthenticated, codes.PermissionDenied, codes.InvalidArgument, codes.Unimplemented, codes.ResourceExhausted:
		return true
	}
	return false
}

// Run plays until ctx ends, Stop is called, or MaxGames tables have finished. It returns a
// *FatalError when the server refuses the session or cannot be reached after MaxAttempts tries.
func (c *Client) Run(ctx context.Context) (Stats, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c.mu.Lock()
	c.cancel = cancel
	if c.stopped {
		cancel()
	}
	c.mu.Unlock()
	defer c.closeTables()

	creds := insecure.NewCredentials()
	if c.opts.TLS {
		creds = credentials.NewClientTLSFromCert(nil, "")
	}
	conn, err := grpc.NewClient(c.opts.Server, grpc.WithTransportCredentials(creds),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(16<<20)))
	if err != nil {
		return c.Stats(), &FatalError{codes.InvalidArgument, fmt.Sprintf("bad server address %q: %v", c.opts.Server, err)}
	}
	defer conn.Close()
	api := pb.NewBotServiceClient(conn)

	attempt := 0
	started, everWelcomed := time.Now(), false
	for {
		welcomed, err := c.session(ctx, api)
		if ctx.Err() != nil {
			return c.Stats(), nil
		}
		if welcomed {
			attempt = 0
			everWelcomed = true
		}
		code := status.Code(err)
		if err != nil && fatal(code) {
			return c.Stats(), &FatalError{code, fmt.Sprintf("the server refused the session: %s: %s", code, status.Convert(err).Message())}
		}
		if code == codes.FailedPrecondition {
			c.log.Printf("resume refused (%s); starting a new session", status.Convert(err).Message())
			c.forgetSession()
		}
		attempt++
		why := "stream ended"
		if err != nil {
			why = fmt.Sprintf("%s: %s", code, status.Convert(err).Message())
		}
		if !everWelcomed && time.Since(started) >= c.opts.ConnectTimeout {
			return c.Stats(), &FatalError{codes.Unavailable, fmt.Sprintf("the server at %s was unreachable for %.1fs: %s (is `rookery serve` running there?)",
				c.opts.Server, time.Since(started).Seconds(), why)}
		}
		if c.opts.MaxAttempts > 0 && attempt > c.opts.MaxAttempts {
			return c.Stats(), &FatalError{code, fmt.Sprintf("cannot reach %s after %d attempts: %s", c.opts.Server, c.opts.MaxAttempts, why)}
		}
		delay := c.opts.BackoffInitial << min(attempt-1, 20)
		if delay > c.opts.BackoffMax || delay <= 0 {
			delay = c.opts.BackoffMax
		}
		c.log.Printf("disconnected (%s); retry %d in %v", why, attempt, delay)
		select {
		case <-ctx.Done():
			return c.Stats(), nil
		case <-time.After(delay):
		}
		if everWelcomed {
			c.mu.Lock()
			c.stats.Reconnects++
			c.mu.Unlock()
		}
	}
}

// DropConnection breaks the current stream as a network failure would; the client then resumes.
func (c *Client) DropConnection() {
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	if c.stream != nil {
		_ = c.stream.CloseSend()
	}
}

func (c *Client) forgetSession() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.welcome = nil
	for id, t := range c.tables {
		c.log.Printf("table %s: lost with the old session", id)
		close(t.work)
	}
	c.tables = map[string]*table{}
}

func (c *Client) closeTables() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range c.tables {
		close(t.work)
	}
	c.tables = map[string]*table{}
}

func (c *Client) hello() *pb.ConnectRequest {
	c.mu.Lock()
	var resume *pb.Resume
	canResume := c.welcome != nil &&
		(c.welcome.GetGraceMs() <= 0 || time.Since(c.disconnectedAt) < time.Duration(c.welcome.GetGraceMs())*time.Millisecond)
	if canResume {
		resume = &pb.Resume{SessionId: c.welcome.GetSessionId(), ResumeSecret: c.welcome.GetResumeSecret()}
		for id, t := range c.tables {
			resume.Cursors = append(resume.Cursors, &pb.TableCursor{TableId: id, LastSeq: t.lastSeq})
		}
	}
	forget := c.welcome != nil && !canResume
	c.mu.Unlock()
	if forget {
		c.forgetSession()
	}
	return &pb.ConnectRequest{Message: &pb.ConnectRequest_Hello{Hello: &pb.Hello{
		Name: c.opts.Name, Version: c.opts.Version, Token: c.opts.Token,
		MaxTables: c.opts.MaxTables, Resume: resume, Client: ClientName,
		Batching: !c.opts.NoBatching,
	}}}
}

// session runs one stream from Hello to its end; it tells whether a Welcome came.
func (c *Client) session(ctx context.Context, api pb.BotServiceClient) (bool, error) {
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := api.Connect(sctx)
	if err != nil {
		return false, err
	}
	c.sendMu.Lock()
	c.stream = stream
	c.sendMu.Unlock()
	c.batching.Store(false)
	out := &outbox{ready: make(chan struct{}, 1)}
	defer func() {
		c.outMu.Lock()
		c.out = nil
		c.outMu.Unlock()
		c.sendMu.Lock()
		c.stream = nil
		c.sendMu.Unlock()
		c.mu.Lock()
		c.disconnectedAt = time.Now()
		c.mu.Unlock()
	}()
	if err := c.write(stream, c.hello()); err != nil {
		_, rerr := stream.Recv() // the status explains the failed send
		if rerr != nil && rerr != io.EOF {
			return false, rerr
		}
		return false, err
	}
	welcomed := false
	for {
		msg, err := stream.Recv()
		if err == io.EOF {
			return welcomed, nil
		}
		if err != nil {
			return welcomed, err
		}
		if w := msg.GetWelcome(); w != nil && !welcomed {
			welcomed = true
			c.batching.Store(w.GetBatching())
			c.outMu.Lock()
			c.out = out
			c.outMu.Unlock()
			go c.writeLoop(sctx, stream, out)
			interval := 15 * time.Second
			if w.GetIdleTimeoutMs() > 0 {
				interval = max(500*time.Millisecond, time.Duration(w.GetIdleTimeoutMs())*time.Millisecond/3)
			}
			go c.ping(sctx, interval)
		}
		if b := msg.GetBatch(); b != nil {
			// Several messages in one, in order: each is handled as if it came alone.
			c.mu.Lock()
			c.stats.BatchesReceived++
			c.mu.Unlock()
			for _, m := range b.GetMessages() {
				c.dispatch(m)
			}
			continue
		}
		c.dispatch(msg)
	}
}

func (c *Client) ping(ctx context.Context, interval time.Duration) {
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	var nonce uint64
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
			nonce++
			_ = c.send(&pb.ConnectRequest{Message: &pb.ConnectRequest_Ping{Ping: &pb.Ping{Nonce: nonce}}})
		}
	}
}

// send queues a message for the current stream's writer.
func (c *Client) send(msg *pb.ConnectRequest) error {
	c.outMu.Lock()
	defer c.outMu.Unlock()
	if c.out == nil {
		return errors.New("not connected")
	}
	c.out.msgs = append(c.out.msgs, msg)
	select {
	case c.out.ready <- struct{}{}:
	default:
	}
	return nil
}

// write sends one message on the stream now.
func (c *Client) write(stream pb.BotService_ConnectClient, msg *pb.ConnectRequest) error {
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	return stream.Send(msg)
}

// writeLoop is the stream's one writer: it sends what is queued, the replies queued together as
// one ReplyBatch when the Welcome agreed to batching. It returns when the stream ends.
func (c *Client) writeLoop(ctx context.Context, stream pb.BotService_ConnectClient, out *outbox) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-out.ready:
		}
		runtime.Gosched() // let the replies being chosen now join these
		c.outMu.Lock()
		pending := out.msgs
		out.msgs = nil
		c.outMu.Unlock()
		for _, msg := range Pack(pending, c.batching.Load()) {
			if err := c.write(stream, msg); err != nil {
				c.log.Printf("write failed: %v", err)
				return
			}
			if msg.GetBatch() != nil {
				c.mu.Lock()
				c.stats.BatchesSent++
				c.mu.Unlock()
			}
		}
	}
}

// Pack returns the messages to send for pending: with batching, each run of two or more
// consecutive replies becomes one ReplyBatch; without, pending unchanged.
func Pack(pending []*pb.ConnectRequest, batching bool) []*pb.ConnectRequest {
	if !batching || len(pending) < 2 {
		return pending
	}
	packed := make([]*pb.ConnectRequest, 0, len(pending))
	var run []*pb.ConnectRequest // consecutive replies
	flush := func() {
		if len(run) == 1 {
			packed = append(packed, run[0])
		} else if len(run) > 1 {
			replies := make([]*pb.ActionReply, len(run))
			for i, msg := range run {
				replies[i] = msg.GetActionReply()
			}
			packed = append(packed, &pb.ConnectRequest{Message: &pb.ConnectRequest_Batch{Batch: &pb.ReplyBatch{Replies: replies}}})
		}
		run = nil
	}
	for _, msg := range pending {
		if msg.GetActionReply() != nil {
			run = append(run, msg)
			continue
		}
		flush()
		packed = append(packed, msg)
	}
	flush()
	return packed
}

func infoOf(j *pb.TableJoined) TableInfo {
	return TableInfo{TableID: j.GetTableId(), Seat: j.GetSeat(), Ruleset: j.GetRuleset(), Seats: j.GetSeats(),
		TimeControl: j.GetTimeControl(), GameNumber: j.GetGameNumber(), BotSeed: j.GetBotSeed()}
}

// join returns the table's state, creating it (and its worker) on first sight. Call with c.mu held.
func (c *Client) join(j *pb.TableJoined) *table {
	if t, ok := c.tables[j.GetTableId()]; ok {
		info := infoOf(j)
		t.work <- func() { t.info = info }
		return t
	}
	t := &table{info: infoOf(j), work: make(chan func(), 4096), done: make(chan struct{})}
	t.bot = c.factory(&t.info)
	c.tables[j.GetTableId()] = t
	c.stats.TablesJoined++
	go func() {
		defer close(t.done)
		for fn := range t.work {
			fn()
		}
	}()
	return t
}

func (c *Client) dispatch(msg *pb.ConnectResponse) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch m := msg.GetMessage().(type) {
	case *pb.ConnectResponse_Welcome:
		w := m.Welcome
		if !w.GetResumed() {
			for _, t := range c.tables {
				close(t.work)
			}
			c.tables = map[string]*table{}
		}
		c.welcome = w
		verb := "connected"
		if w.GetResumed() {
			c.stats.Resumes++
			verb = "resumed"
		}
		c.log.Printf("%s: session %s on %s", verb, w.GetSessionId(), c.opts.Server)
	case *pb.ConnectResponse_TableJoined:
		t := c.join(m.TableJoined)
		if h, ok := t.bot.(JoinHandler); ok {
			t.work <- func() { h.OnJoined(&t.info) }
		}
	case *pb.ConnectResponse_TableSnapshot:
		snap := m.TableSnapshot
		if snap.GetTable() == nil {
			return
		}
		t := c.join(snap.GetTable())
		for _, e := range snap.GetMissedEvents() {
			t.lastSeq = max(t.lastSeq, e.GetEvent().GetSeq())
		}
		t.work <- func() {
			if h, ok := t.bot.(SnapshotHandler); ok {
				h.OnSnapshot(snap, &t.info)
			}
			if h, ok := t.bot.(EventHandler); ok {
				for _, e := range snap.GetMissedEvents() {
					if e.GetEvent() != nil {
						h.OnEvent(e.GetEvent(), &t.info)
					}
				}
			}
		}
	case *pb.ConnectResponse_Event:
		t, ok := c.tables[m.Event.GetTableId()]
		ev := m.Event.GetEvent()
		if !ok || ev == nil {
			return
		}
		t.lastSeq = max(t.lastSeq, ev.GetSeq())
		if h, ok := t.bot.(EventHandler); ok {
			t.work <- func() { h.OnEvent(ev, &t.info) }
		}
	case *pb.ConnectResponse_ActionRequest:
		req := m.ActionRequest
		t, ok := c.tables[req.GetTableId()]
		if !ok { // a request for a table never announced (should not happen): play it anyway
			t = c.join(&pb.TableJoined{TableId: req.GetTableId(), Seat: req.GetSeat(), Ruleset: req.GetObservation().GetRuleset()})
		}
		t.work <- func() { c.answer(t, req) }
	case *pb.ConnectResponse_ActionRejected:
		r := m.ActionRejected
		c.stats.Rejections++
		c.log.Printf("table %s: action rejected (%s): %s [request %d]", r.GetTableId(), r.GetReason(), r.GetMessage(), r.GetRequestId())
		if t, ok := c.tables[r.GetTableId()]; ok {
			if h, ok := t.bot.(RejectionHandler); ok {
				t.work <- func() { h.OnRejected(r, &t.info) }
			}
		}
	case *pb.ConnectResponse_TableFinished:
		f := m.TableFinished
		res := f.GetResult()
		c.log.Printf("table %s: finished (%s), seat %d, scores %v, winners %v", f.GetTableId(),
			res.GetReason(), f.GetSeat(), res.GetScores(), res.GetWinners())
		c.stats.TablesFinished++
		c.stats.Results = append(c.stats.Results, TableResult{f.GetTableId(), f.GetSeat(), res})
		if t, ok := c.tables[f.GetTableId()]; ok {
			if h, ok := t.bot.(FinishHandler); ok {
				t.work <- func() { h.OnFinished(res, &t.info) }
			}
			close(t.work)
			delete(c.tables, f.GetTableId())
			if c.opts.MaxGames > 0 && c.stats.TablesFinished >= c.opts.MaxGames {
				cancel := c.cancel
				go func() { <-t.done; cancel() }()
			}
		} else if c.opts.MaxGames > 0 && c.stats.TablesFinished >= c.opts.MaxGames {
			c.cancel()
		}
	case *pb.ConnectResponse_Pong:
	}
}

func (c *Client) answer(t *table, req *pb.ActionRequest) {
	legal := req.GetLegalActions()
	budget := time.Duration(req.GetDeadlineMs()+req.GetBankMs()) * time.Millisecond
	if budget <= 0 {
		budget = time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	action, err := c.act(ctx, t, req)
	var mark *pb.Fallback
	fallback := func(why string) {
		c.log.Printf("table %s: %s; playing a legal fallback", t.info.TableID, why)
		c.mu.Lock()
		c.stats.Fallbacks++
		c.mu.Unlock()
		action = FirstLegal(legal)
		mark = FallbackMark(why)
	}
	if err != nil {
		fallback(fmt.Sprintf("act failed: %v", err))
	} else if action == nil {
		fallback("act returned no action")
	} else if !c.opts.Strict {
		if err := CheckLegal(action, legal); err != nil {
			fallback(fmt.Sprintf("act returned the illegal action %s: %v", ActionString(action), err))
		}
	}
	if action == nil {
		c.log.Printf("table %s: no legal action in request %d", t.info.TableID, req.GetRequestId())
		return
	}
	var note *pb.BotNote
	if noter, ok := t.bot.(Noter); ok && mark == nil {
		if n := c.note(noter); n != nil {
			if note, err = n.Proto(); err != nil {
				c.log.Printf("table %s: the bot's note was not sent: %v", t.info.TableID, err)
			}
		}
	}
	if err := c.send(&pb.ConnectRequest{Message: &pb.ConnectRequest_ActionReply{ActionReply: &pb.ActionReply{
		TableId: req.GetTableId(), RequestId: req.GetRequestId(), Action: action, Note: note, Fallback: mark,
	}}}); err != nil {
		c.log.Printf("table %s: reply to request %d not sent: %v", t.info.TableID, req.GetRequestId(), err)
		return
	}
	c.mu.Lock()
	c.stats.ActionsSent++
	c.mu.Unlock()
}

// note asks the bot for its note, a panic counting as none.
func (c *Client) note(noter Noter) (n *Note) {
	defer func() {
		if r := recover(); r != nil {
			c.log.Printf("the bot's Note panicked: %v", r)
			n = nil
		}
	}()
	return noter.Note()
}

// act calls the bot, turning a panic into an error so that one bad table cannot kill the process.
func (c *Client) act(ctx context.Context, t *table, req *pb.ActionRequest) (action *pb.Action, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panicked: %v", r)
		}
	}()
	return t.bot.Act(ctx, req, &t.info)
}

// Summary is the counts of the kit contract's summary line (docs/dev/kit-contract.md):
// "games=G actions=A fallbacks=F rejections=R reconnects=C resumes=S …".
func (s Stats) Summary() string {
	return fmt.Sprintf("games=%d actions=%d fallbacks=%d rejections=%d reconnects=%d resumes=%d batches_received=%d batches_sent=%d",
		s.TablesFinished, s.ActionsSent, s.Fallbacks, s.Rejections, s.Reconnects, s.Resumes, s.BatchesReceived, s.BatchesSent)
}
