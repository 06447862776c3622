// Action constructors and a legality check against the compact LegalActions of a request.

import { Action, LegalActions, Phase } from "./gen/rookery/v1/actions";
import { Card, Suit } from "./gen/rookery/v1/cards";
import { cardToString, sameCard } from "./cards";

export { Action, LegalActions, Phase };

export function bid(amount: number): Action {
  return { kind: { $case: "bid", value: { amount } } };
}

export function pass(): Action {
  return { kind: { $case: "pass", value: {} } };
}

export function nameTrump(suit: Suit): Action {
  return { kind: { $case: "nameTrump", value: { suit } } };
}

export function bury(cards: readonly Card[]): Action {
  return { kind: { $case: "bury", value: { cards: [...cards] } } };
}

export function callCard(c: Card): Action {
  return { kind: { $case: "callCard", value: { card: c } } };
}

export function playCard(c: Card): Action {
  return { kind: { $case: "playCard", value: { card: c } } };
}

function contains(cards: readonly Card[], c: Card | undefined): boolean {
  return c !== undefined && cards.some((x) => sameCard(x, c));
}

/** Why `action` is not among `legal`, or null when it is legal. */
export function illegalReason(action: Action, legal: LegalActions): string | null {
  const k = action.kind;
  if (k === undefined) return "the action has no kind set";
  switch (k.$case) {
    case "pass":
      return legal.canPass ? null : "passing is not allowed now";
    case "bid":
      return legal.bids.includes(k.value.amount) ? null : `bid ${k.value.amount} is not among ${legal.bids.join(",") || "none"}`;
    case "nameTrump":
      return legal.trumpSuits.includes(k.value.suit) ? null : `suit ${Suit[k.value.suit]} may not be named trump now`;
    case "bury": {
      const cs = k.value.cards;
      if (legal.buryCount === 0) return "no bury is expected now";
      if (cs.length !== legal.buryCount) return `bury needs ${legal.buryCount} cards, got ${cs.length}`;
      for (let i = 0; i < cs.length; i++) {
        if (!contains(legal.buryCandidates, cs[i])) return `${cardToString(cs[i])} may not be buried`;
        if (cs.slice(0, i).some((x) => sameCard(x, cs[i]))) return `${cardToString(cs[i])} is buried twice`;
      }
      return null;
    }
    case "callCard":
      return contains(legal.callableCards, k.value.card) ? null : "that card may not be called";
    case "playCard":
      return contains(legal.playableCards, k.value.card)
        ? null
        : `${k.value.card ? cardToString(k.value.card) : "no card"} may not be played now`;
  }
}

export function isLegal(action: Action, legal: LegalActions): boolean {
  return illegalReason(action, legal) === null;
}

/** A legal action chosen without any thought: the fallback when a bot fails. */
export function firstLegal(legal: LegalActions): Action {
  if (legal.canPass) return pass();
  if (legal.bids.length > 0) return bid(legal.bids[0]);
  if (legal.trumpSuits.length > 0) return nameTrump(legal.trumpSuits[0]);
  if (legal.buryCount > 0) return bury(legal.buryCandidates.slice(0, legal.buryCount));
  if (legal.callableCards.length > 0) return callCard(legal.callableCards[0]);
  if (legal.playableCards.length > 0) return playCard(legal.playableCards[0]);
  throw new Error(`no legal action in phase ${Phase[legal.phase]}`);
}

/** A short text form of an action, for logs: "bid 75", "pass", "trump R", "play G14"… */
export function actionToString(action: Action): string {
  const k = action.kind;
  if (k === undefined) return "(empty action)";
  switch (k.$case) {
    case "bid":
      return `bid ${k.value.amount}`;
    case "pass":
      return "pass";
    case "nameTrump":
      return `trump ${Suit[k.value.suit]}`;
    case "bury":
      return `bury ${k.value.cards.map(cardToString).join(" ")}`;
    case "callCard":
      return `call ${k.value.card ? cardToString(k.value.card) : "?"}`;
    case "playCard":
      return `play ${k.value.card ? cardToString(k.value.card) : "?"}`;
  }
}
