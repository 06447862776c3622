package rookery

import (
	"errors"
	"fmt"
	"slices"

	pb "rookery/kit/gen/rookery/v1"
)

// Bid returns a bid action.
func Bid(amount int32) *pb.Action {
	return &pb.Action{Kind: &pb.Action_Bid{Bid: &pb.Bid{Amount: amount}}}
}

// Pass returns a pass action.
func Pass() *pb.Action { return &pb.Action{Kind: &pb.Action_Pass{Pass: &pb.Pass{}}} }

// NameTrump returns a name-trump action.
func NameTrump(suit pb.Suit) *pb.Action {
	return &pb.Action{Kind: &pb.Action_NameTrump{NameTrump: &pb.NameTrump{Suit: suit}}}
}

// Bury returns a bury action.
func Bury(cards []*pb.Card) *pb.Action {
	return &pb.Action{Kind: &pb.Action_Bury{Bury: &pb.BuryCards{Cards: cards}}}
}

// CallCard returns a call-card action.
func CallCard(c *pb.Card) *pb.Action {
	return &pb.Action{Kind: &pb.Action_CallCard{CallCard: &pb.CallCard{Card: c}}}
}

// PlayCard returns a play-card action.
func PlayCard(c *pb.Card) *pb.Action {
	return &pb.Action{Kind: &pb.Action_PlayCard{PlayCard: &pb.PlayCard{Card: c}}}
}

// ErrIllegalAction is wrapped by every error of CheckLegal.
var ErrIllegalAction = errors.New("illegal action")

func illegal(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrIllegalAction, fmt.Sprintf(format, args...))
}

// CheckLegal returns nil when action is among legal, else an error that says why not.
func CheckLegal(action *pb.Action, legal *pb.LegalActions) error {
	switch k := action.GetKind().(type) {
	case nil:
		return illegal("the action has no kind set")
	case *pb.Action_Pass:
		if !legal.GetCanPass() {
			return illegal("passing is not allowed now")
		}
	case *pb.Action_Bid:
		if !slices.Contains(legal.GetBids(), k.Bid.GetAmount()) {
			return illegal("bid %d is not among %v", k.Bid.GetAmount(), legal.GetBids())
		}
	case *pb.Action_NameTrump:
		if !slices.Contains(legal.GetTrumpSuits(), k.NameTrump.GetSuit()) {
			return illegal("%s may not be named trump now", k.NameTrump.GetSuit())
		}
	case *pb.Action_Bury:
		cards := k.Bury.GetCards()
		if legal.GetBuryCount() == 0 {
			return illegal("no bury is expected now")
		}
		if len(cards) != int(legal.GetBuryCount()) {
			return illegal("bury needs %d cards, got %d", legal.GetBuryCount(), len(cards))
		}
		for i, c := range cards {
			if !ContainsCard(legal.GetBuryCandidates(), c) {
				return illegal("%s may not be buried", CardString(c))
			}
			if ContainsCard(cards[:i], c) {
				return illegal("%s is buried twice", CardString(c))
			}
		}
	case *pb.Action_CallCard:
		if !ContainsCard(legal.GetCallableCards(), k.CallCard.GetCard()) {
			return illegal("%s may not be called", CardString(k.CallCard.GetCard()))
		}
	case *pb.Action_PlayCard:
		if !ContainsCard(legal.GetPlayableCards(), k.PlayCard.GetCard()) {
			return illegal("%s may not be played now", CardString(k.PlayCard.GetCard()))
		}
	}
	return nil
}

// FirstLegal returns a legal action chosen without thought: the fallback when a bot fails.
func FirstLegal(legal *pb.LegalActions) *pb.Action {
	switch {
	case legal.GetCanPass():
		return Pass()
	case len(legal.GetBids()) > 0:
		return Bid(legal.GetBids()[0])
	case len(legal.GetTrumpSuits()) > 0:
		return NameTrump(legal.GetTrumpSuits()[0])
	case legal.GetBuryCount() > 0 && len(legal.GetBuryCandidates()) >= int(legal.GetBuryCount()):
		return Bury(legal.GetBuryCandidates()[:legal.GetBuryCount()])
	case len(legal.GetCallableCards()) > 0:
		return CallCard(legal.GetCallableCards()[0])
	case len(legal.GetPlayableCards()) > 0:
		return PlayCard(legal.GetPlayableCards()[0])
	}
	return nil
}

// ActionString is a short text form of an action for logs: "bid 75", "pass", "play G14"…
func ActionString(action *pb.Action) string {
	switch k := action.GetKind().(type) {
	case *pb.Action_Bid:
		return fmt.Sprintf("bid %d", k.Bid.GetAmount())
	case *pb.Action_Pass:
		return "pass"
	case *pb.Action_NameTrump:
		return "trump " + SuitLetter(k.NameTrump.GetSuit())
	case *pb.Action_Bury:
		return "bury " + CardsString(k.Bury.GetCards())
	case *pb.Action_CallCard:
		return "call " + CardString(k.CallCard.GetCard())
	case *pb.Action_PlayCard:
		return "play " + CardString(k.PlayCard.GetCard())
	}
	return "(empty action)"
}
