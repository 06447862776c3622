//! A bot's reading of an `ActionRequest` (and of the `ConnectResponse` envelope around it), from
//! its protobuf bytes into plain values: the SDK's `rookery.wire.fastpath` makes the engine's
//! values of them. Only the regular case is read (what the server's writer writes: each field
//! once, the card masks present, every card one of the 58 `Card` messages, every enum known);
//! anything else gives `None` and the SDK leaves the message to protobuf and `convert`, with their
//! errors. The Python reader stays the reference: `tests/wire/test_fastpath_reading.py` holds the
//! two equal.

use std::collections::HashMap;

use crate::cards::NUM_CARDS;
use crate::field_numbers as fields;
use crate::protobuf::{int32, packed_int32, Fields, Value};

/// A trick as plain values: leader, `(seat, card)` in play order, winner, points.
pub type PlainTrick = (i64, Vec<(i64, u32)>, i64, i64);

/// An `ActionRequest` read: the plain values the SDK uses.
#[derive(Default)]
pub struct ReadRequest<'a> {
    pub table_id: &'a str,
    pub request_id: u64,
    pub deadline_ms: i64,
    pub ruleset: &'a [u8],
    pub seat: i64,
    pub hand_number: i64,
    pub dealer: i64,
    pub phase: i64,
    pub current_player: i64,
    pub auction: Vec<(i64, i64)>,
    pub high_bid: i64,
    pub high_bidder: i64,
    pub bidder: i64,
    pub bid: i64,
    pub trump: i64,
    pub buried_count: i64,
    /// The called card's index, -1 for none.
    pub called: i64,
    pub partner: i64,
    pub current: Option<PlainTrick>,
    /// Each completed trick's `Trick` message (read by `trick` from where the SDK needs).
    pub completed: Vec<&'a [u8]>,
    pub points_captured: Vec<i64>,
    pub scores: Vec<i64>,
    pub sides: Vec<i64>,
    pub legal_phase: i64,
    pub legal_seat: i64,
    pub can_pass: bool,
    pub bids: Vec<i64>,
    pub suits: Vec<i64>,
    pub bury_count: i64,
    /// `CardMasks`: hand, nest, buried, bury candidates, callable cards, playable cards.
    pub masks: [u64; 6],
}

/// Each card's `Card` message, to read cards by their bytes.
pub struct CardTable {
    by_bytes: HashMap<Vec<u8>, u32>,
}

impl CardTable {
    pub fn new(cards: &[Vec<u8>]) -> CardTable {
        let by_bytes = cards
            .iter()
            .enumerate()
            .map(|(i, b)| (b.clone(), i as u32))
            .collect();
        CardTable { by_bytes }
    }

    fn card(&self, message: &[u8]) -> Option<u32> {
        self.by_bytes.get(message).copied()
    }
}

/// Marks field `number` seen; `None` when it was seen already (a repeated singular field).
fn once(seen: &mut u64, number: u32) -> Option<()> {
    let bit = 1u64 << number.min(63);
    if *seen & bit != 0 {
        return None;
    }
    *seen |= bit;
    Some(())
}

fn varint_of(value: Value<'_>) -> Option<u64> {
    match value {
        Value::Varint(v) => Some(v),
        _ => None,
    }
}

fn bytes_of(value: Value<'_>) -> Option<&[u8]> {
    match value {
        Value::Bytes(b) => Some(b),
        _ => None,
    }
}

/// A `Trick` message read, its cards by the card table.
pub fn trick(cards: &CardTable, message: &[u8]) -> Option<PlainTrick> {
    let (mut leader, mut winner, mut points) = (0, 0, 0);
    let mut played = Vec::with_capacity(6);
    let mut seen = 0u64;
    let mut reader = Fields::new(message);
    while let Some((number, value)) = reader.next_field()? {
        match number {
            fields::trick::CARDS => {
                let (mut seat, mut card) = (0, None);
                let mut inner = Fields::new(bytes_of(value)?);
                let mut inner_seen = 0u64;
                while let Some((number, value)) = inner.next_field()? {
                    once(&mut inner_seen, number)?;
                    match number {
                        fields::played_card::SEAT => seat = int32(varint_of(value)?),
                        fields::played_card::CARD => card = Some(cards.card(bytes_of(value)?)?),
                        _ => return None,
                    }
                }
                played.push((seat, card?));
                continue;
            }
            fields::trick::LEADER => leader = int32(varint_of(value)?),
            fields::trick::WINNER => winner = int32(varint_of(value)?),
            fields::trick::POINTS => points = int32(varint_of(value)?),
            _ => return None,
        }
        once(&mut seen, number)?;
    }
    Some((leader, played, winner, points))
}

fn observation<'a>(cards: &CardTable, message: &'a [u8], out: &mut ReadRequest<'a>) -> Option<()> {
    use fields::observation as o;
    let mut seen = 0u64;
    let mut reader = Fields::new(message);
    let mut has_ruleset = false;
    while let Some((number, value)) = reader.next_field()? {
        match number {
            // Repeated fields (the card lists are read from the masks).
            o::HAND | o::NEST | o::BURIED => {
                bytes_of(value)?;
                continue;
            }
            o::AUCTION => {
                let (mut seat, mut amount) = (0, 0);
                let mut inner = Fields::new(bytes_of(value)?);
                let mut inner_seen = 0u64;
                while let Some((number, value)) = inner.next_field()? {
                    once(&mut inner_seen, number)?;
                    match number {
                        fields::auction_entry::SEAT => seat = int32(varint_of(value)?),
                        fields::auction_entry::AMOUNT => amount = int32(varint_of(value)?),
                        _ => return None,
                    }
                }
                out.auction.push((seat, amount));
                continue;
            }
            o::COMPLETED_TRICKS => {
                out.completed.push(bytes_of(value)?);
                continue;
            }
            _ => {}
        }
        once(&mut seen, number)?;
        match number {
            o::RULESET => {
                out.ruleset = bytes_of(value)?;
                has_ruleset = true;
            }
            o::SEAT => out.seat = int32(varint_of(value)?),
            o::HAND_NUMBER => out.hand_number = int32(varint_of(value)?),
            o::DEALER => out.dealer = int32(varint_of(value)?),
            o::PHASE => out.phase = int32(varint_of(value)?),
            o::CURRENT_PLAYER => out.current_player = int32(varint_of(value)?),
            o::HIGH_BID => out.high_bid = int32(varint_of(value)?),
            o::HIGH_BIDDER => out.high_bidder = int32(varint_of(value)?),
            o::BIDDER => out.bidder = int32(varint_of(value)?),
            o::BID => out.bid = int32(varint_of(value)?),
            o::TRUMP => out.trump = int32(varint_of(value)?),
            o::BURIED_COUNT => out.buried_count = int32(varint_of(value)?),
            o::CALLED_CARD => out.called = i64::from(cards.card(bytes_of(value)?)?),
            o::PARTNER => out.partner = int32(varint_of(value)?),
            o::PARTNER_REVEALED => {
                varint_of(value)?;
            }
            o::CURRENT_TRICK => out.current = Some(trick(cards, bytes_of(value)?)?),
            o::POINTS_CAPTURED => out.points_captured = packed_int32(bytes_of(value)?)?,
            o::SCORES => out.scores = packed_int32(bytes_of(value)?)?,
            o::SIDES => out.sides = packed_int32(bytes_of(value)?)?,
            _ => return None,
        }
    }
    has_ruleset.then_some(())
}

fn legal_actions(message: &[u8], out: &mut ReadRequest<'_>) -> Option<()> {
    use fields::legal_actions as l;
    let mut seen = 0u64;
    let mut reader = Fields::new(message);
    while let Some((number, value)) = reader.next_field()? {
        match number {
            l::BURY_CANDIDATES | l::CALLABLE_CARDS | l::PLAYABLE_CARDS => {
                bytes_of(value)?; // read from the masks
                continue;
            }
            _ => {}
        }
        once(&mut seen, number)?;
        match number {
            l::PHASE => out.legal_phase = int32(varint_of(value)?),
            l::SEAT => out.legal_seat = int32(varint_of(value)?),
            l::CAN_PASS => out.can_pass = varint_of(value)? != 0,
            l::BIDS => out.bids = packed_int32(bytes_of(value)?)?,
            l::TRUMP_SUITS => out.suits = packed_int32(bytes_of(value)?)?,
            l::BURY_COUNT => out.bury_count = int32(varint_of(value)?),
            _ => return None,
        }
    }
    Some(())
}

fn card_masks(message: &[u8], out: &mut ReadRequest<'_>) -> Option<()> {
    let mut seen = 0u64;
    let mut reader = Fields::new(message);
    while let Some((number, value)) = reader.next_field()? {
        once(&mut seen, number)?;
        let index = match number {
            fields::card_masks::HAND => 0,
            fields::card_masks::NEST => 1,
            fields::card_masks::BURIED => 2,
            fields::card_masks::BURY_CANDIDATES => 3,
            fields::card_masks::CALLABLE_CARDS => 4,
            fields::card_masks::PLAYABLE_CARDS => 5,
            _ => return None,
        };
        let Value::Fixed64(mask) = value else {
            return None;
        };
        if mask >> NUM_CARDS != 0 {
            return None; // a bit that stands for no card: convert's error
        }
        out.masks[index] = mask;
    }
    Some(())
}

/// An `ActionRequest` message read, or `None` outside the regular case.
pub fn read_request<'a>(cards: &CardTable, message: &'a [u8]) -> Option<ReadRequest<'a>> {
    use fields::action_request as r;
    let mut out = ReadRequest {
        called: -1,
        ..ReadRequest::default()
    };
    let mut seen = 0u64;
    let mut reader = Fields::new(message);
    while let Some((number, value)) = reader.next_field()? {
        once(&mut seen, number)?;
        match number {
            r::TABLE_ID => out.table_id = std::str::from_utf8(bytes_of(value)?).ok()?,
            r::REQUEST_ID => out.request_id = varint_of(value)?,
            r::SEAT => {
                varint_of(value)?;
            }
            r::OBSERVATION => observation(cards, bytes_of(value)?, &mut out)?,
            r::LEGAL_ACTIONS => legal_actions(bytes_of(value)?, &mut out)?,
            r::DEADLINE_MS => out.deadline_ms = int32(varint_of(value)?),
            r::BANK_MS => {
                varint_of(value)?;
            }
            r::LAST_SEQ => {
                varint_of(value)?;
            }
            r::CARD_MASKS => card_masks(bytes_of(value)?, &mut out)?,
            _ => return None,
        }
    }
    let needed = [r::OBSERVATION, r::LEGAL_ACTIONS, r::CARD_MASKS];
    needed.iter().all(|&n| seen >> n & 1 == 1).then_some(out)
}

/// A `ConnectResponse`'s messages as `(oneof field number, message bytes)`, and whether it was a
/// batch; `None` for anything but one message or a batch of messages each of one field.
pub fn split_response(data: &[u8]) -> Option<(bool, Vec<(u32, &[u8])>)> {
    let (number, payload) = only_field(data)?;
    if number != fields::connect_response::BATCH {
        return Some((false, vec![(number, payload)]));
    }
    let mut messages = Vec::with_capacity(16);
    let mut reader = Fields::new(payload);
    while let Some((number, value)) = reader.next_field()? {
        if number != fields::response_batch::MESSAGES {
            return None;
        }
        messages.push(only_field(bytes_of(value)?)?);
    }
    Some((true, messages))
}

/// The one length-delimited field of a message that has exactly one.
fn only_field(message: &[u8]) -> Option<(u32, &[u8])> {
    let mut reader = Fields::new(message);
    let (number, value) = reader.next_field()??;
    let payload = bytes_of(value)?;
    reader.next_field()?.is_none().then_some((number, payload))
}
