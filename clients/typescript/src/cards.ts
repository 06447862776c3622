// Card helpers: text forms ("B1" … "G14", "ROOK", "ROOK2"), points, trump and trick logic.
// Everything here follows RULES.md; nothing talks to the network.

import { Card, Suit } from "./gen/rookery/v1/cards";

export { Card, Suit };

/** The four suits in their proto order. */
export const SUITS: readonly Suit[] = [Suit.SUIT_BLACK, Suit.SUIT_RED, Suit.SUIT_YELLOW, Suit.SUIT_GREEN];

const SUIT_LETTER: ReadonlyMap<Suit, string> = new Map([
  [Suit.SUIT_BLACK, "B"],
  [Suit.SUIT_RED, "R"],
  [Suit.SUIT_YELLOW, "Y"],
  [Suit.SUIT_GREEN, "G"],
]);
const LETTER_SUIT: ReadonlyMap<string, Suit> = new Map([...SUIT_LETTER].map(([s, l]) => [l, s]));

/** A card text could not be parsed. */
export class CardParseError extends Error {
  constructor(text: string, why: string) {
    super(`cannot parse card ${JSON.stringify(text)}: ${why} (expected B1…G14, ROOK or ROOK2)`);
    this.name = "CardParseError";
  }
}

/** A numbered card. */
export function card(suit: Suit, rank: number): Card {
  return { suit, rank, rook: 0 };
}

/** A Rook card: 1 for ROOK, 2 for ROOK2. */
export function rookCard(which = 1): Card {
  return { suit: Suit.SUIT_UNSPECIFIED, rank: 0, rook: which };
}

export function isRook(c: Card): boolean {
  return c.rook > 0;
}

/** The suit letter: "B", "R", "Y" or "G". */
export function suitLetter(s: Suit): string {
  const letter = SUIT_LETTER.get(s);
  if (letter === undefined) throw new RangeError(`not a suit: ${s}`);
  return letter;
}

/** The suit of a letter "B", "R", "Y" or "G" (case-insensitive). */
export function parseSuit(text: string): Suit {
  const s = LETTER_SUIT.get(text.trim().toUpperCase());
  if (s === undefined) throw new CardParseError(text, "unknown suit letter");
  return s;
}

/** The text form of a card: "B1" … "G14", "ROOK", "ROOK2". */
export function cardToString(c: Card): string {
  if (c.rook === 1) return "ROOK";
  if (c.rook > 1) return `ROOK${c.rook}`;
  return `${suitLetter(c.suit)}${c.rank}`;
}

/** Parses a card's text form (case-insensitive). */
export function parseCard(text: string): Card {
  const t = text.trim().toUpperCase();
  if (t === "ROOK" || t === "ROOK1") return rookCard(1);
  if (t === "ROOK2") return rookCard(2);
  const m = /^([BRYG])(\d{1,2})$/.exec(t);
  if (m === null) throw new CardParseError(text, "not a card");
  const rank = Number(m[2]);
  if (rank < 1 || rank > 14) throw new CardParseError(text, "rank outside 1..14");
  return card(parseSuit(m[1]), rank);
}

/** Parses a space- or comma-separated list of cards. */
export function parseCards(text: string): Card[] {
  return text
    .split(/[\s,]+/)
    .filter((t) => t.length > 0)
    .map(parseCard);
}

export function sameCard(a: Card, b: Card): boolean {
  return a.rook === b.rook && (a.rook > 0 || (a.suit === b.suit && a.rank === b.rank));
}

/** Point value (RULES.md §2): 5s are 5, 10s and 14s are 10, each Rook 20, the rest 0. */
export function cardPoints(c: Card): number {
  if (isRook(c)) return 20;
  if (c.rank === 5) return 5;
  if (c.rank === 10 || c.rank === 14) return 10;
  return 0;
}

export function pointsOf(cards: readonly Card[]): number {
  return cards.reduce((sum, c) => sum + cardPoints(c), 0);
}

/** The suit a card belongs to in play: the Rook belongs to trump. */
export function effectiveSuit(c: Card, trump: Suit): Suit {
  return isRook(c) ? trump : c.suit;
}

export function isTrump(c: Card, trump: Suit): boolean {
  return isRook(c) || (trump !== Suit.SUIT_UNSPECIFIED && c.suit === trump);
}

/** Strength within its own suit; the Rook cards rank above trump 14 (ROOK above ROOK2). */
export function cardStrength(c: Card): number {
  return isRook(c) ? 100 - c.rook : c.rank;
}

/**
 * The index of the card that currently wins a trick (played in order, the first one led):
 * the highest trump if any trump was played, else the highest card of the led suit.
 */
export function winningIndex(played: readonly Card[], trump: Suit): number {
  if (played.length === 0) return -1;
  const led = effectiveSuit(played[0], trump);
  let best = 0;
  for (let i = 1; i < played.length; i++) {
    if (beats(played[i], played[best], led, trump)) best = i;
  }
  return best;
}

/** True when `challenger`, played after `holder`, takes the trick from it. */
export function beats(challenger: Card, holder: Card, led: Suit, trump: Suit): boolean {
  const ct = isTrump(challenger, trump);
  const ht = isTrump(holder, trump);
  if (ct !== ht) return ct;
  if (!ct) {
    if (challenger.suit !== led) return false;
    if (holder.suit !== led) return true;
  }
  return cardStrength(challenger) > cardStrength(holder);
}

/** Cards grouped by effective suit (the Rook counts as trump when trump is given). */
export function countBySuit(cards: readonly Card[], trump: Suit = Suit.SUIT_UNSPECIFIED): Map<Suit, number> {
  const counts = new Map<Suit, number>(SUITS.map((s) => [s, 0]));
  for (const c of cards) {
    const s = effectiveSuit(c, trump);
    if (s !== Suit.SUIT_UNSPECIFIED) counts.set(s, (counts.get(s) ?? 0) + 1);
  }
  return counts;
}
