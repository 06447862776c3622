// Building actions and checking them against the compact LegalActions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rookery/v1/actions.pb.h"

namespace rookery {

using v1::Action;
using v1::LegalActions;

Action BidAction(int amount);
Action PassAction();
Action NameTrumpAction(v1::Suit suit);
Action BuryAction(const std::vector<v1::Card>& cards);
Action CallCardAction(const v1::Card& card);
Action PlayCardAction(const v1::Card& card);

// True when `action` is one of the legal actions.
bool IsLegal(const Action& action, const LegalActions& legal);
// The first legal action (pass, lowest bid, first suit, first cards to bury, first callable or
// playable card); empty when nothing is legal.
std::optional<Action> FirstLegal(const LegalActions& legal);
// A short text form for logs: "bid 70", "pass", "trump R", "bury B1 B2", "play ROOK".
std::string ActionText(const Action& action);
// True when two actions are the same action.
bool SameAction(const Action& a, const Action& b);

}  // namespace rookery
