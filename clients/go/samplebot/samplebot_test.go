package samplebot

import (
	"sort"
	"strings"
	"testing"

	pb "rookery/kit/gen/rookery/v1"
	"rookery/kit/rookery"
)

var cards = rookery.MustParseCards

func request(obs *pb.Observation, legal *pb.LegalActions) *pb.ActionRequest {
	if obs.Sides == nil {
		obs.Sides = []int32{0, 1, 0, 1}
	}
	return &pb.ActionRequest{TableId: "t", RequestId: 1, Seat: obs.Seat, Observation: obs, LegalActions: legal}
}

func TestBidsTheMinimumWithAStrongHandAndPassesWithAWeakOne(t *testing.T) {
	strong := cards("ROOK R14 R10 R5 R13 R12 R11 B14 B10 G5 Y1 Y2 Y3")
	weak := cards("B2 B3 B4 R2 R3 R4 Y2 Y3 Y4 G2 G3 G4 G6")
	if got := BidLimit(weak); got != 30 {
		t.Fatalf("weak limit %d", got)
	}
	legal := &pb.LegalActions{Phase: pb.Phase_PHASE_BIDDING, CanPass: true, Bids: []int32{70, 75, 80}}
	if a, _ := ChooseAction(request(&pb.Observation{Hand: strong}, legal)); a.GetBid().GetAmount() != 70 {
		t.Fatalf("strong hand: %s", rookery.ActionString(a))
	}
	if a, _ := ChooseAction(request(&pb.Observation{Hand: weak}, legal)); a.GetPass() == nil {
		t.Fatalf("weak hand: %s", rookery.ActionString(a))
	}
}

func TestNamesTheLongestSuitTrump(t *testing.T) {
	hand := cards("G2 G3 G4 G6 G7 B14 B10 R5 Y1")
	if got := ChooseTrump(hand, rookery.Suits); got != pb.Suit_SUIT_GREEN {
		t.Fatalf("trump %s", got)
	}
}

func TestBuriesTheLowestNonPointNonTrumpCards(t *testing.T) {
	got := ChooseBury(cards("ROOK R2 R14 B5 B2 B3 G10 G4 Y13 Y1"), 5, pb.Suit_SUIT_RED)
	texts := []string{}
	for _, c := range got {
		texts = append(texts, rookery.CardString(c))
	}
	sort.Strings(texts)
	if got, want := strings.Join(texts, " "), "B2 B3 G4 Y1 Y13"; got != want {
		t.Fatalf("buried %s, want %s", got, want)
	}
}

func TestCallsTheHighestCardNotHeld(t *testing.T) {
	if got := ChooseCall(cards("B14 ROOK R14"), pb.Suit_SUIT_RED); !rookery.IsRook(got) {
		t.Fatalf("called %s", rookery.CardString(got))
	}
	if got := ChooseCall(cards("B14 R13 G14"), pb.Suit_SUIT_RED); rookery.CardString(got) != "R13" {
		t.Fatalf("called %s", rookery.CardString(got))
	}
}

func trick(leader int32, texts string) *pb.Trick {
	tr := &pb.Trick{Leader: leader, Winner: -1}
	for i, c := range cards(texts) {
		tr.Cards = append(tr.Cards, &pb.PlayedCard{Seat: (leader + int32(i)) % 4, Card: c})
	}
	return tr
}

func TestPlaysTheCheapestWinningCardElseTheCheapestAndDoesNotOvertakePartner(t *testing.T) {
	sides := []int32{0, 1, 0, 1}
	cases := []struct {
		trick    *pb.Trick
		playable string
		want     string
	}{
		{trick(3, "B10"), "B2 B11 B14", "B11"},
		{trick(3, "B14"), "B2 B5 B11", "B2"},
		{trick(2, "B9 B13"), "G2 R3 R14", "R3"}, // opponent winning, void: cheapest trump
		{trick(2, "B13 B9"), "G2 R3 G14", "G2"}, // partner winning: cheapest card
	}
	for _, tc := range cases {
		obs := &pb.Observation{Seat: 0, Trump: pb.Suit_SUIT_RED, Sides: sides, CurrentTrick: tc.trick}
		if got := rookery.CardString(ChoosePlay(obs, cards(tc.playable))); got != tc.want {
			t.Errorf("trick %v: played %s, want %s", rookery.CardsString(cardsOf(tc.trick)), got, tc.want)
		}
	}
}

func cardsOf(tr *pb.Trick) []*pb.Card {
	var out []*pb.Card
	for _, p := range tr.GetCards() {
		out = append(out, p.GetCard())
	}
	return out
}

func TestEveryChoiceIsLegal(t *testing.T) {
	hand := cards("ROOK R14 R10 R5 R13 B2 B3 G5 Y1 Y2 Y3 G9 G11")
	nest := cards("B4 B6 Y4 Y6 G12")
	all := append(append([]*pb.Card{}, hand...), nest...)
	cases := []struct {
		obs   *pb.Observation
		legal *pb.LegalActions
	}{
		{&pb.Observation{Hand: hand}, &pb.LegalActions{Phase: pb.Phase_PHASE_BIDDING, Bids: []int32{70}}},
		{&pb.Observation{Hand: hand, Nest: nest}, &pb.LegalActions{Phase: pb.Phase_PHASE_NAME_TRUMP, TrumpSuits: []pb.Suit{pb.Suit_SUIT_BLACK, pb.Suit_SUIT_RED}}},
		{&pb.Observation{Hand: hand, Nest: nest, Trump: pb.Suit_SUIT_RED}, &pb.LegalActions{Phase: pb.Phase_PHASE_BURY, BuryCandidates: all, BuryCount: 5}},
		{&pb.Observation{Hand: hand, Trump: pb.Suit_SUIT_RED}, &pb.LegalActions{Phase: pb.Phase_PHASE_CALL, CallableCards: cards("B14 G14")}},
		{&pb.Observation{Hand: hand, Trump: pb.Suit_SUIT_RED}, &pb.LegalActions{Phase: pb.Phase_PHASE_PLAY, PlayableCards: cards("B2 B3")}},
	}
	for _, tc := range cases {
		a, err := ChooseAction(request(tc.obs, tc.legal))
		if err != nil {
			t.Fatal(err)
		}
		if err := rookery.CheckLegal(a, tc.legal); err != nil {
			t.Errorf("%s: %v", tc.legal.GetPhase(), err)
		}
	}
}
