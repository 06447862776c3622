import { test } from "node:test";
import assert from "node:assert/strict";
import {
  CardParseError,
  Suit,
  beats,
  cardPoints,
  cardToString,
  parseCard,
  parseCards,
  pointsOf,
  winningIndex,
} from "../src/cards";
import { bid, bury, illegalReason, pass, playCard } from "../src/actions";
import { LegalActions, Phase } from "../src/gen/rookery/v1/actions";

test("every card text form round-trips", () => {
  for (const s of ["B", "R", "Y", "G"]) {
    for (let r = 1; r <= 14; r++) assert.equal(cardToString(parseCard(`${s}${r}`)), `${s}${r}`);
  }
  assert.equal(cardToString(parseCard("rook")), "ROOK");
  assert.equal(cardToString(parseCard("ROOK2")), "ROOK2");
  assert.deepEqual(parseCard("g14"), { suit: Suit.SUIT_GREEN, rank: 14, rook: 0 });
});

test("bad card texts are refused with a clear error", () => {
  for (const bad of ["", "X5", "B0", "B15", "ROOK3", "14G"]) {
    assert.throws(() => parseCard(bad), CardParseError);
  }
  assert.throws(() => parseCard("B15"), /rank outside 1..14/);
});

test("points: 5s are 5, 10s and 14s are 10, the Rook 20, the deck 120", () => {
  assert.equal(cardPoints(parseCard("R5")), 5);
  assert.equal(cardPoints(parseCard("R10")), 10);
  assert.equal(cardPoints(parseCard("R14")), 10);
  assert.equal(cardPoints(parseCard("R13")), 0);
  assert.equal(cardPoints(parseCard("ROOK")), 20);
  const deck = ["B", "R", "Y", "G"].flatMap((s) => Array.from({ length: 14 }, (_, i) => `${s}${i + 1}`));
  assert.equal(pointsOf(parseCards([...deck, "ROOK"].join(" "))), 120);
});

test("trick winner: the highest trump, else the highest of the led suit; the Rook is the top trump", () => {
  const t = Suit.SUIT_RED;
  assert.equal(winningIndex(parseCards("B5 B14 G14 B2"), t), 1);
  assert.equal(winningIndex(parseCards("B5 B14 R2 B2"), t), 2);
  assert.equal(winningIndex(parseCards("B5 R14 ROOK B2"), t), 2);
  assert.equal(winningIndex(parseCards("ROOK R14 R13 B2"), t), 0);
  assert.equal(winningIndex(parseCards("R1 ROOK2 ROOK"), t), 2);
  assert.ok(!beats(parseCard("G14"), parseCard("B1"), Suit.SUIT_BLACK, t));
});

test("illegal actions are explained", () => {
  const legal: LegalActions = {
    phase: Phase.PHASE_BIDDING,
    seat: 0,
    canPass: true,
    bids: [70, 75],
    trumpSuits: [],
    buryCandidates: [],
    buryCount: 0,
    callableCards: [],
    playableCards: [],
  };
  assert.equal(illegalReason(pass(), legal), null);
  assert.equal(illegalReason(bid(75), legal), null);
  assert.match(illegalReason(bid(80), legal) ?? "", /not among 70,75/);
  assert.match(illegalReason(playCard(parseCard("B1")), legal) ?? "", /B1 may not be played/);
  assert.match(illegalReason(bury(parseCards("B1")), legal) ?? "", /no bury/);
});
