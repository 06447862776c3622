// The sample bot's strategy: simple, legal and deterministic. Replace it with your own.
//
// - Bid: count the points in hand; bid the minimum legal amount while it is at most
//   min_bid + (points - 30), never over a partner's bid; otherwise pass.
// - Trump: the longest suit in hand (nest included), ties to the most points, then the first.
// - Bury: the lowest non-point, non-trump cards first.
// - Call (called-partner): the highest card not held (the Rook first, then trumps).
// - Play: the cheapest card that wins the trick; the cheapest card when none does, when leading,
//   or when the partner is already winning.
//
// Every choice is made from the request's LegalActions, so the bot only sends legal actions.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rookery/client.h"

namespace rookery {

// Points in hand at which the sample bot opens at the minimum bid.
constexpr int kOpeningPoints = 30;

// The sample bot: it acts on each request's observation alone and notes how many cards it held.
// `fault` makes it fail on purpose, to show what the runner does then (docs/dev/kit-contract.md):
// "raise" throws in Act, "illegal" returns an illegal bid, "bad-note" attaches a note the runner
// must refuse; main.cc takes it from ROOKERY_SAMPLE_FAULT.
class SampleBot : public Bot {
 public:
  explicit SampleBot(std::string fault = "") : fault_(std::move(fault)) {}
  v1::Action Act(const v1::ActionRequest& request) override;
  std::optional<Note> TakeNote() override;

 private:
  std::string fault_;
  int held_ = 0;
};

// The sample strategy's action for an observation and its legal actions.
v1::Action Choose(const v1::Observation& obs, const v1::LegalActions& legal);
// The cards the seat holds, the nest included while it is in hand (no duplicates).
std::vector<v1::Card> HeldCards(const v1::Observation& obs);
v1::Action ChooseBid(const v1::Observation& obs, const v1::LegalActions& legal);
std::optional<v1::Suit> ChooseTrump(const v1::Observation& obs, const v1::LegalActions& legal);
std::optional<std::vector<v1::Card>> ChooseBury(const v1::Observation& obs, const v1::LegalActions& legal);
std::optional<v1::Card> ChooseCall(const v1::Observation& obs, const v1::LegalActions& legal);
std::optional<v1::Card> ChoosePlay(const v1::Observation& obs, const v1::LegalActions& legal);

}  // namespace rookery
