package rookery

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	pb "rookery/kit/gen/rookery/v1"
)

// Suits lists the four suits in their proto order.
var Suits = []pb.Suit{pb.Suit_SUIT_BLACK, pb.Suit_SUIT_RED, pb.Suit_SUIT_YELLOW, pb.Suit_SUIT_GREEN}

var suitLetters = map[pb.Suit]string{
	pb.Suit_SUIT_BLACK: "B", pb.Suit_SUIT_RED: "R", pb.Suit_SUIT_YELLOW: "Y", pb.Suit_SUIT_GREEN: "G",
}

// CardParseError reports a card text that is not "B1"…"G14", "ROOK" or "ROOK2".
type CardParseError struct {
	Text   string
	Reason string
}

func (e *CardParseError) Error() string {
	return fmt.Sprintf("cannot parse card %q: %s (expected B1…G14, ROOK or ROOK2)", e.Text, e.Reason)
}

// NewCard returns a numbered card.
func NewCard(suit pb.Suit, rank uint32) *pb.Card { return &pb.Card{Suit: suit, Rank: rank} }

// RookCard returns a Rook card: 1 for ROOK, 2 for ROOK2.
func RookCard(which uint32) *pb.Card { return &pb.Card{Rook: which} }

// IsRook tells whether a card is a Rook card.
func IsRook(c *pb.Card) bool { return c.GetRook() > 0 }

// SuitLetter returns "B", "R", "Y" or "G" ("?" for anything else).
func SuitLetter(s pb.Suit) string {
	if l, ok := suitLetters[s]; ok {
		return l
	}
	return "?"
}

// ParseSuit parses a suit letter (case-insensitive).
func ParseSuit(text string) (pb.Suit, error) {
	t := strings.ToUpper(strings.TrimSpace(text))
	for s, l := range suitLetters {
		if l == t {
			return s, nil
		}
	}
	return pb.Suit_SUIT_UNSPECIFIED, &CardParseError{text, "unknown suit letter"}
}

// CardString returns a card's text form: "B1"…"G14", "ROOK", "ROOK2".
func CardString(c *pb.Card) string {
	switch {
	case c == nil:
		return "(no card)"
	case c.GetRook() == 1:
		return "ROOK"
	case c.GetRook() > 1:
		return fmt.Sprintf("ROOK%d", c.GetRook())
	}
	return SuitLetter(c.GetSuit()) + strconv.Itoa(int(c.GetRank()))
}

// CardsString joins the text forms of cards with spaces.
func CardsString(cards []*pb.Card) string {
	parts := make([]string, len(cards))
	for i, c := range cards {
		parts[i] = CardString(c)
	}
	return strings.Join(parts, " ")
}

var cardPattern = regexp.MustCompile(`^([BRYG])(\d{1,2})$`)

// ParseCard parses a card's text form (case-insensitive).
func ParseCard(text string) (*pb.Card, error) {
	t := strings.ToUpper(strings.TrimSpace(text))
	switch t {
	case "ROOK", "ROOK1":
		return RookCard(1), nil
	case "ROOK2":
		return RookCard(2), nil
	}
	m := cardPattern.FindStringSubmatch(t)
	if m == nil {
		return nil, &CardParseError{text, "not a card"}
	}
	rank, _ := strconv.Atoi(m[2])
	if rank < 1 || rank > 14 {
		return nil, &CardParseError{text, "rank outside 1..14"}
	}
	suit, _ := ParseSuit(m[1])
	return NewCard(suit, uint32(rank)), nil
}

// ParseCards parses a space- or comma-separated list of cards.
func ParseCards(text string) ([]*pb.Card, error) {
	fields := strings.FieldsFunc(text, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' || r == '\n' })
	cards := make([]*pb.Card, 0, len(fields))
	for _, f := range fields {
		c, err := ParseCard(f)
		if err != nil {
			return nil, err
		}
		cards = append(cards, c)
	}
	return cards, nil
}

// MustParseCards is ParseCards for literals in code and tests; it panics on a bad card.
func MustParseCards(text string) []*pb.Card {
	cards, err := ParseCards(text)
	if err != nil {
		panic(err)
	}
	return cards
}

// SameCard tells whether two cards are the same card.
func SameCard(a, b *pb.Card) bool {
	if a.GetRook() != b.GetRook() {
		return false
	}
	return a.GetRook() > 0 || (a.GetSuit() == b.GetSuit() && a.GetRank() == b.GetRank())
}

// ContainsCard tells whether cards holds c.
func ContainsCard(cards []*pb.Card, c *pb.Card) bool {
	for _, x := range cards {
		if SameCard(x, c) {
			return true
		}
	}
	return false
}

// Points is a card's point value (RULES.md §2): 5s 5, 10s and 14s 10, each Rook 20, others 0.
func Points(c *pb.Card) int {
	switch {
	case IsRook(c):
		return 20
	case c.GetRank() == 5:
		return 5
	case c.GetRank() == 10 || c.GetRank() == 14:
		return 10
	}
	return 0
}

// PointsOf sums the point values of cards.
func PointsOf(cards []*pb.Card) int {
	total := 0
	for _, c := range cards {
		total += Points(c)
	}
	return total
}

// EffectiveSuit is the suit a card belongs to in play: the Rook belongs to trump.
func EffectiveSuit(c *pb.Card, trump pb.Suit) pb.Suit {
	if IsRook(c) {
		return trump
	}
	return c.GetSuit()
}

// IsTrump tells whether a card is a trump (the Rook always is).
func IsTrump(c *pb.Card, trump pb.Suit) bool {
	return IsRook(c) || (trump != pb.Suit_SUIT_UNSPECIFIED && c.GetSuit() == trump)
}

// Strength orders cards within one suit; the Rook cards rank above trump 14, ROOK above ROOK2.
func Strength(c *pb.Card) int {
	if IsRook(c) {
		return 100 - int(c.GetRook())
	}
	return int(c.GetRank())
}

// Beats tells whether challenger, played after holder, takes the trick from it.
func Beats(challenger, holder *pb.Card, led, trump pb.Suit) bool {
	ct, ht := IsTrump(challenger, trump), IsTrump(holder, trump)
	if ct != ht {
		return ct
	}
	if !ct {
		if challenger.GetSuit() != led {
			return false
		}
		if holder.GetSuit() != led {
			return true
		}
	}
	return Strength(challenger) > Strength(holder)
}

// WinningIndex is the index of the card that wins a trick so far (the first card was led):
// the highest trump if any trump was played, else the highest card of the led suit; -1 if empty.
func WinningIndex(played []*pb.Card, trump pb.Suit) int {
	if len(played) == 0 {
		return -1
	}
	led := EffectiveSuit(played[0], trump)
	best := 0
	for i := 1; i < len(played); i++ {
		if Beats(played[i], played[best], led, trump) {
			best = i
		}
	}
	return best
}

// CountBySuit counts cards per effective suit (the Rook counts as trump when trump is given).
func CountBySuit(cards []*pb.Card, trump pb.Suit) map[pb.Suit]int {
	counts := map[pb.Suit]int{}
	for _, s := range Suits {
		counts[s] = 0
	}
	for _, c := range cards {
		if s := EffectiveSuit(c, trump); s != pb.Suit_SUIT_UNSPECIFIED {
			counts[s]++
		}
	}
	return counts
}
