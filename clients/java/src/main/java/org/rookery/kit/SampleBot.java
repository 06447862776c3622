package org.rookery.kit;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import rookery.v1.Actions.Action;
import rookery.v1.Actions.LegalActions;
import rookery.v1.Actions.Observation;
import rookery.v1.Actions.PlayedCard;
import rookery.v1.Actions.Trick;
import rookery.v1.BotServiceOuterClass.ActionRequest;
import rookery.v1.Cards.Card;
import rookery.v1.Cards.Suit;

/**
 * The sample bot's strategy: simple, legal and deterministic. Replace it with your own.
 *
 * <ul>
 *   <li>Bid: count the points in hand; bid the minimum legal amount while it is at most {@code
 *       min_bid + (points - 30)}, never over a partner's bid; otherwise pass.
 *   <li>Trump: the longest suit in hand (nest included), ties to the most points, then the first.
 *   <li>Bury: the lowest non-point, non-trump cards first.
 *   <li>Call (called-partner): the highest card not held (the Rook first, then trumps).
 *   <li>Play: the cheapest card that wins the trick; the cheapest card when none does, when
 *       leading, or when the partner is already winning.
 * </ul>
 *
 * Every choice is made from the request's {@code LegalActions}, so it only sends legal actions.
 */
public final class SampleBot implements Bot {
  /** Points in hand at which the sample bot opens at the minimum bid. */
  public static final int OPENING_POINTS = 30;

  /**
   * A deliberate failure, to show what the kit does then (docs/dev/kit-contract.md): "raise"
   * throws in act, "illegal" returns an illegal bid, "bad-note" attaches a note the kit must
   * refuse; "" for none. The runner's sample takes it from ROOKERY_SAMPLE_FAULT.
   */
  private final String fault;

  private int held;

  public SampleBot() {
    this("");
  }

  public SampleBot(String fault) {
    this.fault = fault == null ? "" : fault;
  }

  @Override
  public Action act(ActionRequest request) {
    held = request.getObservation().getHandCount();
    if (fault.equals("raise")) {
      throw new IllegalStateException("the sample bot fails on purpose (ROOKERY_SAMPLE_FAULT=raise)");
    }
    if (fault.equals("illegal")) {
      return ActionsUtil.bid(1);
    }
    return choose(request.getObservation(), request.getLegalActions());
  }

  /** The note on each action: how many cards the bot held. */
  @Override
  public Note note() {
    String name = fault.equals("bad-note") ? "not a name!" : "hand_cards";
    return Note.of("sample: cheapest winning card").with(name, held);
  }

  /** The sample strategy's action for an observation and its legal actions. */
  public static Action choose(Observation obs, LegalActions legal) {
    Action chosen = null;
    switch (legal.getPhase()) {
      case PHASE_BIDDING:
        chosen = chooseBid(obs, legal);
        break;
      case PHASE_NAME_TRUMP:
        chosen = chooseTrump(obs, legal).map(ActionsUtil::nameTrump).orElse(null);
        break;
      case PHASE_BURY:
        chosen = chooseBury(obs, legal).map(ActionsUtil::bury).orElse(null);
        break;
      case PHASE_CALL:
        chosen = chooseCall(obs, legal).map(ActionsUtil::callCard).orElse(null);
        break;
      case PHASE_PLAY:
        chosen = choosePlay(obs, legal).map(ActionsUtil::playCard).orElse(null);
        break;
      default:
        break;
    }
    if (chosen != null && ActionsUtil.isLegal(chosen, legal)) {
      return chosen;
    }
    Action first = ActionsUtil.firstLegal(legal);
    return first != null ? first : ActionsUtil.pass();
  }

  /** The cards the seat holds, the nest included while it is in hand (no duplicates). */
  public static List<Card> heldCards(Observation obs) {
    Map<String, Card> held = new LinkedHashMap<>();
    for (Card c : obs.getHandList()) {
      held.putIfAbsent(Cards.text(c), c);
    }
    for (Card c : obs.getNestList()) {
      held.putIfAbsent(Cards.text(c), c);
    }
    return new ArrayList<>(held.values());
  }

  /** Bid the minimum legal amount when the hand is strong enough, else pass. */
  public static Action chooseBid(Observation obs, LegalActions legal) {
    if (legal.getBidsCount() == 0) {
      return ActionsUtil.pass();
    }
    int lowest = legal.getBids(0);
    if (!legal.getCanPass()) {
      return ActionsUtil.bid(lowest);
    }
    int highBidder = obs.getHighBidder();
    if (highBidder >= 0
        && highBidder != obs.getSeat()
        && Cards.sameSide(obs, obs.getSeat(), highBidder)) {
      return ActionsUtil.pass();
    }
    int minBid = obs.hasRuleset() && obs.getRuleset().getMinBid() > 0 ? obs.getRuleset().getMinBid() : 70;
    int willing = minBid + (Cards.points(obs.getHandList()) - OPENING_POINTS);
    return lowest <= willing ? ActionsUtil.bid(lowest) : ActionsUtil.pass();
  }

  /** The legal suit with the most cards in hand; ties go to more points, then the earlier suit. */
  public static Optional<Suit> chooseTrump(Observation obs, LegalActions legal) {
    List<Card> held = heldCards(obs);
    Suit best = null;
    int bestCount = -1;
    int bestPoints = -1;
    for (Suit suit : legal.getTrumpSuitsList()) {
      int count = 0;
      int points = 0;
      for (Card c : held) {
        if (c.getRook() == 0 && c.getSuit() == suit) {
          count++;
          points += Cards.points(c);
        }
      }
      if (count > bestCount || (count == bestCount && points > bestPoints)) {
        best = suit;
        bestCount = count;
        bestPoints = points;
      }
    }
    return Optional.ofNullable(best);
  }

  /**
   * The {@code bury_count} cheapest candidates: non-point before point cards, non-trump before
   * trump, then fewer points, then lower rank.
   */
  public static Optional<List<Card>> chooseBury(Observation obs, LegalActions legal) {
    Suit trump = obs.getTrump();
    List<Card> candidates = new ArrayList<>(legal.getBuryCandidatesList());
    candidates.sort(
        Comparator.<Card>comparingInt(c -> Cards.points(c) > 0 ? 1 : 0)
            .thenComparingInt(c -> Cards.isTrump(c, trump) ? 1 : 0)
            .thenComparingInt(Cards::points)
            .thenComparingInt(Card::getRank)
            .thenComparingInt(Card::getSuitValue));
    int n = legal.getBuryCount();
    if (n <= 0 || candidates.size() < n) {
      return Optional.empty();
    }
    return Optional.of(new ArrayList<>(candidates.subList(0, n)));
  }

  /** The highest callable card: the Rook, then trumps high to low, then other cards high to low. */
  public static Optional<Card> chooseCall(Observation obs, LegalActions legal) {
    Suit trump = obs.getTrump();
    return legal.getCallableCardsList().stream()
        .max(
            Comparator.<Card>comparingInt(c -> Cards.strength(c, trump))
                .thenComparingInt(Cards::points)
                .thenComparingInt(c -> -c.getSuitValue()));
  }

  /** How much playing the card costs: its points, then whether it is a trump, then its strength. */
  private static Comparator<Card> cost(Suit trump) {
    return Comparator.<Card>comparingInt(Cards::points)
        .thenComparingInt(c -> Cards.isTrump(c, trump) ? 1 : 0)
        .thenComparingInt(c -> Cards.strength(c, trump))
        .thenComparingInt(Card::getSuitValue);
  }

  /** The cheapest winning card, else the cheapest card (also when leading or the partner wins). */
  public static Optional<Card> choosePlay(Observation obs, LegalActions legal) {
    Suit trump = obs.getTrump();
    List<Card> playable = legal.getPlayableCardsList();
    Optional<Card> cheapest = playable.stream().min(cost(trump));
    Trick trick = obs.getCurrentTrick();
    Optional<PlayedCard> winner = Cards.trickWinner(trick, trump);
    Optional<Suit> led = Cards.ledSuit(trick, trump);
    if (winner.isEmpty() || led.isEmpty()) {
      return cheapest;
    }
    if (Cards.sameSide(obs, obs.getSeat(), winner.get().getSeat())) {
      return cheapest;
    }
    int toBeat = Cards.trickStrength(winner.get().getCard(), led.get(), trump);
    Optional<Card> cheapestWinner =
        playable.stream()
            .filter(c -> Cards.trickStrength(c, led.get(), trump) > toBeat)
            .min(cost(trump));
    return cheapestWinner.isPresent() ? cheapestWinner : cheapest;
  }
}
