package org.rookery.kit;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import rookery.v1.Actions.Action;
import rookery.v1.Actions.Bid;
import rookery.v1.Actions.BuryCards;
import rookery.v1.Actions.CallCard;
import rookery.v1.Actions.LegalActions;
import rookery.v1.Actions.NameTrump;
import rookery.v1.Actions.Pass;
import rookery.v1.Actions.PlayCard;
import rookery.v1.Cards.Card;
import rookery.v1.Cards.Suit;

/** Building actions and checking them against the compact {@code LegalActions}. */
public final class ActionsUtil {
  private ActionsUtil() {}

  /** Bid {@code amount} points. */
  public static Action bid(int amount) {
    return Action.newBuilder().setBid(Bid.newBuilder().setAmount(amount)).build();
  }

  /** Pass in the auction. */
  public static Action pass() {
    return Action.newBuilder().setPass(Pass.getDefaultInstance()).build();
  }

  /** Name {@code suit} trump. */
  public static Action nameTrump(Suit suit) {
    return Action.newBuilder().setNameTrump(NameTrump.newBuilder().setSuit(suit)).build();
  }

  /** Bury these cards. */
  public static Action bury(List<Card> cards) {
    return Action.newBuilder().setBury(BuryCards.newBuilder().addAllCards(cards)).build();
  }

  /** Call this card (called-partner rulesets). */
  public static Action callCard(Card card) {
    return Action.newBuilder().setCallCard(CallCard.newBuilder().setCard(card)).build();
  }

  /** Play this card. */
  public static Action playCard(Card card) {
    return Action.newBuilder().setPlayCard(PlayCard.newBuilder().setCard(card)).build();
  }

  /** True when {@code action} is one of the legal actions. */
  public static boolean isLegal(Action action, LegalActions legal) {
    switch (action.getKindCase()) {
      case PASS:
        return legal.getCanPass();
      case BID:
        return legal.getBidsList().contains(action.getBid().getAmount());
      case NAME_TRUMP:
        return legal.getTrumpSuitsList().contains(action.getNameTrump().getSuit());
      case BURY:
        {
          List<Card> cards = action.getBury().getCardsList();
          Set<String> texts = new HashSet<>();
          for (Card c : cards) {
            if (!legal.getBuryCandidatesList().contains(c) || !texts.add(Cards.text(c))) {
              return false;
            }
          }
          return legal.getBuryCount() > 0 && cards.size() == legal.getBuryCount();
        }
      case CALL_CARD:
        return legal.getCallableCardsList().contains(action.getCallCard().getCard());
      case PLAY_CARD:
        return legal.getPlayableCardsList().contains(action.getPlayCard().getCard());
      default:
        return false;
    }
  }

  /**
   * The first legal action: pass, the lowest bid, the first suit, the first cards to bury, the
   * first callable card or the first playable card; null when nothing is legal.
   */
  public static Action firstLegal(LegalActions legal) {
    if (legal.getCanPass()) {
      return pass();
    }
    if (legal.getBidsCount() > 0) {
      return bid(legal.getBids(0));
    }
    if (legal.getTrumpSuitsCount() > 0) {
      return nameTrump(legal.getTrumpSuits(0));
    }
    int n = legal.getBuryCount();
    if (n > 0 && legal.getBuryCandidatesCount() >= n) {
      return bury(legal.getBuryCandidatesList().subList(0, n));
    }
    if (legal.getCallableCardsCount() > 0) {
      return callCard(legal.getCallableCards(0));
    }
    if (legal.getPlayableCardsCount() > 0) {
      return playCard(legal.getPlayableCards(0));
    }
    return null;
  }

  /** A short text form for logs: "bid 70", "pass", "trump R", "bury B1 B2", "play ROOK". */
  public static String text(Action action) {
    switch (action.getKindCase()) {
      case PASS:
        return "pass";
      case BID:
        return "bid " + action.getBid().getAmount();
      case NAME_TRUMP:
        return "trump " + Cards.suitLetter(action.getNameTrump().getSuit());
      case BURY:
        return "bury " + Cards.text(action.getBury().getCardsList());
      case CALL_CARD:
        return "call " + Cards.text(action.getCallCard().getCard());
      case PLAY_CARD:
        return "play " + Cards.text(action.getPlayCard().getCard());
      default:
        return "(no action)";
    }
  }
}
