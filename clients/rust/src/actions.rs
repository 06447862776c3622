//! Building actions and checking them against the compact `LegalActions`.
use crate::cards::card_text;
use crate::pb::{action::Kind, Action, BuryCards, Card, LegalActions, Suit};
use std::collections::HashSet;

/// Bid `amount` points.
pub fn bid(amount: i32) -> Action {
    Action { kind: Some(Kind::Bid(crate::pb::Bid { amount })) }
}

/// Pass in the auction.
pub fn pass() -> Action {
    Action { kind: Some(Kind::Pass(crate::pb::Pass {})) }
}

/// Name `suit` trump.
pub fn name_trump(suit: Suit) -> Action {
    Action { kind: Some(Kind::NameTrump(crate::pb::NameTrump { suit: suit as i32 })) }
}

/// Bury these cards.
pub fn bury(cards: Vec<Card>) -> Action {
    Action { kind: Some(Kind::Bury(BuryCards { cards })) }
}

/// Call this card (called-partner rulesets).
pub fn call_card(card: Card) -> Action {
    Action { kind: Some(Kind::CallCard(crate::pb::CallCard { card: Some(card) })) }
}

/// Play this card.
pub fn play_card(card: Card) -> Action {
    Action { kind: Some(Kind::PlayCard(crate::pb::PlayCard { card: Some(card) })) }
}

fn contains(cards: &[Card], card: &Option<Card>) -> bool {
    card.as_ref().is_some_and(|c| cards.contains(c))
}

/// True when `action` is one of the legal actions.
pub fn is_legal(action: &Action, legal: &LegalActions) -> bool {
    match &action.kind {
        Some(Kind::Pass(_)) => legal.can_pass,
        Some(Kind::Bid(b)) => legal.bids.contains(&b.amount),
        Some(Kind::NameTrump(t)) => legal.trump_suits.contains(&t.suit),
        Some(Kind::Bury(b)) => {
            let texts: HashSet<String> = b.cards.iter().map(card_text).collect();
            legal.bury_count > 0
                && b.cards.len() == legal.bury_count as usize
                && texts.len() == b.cards.len()
                && b.cards.iter().all(|c| legal.bury_candidates.contains(c))
        }
        Some(Kind::CallCard(c)) => contains(&legal.callable_cards, &c.card),
        Some(Kind::PlayCard(p)) => contains(&legal.playable_cards, &p.card),
        None => false,
    }
}

/// The first legal action: pass, the lowest bid, the first suit, the first cards to bury, the
/// first callable card or the first playable card. None when nothing is legal.
pub fn first_legal(legal: &LegalActions) -> Option<Action> {
    if legal.can_pass {
        return Some(pass());
    }
    if let Some(&amount) = legal.bids.first() {
        return Some(bid(amount));
    }
    if let Some(&suit) = legal.trump_suits.first() {
        return Some(Action { kind: Some(Kind::NameTrump(crate::pb::NameTrump { suit })) });
    }
    if legal.bury_count > 0 && legal.bury_candidates.len() >= legal.bury_count as usize {
        return Some(bury(legal.bury_candidates[..legal.bury_count as usize].to_vec()));
    }
    if let Some(c) = legal.callable_cards.first() {
        return Some(call_card(c.clone()));
    }
    legal.playable_cards.first().map(|c| play_card(c.clone()))
}

/// A short text form of an action, for logs: "bid 70", "pass", "trump R", "bury B1 B2 …",
/// "call G14", "play ROOK".
pub fn action_text(action: &Action) -> String {
    match &action.kind {
        Some(Kind::Pass(_)) => "pass".into(),
        Some(Kind::Bid(b)) => format!("bid {}", b.amount),
        Some(Kind::NameTrump(t)) => {
            format!("trump {}", crate::cards::suit_letter(t.suit()))
        }
        Some(Kind::Bury(b)) => {
            let cards: Vec<String> = b.cards.iter().map(card_text).collect();
            format!("bury {}", cards.join(" "))
        }
        Some(Kind::CallCard(c)) => format!("call {}", c.card.as_ref().map_or("?".into(), card_text)),
        Some(Kind::PlayCard(p)) => format!("play {}", p.card.as_ref().map_or("?".into(), card_text)),
        None => "(no action)".into(),
    }
}
