// The sample bot: a simple, legal, non-random strategy. Replace `chooseAction` with your own logic.
//
//  - bid: the minimum legal bid while it is at most 10 + counted points in hand + 5 × the length
//    of the longest suit; otherwise pass;
//  - trump: the longest suit (ties: more points, then higher cards, then B, R, Y, G);
//  - bury: the cheapest cards — non-trump before trump, no points before points, low before high;
//  - call (called-partner): the highest card not held, the Rook first, then trump 14 downwards;
//  - play: if partner is winning the trick, the cheapest card; else the cheapest card that takes
//    the trick; else the cheapest card.
// Every choice is taken from the request's LegalActions, so the bot never sends an illegal action.

import { Observation } from "./gen/rookery/v1/actions";
import { ActionRequest } from "./gen/rookery/v1/bot_service";
import { Card, Suit } from "./gen/rookery/v1/cards";
import { Action, LegalActions, bid, bury, callCard, firstLegal, nameTrump, pass, playCard } from "./actions";
import {
  cardPoints,
  cardStrength,
  countBySuit,
  isRook,
  isTrump,
  pointsOf,
  sameCard,
  winningIndex,
} from "./cards";
import { Bot } from "./client";
import { Reply } from "./note";

/** The bid limit of a hand: 10 + counted points + 5 × longest suit length. */
export function bidLimit(hand: readonly Card[]): number {
  const longest = Math.max(...countBySuit(hand).values());
  return 10 + pointsOf(hand) + 5 * longest;
}

export function chooseBid(hand: readonly Card[], legal: LegalActions): Action {
  const lowest = legal.bids.length > 0 ? legal.bids[0] : undefined;
  if (lowest !== undefined && (lowest <= bidLimit(hand) || !legal.canPass)) return bid(lowest);
  return pass();
}

export function chooseTrump(hand: readonly Card[], allowed: readonly Suit[]): Suit {
  const counts = countBySuit(hand);
  const score = (s: Suit): [number, number, number] => {
    const cards = hand.filter((c) => !isRook(c) && c.suit === s);
    return [counts.get(s) ?? 0, pointsOf(cards), cards.reduce((sum, c) => sum + c.rank, 0)];
  };
  let best = allowed[0];
  for (const s of allowed.slice(1)) {
    const a = score(s);
    const b = score(best);
    if (a[0] > b[0] || (a[0] === b[0] && (a[1] > b[1] || (a[1] === b[1] && a[2] > b[2])))) best = s;
  }
  return best;
}

/** Lower is cheaper to give away: trump last, points late, low ranks first. */
function cost(c: Card, trump: Suit): number {
  return (isTrump(c, trump) ? 10000 : 0) + cardPoints(c) * 100 + cardStrength(c);
}

function cheapest(cards: readonly Card[], trump: Suit): Card {
  return cards.reduce((best, c) => (cost(c, trump) < cost(best, trump) ? c : best));
}

export function chooseBury(candidates: readonly Card[], count: number, trump: Suit): Card[] {
  return [...candidates].sort((a, b) => cost(a, trump) - cost(b, trump)).slice(0, count);
}

/** Call power: the Rook cards, then trump from 14 down, then other suits from 14 down. */
function callPower(c: Card, trump: Suit): number {
  if (isRook(c)) return 1000 - c.rook;
  return (c.suit === trump ? 100 : 0) + c.rank;
}

export function chooseCall(callable: readonly Card[], trump: Suit): Card {
  return callable.reduce((best, c) => (callPower(c, trump) > callPower(best, trump) ? c : best));
}

function partnerOf(obs: Observation, seat: number): (other: number) => boolean {
  return (other: number) => {
    if (other === seat) return true;
    const partnership = obs.ruleset?.partnership ?? 0;
    if (partnership === 3 /* CALLED */) {
      const bidderSide = [obs.bidder, obs.partner].filter((s) => s >= 0);
      return obs.partner >= 0 && bidderSide.includes(seat) && bidderSide.includes(other);
    }
    return obs.sides.length > Math.max(seat, other) && obs.sides[seat] === obs.sides[other];
  };
}

export function choosePlay(obs: Observation, playable: readonly Card[]): Card {
  const trump = obs.trump;
  const trick = obs.currentTrick?.cards ?? [];
  if (trick.length === 0) return cheapest(playable, trump);
  const played = trick.map((p) => p.card).filter((c): c is Card => c !== undefined);
  const winner = trick[winningIndex(played, trump)].seat;
  if (partnerOf(obs, obs.seat)(winner)) return cheapest(playable, trump);
  const winners = playable.filter((c) => winningIndex([...played, c], trump) === played.length);
  return cheapest(winners.length > 0 ? winners : playable, trump);
}

/** Every card this seat holds now: its hand plus the nest while the bidder holds it. */
export function heldCards(obs: Observation): Card[] {
  const held = [...obs.hand];
  for (const c of obs.nest) if (!held.some((h) => sameCard(h, c))) held.push(c);
  return held;
}

/** The sample strategy: one legal action for the request, from the observation alone. */
export function chooseAction(request: ActionRequest): Action {
  const legal = request.legalActions;
  const obs = request.observation;
  if (legal === undefined || obs === undefined) throw new Error("request without observation or legal actions");
  const hand = heldCards(obs);
  if (legal.canPass || legal.bids.length > 0) return chooseBid(hand, legal);
  if (legal.trumpSuits.length > 0) return nameTrump(chooseTrump(hand, legal.trumpSuits));
  if (legal.buryCount > 0) return bury(chooseBury(legal.buryCandidates, legal.buryCount, obs.trump));
  if (legal.callableCards.length > 0) return callCard(chooseCall(legal.callableCards, obs.trump));
  if (legal.playableCards.length > 0) return playCard(choosePlay(obs, legal.playableCards));
  return firstLegal(legal);
}

/** The sample bot: stateless, so one instance per table costs nothing. */
/**
 * The sample bot: it acts on each request's observation alone and notes how many cards it held.
 * `fault` (by default ROOKERY_SAMPLE_FAULT) makes it fail on purpose, to show what the kit does
 * then (docs/dev/kit-contract.md): "raise" throws in act, "illegal" returns an illegal bid,
 * "bad-note" attaches a note the kit must refuse.
 */
export class SampleBot implements Bot {
  constructor(readonly fault: string = process.env.ROOKERY_SAMPLE_FAULT ?? "") {}

  act(request: ActionRequest): Reply {
    if (this.fault === "raise") throw new Error("the sample bot fails on purpose (ROOKERY_SAMPLE_FAULT=raise)");
    const action = this.fault === "illegal" ? bid(1) : chooseAction(request);
    const name = this.fault === "bad-note" ? "not a name!" : "hand_cards";
    return { action, note: { text: "sample: cheapest winning card", values: { [name]: request.observation?.hand.length ?? 0 } } };
  }
}
