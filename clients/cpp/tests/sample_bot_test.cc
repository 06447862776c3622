#include <gtest/gtest.h>

#include "rookery/sample_bot.h"
#include "test_util.h"

namespace rookery {
namespace {

std::string Chosen(const v1::Observation& obs, const v1::LegalActions& legal) {
  return ActionText(Choose(obs, legal));
}

TEST(SampleBot, WeakHandPasses) {
  EXPECT_EQ(Chosen(Standard("B1 B2 B3 R2 R3 R4 Y2 Y3 Y4 G2 G3 G4 G6"), Bidding({70, 75, 80})), "pass");
}

TEST(SampleBot, StrongHandBidsTheMinimum) {
  auto obs = Standard("B14 B10 R14 R5 ROOK B2 B3 R2 R3 Y2 Y3 G2 G3");
  EXPECT_EQ(Chosen(obs, Bidding({70, 75, 80})), "bid 70");
  EXPECT_EQ(Chosen(obs, Bidding({100, 105})), "pass");
}

TEST(SampleBot, NeverOutbidsThePartner) {
  auto obs = Standard("B14 B10 R14 R5 ROOK B2 B3 R2 R3 Y2 Y3 G2 G3");
  obs.set_high_bidder(2);
  obs.set_high_bid(70);
  EXPECT_EQ(Chosen(obs, Bidding({75, 80})), "pass");
}

TEST(SampleBot, BidsWhenPassingIsNotAllowed) {
  EXPECT_EQ(Chosen(Standard("B1 B2 B3 R2 R3 R4 Y2 Y3 Y4 G2 G3 G4 G6"), Bidding({70}, false)), "bid 70");
}

TEST(SampleBot, NamesTheLongestSuitCountingTheNest) {
  auto obs = Standard("B1 B2 B3 R2 R3 R4 Y2 G2");
  for (const auto& c : ParseCards("R5 R6 G3")) *obs.add_nest() = c;
  v1::LegalActions legal;
  legal.set_phase(v1::PHASE_NAME_TRUMP);
  for (auto s : {v1::SUIT_BLACK, v1::SUIT_RED, v1::SUIT_YELLOW, v1::SUIT_GREEN}) legal.add_trump_suits(s);
  EXPECT_EQ(Chosen(obs, legal), "trump R");
}

TEST(SampleBot, BuriesTheLowestNonPointCards) {
  auto obs = Standard("");
  obs.set_trump(v1::SUIT_RED);
  v1::LegalActions legal;
  legal.set_phase(v1::PHASE_BURY);
  for (const auto& c : ParseCards("B5 B2 R1 Y3 G14 ROOK G1 B9 Y13")) *legal.add_bury_candidates() = c;
  legal.set_bury_count(4);
  EXPECT_EQ(Chosen(obs, legal), "bury G1 B2 Y3 B9");
}

TEST(SampleBot, CallsTheHighestCardNotHeld) {
  auto obs = Standard("");
  obs.set_trump(v1::SUIT_GREEN);
  v1::LegalActions legal;
  legal.set_phase(v1::PHASE_CALL);
  for (const auto& c : ParseCards("B14 G13 G2 R14")) *legal.add_callable_cards() = c;
  EXPECT_EQ(Chosen(obs, legal), "call G13");
  legal.clear_callable_cards();
  for (const auto& c : ParseCards("B14 ROOK G13")) *legal.add_callable_cards() = c;
  EXPECT_EQ(Chosen(obs, legal), "call ROOK");
}

TEST(SampleBot, PlaysTheCheapestWinningCard) {
  auto obs = Standard("");
  obs.set_trump(v1::SUIT_GREEN);
  *obs.mutable_current_trick() = MakeTrick({{1, "B9"}});
  EXPECT_EQ(Chosen(obs, Playing("B14 B11 B12 B2")), "play B11");
}

TEST(SampleBot, TrumpsInWhenVoidAndPlaysCheapWhenItCannotWin) {
  auto obs = Standard("");
  obs.set_trump(v1::SUIT_GREEN);
  *obs.mutable_current_trick() = MakeTrick({{1, "B9"}});
  EXPECT_EQ(Chosen(obs, Playing("G3 G14 R2")), "play G3");
  *obs.mutable_current_trick() = MakeTrick({{1, "B9"}, {3, "ROOK"}});
  EXPECT_EQ(Chosen(obs, Playing("G3 G14 R2")), "play R2");
}

TEST(SampleBot, LeadsAndFollowsAWinningPartnerWithTheCheapestCard) {
  auto obs = Standard("");
  obs.set_trump(v1::SUIT_GREEN);
  EXPECT_EQ(Chosen(obs, Playing("B14 R2 G3")), "play R2");
  *obs.mutable_current_trick() = MakeTrick({{1, "B3"}, {2, "B13"}});
  EXPECT_EQ(Chosen(obs, Playing("B14 B4")), "play B4");
}

TEST(SampleBot, FallsBackToALegalActionWhenThePhaseIsUnexpected) {
  auto legal = Playing("B2");
  legal.set_phase(v1::PHASE_UNSPECIFIED);
  EXPECT_TRUE(IsLegal(Choose(Standard(""), legal), legal));
}

}  // namespace
}  // namespace rookery
