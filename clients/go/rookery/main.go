package rookery

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"google.golang.org/grpc/codes"
)

// BotVersion is the version Main sends in its Hello (recorded in replays and results) when
// neither -version nor ROOKERY_BOT_VERSION gives one: set it in main before calling Main, or
// at link time with go build -ldflags "-X rookery/kit/rookery.BotVersion=1.2.0". Empty (no
// version recorded) by default.
var BotVersion string

// Main runs a bot from the command line and exits: flags (or the environment variables
// ROOKERY_SERVER, ROOKERY_BOT_NAME, ROOKERY_TOKEN, ROOKERY_BOT_VERSION) say where to connect,
// as whom and as which version.
func Main(factory BotFactory) {
	os.Exit(RunMain(factory, os.Args[1:]))
}

// RunMain is Main without the exit: it returns the exit code.
func RunMain(factory BotFactory, args []string) int {
	fs := flag.NewFlagSet("rookery-bot", flag.ContinueOnError)
	server := fs.String("server", "", "the server host:port (env ROOKERY_SERVER, default "+DefaultServer+")")
	name := fs.String("name", "", "the bot's name (env ROOKERY_BOT_NAME)")
	token := fs.String("token", "", "the bot's token in token mode (env ROOKERY_TOKEN)")
	version := fs.String("version", "", "the bot's version, sent in Hello (env ROOKERY_BOT_VERSION, default BotVersion: none)")
	maxTables := fs.Int("max-tables", envInt("ROOKERY_MAX_TABLES", 1), "tables to play at once per session (env ROOKERY_MAX_TABLES, default 1)")
	sessions := fs.Int("sessions", envInt("ROOKERY_SESSIONS", 1), "sessions to open, e.g. 2 to sit at two seats of one table (env ROOKERY_SESSIONS)")
	maxGames := fs.Int("games", 0, "exit after this many finished tables per session (0: run until stopped)")
	useTLS := fs.Bool("tls", false, "connect with TLS")
	batching := fs.Bool("batching", true, "offer batching: several messages per gRPC message both ways (-batching=false: every message alone)")
	noBatching := fs.Bool("no-batching", false, "send and receive every message alone (the same as -batching=false)")
	connectTimeout := fs.Float64("connect-timeout", 10, "seconds to wait for the server at start")
	quiet := fs.Bool("quiet", false, "log errors only")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: %s [flags]\n\nConnects to a Rookery server and plays every table it is seated at.\n\nflags:\n", os.Args[0])
		fs.PrintDefaults()
		fmt.Fprintln(fs.Output(), "\nexit codes: 0 done; 1 unexpected error; 2 bad arguments; 3 token rejected;\n"+
			"4 server unreachable; 5 session refused by the server (docs/dev/kit-contract.md)")
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *sessions < 1 || *maxTables < 1 || *maxGames < 0 || *connectTimeout <= 0 {
		fmt.Fprintln(os.Stderr, "rookery-bot: -sessions and -max-tables must be at least 1, -games at least 0, -connect-timeout more than 0")
		return 2
	}
	if *version == "" {
		*version = os.Getenv("ROOKERY_BOT_VERSION")
	}
	if *version == "" {
		*version = BotVersion
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	clients := make([]*Client, *sessions)
	for i := range clients {
		botName := *name
		if botName == "" {
			botName = os.Getenv("ROOKERY_BOT_NAME")
		}
		prefix := "[" + botName
		if *sessions > 1 {
			prefix += fmt.Sprintf("#%d", i)
		}
		logger := log.New(&filterWriter{quiet: *quiet}, prefix+"] ", log.Lmsgprefix)
		c, err := NewClient(factory, Options{Server: *server, Name: *name, Token: *token, Version: *version,
			MaxTables: int32(*maxTables), MaxGames: *maxGames, TLS: *useTLS, NoBatching: !*batching || *noBatching, Logger: logger,
			ConnectTimeout: time.Duration(*connectTimeout * float64(time.Second))})
		if err != nil {
			fmt.Fprintln(os.Stderr, "rookery-bot:", err)
			return 2
		}
		clients[i] = c
	}
	var wg sync.WaitGroup
	errs := make([]error, len(clients))
	total := Stats{}
	var mu sync.Mutex
	for i, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := c.Run(ctx)
			if err != nil {
				errs[i] = err
				stop() // one fatal error ends every session
			}
			mu.Lock()
			total.TablesFinished += s.TablesFinished
			total.ActionsSent += s.ActionsSent
			total.Rejections += s.Rejections
			total.Fallbacks += s.Fallbacks
			total.Reconnects += s.Reconnects
			total.Resumes += s.Resumes
			total.BatchesReceived += s.BatchesReceived
			total.BatchesSent += s.BatchesSent
			mu.Unlock()
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		fmt.Fprintln(os.Stderr, "rookery-bot:", err)
		return ExitCode(err)
	}
	// The kit contract's summary line (docs/dev/kit-contract.md), the same in every kit.
	fmt.Fprintf(os.Stderr, "[rookery] done: %s\n", total.Summary())
	return 0
}

// ExitCode is the kit contract's exit code for an error of Run: 3 token rejected, 4 server
// unreachable, 5 session refused, 1 anything else.
func ExitCode(err error) int {
	var fatal *FatalError
	if !errors.As(err, &fatal) {
		return 1
	}
	switch fatal.Code {
	case codes.Unauthenticated:
		return 3
	case codes.InvalidArgument, codes.ResourceExhausted, codes.PermissionDenied, codes.Unimplemented:
		return 5
	default:
		return 4
	}
}

// envInt reads a whole number from the environment, or returns fallback.
func envInt(name string, fallback int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return n
	}
	return fallback
}

// filterWriter passes every log line, or with quiet only the lines that report a problem.
type filterWriter struct{ quiet bool }

func (w *filterWriter) Write(p []byte) (int, error) {
	if w.quiet {
		line := string(p)
		keep := false
		for _, word := range []string{"rejected", "failed", "illegal", "refused", "cannot", "not sent", "fallback"} {
			keep = keep || strings.Contains(line, word)
		}
		if !keep {
			return len(p), nil
		}
	}
	return os.Stderr.Write(p)
}
