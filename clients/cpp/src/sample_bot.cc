#include "rookery/sample_bot.h"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>

#include "rookery/actions.h"
#include "rookery/cards.h"

namespace rookery {

v1::Action SampleBot::Act(const v1::ActionRequest& request) {
  held_ = request.observation().hand_size();
  if (fault_ == "raise") throw std::runtime_error("the sample bot fails on purpose (ROOKERY_SAMPLE_FAULT=raise)");
  if (fault_ == "illegal") return BidAction(1);
  return Choose(request.observation(), request.legal_actions());
}

std::optional<Note> SampleBot::TakeNote() {
  std::string name = fault_ == "bad-note" ? "not a name!" : "hand_cards";
  return Note{"sample: cheapest winning card", {{name, static_cast<double>(held_)}}};
}

v1::Action Choose(const v1::Observation& obs, const v1::LegalActions& legal) {
  std::optional<v1::Action> chosen;
  switch (legal.phase()) {
    case v1::PHASE_BIDDING: chosen = ChooseBid(obs, legal); break;
    case v1::PHASE_NAME_TRUMP:
      if (auto s = ChooseTrump(obs, legal)) chosen = NameTrumpAction(*s);
      break;
    case v1::PHASE_BURY:
      if (auto cards = ChooseBury(obs, legal)) chosen = BuryAction(*cards);
      break;
    case v1::PHASE_CALL:
      if (auto c = ChooseCall(obs, legal)) chosen = CallCardAction(*c);
      break;
    case v1::PHASE_PLAY:
      if (auto c = ChoosePlay(obs, legal)) chosen = PlayCardAction(*c);
      break;
    default: break;
  }
  if (chosen && IsLegal(*chosen, legal)) return *chosen;
  return FirstLegal(legal).value_or(PassAction());
}

std::vector<v1::Card> HeldCards(const v1::Observation& obs) {
  std::vector<v1::Card> held;
  std::set<std::string> seen;
  for (const auto* cards : {&obs.hand(), &obs.nest()}) {
    for (const auto& c : *cards) {
      if (seen.insert(CardText(c)).second) held.push_back(c);
    }
  }
  return held;
}

v1::Action ChooseBid(const v1::Observation& obs, const v1::LegalActions& legal) {
  if (legal.bids_size() == 0) return PassAction();
  int lowest = legal.bids(0);
  if (!legal.can_pass()) return BidAction(lowest);
  int high = obs.high_bidder();
  if (high >= 0 && high != obs.seat() && SameSide(obs, obs.seat(), high)) return PassAction();
  int min_bid = obs.ruleset().min_bid() > 0 ? obs.ruleset().min_bid() : 70;
  int willing = min_bid + (TotalPoints(obs.hand()) - kOpeningPoints);
  return lowest <= willing ? BidAction(lowest) : PassAction();
}

std::optional<v1::Suit> ChooseTrump(const v1::Observation& obs, const v1::LegalActions& legal) {
  auto held = HeldCards(obs);
  std::optional<v1::Suit> best;
  std::pair<int, int> best_key{-1, -1};
  for (int s : legal.trump_suits()) {
    auto suit = static_cast<v1::Suit>(s);
    std::pair<int, int> key{0, 0};
    for (const auto& c : held) {
      if (c.rook() == 0 && c.suit() == suit) {
        key.first++;
        key.second += Points(c);
      }
    }
    if (key > best_key) {
      best = suit;
      best_key = key;
    }
  }
  return best;
}

std::optional<std::vector<v1::Card>> ChooseBury(const v1::Observation& obs, const v1::LegalActions& legal) {
  v1::Suit trump = obs.trump();
  std::vector<v1::Card> candidates(legal.bury_candidates().begin(), legal.bury_candidates().end());
  auto key = [&](const v1::Card& c) {
    return std::make_tuple(Points(c) > 0, IsTrump(c, trump), Points(c), c.rank(), static_cast<int>(c.suit()));
  };
  std::stable_sort(candidates.begin(), candidates.end(),
                   [&](const v1::Card& a, const v1::Card& b) { return key(a) < key(b); });
  int n = legal.bury_count();
  if (n <= 0 || static_cast<int>(candidates.size()) < n) return std::nullopt;
  candidates.resize(static_cast<size_t>(n));
  return candidates;
}

std::optional<v1::Card> ChooseCall(const v1::Observation& obs, const v1::LegalActions& legal) {
  v1::Suit trump = obs.trump();
  std::optional<v1::Card> best;
  std::tuple<int, int, int> best_key{-1, -1, -100};
  for (const auto& c : legal.callable_cards()) {
    std::tuple<int, int, int> key{CardStrength(c, trump), Points(c), -static_cast<int>(c.suit())};
    if (!best || key > best_key) {
      best = c;
      best_key = key;
    }
  }
  return best;
}

namespace {
// How much playing the card costs: its points, then whether it is a trump, then its strength.
std::tuple<int, bool, int, int> PlayCost(const v1::Card& c, v1::Suit trump) {
  return {Points(c), IsTrump(c, trump), CardStrength(c, trump), static_cast<int>(c.suit())};
}

template <typename Pred>
std::optional<v1::Card> Cheapest(const v1::LegalActions& legal, v1::Suit trump, Pred keep) {
  std::optional<v1::Card> best;
  for (const auto& c : legal.playable_cards()) {
    if (!keep(c)) continue;
    if (!best || PlayCost(c, trump) < PlayCost(*best, trump)) best = c;
  }
  return best;
}
}  // namespace

std::optional<v1::Card> ChoosePlay(const v1::Observation& obs, const v1::LegalActions& legal) {
  v1::Suit trump = obs.trump();
  auto any = [](const v1::Card&) { return true; };
  auto winner = TrickWinner(obs.current_trick(), trump);
  auto led = LedSuit(obs.current_trick(), trump);
  if (!winner || !led || SameSide(obs, obs.seat(), winner->seat())) return Cheapest(legal, trump, any);
  int to_beat = TrickStrength(winner->card(), *led, trump);
  auto cheapest_winner =
      Cheapest(legal, trump, [&](const v1::Card& c) { return TrickStrength(c, *led, trump) > to_beat; });
  return cheapest_winner ? cheapest_winner : Cheapest(legal, trump, any);
}

}  // namespace rookery
