#pragma once

#include <string>
#include <utility>
#include <vector>

#include "rookery/actions.h"
#include "rookery/cards.h"

namespace rookery {

inline v1::Trick MakeTrick(const std::vector<std::pair<int, std::string>>& played) {
  v1::Trick trick;
  trick.set_winner(-1);
  for (const auto& [seat, text] : played) {
    auto* p = trick.add_cards();
    p->set_seat(seat);
    *p->mutable_card() = ParseCard(text);
  }
  return trick;
}

inline v1::Observation Standard(const std::string& hand) {
  v1::Observation obs;
  obs.mutable_ruleset()->set_name("standard");
  obs.mutable_ruleset()->set_players(4);
  obs.mutable_ruleset()->set_min_bid(70);
  obs.mutable_ruleset()->set_bid_step(5);
  obs.set_seat(0);
  for (const auto& c : ParseCards(hand)) *obs.add_hand() = c;
  obs.set_high_bidder(-1);
  obs.set_bidder(-1);
  obs.set_partner(-1);
  for (int side : {0, 1, 0, 1}) obs.add_sides(side);
  return obs;
}

inline v1::LegalActions Bidding(std::vector<int> bids, bool can_pass = true) {
  v1::LegalActions legal;
  legal.set_phase(v1::PHASE_BIDDING);
  legal.set_can_pass(can_pass);
  for (int b : bids) legal.add_bids(b);
  return legal;
}

inline v1::LegalActions Playing(const std::string& cards) {
  v1::LegalActions legal;
  legal.set_phase(v1::PHASE_PLAY);
  for (const auto& c : ParseCards(cards)) *legal.add_playable_cards() = c;
  return legal;
}

}  // namespace rookery
