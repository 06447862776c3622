//! The server's `ActionRequest`, written from the game's state as protobuf bytes: exactly what
//! `rookery.wire.convert` plus `SerializeToString` give (fields in number order, zero values
//! omitted, a negative int32 as ten bytes), with no Python object per field. The field numbers
//! come from `field_numbers` (generated from the .proto files); what `convert` decides (each
//! card's `Card` message, the enums' numbers, the ruleset's bytes) is handed in once per table
//! by `rookery.wire.fastpath`, whose Python encoder stays the reference:
//! `tests/wire/test_fastpath_requests.py` holds the two equal.

use crate::field_numbers as fields;
use crate::game::{Game, Phase, Trick};

const VARINT: u32 = 0;
const FIXED64: u32 = 1;
const LENGTH: u32 = 2;

/// What `convert` decides, encoded once: the parts of a request that are not the game's state.
pub struct RequestTemplate {
    /// The `Observation.ruleset` field (tag, length and the `Ruleset` message).
    pub ruleset: Vec<u8>,
    /// Each card's `Card` message, by engine index.
    pub cards: Vec<Vec<u8>>,
    /// The `Phase` enum's number of each of the core's phases.
    pub phases: [i64; 6],
    /// The `Suit` enum's number of each suit, then of no suit.
    pub suits: [i64; 5],
}

/// A request's envelope: what the table adds to the game's state.
pub struct Envelope<'a> {
    /// The `ActionRequest.table_id` field, encoded (empty for no id).
    pub table_id: &'a [u8],
    pub request_id: u64,
    pub seat: i64,
    pub deadline_ms: i64,
    pub bank_ms: i64,
    pub last_seq: u64,
    /// Whether the card sets go as `card_masks` too (`Hello.card_masks`).
    pub masks: bool,
}

fn varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8 & 0x7F) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

fn key(out: &mut Vec<u8>, number: u32, wire_type: u32) {
    varint(out, u64::from(number << 3 | wire_type));
}

/// An int32, enum or bool field (a negative value sign-extended to ten bytes); nothing for 0.
fn int_field(out: &mut Vec<u8>, number: u32, value: i64) {
    if value != 0 {
        key(out, number, VARINT);
        varint(out, value as u64);
    }
}

/// A uint64 field; nothing for 0.
fn uint_field(out: &mut Vec<u8>, number: u32, value: u64) {
    if value != 0 {
        key(out, number, VARINT);
        varint(out, value);
    }
}

fn bytes_field(out: &mut Vec<u8>, number: u32, payload: &[u8]) {
    key(out, number, LENGTH);
    varint(out, payload.len() as u64);
    out.extend_from_slice(payload);
}

/// A message field: `write` fills its body, then its length goes before it.
fn message_field(out: &mut Vec<u8>, number: u32, write: impl FnOnce(&mut Vec<u8>)) {
    let mut body = Vec::with_capacity(64);
    write(&mut body);
    bytes_field(out, number, &body);
}

/// A packed repeated int32 field; nothing when empty.
fn packed_field(out: &mut Vec<u8>, number: u32, values: impl Iterator<Item = i64>) {
    let mut body = Vec::with_capacity(16);
    for value in values {
        varint(&mut body, value as u64);
    }
    if !body.is_empty() {
        bytes_field(out, number, &body);
    }
}

/// A fixed64 field (a card mask); nothing for 0.
fn fixed64_field(out: &mut Vec<u8>, number: u32, value: u64) {
    if value != 0 {
        key(out, number, FIXED64);
        out.extend_from_slice(&value.to_le_bytes());
    }
}

impl RequestTemplate {
    /// A repeated `Card` field: the mask's cards, ascending.
    fn cards_field(&self, out: &mut Vec<u8>, number: u32, mut mask: u64) {
        while mask != 0 {
            bytes_field(out, number, &self.cards[mask.trailing_zeros() as usize]);
            mask &= mask - 1;
        }
    }

    /// A `Trick` message's body: leader, each card with its seat, winner, points.
    fn trick(
        &self,
        out: &mut Vec<u8>,
        players: usize,
        leader: i64,
        cards: &[u8],
        winner: i64,
        points: i64,
    ) {
        int_field(out, fields::trick::LEADER, leader);
        for (index, &card) in cards.iter().enumerate() {
            let seat = (leader as usize + index) % players;
            message_field(out, fields::trick::CARDS, |played| {
                int_field(played, fields::played_card::SEAT, seat as i64);
                bytes_field(
                    played,
                    fields::played_card::CARD,
                    &self.cards[card as usize],
                );
            });
        }
        int_field(out, fields::trick::WINNER, winner);
        int_field(out, fields::trick::POINTS, points);
    }

    fn completed(&self, out: &mut Vec<u8>, players: usize, trick: &Trick) {
        message_field(out, fields::observation::COMPLETED_TRICKS, |body| {
            let cards = &trick.cards[..players];
            let (winner, points) = (trick.winner as i64, trick.points);
            self.trick(body, players, trick.leader as i64, cards, winner, points);
        });
    }

    /// `game.observation_for(seat)` as an `Observation` message's body.
    pub fn observation(&self, out: &mut Vec<u8>, game: &Game, seat: i64) {
        let players = game.rules.players;
        let is_bidder = seat >= 0 && seat == i64::from(game.bidder);
        let (hand, nest, buried) = seat_cards(game, seat, is_bidder);
        out.extend_from_slice(&self.ruleset);
        int_field(out, fields::observation::SEAT, seat);
        int_field(out, fields::observation::HAND_NUMBER, game.hand_number);
        int_field(out, fields::observation::DEALER, game.dealer as i64);
        int_field(
            out,
            fields::observation::PHASE,
            self.phases[game.phase as usize],
        );
        int_field(
            out,
            fields::observation::CURRENT_PLAYER,
            i64::from(game.current),
        );
        self.cards_field(out, fields::observation::HAND, hand);
        self.cards_field(out, fields::observation::NEST, nest);
        for &(bidder, amount) in &game.auction {
            message_field(out, fields::observation::AUCTION, |entry| {
                int_field(entry, fields::auction_entry::SEAT, bidder as i64);
                int_field(entry, fields::auction_entry::AMOUNT, amount);
            });
        }
        int_field(out, fields::observation::HIGH_BID, game.high_bid);
        int_field(
            out,
            fields::observation::HIGH_BIDDER,
            i64::from(game.high_bidder),
        );
        int_field(out, fields::observation::BIDDER, i64::from(game.bidder));
        int_field(out, fields::observation::BID, game.bid);
        let trump = if game.trump < 0 {
            4
        } else {
            game.trump as usize
        };
        int_field(out, fields::observation::TRUMP, self.suits[trump]);
        self.cards_field(out, fields::observation::BURIED, buried);
        int_field(
            out,
            fields::observation::BURIED_COUNT,
            i64::from(game.buried.count_ones()),
        );
        if game.called >= 0 {
            bytes_field(
                out,
                fields::observation::CALLED_CARD,
                &self.cards[game.called as usize],
            );
        }
        int_field(
            out,
            fields::observation::PARTNER,
            i64::from(game.partner_for(seat as i32)),
        );
        int_field(
            out,
            fields::observation::PARTNER_REVEALED,
            i64::from(is_called_played(game)),
        );
        message_field(out, fields::observation::CURRENT_TRICK, |body| {
            if game.phase == Phase::Play {
                let leader = if game.trick_len > 0 {
                    game.lead
                } else {
                    game.current as usize
                };
                let cards = &game.trick[..game.trick_len];
                self.trick(body, players, leader as i64, cards, -1, game.trick_points);
            } else {
                self.trick(body, players, -1, &[], -1, 0);
            }
        });
        for trick in &game.tricks {
            self.completed(out, players, trick);
        }
        let points = game.points_captured();
        packed_field(
            out,
            fields::observation::POINTS_CAPTURED,
            points.into_iter(),
        );
        let sides = game.rules.num_sides;
        packed_field(
            out,
            fields::observation::SCORES,
            game.scores[..sides].iter().copied(),
        );
        let seats = game.rules.sides[..players].iter().map(|&side| side as i64);
        packed_field(out, fields::observation::SIDES, seats);
    }

    /// `game.legal_actions()` as a `LegalActions` message's body.
    pub fn legal_actions(&self, out: &mut Vec<u8>, game: &Game) {
        int_field(
            out,
            fields::legal_actions::PHASE,
            self.phases[game.phase as usize],
        );
        int_field(out, fields::legal_actions::SEAT, i64::from(game.current));
        match game.phase {
            Phase::Bidding => {
                int_field(out, fields::legal_actions::CAN_PASS, 1);
                packed_field(
                    out,
                    fields::legal_actions::BIDS,
                    game.legal_bids().into_iter(),
                );
            }
            Phase::NameTrump => {
                let suits = self.suits[..4].iter().copied();
                packed_field(out, fields::legal_actions::TRUMP_SUITS, suits);
            }
            Phase::Bury => {
                let (from, count) = bury(game);
                self.cards_field(out, fields::legal_actions::BURY_CANDIDATES, from);
                int_field(out, fields::legal_actions::BURY_COUNT, count);
            }
            Phase::Call => {
                self.cards_field(out, fields::legal_actions::CALLABLE_CARDS, game.call_from());
            }
            Phase::Play => {
                let play = game.legal_play_mask();
                self.cards_field(out, fields::legal_actions::PLAYABLE_CARDS, play);
            }
            Phase::GameOver => {}
        }
    }

    /// The `CardMasks` message's body of `seat`'s observation and the legal actions.
    fn card_masks(&self, out: &mut Vec<u8>, game: &Game, seat: i64) {
        let is_bidder = seat >= 0 && seat == i64::from(game.bidder);
        let (hand, nest, buried) = seat_cards(game, seat, is_bidder);
        let bury_from = if game.phase == Phase::Bury {
            bury(game).0
        } else {
            0
        };
        let call_from = if game.phase == Phase::Call {
            game.call_from()
        } else {
            0
        };
        let play = if game.phase == Phase::Play {
            game.legal_play_mask()
        } else {
            0
        };
        fixed64_field(out, fields::card_masks::HAND, hand);
        fixed64_field(out, fields::card_masks::NEST, nest);
        fixed64_field(out, fields::card_masks::BURIED, buried);
        fixed64_field(out, fields::card_masks::BURY_CANDIDATES, bury_from);
        fixed64_field(out, fields::card_masks::CALLABLE_CARDS, call_from);
        fixed64_field(out, fields::card_masks::PLAYABLE_CARDS, play);
    }

    /// A `ConnectResponse` carrying the `ActionRequest` of `envelope.seat` now.
    pub fn action_request(&self, game: &Game, envelope: &Envelope<'_>) -> Vec<u8> {
        let mut body = Vec::with_capacity(1024);
        body.extend_from_slice(envelope.table_id);
        uint_field(
            &mut body,
            fields::action_request::REQUEST_ID,
            envelope.request_id,
        );
        int_field(&mut body, fields::action_request::SEAT, envelope.seat);
        message_field(
            &mut body,
            fields::action_request::OBSERVATION,
            |observation| self.observation(observation, game, envelope.seat),
        );
        message_field(&mut body, fields::action_request::LEGAL_ACTIONS, |legal| {
            self.legal_actions(legal, game)
        });
        int_field(
            &mut body,
            fields::action_request::DEADLINE_MS,
            envelope.deadline_ms,
        );
        int_field(&mut body, fields::action_request::BANK_MS, envelope.bank_ms);
        uint_field(
            &mut body,
            fields::action_request::LAST_SEQ,
            envelope.last_seq,
        );
        if envelope.masks {
            message_field(&mut body, fields::action_request::CARD_MASKS, |masks| {
                self.card_masks(masks, game, envelope.seat)
            });
        }
        let mut out = Vec::with_capacity(body.len() + 4);
        bytes_field(&mut out, fields::connect_response::ACTION_REQUEST, &body);
        out
    }
}

/// The cards that may be buried and how many must be.
fn bury(game: &Game) -> (u64, i64) {
    (
        game.hands[game.bidder as usize],
        i64::from(game.rules.nest_size),
    )
}

/// Whether the called card has been played this hand (`Observation.partner_revealed`).
fn is_called_played(game: &Game) -> bool {
    if game.called < 0 {
        return false;
    }
    let called = game.called as u8;
    let players = game.rules.players;
    game.tricks
        .iter()
        .any(|trick| trick.cards[..players].contains(&called))
        || (game.phase == Phase::Play && game.trick[..game.trick_len].contains(&called))
}

/// What `seat` sees of the cards: its hand, and the nest and the bury if it is the bidder (a
/// spectator, seat -1, sees none).
fn seat_cards(game: &Game, seat: i64, is_bidder: bool) -> (u64, u64, u64) {
    let hand = if seat >= 0 {
        game.hands[seat as usize]
    } else {
        0
    };
    if is_bidder {
        (hand, game.nest, game.buried)
    } else {
        (hand, 0, 0)
    }
}
