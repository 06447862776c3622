package org.rookery.kit;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import rookery.v1.Actions.Observation;
import rookery.v1.Actions.PlayedCard;
import rookery.v1.Actions.Trick;
import rookery.v1.Cards.Card;
import rookery.v1.Cards.Suit;
import rookery.v1.RulesetOuterClass.Partnership;

/** Card helpers: text forms ("B1" … "G14", "ROOK", "ROOK2"), points, trump and trick logic. */
public final class Cards {
  private Cards() {}

  /** A card text that is not one of "B1" … "G14", "ROOK", "ROOK2". */
  public static final class CardParseException extends IllegalArgumentException {
    CardParseException(String text) {
      super(
          "not a card: \""
              + text
              + "\" (expected a suit letter B, R, Y or G and a rank 1..14, or ROOK, ROOK2)");
    }
  }

  /** The suit's letter: B, R, Y, G ("?" for no suit). */
  public static String suitLetter(Suit suit) {
    switch (suit) {
      case SUIT_BLACK:
        return "B";
      case SUIT_RED:
        return "R";
      case SUIT_YELLOW:
        return "Y";
      case SUIT_GREEN:
        return "G";
      default:
        return "?";
    }
  }

  /** The suit named by a letter B, R, Y or G, or null. */
  public static Suit parseSuit(String letter) {
    switch (letter.toUpperCase(Locale.ROOT)) {
      case "B":
        return Suit.SUIT_BLACK;
      case "R":
        return Suit.SUIT_RED;
      case "Y":
        return Suit.SUIT_YELLOW;
      case "G":
        return Suit.SUIT_GREEN;
      default:
        return null;
    }
  }

  /** A numbered card. */
  public static Card card(Suit suit, int rank) {
    return Card.newBuilder().setSuit(suit).setRank(rank).build();
  }

  /** A Rook card: 1 for ROOK, 2 for ROOK2. */
  public static Card rook(int which) {
    return Card.newBuilder().setRook(which).build();
  }

  /** The card's text form: "B1" … "G14", "ROOK" or "ROOK2". */
  public static String text(Card c) {
    if (c.getRook() == 1) {
      return "ROOK";
    }
    if (c.getRook() > 1) {
      return "ROOK" + c.getRook();
    }
    return suitLetter(c.getSuit()) + c.getRank();
  }

  /** The text forms of some cards, separated by spaces. */
  public static String text(Collection<Card> cards) {
    List<String> texts = new ArrayList<>();
    for (Card c : cards) {
      texts.add(text(c));
    }
    return String.join(" ", texts);
  }

  /** Parses a card's text form; throws {@link CardParseException} with the text when it is not one. */
  public static Card parse(String text) {
    String t = text.trim().toUpperCase(Locale.ROOT);
    if (t.equals("ROOK")) {
      return rook(1);
    }
    if (t.equals("ROOK2")) {
      return rook(2);
    }
    if (t.length() < 2 || !t.substring(1).matches("[1-9][0-9]?")) {
      throw new CardParseException(text);
    }
    Suit suit = parseSuit(t.substring(0, 1));
    int rank = Integer.parseInt(t.substring(1));
    if (suit == null || rank < 1 || rank > 14) {
      throw new CardParseException(text);
    }
    return card(suit, rank);
  }

  /** Parses a space- or comma-separated list of card texts. */
  public static List<Card> parseList(String text) {
    List<Card> cards = new ArrayList<>();
    for (String part : text.split("[,\\s]+")) {
      if (!part.isEmpty()) {
        cards.add(parse(part));
      }
    }
    return cards;
  }

  /** Every 5 is worth 5, every 10 and 14 worth 10, each Rook card 20, all other cards 0. */
  public static int points(Card c) {
    if (c.getRook() != 0) {
      return 20;
    }
    switch (c.getRank()) {
      case 5:
        return 5;
      case 10:
      case 14:
        return 10;
      default:
        return 0;
    }
  }

  /** The total points of some cards. */
  public static int points(Collection<Card> cards) {
    int total = 0;
    for (Card c : cards) {
      total += points(c);
    }
    return total;
  }

  /** The suit the card belongs to in play: a Rook card belongs to trump. */
  public static Suit effectiveSuit(Card c, Suit trump) {
    return c.getRook() != 0 ? trump : c.getSuit();
  }

  /** True when the card is a trump (the Rook always is). */
  public static boolean isTrump(Card c, Suit trump) {
    return c.getRook() != 0 || (trump != Suit.SUIT_UNSPECIFIED && c.getSuit() == trump);
  }

  /**
   * The card's strength in a trick led with {@code led} under {@code trump}: higher wins; 0 never
   * wins. Trumps: ROOK 200, ROOK2 199, trump rank r 100 + r; the led suit: its rank; others 0.
   */
  public static int trickStrength(Card c, Suit led, Suit trump) {
    if (c.getRook() != 0) {
      return 201 - c.getRook();
    }
    if (isTrump(c, trump)) {
      return 100 + c.getRank();
    }
    return c.getSuit() == led ? c.getRank() : 0;
  }

  /** Ranks any card: the Rook cards highest, then trumps, then by rank. */
  public static int strength(Card c, Suit trump) {
    if (c.getRook() != 0) {
      return 201 - c.getRook();
    }
    return isTrump(c, trump) ? 100 + c.getRank() : c.getRank();
  }

  /** The suit led to a trick (trump when the Rook led); empty for an empty trick. */
  public static Optional<Suit> ledSuit(Trick trick, Suit trump) {
    if (trick.getCardsCount() == 0) {
      return Optional.empty();
    }
    return Optional.of(effectiveSuit(trick.getCards(0).getCard(), trump));
  }

  /** The card (with its seat) now winning a trick; empty for an empty trick. */
  public static Optional<PlayedCard> trickWinner(Trick trick, Suit trump) {
    Optional<Suit> led = ledSuit(trick, trump);
    if (led.isEmpty()) {
      return Optional.empty();
    }
    PlayedCard best = null;
    int bestStrength = -1;
    for (PlayedCard p : trick.getCardsList()) {
      int s = trickStrength(p.getCard(), led.get(), trump);
      if (s > bestStrength) {
        best = p;
        bestStrength = s;
      }
    }
    return Optional.ofNullable(best);
  }

  /**
   * True when {@code seat} and {@code other} score together as far as the observation shows: the
   * same side, or (called-partner rulesets) the bidder and a known partner.
   */
  public static boolean sameSide(Observation obs, int seat, int other) {
    if (seat == other) {
      return true;
    }
    if (obs.getRuleset().getPartnership() == Partnership.PARTNERSHIP_CALLED) {
      int b = obs.getBidder();
      int p = obs.getPartner();
      return b >= 0 && p >= 0 && ((seat == b && other == p) || (seat == p && other == b));
    }
    if (seat < 0 || other < 0 || seat >= obs.getSidesCount() || other >= obs.getSidesCount()) {
      return false;
    }
    return obs.getSides(seat) == obs.getSides(other);
  }
}
