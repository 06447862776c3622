import { test } from "node:test";
import assert from "node:assert/strict";
import { Suit, cardToString, parseCard, parseCards } from "../src/cards";
import { isLegal } from "../src/actions";
import { bidLimit, chooseAction, chooseBury, chooseCall, choosePlay, chooseTrump } from "../src/sampleBot";
import { LegalActions, Observation, Phase } from "../src/gen/rookery/v1/actions";
import { ActionRequest } from "../src/gen/rookery/v1/bot_service";

function legal(p: Partial<LegalActions>): LegalActions {
  return {
    phase: Phase.PHASE_PLAY,
    seat: 0,
    canPass: false,
    bids: [],
    trumpSuits: [],
    buryCandidates: [],
    buryCount: 0,
    callableCards: [],
    playableCards: [],
    ...p,
  };
}

function obs(p: Partial<Observation>): Observation {
  return Observation.fromPartial({ seat: 0, sides: [0, 1, 0, 1], partner: -1, bidder: -1, ...p });
}

function request(o: Observation, l: LegalActions): ActionRequest {
  return ActionRequest.fromPartial({ tableId: "t", requestId: 1, seat: o.seat, observation: o, legalActions: l });
}

test("bids the minimum with a strong hand and passes with a weak one", () => {
  const strong = parseCards("ROOK R14 R10 R5 R13 R12 R11 B14 B10 G5 Y1 Y2 Y3");
  const weak = parseCards("B2 B3 B4 R2 R3 R4 Y2 Y3 Y4 G2 G3 G4 G6");
  assert.equal(bidLimit(weak), 10 + 0 + 5 * 4);
  const l = legal({ phase: Phase.PHASE_BIDDING, canPass: true, bids: [70, 75, 80] });
  assert.deepEqual(chooseAction(request(obs({ hand: strong }), l)).kind, { $case: "bid", value: { amount: 70 } });
  assert.deepEqual(chooseAction(request(obs({ hand: weak }), l)).kind, { $case: "pass", value: {} });
});

test("names the longest suit trump", () => {
  const hand = parseCards("G2 G3 G4 G6 G7 B14 B10 R5 Y1");
  assert.equal(chooseTrump(hand, [Suit.SUIT_BLACK, Suit.SUIT_RED, Suit.SUIT_YELLOW, Suit.SUIT_GREEN]), Suit.SUIT_GREEN);
});

test("buries the lowest non-point, non-trump cards", () => {
  const cands = parseCards("ROOK R2 R14 B5 B2 B3 G10 G4 Y13 Y1");
  assert.deepEqual(chooseBury(cands, 5, Suit.SUIT_RED).map(cardToString).sort(), ["B2", "B3", "G4", "Y1", "Y13"]);
});

test("calls the highest card not held: the Rook first, then trump 14", () => {
  assert.equal(cardToString(chooseCall(parseCards("B14 ROOK R14"), Suit.SUIT_RED)), "ROOK");
  assert.equal(cardToString(chooseCall(parseCards("B14 R13 G14"), Suit.SUIT_RED)), "R13");
});

test("plays the cheapest winning card, else the cheapest card, and does not overtake partner", () => {
  const trick = (cards: string[], leader: number) => ({
    leader,
    winner: -1,
    points: 0,
    cards: cards.map((c, i) => ({ seat: (leader + i) % 4, card: parseCard(c) })),
  });
  const o1 = obs({ seat: 0, trump: Suit.SUIT_RED, currentTrick: trick(["B10"], 3) });
  assert.equal(cardToString(choosePlay(o1, parseCards("B2 B11 B14"))), "B11");
  const o2 = obs({ seat: 0, trump: Suit.SUIT_RED, currentTrick: trick(["B14"], 3) });
  assert.equal(cardToString(choosePlay(o2, parseCards("B2 B5 B11"))), "B2");
  const o3 = obs({ seat: 0, trump: Suit.SUIT_RED, currentTrick: trick(["B9", "B13"], 2) }); // partner 2 led, 3 wins
  assert.equal(cardToString(choosePlay(o3, parseCards("G2 R3 R14"))), "R3");
  const o4 = obs({ seat: 0, trump: Suit.SUIT_RED, currentTrick: trick(["B13", "B9"], 2) }); // partner winning
  assert.equal(cardToString(choosePlay(o4, parseCards("G2 R3 G14"))), "G2");
});

test("every choice is one of the legal actions", () => {
  const hand = parseCards("ROOK R14 R10 R5 R13 B2 B3 G5 Y1 Y2 Y3 G9 G11");
  const nest = parseCards("B4 B6 Y4 Y6 G12");
  const all = [...hand, ...nest];
  const cases: [Observation, LegalActions][] = [
    [obs({ hand }), legal({ phase: Phase.PHASE_BIDDING, canPass: false, bids: [70] })],
    [obs({ hand, nest }), legal({ phase: Phase.PHASE_NAME_TRUMP, trumpSuits: [Suit.SUIT_BLACK, Suit.SUIT_RED] })],
    [obs({ hand, nest, trump: Suit.SUIT_RED }), legal({ phase: Phase.PHASE_BURY, buryCandidates: all, buryCount: 5 })],
    [obs({ hand, trump: Suit.SUIT_RED }), legal({ phase: Phase.PHASE_CALL, callableCards: parseCards("B14 G14") })],
    [obs({ hand, trump: Suit.SUIT_RED }), legal({ phase: Phase.PHASE_PLAY, playableCards: parseCards("B2 B3") })],
  ];
  for (const [o, l] of cases) assert.ok(isLegal(chooseAction(request(o, l)), l), Phase[l.phase]);
});
