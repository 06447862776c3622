//! Card helpers: text forms ("B1" … "G14", "ROOK", "ROOK2"), points, trump and trick logic.
use crate::pb::{Card, Observation, Suit, Trick};
use std::fmt;

/// A card text that is not one of "B1" … "G14", "ROOK", "ROOK2".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardParseError(pub String);

impl fmt::Display for CardParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "not a card: {:?} (expected a suit letter B, R, Y or G and a rank 1..14, or ROOK, ROOK2)",
            self.0
        )
    }
}

impl std::error::Error for CardParseError {}

/// The suit's letter: B, R, Y, G ("?" for no suit).
pub fn suit_letter(suit: Suit) -> &'static str {
    match suit {
        Suit::Black => "B",
        Suit::Red => "R",
        Suit::Yellow => "Y",
        Suit::Green => "G",
        Suit::Unspecified => "?",
    }
}

/// The suit named by a letter B, R, Y or G.
pub fn parse_suit(letter: &str) -> Option<Suit> {
    match letter {
        "B" => Some(Suit::Black),
        "R" => Some(Suit::Red),
        "Y" => Some(Suit::Yellow),
        "G" => Some(Suit::Green),
        _ => None,
    }
}

/// A numbered card.
pub fn card(suit: Suit, rank: u32) -> Card {
    Card { suit: suit as i32, rank, rook: 0 }
}

/// The Rook card (`which` = 1 for ROOK, 2 for ROOK2).
pub fn rook(which: u32) -> Card {
    Card { suit: Suit::Unspecified as i32, rank: 0, rook: which }
}

/// The card's text form: "B1" … "G14", "ROOK" or "ROOK2".
pub fn card_text(c: &Card) -> String {
    match c.rook {
        0 => format!("{}{}", suit_letter(c.suit()), c.rank),
        1 => "ROOK".to_string(),
        n => format!("ROOK{n}"),
    }
}

/// Parses a card's text form.
pub fn parse_card(text: &str) -> Result<Card, CardParseError> {
    let t = text.trim().to_ascii_uppercase();
    match t.as_str() {
        "ROOK" => return Ok(rook(1)),
        "ROOK2" => return Ok(rook(2)),
        _ => {}
    }
    let err = || CardParseError(text.to_string());
    if t.len() < 2 || !t.is_ascii() {
        return Err(err());
    }
    let suit = parse_suit(&t[..1]).ok_or_else(err)?;
    let rank: u32 = t[1..].parse().map_err(|_| err())?;
    if !(1..=14).contains(&rank) || t[1..].starts_with('0') {
        return Err(err());
    }
    Ok(card(suit, rank))
}

/// Parses a space- or comma-separated list of card texts.
pub fn parse_cards(text: &str) -> Result<Vec<Card>, CardParseError> {
    text.split(|c: char| c == ',' || c.is_whitespace())
        .filter(|s| !s.is_empty())
        .map(parse_card)
        .collect()
}

/// The point value: every 5 is worth 5, every 10 and 14 worth 10, each Rook card 20, others 0.
pub fn points(c: &Card) -> i32 {
    if c.rook != 0 {
        return 20;
    }
    match c.rank {
        5 => 5,
        10 | 14 => 10,
        _ => 0,
    }
}

/// The total points of some cards.
pub fn total_points<'a>(cards: impl IntoIterator<Item = &'a Card>) -> i32 {
    cards.into_iter().map(points).sum()
}

/// True for a Rook card.
pub fn is_rook(c: &Card) -> bool {
    c.rook != 0
}

/// The suit the card belongs to in play: a Rook card belongs to trump.
pub fn effective_suit(c: &Card, trump: Suit) -> Suit {
    if c.rook != 0 {
        trump
    } else {
        c.suit()
    }
}

/// True when the card is a trump (the Rook always is).
pub fn is_trump(c: &Card, trump: Suit) -> bool {
    c.rook != 0 || (trump != Suit::Unspecified && c.suit() == trump)
}

/// The card's strength in a trick led with `led` under `trump`: higher wins; 0 never wins.
/// Trumps: ROOK 200, ROOK2 199, trump rank r 100 + r; the led suit: its rank; others 0.
pub fn trick_strength(c: &Card, led: Suit, trump: Suit) -> i32 {
    if c.rook != 0 {
        return 201 - c.rook as i32;
    }
    if is_trump(c, trump) {
        return 100 + c.rank as i32;
    }
    if c.suit() == led {
        return c.rank as i32;
    }
    0
}

/// The strength of a card for ranking cards of the whole deck: the Rook cards highest, then trumps,
/// then by rank.
pub fn card_strength(c: &Card, trump: Suit) -> i32 {
    if c.rook != 0 {
        201 - c.rook as i32
    } else if is_trump(c, trump) {
        100 + c.rank as i32
    } else {
        c.rank as i32
    }
}

/// The suit led to a trick (trump when the Rook led), or None for an empty trick.
pub fn led_suit(trick: &Trick, trump: Suit) -> Option<Suit> {
    trick
        .cards
        .first()
        .and_then(|p| p.card.as_ref())
        .map(|c| effective_suit(c, trump))
}

/// The seat and card currently winning a trick, or None for an empty trick.
pub fn trick_winner(trick: &Trick, trump: Suit) -> Option<(i32, Card)> {
    let led = led_suit(trick, trump)?;
    let mut best: Option<(i32, Card, i32)> = None;
    for played in &trick.cards {
        let Some(c) = played.card.as_ref() else { continue };
        let s = trick_strength(c, led, trump);
        if best.as_ref().map_or(true, |b| s > b.2) {
            best = Some((played.seat, c.clone(), s));
        }
    }
    best.map(|(seat, c, _)| (seat, c))
}

/// True when `seat` and `other` score together in what this observation shows: the same side
/// under fixed partnerships, or the bidder and a known partner in called-partner rulesets.
pub fn same_side(obs: &Observation, seat: i32, other: i32) -> bool {
    if seat == other {
        return true;
    }
    let called = obs
        .ruleset
        .as_ref()
        .map_or(false, |r| r.partnership() == crate::pb::Partnership::Called);
    if called {
        let pair = |a: i32, b: i32| obs.bidder >= 0 && obs.partner >= 0 && a == obs.bidder && b == obs.partner;
        return pair(seat, other) || pair(other, seat);
    }
    let side = |s: i32| obs.sides.get(s as usize).copied();
    match (side(seat), side(other)) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_forms_round_trip() {
        for text in ["B1", "R5", "Y10", "G14", "ROOK", "ROOK2"] {
            assert_eq!(card_text(&parse_card(text).unwrap()), text);
        }
        assert_eq!(parse_card("g14").unwrap(), card(Suit::Green, 14));
    }

    #[test]
    fn bad_texts_are_refused_with_the_text() {
        for text in ["", "B", "B0", "B15", "X3", "B01", "ROOK3", "B 1"] {
            let e = parse_card(text).unwrap_err();
            assert!(e.to_string().contains(&format!("{text:?}")), "{e}");
        }
    }

    #[test]
    fn points_follow_the_rules() {
        let pts: Vec<i32> = ["B5", "R10", "Y14", "ROOK", "G1", "B13"]
            .iter()
            .map(|t| points(&parse_card(t).unwrap()))
            .collect();
        assert_eq!(pts, vec![5, 10, 10, 20, 0, 0]);
        let deck: Vec<Card> = (1..=4)
            .flat_map(|s| (1..=14).map(move |r| Card { suit: s, rank: r, rook: 0 }))
            .chain([rook(1)])
            .collect();
        assert_eq!(total_points(&deck), 120);
    }

    #[test]
    fn rook_is_the_highest_trump() {
        let trick = Trick {
            leader: 0,
            cards: vec![
                crate::pb::PlayedCard { seat: 0, card: Some(parse_card("R14").unwrap()) },
                crate::pb::PlayedCard { seat: 1, card: Some(parse_card("G2").unwrap()) },
                crate::pb::PlayedCard { seat: 2, card: Some(parse_card("ROOK").unwrap()) },
                crate::pb::PlayedCard { seat: 3, card: Some(parse_card("G14").unwrap()) },
            ],
            winner: -1,
            points: 0,
        };
        assert_eq!(trick_winner(&trick, Suit::Green), Some((2, rook(1))));
        assert_eq!(trick_winner(&trick, Suit::Black).unwrap().0, 2);
        assert_eq!(trick_winner(&trick, Suit::Yellow).unwrap().0, 2);
    }

    #[test]
    fn off_suit_cards_never_win() {
        let trick = Trick {
            leader: 1,
            cards: vec![
                crate::pb::PlayedCard { seat: 1, card: Some(parse_card("R3").unwrap()) },
                crate::pb::PlayedCard { seat: 2, card: Some(parse_card("B14").unwrap()) },
            ],
            winner: -1,
            points: 0,
        };
        assert_eq!(trick_winner(&trick, Suit::Green).unwrap().0, 1);
        assert_eq!(led_suit(&trick, Suit::Green), Some(Suit::Red));
    }
}
