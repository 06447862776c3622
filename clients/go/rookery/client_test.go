package rookery

import (
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "rookery/kit/gen/rookery/v1"
)

// scriptedServer plays one scripted stream per Connect call.
type scriptedServer struct {
	pb.UnimplementedBotServiceServer
	scripts []func(pb.BotService_ConnectServer) error
	calls   int
	errs    chan error
}

func (s *scriptedServer) Connect(stream pb.BotService_ConnectServer) error {
	if s.calls >= len(s.scripts) {
		return status.Error(codes.Unavailable, "no more scripts")
	}
	script := s.scripts[s.calls]
	s.calls++
	return script(stream)
}

func startServer(t *testing.T, s *scriptedServer) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	pb.RegisterBotServiceServer(srv, s)
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	return lis.Addr().String()
}

func recvHello(stream pb.BotService_ConnectServer) (*pb.Hello, error) {
	msg, err := stream.Recv()
	if err != nil {
		return nil, err
	}
	if msg.GetHello() == nil {
		return nil, fmt.Errorf("first message is not a Hello: %v", msg)
	}
	return msg.GetHello(), nil
}

func recvReply(stream pb.BotService_ConnectServer, requestID uint64) (*pb.ActionReply, error) {
	for {
		msg, err := stream.Recv()
		if err != nil {
			return nil, err
		}
		if r := msg.GetActionReply(); r != nil {
			if r.GetRequestId() != requestID {
				return nil, fmt.Errorf("reply to request %d, want %d", r.GetRequestId(), requestID)
			}
			return r, nil
		}
	}
}

func biddingRequest(id uint64) *pb.ConnectResponse {
	return &pb.ConnectResponse{Message: &pb.ConnectResponse_ActionRequest{ActionRequest: &pb.ActionRequest{
		TableId: "t1", RequestId: id, Seat: 1, DeadlineMs: 2000,
		Observation:  &pb.Observation{Seat: 1, Hand: MustParseCards("B1 B2 B3")},
		LegalActions: &pb.LegalActions{Phase: pb.Phase_PHASE_BIDDING, CanPass: true, Bids: []int32{70, 75}},
	}}}
}

func event(seq uint64) *pb.ConnectResponse {
	return &pb.ConnectResponse{Message: &pb.ConnectResponse_Event{Event: &pb.TableEvent{
		TableId: "t1", Event: &pb.Event{Seq: seq, Kind: &pb.Event_Passed{Passed: &pb.Passed{Seat: 0}}},
	}}}
}

// passBot passes whenever it may and records the events it sees.
type passBot struct{ seqs *[]uint64 }

func (b passBot) Act(_ context.Context, req *pb.ActionRequest, _ *TableInfo) (*pb.Action, error) {
	return FirstLegal(req.GetLegalActions()), nil
}

func (b passBot) OnEvent(ev *pb.Event, _ *TableInfo) { *b.seqs = append(*b.seqs, ev.GetSeq()) }

func TestClientAnswersRequestsThenResumesWithCursorsAfterADrop(t *testing.T) {
	check := make(chan error, 4)
	s := &scriptedServer{}
	s.scripts = append(s.scripts,
		func(stream pb.BotService_ConnectServer) error {
			hello, err := recvHello(stream)
			if err != nil {
				return err
			}
			if hello.GetName() != "kit" || hello.GetResume() != nil || hello.GetMaxTables() != 2 {
				check <- fmt.Errorf("unexpected first hello %v", hello)
			}
			for _, m := range []*pb.ConnectResponse{
				{Message: &pb.ConnectResponse_Welcome{Welcome: &pb.Welcome{SessionId: "s1", ResumeSecret: "x", GraceMs: 5000}}},
				{Message: &pb.ConnectResponse_TableJoined{TableJoined: &pb.TableJoined{TableId: "t1", Seat: 1}}},
				event(1), event(2), biddingRequest(7),
			} {
				if err := stream.Send(m); err != nil {
					return err
				}
			}
			if r, err := recvReply(stream, 7); err != nil || r.GetAction().GetPass() == nil {
				check <- fmt.Errorf("reply 7: %v %v", r, err)
			}
			return status.Error(codes.Unavailable, "network trouble")
		},
		func(stream pb.BotService_ConnectServer) error {
			hello, err := recvHello(stream)
			if err != nil {
				return err
			}
			r := hello.GetResume()
			if r.GetSessionId() != "s1" || r.GetResumeSecret() != "x" || len(r.GetCursors()) != 1 ||
				r.GetCursors()[0].GetTableId() != "t1" || r.GetCursors()[0].GetLastSeq() != 2 {
				check <- fmt.Errorf("unexpected resume %v", r)
			}
			for _, m := range []*pb.ConnectResponse{
				{Message: &pb.ConnectResponse_Welcome{Welcome: &pb.Welcome{SessionId: "s1", ResumeSecret: "x", Resumed: true}}},
				{Message: &pb.ConnectResponse_TableSnapshot{TableSnapshot: &pb.TableSnapshot{
					Table:        &pb.TableJoined{TableId: "t1", Seat: 1},
					MissedEvents: []*pb.TableEvent{event(3).GetEvent()},
				}}},
				biddingRequest(8),
			} {
				if err := stream.Send(m); err != nil {
					return err
				}
			}
			if _, err := recvReply(stream, 8); err != nil {
				check <- err
			}
			err = stream.Send(&pb.ConnectResponse{Message: &pb.ConnectResponse_TableFinished{TableFinished: &pb.TableFinished{
				TableId: "t1", Seat: 1, Result: &pb.GameResult{Reason: pb.TerminationReason_TERMINATION_REASON_TARGET_REACHED},
			}}})
			if err != nil {
				return err
			}
			_, err = stream.Recv() // wait for the client to leave
			if err != nil && err != io.EOF && status.Code(err) != codes.Canceled {
				return err
			}
			return nil
		},
	)
	addr := startServer(t, s)
	var seqs []uint64
	c, err := NewClient(func(*TableInfo) Bot { return passBot{&seqs} }, Options{
		Server: addr, Name: "kit", MaxTables: 2, MaxGames: 1, BackoffInitial: 10 * time.Millisecond,
		Logger: log.New(io.Discard, "", 0),
	})
	if err != nil {
		t.Fatal(err)
	}
	stats := runScripted(t, c, check, "one game")
	if stats.TablesFinished != 1 || stats.ActionsSent != 2 || stats.Reconnects != 1 || stats.Fallbacks != 0 {
		t.Fatalf("stats %+v", stats)
	}
	if fmt.Sprint(seqs) != "[1 2 3]" {
		t.Fatalf("events seen %v, want [1 2 3]", seqs)
	}
}

func TestClientStopsWithAClearErrorWhenRefused(t *testing.T) {
	s := &scriptedServer{scripts: []func(pb.BotService_ConnectServer) error{
		func(stream pb.BotService_ConnectServer) error {
			_, _ = recvHello(stream)
			return status.Error(codes.Unauthenticated, "bad token for bot kit")
		},
	}}
	addr := startServer(t, s)
	c, _ := NewClient(func(*TableInfo) Bot { return passBot{new([]uint64)} }, Options{
		Server: addr, Name: "kit", Logger: log.New(io.Discard, "", 0),
	})
	_, err := c.Run(context.Background())
	fe, ok := err.(*FatalError)
	if !ok || fe.Code != codes.Unauthenticated || fe.Error() != "the server refused the session: Unauthenticated: bad token for bot kit" {
		t.Fatalf("got %v", err)
	}
}

func requestAt(table string, id uint64) *pb.ConnectResponse {
	m := biddingRequest(id)
	m.GetActionRequest().TableId = table
	return m
}

func replyTo(table string, id uint64) *pb.ConnectRequest {
	return &pb.ConnectRequest{Message: &pb.ConnectRequest_ActionReply{ActionReply: &pb.ActionReply{TableId: table, RequestId: id}}}
}

func TestClientHandlesABatchInOrderAndAnswersEveryRequestInIt(t *testing.T) {
	check := make(chan error, 8)
	s := &scriptedServer{scripts: []func(pb.BotService_ConnectServer) error{
		func(stream pb.BotService_ConnectServer) error {
			hello, err := recvHello(stream)
			if err != nil {
				return err
			}
			if !hello.GetBatching() {
				check <- fmt.Errorf("the Hello does not offer batching: %v", hello)
			}
			if err := stream.Send(&pb.ConnectResponse{Message: &pb.ConnectResponse_Welcome{Welcome: &pb.Welcome{SessionId: "s1", Batching: true}}}); err != nil {
				return err
			}
			batch := &pb.ResponseBatch{Messages: []*pb.ConnectResponse{
				{Message: &pb.ConnectResponse_TableJoined{TableJoined: &pb.TableJoined{TableId: "t1", Seat: 1}}},
				{Message: &pb.ConnectResponse_TableJoined{TableJoined: &pb.TableJoined{TableId: "t2", Seat: 1}}},
				event(1), event(2), requestAt("t1", 7), requestAt("t2", 9),
			}}
			if err := stream.Send(&pb.ConnectResponse{Message: &pb.ConnectResponse_Batch{Batch: batch}}); err != nil {
				return err
			}
			answered := map[string]uint64{}
			for len(answered) < 2 {
				msg, err := stream.Recv()
				if err != nil {
					return err
				}
				replies := msg.GetBatch().GetReplies()
				if r := msg.GetActionReply(); r != nil {
					replies = append(replies, r)
				}
				for _, r := range replies {
					answered[r.GetTableId()] = r.GetRequestId()
				}
			}
			if answered["t1"] != 7 || answered["t2"] != 9 {
				check <- fmt.Errorf("replies %v, want t1: 7 and t2: 9", answered)
			}
			for _, id := range []string{"t1", "t2"} {
				if err := stream.Send(&pb.ConnectResponse{Message: &pb.ConnectResponse_TableFinished{TableFinished: &pb.TableFinished{TableId: id, Seat: 1}}}); err != nil {
					return err
				}
			}
			_, _ = stream.Recv() // wait for the client to leave
			return nil
		},
	}}
	addr := startServer(t, s)
	var seqs []uint64
	c, _ := NewClient(func(*TableInfo) Bot { return passBot{&seqs} }, Options{
		Server: addr, Name: "kit", MaxTables: 2, MaxGames: 2, Logger: log.New(io.Discard, "", 0),
	})
	stats := runScripted(t, c, check, "two games")
	if stats.BatchesReceived != 1 || stats.ActionsSent != 2 || stats.TablesFinished != 2 {
		t.Fatalf("stats %+v", stats)
	}
	if fmt.Sprint(seqs) != "[1 2]" {
		t.Fatalf("events seen %v, want [1 2]", seqs)
	}
}

func TestPackPutsRepliesReadyTogetherInOneReplyBatch(t *testing.T) {
	ping := &pb.ConnectRequest{Message: &pb.ConnectRequest_Ping{Ping: &pb.Ping{Nonce: 1}}}
	pending := []*pb.ConnectRequest{replyTo("t1", 1), replyTo("t2", 2), ping, replyTo("t3", 3)}

	packed := Pack(pending, true)

	if len(packed) != 3 || packed[1] != ping || packed[2] != pending[3] {
		t.Fatalf("packed %v", packed)
	}
	replies := packed[0].GetBatch().GetReplies()
	if len(replies) != 2 || replies[0].GetRequestId() != 1 || replies[1].GetRequestId() != 2 {
		t.Fatalf("first message %v, want a ReplyBatch of replies 1 and 2", packed[0])
	}
	if alone := Pack(pending, false); len(alone) != 4 || alone[0] != pending[0] {
		t.Fatalf("without batching: %v", alone)
	}
}

func TestNoBatchingLeavesHelloBatchingUnset(t *testing.T) {
	offered := make(chan bool, 1)
	s := &scriptedServer{scripts: []func(pb.BotService_ConnectServer) error{
		func(stream pb.BotService_ConnectServer) error {
			hello, err := recvHello(stream)
			if err != nil {
				return err
			}
			offered <- hello.GetBatching()
			return status.Error(codes.Unauthenticated, "done")
		},
	}}
	addr := startServer(t, s)
	c, _ := NewClient(func(*TableInfo) Bot { return passBot{new([]uint64)} }, Options{
		Server: addr, Name: "kit", NoBatching: true, Logger: log.New(io.Discard, "", 0),
	})
	_, _ = c.Run(context.Background())
	if <-offered {
		t.Fatal("the Hello offers batching with NoBatching set")
	}
}

// runScripted runs c against a scripted server until it stops by itself (within 10 s), reports
// every problem the server noted on check, and returns the client's stats.
func runScripted(t *testing.T, c *Client, check chan error, games string) Stats {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	stats, err := c.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	close(check)
	for e := range check {
		t.Error(e)
	}
	if ctx.Err() != nil {
		t.Fatalf("the client did not stop after its %s", games)
	}
	return stats
}
