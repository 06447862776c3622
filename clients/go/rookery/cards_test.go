package rookery

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	pb "rookery/kit/gen/rookery/v1"
)

func TestEveryCardTextFormRoundTrips(t *testing.T) {
	for _, s := range []string{"B", "R", "Y", "G"} {
		for r := 1; r <= 14; r++ {
			text := fmt.Sprintf("%s%d", s, r)
			c, err := ParseCard(text)
			if err != nil || CardString(c) != text {
				t.Fatalf("%s: got %v, %v", text, CardString(c), err)
			}
		}
	}
	for _, text := range []string{"ROOK", "ROOK2"} {
		if c, _ := ParseCard(strings.ToLower(text)); CardString(c) != text {
			t.Fatalf("%s round-trips to %s", text, CardString(c))
		}
	}
}

func TestBadCardTextsAreRefused(t *testing.T) {
	for _, bad := range []string{"", "X5", "B0", "B15", "ROOK3", "14G"} {
		_, err := ParseCard(bad)
		var perr *CardParseError
		if !errors.As(err, &perr) {
			t.Fatalf("%q: want a CardParseError, got %v", bad, err)
		}
	}
	if _, err := ParseCard("B15"); !strings.Contains(err.Error(), "rank outside 1..14") {
		t.Fatalf("unclear error: %v", err)
	}
}

func TestPointsAddUpTo120(t *testing.T) {
	var deck []string
	for _, s := range []string{"B", "R", "Y", "G"} {
		for r := 1; r <= 14; r++ {
			deck = append(deck, fmt.Sprintf("%s%d", s, r))
		}
	}
	deck = append(deck, "ROOK")
	if got := PointsOf(MustParseCards(strings.Join(deck, " "))); got != 120 {
		t.Fatalf("deck points = %d, want 120", got)
	}
	for text, want := range map[string]int{"R5": 5, "R10": 10, "R14": 10, "R13": 0, "ROOK": 20} {
		if got := PointsOf(MustParseCards(text)); got != want {
			t.Fatalf("%s = %d points, want %d", text, got, want)
		}
	}
}

func TestTrickWinner(t *testing.T) {
	cases := map[string]int{
		"B5 B14 G14 B2":   1, // highest of the led suit
		"B5 B14 R2 B2":    2, // a trump wins
		"B5 R14 ROOK B2":  2, // the Rook is the top trump
		"ROOK R14 R13 B2": 0,
		"R1 ROOK2 ROOK":   2,
	}
	for trick, want := range cases {
		if got := WinningIndex(MustParseCards(trick), pb.Suit_SUIT_RED); got != want {
			t.Errorf("%s: winner %d, want %d", trick, got, want)
		}
	}
}

func TestIllegalActionsAreExplained(t *testing.T) {
	legal := &pb.LegalActions{Phase: pb.Phase_PHASE_BIDDING, CanPass: true, Bids: []int32{70, 75}}
	if err := CheckLegal(Pass(), legal); err != nil {
		t.Fatal(err)
	}
	if err := CheckLegal(Bid(75), legal); err != nil {
		t.Fatal(err)
	}
	if err := CheckLegal(Bid(80), legal); err == nil || !errors.Is(err, ErrIllegalAction) || !strings.Contains(err.Error(), "[70 75]") {
		t.Fatalf("bid 80: %v", err)
	}
	if err := CheckLegal(PlayCard(MustParseCards("B1")[0]), legal); err == nil || !strings.Contains(err.Error(), "B1 may not be played") {
		t.Fatalf("play B1: %v", err)
	}
}
