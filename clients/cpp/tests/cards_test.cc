#include <gtest/gtest.h>

#include "rookery/actions.h"
#include "rookery/cards.h"
#include "test_util.h"

namespace rookery {
namespace {

TEST(Cards, TextFormsRoundTrip) {
  for (const char* text : {"B1", "R5", "Y10", "G14", "ROOK", "ROOK2"}) {
    EXPECT_EQ(CardText(ParseCard(text)), text);
  }
  EXPECT_TRUE(SameCard(ParseCard("g14"), MakeCard(v1::SUIT_GREEN, 14)));
}

TEST(Cards, BadTextsAreRefusedWithTheText) {
  for (std::string text : {"", "B", "B0", "B15", "X3", "B01", "ROOK3"}) {
    try {
      ParseCard(text);
      FAIL() << "parsed " << text;
    } catch (const CardParseError& e) {
      EXPECT_NE(std::string(e.what()).find("\"" + text + "\""), std::string::npos) << e.what();
    }
  }
}

TEST(Cards, PointsFollowTheRules) {
  std::vector<int> points;
  for (const auto& c : ParseCards("B5 R10 Y14 ROOK G1 B13")) points.push_back(Points(c));
  EXPECT_EQ(points, (std::vector<int>{5, 10, 10, 20, 0, 0}));
  std::vector<Card> deck;
  for (auto s : {v1::SUIT_BLACK, v1::SUIT_RED, v1::SUIT_YELLOW, v1::SUIT_GREEN}) {
    for (int r = 1; r <= 14; ++r) deck.push_back(MakeCard(s, r));
  }
  deck.push_back(MakeRook());
  EXPECT_EQ(TotalPoints(deck), 120);
}

TEST(Cards, RookIsTheHighestTrump) {
  auto trick = MakeTrick({{0, "R14"}, {1, "G2"}, {2, "ROOK"}, {3, "G14"}});
  EXPECT_EQ(TrickWinner(trick, v1::SUIT_GREEN)->seat(), 2);
  EXPECT_EQ(TrickWinner(trick, v1::SUIT_BLACK)->seat(), 2);
}

TEST(Cards, OffSuitCardsNeverWin) {
  auto trick = MakeTrick({{1, "R3"}, {2, "B14"}});
  EXPECT_EQ(TrickWinner(trick, v1::SUIT_GREEN)->seat(), 1);
  EXPECT_EQ(*LedSuit(trick, v1::SUIT_GREEN), v1::SUIT_RED);
}

TEST(Actions, BuryLegalityChecksCountDuplicatesAndCandidates) {
  v1::LegalActions legal;
  for (const auto& c : ParseCards("B1 B2 B3")) *legal.add_bury_candidates() = c;
  legal.set_bury_count(2);
  EXPECT_TRUE(IsLegal(BuryAction(ParseCards("B1 B3")), legal));
  EXPECT_FALSE(IsLegal(BuryAction(ParseCards("B1 B1")), legal));
  EXPECT_FALSE(IsLegal(BuryAction(ParseCards("B1")), legal));
  EXPECT_FALSE(IsLegal(BuryAction(ParseCards("B1 R2")), legal));
}

}  // namespace
}  // namespace rookery
