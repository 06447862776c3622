// Card helpers: text forms ("B1" … "G14", "ROOK", "ROOK2"), points, trump and trick logic.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "rookery/v1/actions.pb.h"
#include "rookery/v1/cards.pb.h"

namespace rookery {

using v1::Card;
using v1::Suit;

// A card text that is not one of "B1" … "G14", "ROOK", "ROOK2".
class CardParseError : public std::invalid_argument {
 public:
  explicit CardParseError(const std::string& text);
};

// The suit's letter: B, R, Y, G ("?" for no suit).
std::string SuitLetter(Suit suit);
// The suit named by a letter B, R, Y or G.
std::optional<Suit> ParseSuit(const std::string& letter);
// A numbered card.
Card MakeCard(Suit suit, int rank);
// A Rook card: 1 for ROOK, 2 for ROOK2.
Card MakeRook(int which = 1);
// The card's text form.
std::string CardText(const Card& card);
// The text forms of some cards, separated by spaces.
template <typename Cards>
std::string CardsText(const Cards& cards) {
  std::string out;
  for (const Card& c : cards) {
    if (!out.empty()) out += ' ';
    out += CardText(c);
  }
  return out;
}
// Parses a card's text form; throws CardParseError naming the text.
Card ParseCard(const std::string& text);
// Parses a space- or comma-separated list of card texts.
std::vector<Card> ParseCards(const std::string& text);
// True when two cards are the same card.
bool SameCard(const Card& a, const Card& b);

// Every 5 is worth 5, every 10 and 14 worth 10, each Rook card 20, all other cards 0.
int Points(const Card& card);
template <typename Cards>
int TotalPoints(const Cards& cards) {
  int total = 0;
  for (const Card& c : cards) total += Points(c);
  return total;
}

// The suit the card belongs to in play: a Rook card belongs to trump.
Suit EffectiveSuit(const Card& card, Suit trump);
// True when the card is a trump (the Rook always is).
bool IsTrump(const Card& card, Suit trump);
// Strength in a trick led with `led`: ROOK 200, ROOK2 199, trump 100 + rank, led suit rank, else 0.
int TrickStrength(const Card& card, Suit led, Suit trump);
// Ranks any card: the Rook cards highest, then trumps, then by rank.
int CardStrength(const Card& card, Suit trump);
// The suit led to a trick (trump when the Rook led); empty for an empty trick.
std::optional<Suit> LedSuit(const v1::Trick& trick, Suit trump);
// The card (with its seat) now winning a trick; empty for an empty trick.
std::optional<v1::PlayedCard> TrickWinner(const v1::Trick& trick, Suit trump);
// True when the seats score together as far as the observation shows: the same side, or (called
// partner) the bidder and a known partner.
bool SameSide(const v1::Observation& obs, int seat, int other);

}  // namespace rookery
