package org.rookery.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import rookery.v1.Actions.Action;
import rookery.v1.Actions.LegalActions;
import rookery.v1.Actions.Observation;
import rookery.v1.Actions.Phase;
import rookery.v1.Cards.Suit;
import rookery.v1.RulesetOuterClass.Ruleset;

class SampleBotTest {
  static Observation.Builder standard(String hand) {
    return Observation.newBuilder()
        .setRuleset(Ruleset.newBuilder().setName("standard").setPlayers(4).setMinBid(70).setBidStep(5))
        .setSeat(0)
        .addAllHand(Cards.parseList(hand))
        .setHighBidder(-1)
        .setBidder(-1)
        .setPartner(-1)
        .addAllSides(List.of(0, 1, 0, 1));
  }

  static LegalActions bidding(Integer... bids) {
    return LegalActions.newBuilder()
        .setPhase(Phase.PHASE_BIDDING)
        .setCanPass(true)
        .addAllBids(List.of(bids))
        .build();
  }

  static LegalActions playing(String cards) {
    return LegalActions.newBuilder()
        .setPhase(Phase.PHASE_PLAY)
        .addAllPlayableCards(Cards.parseList(cards))
        .build();
  }

  static Action play(String card) {
    return ActionsUtil.playCard(Cards.parse(card));
  }

  @Test
  void weakHandPasses() {
    Observation obs = standard("B1 B2 B3 R2 R3 R4 Y2 Y3 Y4 G2 G3 G4 G6").build();
    assertEquals(ActionsUtil.pass(), SampleBot.choose(obs, bidding(70, 75, 80)));
  }

  @Test
  void strongHandBidsTheMinimum() {
    Observation obs = standard("B14 B10 R14 R5 ROOK B2 B3 R2 R3 Y2 Y3 G2 G3").build();
    assertEquals(ActionsUtil.bid(70), SampleBot.choose(obs, bidding(70, 75, 80)));
    assertEquals(ActionsUtil.pass(), SampleBot.choose(obs, bidding(100, 105)));
  }

  @Test
  void neverOutbidsThePartner() {
    Observation obs =
        standard("B14 B10 R14 R5 ROOK B2 B3 R2 R3 Y2 Y3 G2 G3").setHighBidder(2).setHighBid(70).build();
    assertEquals(ActionsUtil.pass(), SampleBot.choose(obs, bidding(75, 80)));
  }

  @Test
  void bidsWhenPassingIsNotAllowed() {
    Observation obs = standard("B1 B2 B3 R2 R3 R4 Y2 Y3 Y4 G2 G3 G4 G6").build();
    LegalActions legal = bidding(70).toBuilder().setCanPass(false).build();
    assertEquals(ActionsUtil.bid(70), SampleBot.choose(obs, legal));
  }

  @Test
  void namesTheLongestSuitCountingTheNest() {
    Observation obs = standard("B1 B2 B3 R2 R3 R4 Y2 G2").addAllNest(Cards.parseList("R5 R6 G3")).build();
    LegalActions legal =
        LegalActions.newBuilder()
            .setPhase(Phase.PHASE_NAME_TRUMP)
            .addAllTrumpSuits(List.of(Suit.SUIT_BLACK, Suit.SUIT_RED, Suit.SUIT_YELLOW, Suit.SUIT_GREEN))
            .build();
    assertEquals(ActionsUtil.nameTrump(Suit.SUIT_RED), SampleBot.choose(obs, legal));
  }

  @Test
  void buriesTheLowestNonPointCards() {
    Observation obs = standard("").setTrump(Suit.SUIT_RED).build();
    LegalActions legal =
        LegalActions.newBuilder()
            .setPhase(Phase.PHASE_BURY)
            .addAllBuryCandidates(Cards.parseList("B5 B2 R1 Y3 G14 ROOK G1 B9 Y13"))
            .setBuryCount(4)
            .build();
    Action action = SampleBot.choose(obs, legal);
    assertEquals("G1 B2 Y3 B9", Cards.text(action.getBury().getCardsList()));
  }

  @Test
  void callsTheHighestCardNotHeld() {
    Observation obs = standard("").setTrump(Suit.SUIT_GREEN).build();
    LegalActions legal =
        LegalActions.newBuilder()
            .setPhase(Phase.PHASE_CALL)
            .addAllCallableCards(Cards.parseList("B14 G13 G2 R14"))
            .build();
    assertEquals(ActionsUtil.callCard(Cards.parse("G13")), SampleBot.choose(obs, legal));
    legal = legal.toBuilder().clearCallableCards().addAllCallableCards(Cards.parseList("B14 ROOK G13")).build();
    assertEquals(ActionsUtil.callCard(Cards.parse("ROOK")), SampleBot.choose(obs, legal));
  }

  @Test
  void playsTheCheapestWinningCard() {
    Observation obs =
        standard("").setTrump(Suit.SUIT_GREEN).setCurrentTrick(CardsTest.trick(1, "B9")).build();
    assertEquals(play("B11"), SampleBot.choose(obs, playing("B14 B11 B12 B2")));
  }

  @Test
  void trumpsInWhenVoidAndPlaysCheapWhenItCannotWin() {
    Observation.Builder obs = standard("").setTrump(Suit.SUIT_GREEN);
    obs.setCurrentTrick(CardsTest.trick(1, "B9"));
    assertEquals(play("G3"), SampleBot.choose(obs.build(), playing("G3 G14 R2")));
    obs.setCurrentTrick(CardsTest.trick(1, "B9", 3, "ROOK"));
    assertEquals(play("R2"), SampleBot.choose(obs.build(), playing("G3 G14 R2")));
  }

  @Test
  void leadsAndFollowsAWinningPartnerWithTheCheapestCard() {
    Observation.Builder obs = standard("").setTrump(Suit.SUIT_GREEN);
    obs.setCurrentTrick(CardsTest.trick());
    assertEquals(play("R2"), SampleBot.choose(obs.build(), playing("B14 R2 G3")));
    obs.setCurrentTrick(CardsTest.trick(1, "B3", 2, "B13"));
    assertEquals(play("B4"), SampleBot.choose(obs.build(), playing("B14 B4")));
  }

  @Test
  void fallsBackToALegalActionWhenThePhaseIsUnexpected() {
    Observation obs = standard("").build();
    LegalActions legal = playing("B2").toBuilder().setPhase(Phase.PHASE_UNSPECIFIED).build();
    assertTrue(ActionsUtil.isLegal(SampleBot.choose(obs, legal), legal));
  }
}
