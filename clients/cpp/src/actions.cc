#include "rookery/actions.h"

#include <algorithm>
#include <set>

#include "rookery/cards.h"

namespace rookery {

Action BidAction(int amount) {
  Action a;
  a.mutable_bid()->set_amount(amount);
  return a;
}

Action PassAction() {
  Action a;
  a.mutable_pass();
  return a;
}

Action NameTrumpAction(v1::Suit suit) {
  Action a;
  a.mutable_name_trump()->set_suit(suit);
  return a;
}

Action BuryAction(const std::vector<v1::Card>& cards) {
  Action a;
  for (const auto& c : cards) *a.mutable_bury()->add_cards() = c;
  return a;
}

Action CallCardAction(const v1::Card& card) {
  Action a;
  *a.mutable_call_card()->mutable_card() = card;
  return a;
}

Action PlayCardAction(const v1::Card& card) {
  Action a;
  *a.mutable_play_card()->mutable_card() = card;
  return a;
}

namespace {
template <typename Cards>
bool Contains(const Cards& cards, const v1::Card& card) {
  return std::any_of(cards.begin(), cards.end(), [&](const v1::Card& c) { return SameCard(c, card); });
}
}  // namespace

bool IsLegal(const Action& action, const LegalActions& legal) {
  switch (action.kind_case()) {
    case Action::kPass: return legal.can_pass();
    case Action::kBid:
      return std::find(legal.bids().begin(), legal.bids().end(), action.bid().amount()) != legal.bids().end();
    case Action::kNameTrump:
      return std::find(legal.trump_suits().begin(), legal.trump_suits().end(), action.name_trump().suit()) !=
             legal.trump_suits().end();
    case Action::kBury: {
      std::set<std::string> texts;
      for (const auto& c : action.bury().cards()) {
        if (!Contains(legal.bury_candidates(), c) || !texts.insert(CardText(c)).second) return false;
      }
      return legal.bury_count() > 0 && action.bury().cards_size() == legal.bury_count();
    }
    case Action::kCallCard: return Contains(legal.callable_cards(), action.call_card().card());
    case Action::kPlayCard: return Contains(legal.playable_cards(), action.play_card().card());
    default: return false;
  }
}

std::optional<Action> FirstLegal(const LegalActions& legal) {
  if (legal.can_pass()) return PassAction();
  if (legal.bids_size() > 0) return BidAction(legal.bids(0));
  if (legal.trump_suits_size() > 0) return NameTrumpAction(legal.trump_suits(0));
  int n = legal.bury_count();
  if (n > 0 && legal.bury_candidates_size() >= n) {
    return BuryAction(std::vector<v1::Card>(legal.bury_candidates().begin(), legal.bury_candidates().begin() + n));
  }
  if (legal.callable_cards_size() > 0) return CallCardAction(legal.callable_cards(0));
  if (legal.playable_cards_size() > 0) return PlayCardAction(legal.playable_cards(0));
  return std::nullopt;
}

std::string ActionText(const Action& action) {
  switch (action.kind_case()) {
    case Action::kPass: return "pass";
    case Action::kBid: return "bid " + std::to_string(action.bid().amount());
    case Action::kNameTrump: return "trump " + SuitLetter(action.name_trump().suit());
    case Action::kBury: return "bury " + CardsText(action.bury().cards());
    case Action::kCallCard: return "call " + CardText(action.call_card().card());
    case Action::kPlayCard: return "play " + CardText(action.play_card().card());
    default: return "(no action)";
  }
}

bool SameAction(const Action& a, const Action& b) { return a.SerializeAsString() == b.SerializeAsString(); }

}  // namespace rookery
