// Package samplebot is the kit's sample strategy: simple, legal and non-random. Replace
// ChooseAction with your own logic (or write a new rookery.Bot).
//
//   - bid: the minimum legal bid while it is at most 10 + counted points in hand + 5 × the length
//     of the longest suit; otherwise pass;
//   - trump: the longest suit (ties: more points, then higher cards, then B, R, Y, G);
//   - bury: the cheapest cards — non-trump before trump, no points before points, low before high;
//   - call (called-partner): the highest card not held, the Rook first, then trump 14 downwards;
//   - play: if partner is winning the trick, the cheapest card; else the cheapest card that takes
//     the trick; else the cheapest card.
//
// Every choice is taken from the request's LegalActions, so the bot never sends an illegal action.
package samplebot

import (
	"context"
	"errors"
	"os"
	"slices"

	pb "rookery/kit/gen/rookery/v1"
	"rookery/kit/rookery"
)

// BidLimit is the highest bid the sample bot makes with a hand.
func BidLimit(hand []*pb.Card) int32 {
	longest := 0
	for _, n := range rookery.CountBySuit(hand, pb.Suit_SUIT_UNSPECIFIED) {
		longest = max(longest, n)
	}
	return int32(10 + rookery.PointsOf(hand) + 5*longest)
}

// ChooseBid bids the lowest legal amount if it is within BidLimit (or passing is not allowed).
func ChooseBid(hand []*pb.Card, legal *pb.LegalActions) *pb.Action {
	if bids := legal.GetBids(); len(bids) > 0 && (bids[0] <= BidLimit(hand) || !legal.GetCanPass()) {
		return rookery.Bid(bids[0])
	}
	return rookery.Pass()
}

// ChooseTrump names the longest suit; ties go to more points, then higher ranks, then suit order.
func ChooseTrump(hand []*pb.Card, allowed []pb.Suit) pb.Suit {
	score := func(s pb.Suit) [3]int {
		var r [3]int
		for _, c := range hand {
			if !rookery.IsRook(c) && c.GetSuit() == s {
				r[0]++
				r[1] += rookery.Points(c)
				r[2] += int(c.GetRank())
			}
		}
		return r
	}
	best := allowed[0]
	for _, s := range allowed[1:] {
		a, b := score(s), score(best)
		if a[0] > b[0] || (a[0] == b[0] && (a[1] > b[1] || (a[1] == b[1] && a[2] > b[2]))) {
			best = s
		}
	}
	return best
}

// cost orders cards by how cheap they are to give away: trump last, points late, low ranks first.
func cost(c *pb.Card, trump pb.Suit) int {
	n := rookery.Points(c)*100 + rookery.Strength(c)
	if rookery.IsTrump(c, trump) {
		n += 10000
	}
	return n
}

func cheapest(cards []*pb.Card, trump pb.Suit) *pb.Card {
	best := cards[0]
	for _, c := range cards[1:] {
		if cost(c, trump) < cost(best, trump) {
			best = c
		}
	}
	return best
}

// ChooseBury buries the count cheapest candidates.
func ChooseBury(candidates []*pb.Card, count int, trump pb.Suit) []*pb.Card {
	sorted := slices.Clone(candidates)
	slices.SortStableFunc(sorted, func(a, b *pb.Card) int { return cost(a, trump) - cost(b, trump) })
	return sorted[:count]
}

func callPower(c *pb.Card, trump pb.Suit) int {
	if rookery.IsRook(c) {
		return 1000 - int(c.GetRook())
	}
	if c.GetSuit() == trump {
		return 100 + int(c.GetRank())
	}
	return int(c.GetRank())
}

// ChooseCall calls the highest card not held: the Rook cards, then trump 14 down, then 14s.
func ChooseCall(callable []*pb.Card, trump pb.Suit) *pb.Card {
	best := callable[0]
	for _, c := range callable[1:] {
		if callPower(c, trump) > callPower(best, trump) {
			best = c
		}
	}
	return best
}

// sameSide tells whether seat other plays on seat's side, as far as obs shows.
func sameSide(obs *pb.Observation, seat, other int32) bool {
	if seat == other {
		return true
	}
	if obs.GetRuleset().GetPartnership() == pb.Partnership_PARTNERSHIP_CALLED {
		p, b := obs.GetPartner(), obs.GetBidder()
		return p >= 0 && b >= 0 && (seat == p || seat == b) && (other == p || other == b)
	}
	sides := obs.GetSides()
	return int(max(seat, other)) < len(sides) && sides[seat] == sides[other]
}

// ChoosePlay plays the cheapest card when partner is winning or no card can win; else the
// cheapest card that takes the trick.
func ChoosePlay(obs *pb.Observation, playable []*pb.Card) *pb.Card {
	trump := obs.GetTrump()
	trick := obs.GetCurrentTrick().GetCards()
	if len(trick) == 0 {
		return cheapest(playable, trump)
	}
	played := make([]*pb.Card, len(trick))
	for i, p := range trick {
		played[i] = p.GetCard()
	}
	if winner := trick[rookery.WinningIndex(played, trump)].GetSeat(); sameSide(obs, obs.GetSeat(), winner) {
		return cheapest(playable, trump)
	}
	var winners []*pb.Card
	for _, c := range playable {
		if rookery.WinningIndex(append(slices.Clone(played), c), trump) == len(played) {
			winners = append(winners, c)
		}
	}
	if len(winners) > 0 {
		return cheapest(winners, trump)
	}
	return cheapest(playable, trump)
}

// HeldCards is the seat's hand plus the nest while the bidder holds it.
func HeldCards(obs *pb.Observation) []*pb.Card {
	held := slices.Clone(obs.GetHand())
	for _, c := range obs.GetNest() {
		if !rookery.ContainsCard(held, c) {
			held = append(held, c)
		}
	}
	return held
}

// ChooseAction is the whole strategy: one legal action for the request, from its observation alone.
func ChooseAction(req *pb.ActionRequest) (*pb.Action, error) {
	legal, obs := req.GetLegalActions(), req.GetObservation()
	if legal == nil || obs == nil {
		return nil, errors.New("request without observation or legal actions")
	}
	hand := HeldCards(obs)
	switch {
	case legal.GetCanPass() || len(legal.GetBids()) > 0:
		return ChooseBid(hand, legal), nil
	case len(legal.GetTrumpSuits()) > 0:
		return rookery.NameTrump(ChooseTrump(hand, legal.GetTrumpSuits())), nil
	case legal.GetBuryCount() > 0:
		return rookery.Bury(ChooseBury(legal.GetBuryCandidates(), int(legal.GetBuryCount()), obs.GetTrump())), nil
	case len(legal.GetCallableCards()) > 0:
		return rookery.CallCard(ChooseCall(legal.GetCallableCards(), obs.GetTrump())), nil
	case len(legal.GetPlayableCards()) > 0:
		return rookery.PlayCard(ChoosePlay(obs, legal.GetPlayableCards())), nil
	}
	if a := rookery.FirstLegal(legal); a != nil {
		return a, nil
	}
	return nil, errors.New("no legal action offered")
}

// Bot is the sample bot. It acts on each request's observation alone and notes how many cards it
// held. Fault (from ROOKERY_SAMPLE_FAULT) makes it fail on purpose, to show what the kit does then
// (docs/dev/kit-contract.md): "raise" panics in Act, "illegal" returns an illegal bid, "bad-note"
// attaches a note the kit must refuse.
type Bot struct {
	Fault string
	held  int
}

// New returns a sample bot with the failure ROOKERY_SAMPLE_FAULT names, if any; use it as a
// rookery.BotFactory: func(*rookery.TableInfo) rookery.Bot { return samplebot.New() }.
func New() *Bot { return &Bot{Fault: os.Getenv("ROOKERY_SAMPLE_FAULT")} }

// Act implements rookery.Bot.
func (b *Bot) Act(_ context.Context, req *pb.ActionRequest, _ *rookery.TableInfo) (*pb.Action, error) {
	b.held = len(req.GetObservation().GetHand())
	switch b.Fault {
	case "raise":
		panic("the sample bot fails on purpose (ROOKERY_SAMPLE_FAULT=raise)")
	case "illegal":
		return rookery.Bid(1), nil
	}
	return ChooseAction(req)
}

// Note implements rookery.Noter: the note on the action Act just returned.
func (b *Bot) Note() *rookery.Note {
	name := "hand_cards"
	if b.Fault == "bad-note" {
		name = "not a name!"
	}
	return &rookery.Note{Text: "sample: cheapest winning card", Values: map[string]float64{name: float64(b.held)}}
}
