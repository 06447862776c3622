//! The sample bot's strategy: simple, legal and deterministic. Replace it with your own.
//!
//! - Bid: count the points in hand; bid the minimum legal amount while it is at most
//!   `min_bid + (points - 30)`, never over a partner's bid; otherwise pass.
//! - Trump: the longest suit in hand (nest included), ties to the most points, then the first.
//! - Bury: the lowest non-point, non-trump cards first.
//! - Call (called-partner): the highest card not held (the Rook first, then trumps).
//! - Play: the cheapest card that wins the trick; the cheapest card when none does, when leading,
//!   or when the partner is already winning.
//!
//! Every choice is made from the `LegalActions` of the request, so the bot only sends legal actions.
use crate::actions;
use crate::cards::{
    card_strength, card_text, is_trump, led_suit, points, same_side, total_points, trick_strength,
    trick_winner,
};
use crate::client::Bot;
use crate::note::Note;
use crate::pb::{Action, ActionRequest, Card, LegalActions, Observation, Phase, Suit};
use std::collections::HashSet;

/// Points in hand at which the sample bot opens at the minimum bid.
pub const OPENING_POINTS: i32 = 30;

/// The sample bot: it acts on each request's observation alone, and notes how many cards it held.
///
/// `ROOKERY_SAMPLE_FAULT` makes it fail on purpose, to show what the kit does then (see
/// docs/dev/kit-contract.md): `raise` panics in `act`, `illegal` returns an illegal bid, `bad-note`
/// attaches a note the kit must refuse.
#[derive(Debug, Default)]
pub struct SampleBot {
    /// The deliberate failure, if any (from `ROOKERY_SAMPLE_FAULT`).
    pub fault: Option<String>,
    held: usize,
}

impl SampleBot {
    /// The sample bot, with the failure `ROOKERY_SAMPLE_FAULT` names, if any.
    pub fn from_env() -> SampleBot {
        SampleBot { fault: std::env::var("ROOKERY_SAMPLE_FAULT").ok().filter(|f| !f.is_empty()), held: 0 }
    }
}

impl Bot for SampleBot {
    fn act(&mut self, request: &ActionRequest) -> Action {
        let obs = request.observation.clone().unwrap_or_default();
        let legal = request.legal_actions.clone().unwrap_or_default();
        self.held = obs.hand.len();
        match self.fault.as_deref() {
            Some("raise") => panic!("the sample bot fails on purpose (ROOKERY_SAMPLE_FAULT=raise)"),
            Some("illegal") => actions::bid(1),
            _ => choose(&obs, &legal),
        }
    }

    fn note(&mut self) -> Option<Note> {
        let name = if self.fault.as_deref() == Some("bad-note") { "not a name!" } else { "hand_cards" };
        Some(Note::new("sample: cheapest winning card").value(name, self.held as f64))
    }
}

/// The sample strategy's action for an observation and its legal actions.
pub fn choose(obs: &Observation, legal: &LegalActions) -> Action {
    let chosen = match legal.phase() {
        Phase::Bidding => Some(choose_bid(obs, legal)),
        Phase::NameTrump => choose_trump(obs, legal).map(actions::name_trump),
        Phase::Bury => choose_bury(obs, legal).map(actions::bury),
        Phase::Call => choose_call(obs, legal).map(actions::call_card),
        Phase::Play => choose_play(obs, legal).map(actions::play_card),
        _ => None,
    };
    match chosen {
        Some(action) if actions::is_legal(&action, legal) => action,
        _ => actions::first_legal(legal).unwrap_or_else(actions::pass),
    }
}

/// The cards the seat holds, the nest included while it is in hand (no duplicates).
pub fn held_cards(obs: &Observation) -> Vec<Card> {
    let mut seen = HashSet::new();
    obs.hand
        .iter()
        .chain(obs.nest.iter())
        .filter(|c| seen.insert(card_text(c)))
        .cloned()
        .collect()
}

/// Bid the minimum legal amount when the hand is strong enough, else pass.
pub fn choose_bid(obs: &Observation, legal: &LegalActions) -> Action {
    let Some(&lowest) = legal.bids.first() else {
        return actions::pass();
    };
    if !legal.can_pass {
        return actions::bid(lowest);
    }
    if obs.high_bidder >= 0 && obs.high_bidder != obs.seat && same_side(obs, obs.seat, obs.high_bidder)
    {
        return actions::pass();
    }
    let min_bid = obs.ruleset.as_ref().map_or(70, |r| r.min_bid);
    let willing = min_bid + (total_points(&obs.hand) - OPENING_POINTS);
    if lowest <= willing {
        actions::bid(lowest)
    } else {
        actions::pass()
    }
}

/// The legal suit with the most cards in hand; ties go to more points, then to the earlier suit.
pub fn choose_trump(obs: &Observation, legal: &LegalActions) -> Option<Suit> {
    let held = held_cards(obs);
    let mut best: Option<(Suit, (usize, i32))> = None;
    for suit in legal.trump_suits() {
        let in_suit: Vec<&Card> = held.iter().filter(|c| c.rook == 0 && c.suit() == suit).collect();
        let key = (in_suit.len(), total_points(in_suit.iter().copied()));
        if best.as_ref().map_or(true, |b| key > b.1) {
            best = Some((suit, key));
        }
    }
    best.map(|b| b.0)
}

/// The `bury_count` cheapest candidates: non-point before point cards, non-trump before trump,
/// then fewer points, then lower rank.
pub fn choose_bury(obs: &Observation, legal: &LegalActions) -> Option<Vec<Card>> {
    let trump = obs.trump();
    let mut candidates = legal.bury_candidates.clone();
    candidates.sort_by_key(|c| (points(c) > 0, is_trump(c, trump), points(c), c.rank, c.suit));
    let n = legal.bury_count as usize;
    (n > 0 && candidates.len() >= n).then(|| candidates[..n].to_vec())
}

/// The highest callable card: the Rook, then trumps high to low, then other cards high to low.
pub fn choose_call(obs: &Observation, legal: &LegalActions) -> Option<Card> {
    let trump = obs.trump();
    legal
        .callable_cards
        .iter()
        .max_by_key(|c| (card_strength(c, trump), points(c), -c.suit))
        .cloned()
}

/// How much playing the card costs: its points, then whether it is a trump, then its strength.
fn play_cost(c: &Card, trump: Suit) -> (i32, bool, i32) {
    (points(c), is_trump(c, trump), card_strength(c, trump))
}

/// The cheapest winning card, else the cheapest card (also when leading or when the partner wins).
pub fn choose_play(obs: &Observation, legal: &LegalActions) -> Option<Card> {
    let trump = obs.trump();
    let cheapest = |cards: &mut dyn Iterator<Item = &Card>| {
        cards.min_by_key(|c| (play_cost(c, trump), c.suit)).cloned()
    };
    let default_trick = Default::default();
    let trick = obs.current_trick.as_ref().unwrap_or(&default_trick);
    let (Some((winner_seat, winner)), Some(led)) = (trick_winner(trick, trump), led_suit(trick, trump))
    else {
        return cheapest(&mut legal.playable_cards.iter());
    };
    if same_side(obs, obs.seat, winner_seat) {
        return cheapest(&mut legal.playable_cards.iter());
    }
    let to_beat = trick_strength(&winner, led, trump);
    let mut winners = legal.playable_cards.iter().filter(|c| trick_strength(c, led, trump) > to_beat);
    cheapest(&mut winners).or_else(|| cheapest(&mut legal.playable_cards.iter()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::{parse_card, parse_cards};
    use crate::pb::{action::Kind, PlayedCard, Ruleset, Trick};

    fn cards(text: &str) -> Vec<Card> {
        parse_cards(text).unwrap()
    }

    fn standard_obs(hand: &str) -> Observation {
        Observation {
            ruleset: Some(Ruleset { name: "standard".into(), players: 4, min_bid: 70, bid_step: 5, ..Default::default() }),
            seat: 0,
            hand: cards(hand),
            high_bidder: -1,
            bidder: -1,
            partner: -1,
            sides: vec![0, 1, 0, 1],
            ..Default::default()
        }
    }

    fn bidding(bids: &[i32]) -> LegalActions {
        LegalActions { phase: Phase::Bidding as i32, can_pass: true, bids: bids.to_vec(), ..Default::default() }
    }

    #[test]
    fn weak_hand_passes() {
        let obs = standard_obs("B1 B2 B3 R2 R3 R4 Y2 Y3 Y4 G2 G3 G4 G6");
        assert_eq!(choose(&obs, &bidding(&[70, 75, 80])), actions::pass());
    }

    #[test]
    fn strong_hand_bids_the_minimum() {
        // 10 + 10 + 10 + 5 + 20 = 55 points: willing up to 95.
        let obs = standard_obs("B14 B10 R14 R5 ROOK B2 B3 R2 R3 Y2 Y3 G2 G3");
        assert_eq!(choose(&obs, &bidding(&[70, 75, 80])), actions::bid(70));
        assert_eq!(choose(&obs, &bidding(&[100, 105])), actions::pass());
    }

    #[test]
    fn never_outbids_the_partner() {
        let mut obs = standard_obs("B14 B10 R14 R5 ROOK B2 B3 R2 R3 Y2 Y3 G2 G3");
        obs.high_bidder = 2;
        obs.high_bid = 70;
        assert_eq!(choose(&obs, &bidding(&[75, 80])), actions::pass());
    }

    #[test]
    fn bids_when_passing_is_not_allowed() {
        let obs = standard_obs("B1 B2 B3 R2 R3 R4 Y2 Y3 Y4 G2 G3 G4 G6");
        let mut legal = bidding(&[70]);
        legal.can_pass = false;
        assert_eq!(choose(&obs, &legal), actions::bid(70));
    }

    #[test]
    fn names_the_longest_suit_counting_the_nest() {
        let mut obs = standard_obs("B1 B2 B3 R2 R3 R4 Y2 G2");
        obs.nest = cards("R5 R6 G3");
        let legal = LegalActions { phase: Phase::NameTrump as i32, trump_suits: vec![1, 2, 3, 4], ..Default::default() };
        assert_eq!(choose(&obs, &legal), actions::name_trump(Suit::Red));
    }

    #[test]
    fn buries_the_lowest_non_point_cards() {
        let mut obs = standard_obs("");
        obs.trump = Suit::Red as i32;
        let legal = LegalActions {
            phase: Phase::Bury as i32,
            bury_candidates: cards("B5 B2 R1 Y3 G14 ROOK G1 B9 Y13"),
            bury_count: 4,
            ..Default::default()
        };
        let Some(Kind::Bury(b)) = choose(&obs, &legal).kind else { panic!("not a bury") };
        let texts: Vec<String> = b.cards.iter().map(card_text).collect();
        assert_eq!(texts, ["G1", "B2", "Y3", "B9"]);
    }

    #[test]
    fn calls_the_highest_card_not_held() {
        let mut obs = standard_obs("");
        obs.trump = Suit::Green as i32;
        let legal = LegalActions { phase: Phase::Call as i32, callable_cards: cards("B14 G13 G2 R14"), ..Default::default() };
        assert_eq!(choose(&obs, &legal), actions::call_card(parse_card("G13").unwrap()));
        let legal = LegalActions { phase: Phase::Call as i32, callable_cards: cards("B14 ROOK G13"), ..Default::default() };
        assert_eq!(choose(&obs, &legal), actions::call_card(parse_card("ROOK").unwrap()));
    }

    fn trick(played: &[(i32, &str)]) -> Trick {
        Trick {
            leader: played.first().map_or(0, |p| p.0),
            cards: played.iter().map(|(s, t)| PlayedCard { seat: *s, card: Some(parse_card(t).unwrap()) }).collect(),
            winner: -1,
            points: 0,
        }
    }

    fn playing(playable: &str) -> LegalActions {
        LegalActions { phase: Phase::Play as i32, playable_cards: cards(playable), ..Default::default() }
    }

    #[test]
    fn plays_the_cheapest_winning_card() {
        let mut obs = standard_obs("");
        obs.trump = Suit::Green as i32;
        obs.current_trick = Some(trick(&[(1, "B9")]));
        assert_eq!(choose(&obs, &playing("B14 B11 B12 B2")), actions::play_card(parse_card("B11").unwrap()));
    }

    #[test]
    fn trumps_in_when_void_and_plays_cheap_when_it_cannot_win() {
        let mut obs = standard_obs("");
        obs.trump = Suit::Green as i32;
        obs.current_trick = Some(trick(&[(1, "B9")]));
        assert_eq!(choose(&obs, &playing("G3 G14 R2")), actions::play_card(parse_card("G3").unwrap()));
        obs.current_trick = Some(trick(&[(1, "B9"), (3, "ROOK")]));
        assert_eq!(choose(&obs, &playing("G3 G14 R2")), actions::play_card(parse_card("R2").unwrap()));
    }

    #[test]
    fn leads_and_follows_a_winning_partner_with_the_cheapest_card() {
        let mut obs = standard_obs("");
        obs.trump = Suit::Green as i32;
        obs.current_trick = Some(trick(&[]));
        assert_eq!(choose(&obs, &playing("B14 R2 G3")), actions::play_card(parse_card("R2").unwrap()));
        obs.current_trick = Some(trick(&[(1, "B3"), (2, "B13")]));
        obs.seat = 0;
        assert_eq!(choose(&obs, &playing("B14 B4")), actions::play_card(parse_card("B4").unwrap()));
    }

    #[test]
    fn falls_back_to_a_legal_action_when_the_phase_is_unexpected() {
        let obs = standard_obs("");
        let legal = LegalActions { phase: Phase::Unspecified as i32, playable_cards: cards("B2"), ..Default::default() };
        assert!(actions::is_legal(&choose(&obs, &legal), &legal));
    }
}
