package org.rookery.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import rookery.v1.Actions.LegalActions;
import rookery.v1.Actions.PlayedCard;
import rookery.v1.Actions.Trick;
import rookery.v1.Cards.Card;
import rookery.v1.Cards.Suit;

class CardsTest {
  static Trick trick(Object... seatsAndCards) {
    Trick.Builder t = Trick.newBuilder().setWinner(-1);
    for (int i = 0; i < seatsAndCards.length; i += 2) {
      t.addCards(
          PlayedCard.newBuilder()
              .setSeat((Integer) seatsAndCards[i])
              .setCard(Cards.parse((String) seatsAndCards[i + 1])));
    }
    return t.build();
  }

  @Test
  void textFormsRoundTrip() {
    for (String text : List.of("B1", "R5", "Y10", "G14", "ROOK", "ROOK2")) {
      assertEquals(text, Cards.text(Cards.parse(text)));
    }
    assertEquals(Cards.card(Suit.SUIT_GREEN, 14), Cards.parse("g14"));
  }

  @Test
  void badTextsAreRefusedWithTheText() {
    for (String text : List.of("", "B", "B0", "B15", "X3", "B01", "ROOK3")) {
      Cards.CardParseException e =
          assertThrows(Cards.CardParseException.class, () -> Cards.parse(text));
      assertTrue(e.getMessage().contains("\"" + text + "\""), e.getMessage());
    }
  }

  @Test
  void pointsFollowTheRules() {
    assertEquals(List.of(5, 10, 10, 20, 0, 0), Cards.parseList("B5 R10 Y14 ROOK G1 B13").stream().map(Cards::points).toList());
    List<Card> deck = new ArrayList<>();
    for (Suit s : List.of(Suit.SUIT_BLACK, Suit.SUIT_RED, Suit.SUIT_YELLOW, Suit.SUIT_GREEN)) {
      for (int r = 1; r <= 14; r++) {
        deck.add(Cards.card(s, r));
      }
    }
    deck.add(Cards.rook(1));
    assertEquals(120, Cards.points(deck));
  }

  @Test
  void rookIsTheHighestTrump() {
    Trick t = trick(0, "R14", 1, "G2", 2, "ROOK", 3, "G14");
    assertEquals(2, Cards.trickWinner(t, Suit.SUIT_GREEN).get().getSeat());
    assertEquals(2, Cards.trickWinner(t, Suit.SUIT_BLACK).get().getSeat());
  }

  @Test
  void offSuitCardsNeverWin() {
    Trick t = trick(1, "R3", 2, "B14");
    assertEquals(1, Cards.trickWinner(t, Suit.SUIT_GREEN).get().getSeat());
    assertEquals(Suit.SUIT_RED, Cards.ledSuit(t, Suit.SUIT_GREEN).get());
  }

  @Test
  void buryLegalityChecksCountDuplicatesAndCandidates() {
    LegalActions legal =
        LegalActions.newBuilder()
            .addAllBuryCandidates(Cards.parseList("B1 B2 B3"))
            .setBuryCount(2)
            .build();
    assertTrue(ActionsUtil.isLegal(ActionsUtil.bury(Cards.parseList("B1 B3")), legal));
    assertFalse(ActionsUtil.isLegal(ActionsUtil.bury(Cards.parseList("B1 B1")), legal));
    assertFalse(ActionsUtil.isLegal(ActionsUtil.bury(Cards.parseList("B1")), legal));
    assertFalse(ActionsUtil.isLegal(ActionsUtil.bury(Cards.parseList("B1 R2")), legal));
  }
}
