#include "rookery/cards.h"

#include <cctype>

#include "rookery/v1/ruleset.pb.h"

namespace rookery {

CardParseError::CardParseError(const std::string& text)
    : std::invalid_argument("not a card: \"" + text +
                            "\" (expected a suit letter B, R, Y or G and a rank 1..14, or ROOK, "
                            "ROOK2)") {}

std::string SuitLetter(Suit suit) {
  switch (suit) {
    case v1::SUIT_BLACK: return "B";
    case v1::SUIT_RED: return "R";
    case v1::SUIT_YELLOW: return "Y";
    case v1::SUIT_GREEN: return "G";
    default: return "?";
  }
}

std::optional<Suit> ParseSuit(const std::string& letter) {
  if (letter == "B" || letter == "b") return v1::SUIT_BLACK;
  if (letter == "R" || letter == "r") return v1::SUIT_RED;
  if (letter == "Y" || letter == "y") return v1::SUIT_YELLOW;
  if (letter == "G" || letter == "g") return v1::SUIT_GREEN;
  return std::nullopt;
}

Card MakeCard(Suit suit, int rank) {
  Card c;
  c.set_suit(suit);
  c.set_rank(static_cast<uint32_t>(rank));
  return c;
}

Card MakeRook(int which) {
  Card c;
  c.set_rook(static_cast<uint32_t>(which));
  return c;
}

std::string CardText(const Card& card) {
  if (card.rook() == 1) return "ROOK";
  if (card.rook() > 1) return "ROOK" + std::to_string(card.rook());
  return SuitLetter(card.suit()) + std::to_string(card.rank());
}

Card ParseCard(const std::string& text) {
  std::string t;
  for (char ch : text) t += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  if (t == "ROOK") return MakeRook(1);
  if (t == "ROOK2") return MakeRook(2);
  if (t.size() < 2 || t.size() > 3 || t[1] == '0') throw CardParseError(text);
  for (size_t i = 1; i < t.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(t[i]))) throw CardParseError(text);
  }
  auto suit = ParseSuit(t.substr(0, 1));
  int rank = std::stoi(t.substr(1));
  if (!suit || rank < 1 || rank > 14) throw CardParseError(text);
  return MakeCard(*suit, rank);
}

std::vector<Card> ParseCards(const std::string& text) {
  std::vector<Card> cards;
  std::string word;
  for (size_t i = 0; i <= text.size(); ++i) {
    char ch = i < text.size() ? text[i] : ' ';
    if (ch == ' ' || ch == ',' || ch == '\t' || ch == '\n') {
      if (!word.empty()) cards.push_back(ParseCard(word));
      word.clear();
    } else {
      word += ch;
    }
  }
  return cards;
}

bool SameCard(const Card& a, const Card& b) {
  return a.suit() == b.suit() && a.rank() == b.rank() && a.rook() == b.rook();
}

int Points(const Card& card) {
  if (card.rook() != 0) return 20;
  switch (card.rank()) {
    case 5: return 5;
    case 10:
    case 14: return 10;
    default: return 0;
  }
}

Suit EffectiveSuit(const Card& card, Suit trump) { return card.rook() != 0 ? trump : card.suit(); }

bool IsTrump(const Card& card, Suit trump) {
  return card.rook() != 0 || (trump != v1::SUIT_UNSPECIFIED && card.suit() == trump);
}

int TrickStrength(const Card& card, Suit led, Suit trump) {
  if (card.rook() != 0) return 201 - static_cast<int>(card.rook());
  if (IsTrump(card, trump)) return 100 + static_cast<int>(card.rank());
  return card.suit() == led ? static_cast<int>(card.rank()) : 0;
}

int CardStrength(const Card& card, Suit trump) {
  if (card.rook() != 0) return 201 - static_cast<int>(card.rook());
  return IsTrump(card, trump) ? 100 + static_cast<int>(card.rank()) : static_cast<int>(card.rank());
}

std::optional<Suit> LedSuit(const v1::Trick& trick, Suit trump) {
  if (trick.cards_size() == 0) return std::nullopt;
  return EffectiveSuit(trick.cards(0).card(), trump);
}

std::optional<v1::PlayedCard> TrickWinner(const v1::Trick& trick, Suit trump) {
  auto led = LedSuit(trick, trump);
  if (!led) return std::nullopt;
  std::optional<v1::PlayedCard> best;
  int best_strength = -1;
  for (const auto& played : trick.cards()) {
    int s = TrickStrength(played.card(), *led, trump);
    if (s > best_strength) {
      best = played;
      best_strength = s;
    }
  }
  return best;
}

bool SameSide(const v1::Observation& obs, int seat, int other) {
  if (seat == other) return true;
  if (obs.ruleset().partnership() == v1::PARTNERSHIP_CALLED) {
    int b = obs.bidder();
    int p = obs.partner();
    return b >= 0 && p >= 0 && ((seat == b && other == p) || (seat == p && other == b));
  }
  if (seat < 0 || other < 0 || seat >= obs.sides_size() || other >= obs.sides_size()) return false;
  return obs.sides(seat) == obs.sides(other);
}

}  // namespace rookery
