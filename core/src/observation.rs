//! The learning environments' view of one game, written by the core: a seat's observation
//! tensor (the layout of `rookery.envs`' `ObservationEncoder`), the legal-action mask and the
//! legal ids of the seat to act (the ids of its `ActionCodec`), and what an action id does now.
//! A bury is taken one card an id: `pending` is the bury chosen so far (a card mask), which only
//! the bidder sees. The information-state tensor (`ObservationEncoder.encode_info_state`) follows
//! the observation with the auction and the play in order and what the bidder remembers. The pure encoder stays the reference; `tests/envs/test_envs_core_view.py`
//! holds the two equal.

use crate::batch::Codec;
use crate::cards::NUM_CARDS;
use crate::game::{Game, Phase, Refusal};

const C: usize = NUM_CARDS as usize;

/// Where each part of an observation starts (`ObservationEncoder.offsets`).
#[derive(Clone, Debug)]
pub struct Layout {
    phase: usize,
    to_act: usize,
    dealer: usize,
    hand: usize,
    nest: usize,
    buried: usize,
    pending: usize,
    last_bid: usize,
    passed: usize,
    high_bid: usize,
    high_bidder: usize,
    bidder: usize,
    bid: usize,
    trump: usize,
    called: usize,
    partner: usize,
    trick_leader: usize,
    trick: usize,
    played: usize,
    same_side: usize,
    points: usize,
    scores: usize,
    buried_count: usize,
    pub size: usize,
}

impl Layout {
    pub fn new(players: usize) -> Layout {
        let p = players;
        let mut at = 0;
        let mut take = |size: usize| {
            let start = at;
            at += size;
            start
        };
        let mut layout = Layout {
            phase: take(6),
            to_act: take(p),
            dealer: take(p),
            hand: take(C),
            nest: take(C),
            buried: take(C),
            pending: take(C),
            last_bid: take(p),
            passed: take(p),
            high_bid: take(1),
            high_bidder: take(p),
            bidder: take(p),
            bid: take(1),
            trump: take(4),
            called: take(C),
            partner: take(p),
            trick_leader: take(p),
            trick: take(p * C),
            played: take(p * C),
            same_side: take(p),
            points: take(p),
            scores: take(p),
            buried_count: take(1),
            size: 0,
        };
        layout.size = at;
        layout
    }
}

/// What an action id does now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdStep {
    /// A bury step that does not complete the bury: the bury chosen so far.
    Pending(u64),
    /// The bury is complete: bury these cards.
    Bury(u64),
    Pass,
    Bid(i64),
    Trump(i64),
    Call(i64),
    Play(i64),
    /// Not a legal id now.
    Illegal,
}

/// Whether `id` is a legal action id of the seat to act (`pending`: the bury chosen so far).
pub fn is_legal(game: &Game, codec: &Codec, pending: u64, id: i64) -> bool {
    if id < 0 || id as usize >= codec.size {
        return false;
    }
    let id = id as usize;
    match game.phase {
        Phase::Bidding => {
            if id == 0 {
                return true;
            }
            if id >= codec.trump0 {
                return false;
            }
            let amount = game.rules.min_bid + (id - codec.bid0) as i64 * game.rules.bid_step;
            amount >= game.lowest_bid()
        }
        Phase::NameTrump => (codec.trump0..codec.bury0).contains(&id),
        Phase::Bury => {
            (codec.bury0..codec.call0).contains(&id)
                && (game.hands[game.current as usize] & !pending) >> (id - codec.bury0) & 1 == 1
        }
        Phase::Call => {
            (codec.call0..codec.play0).contains(&id)
                && game.call_from() >> (id - codec.call0) & 1 == 1
        }
        Phase::Play => {
            (codec.play0..codec.size).contains(&id)
                && game.legal_play_mask() >> (id - codec.play0) & 1 == 1
        }
        Phase::GameOver => false,
    }
}

/// What `id` does now (`pending`: the bury chosen so far).
pub fn decode(game: &Game, codec: &Codec, pending: u64, id: i64) -> IdStep {
    if !is_legal(game, codec, pending, id) {
        return IdStep::Illegal;
    }
    let id = id as usize;
    match game.phase {
        Phase::Bidding if id == 0 => IdStep::Pass,
        Phase::Bidding => {
            IdStep::Bid(game.rules.min_bid + (id - codec.bid0) as i64 * game.rules.bid_step)
        }
        Phase::NameTrump => IdStep::Trump((id - codec.trump0) as i64),
        Phase::Bury => {
            let cards = pending | 1 << (id - codec.bury0);
            if cards.count_ones() == game.rules.nest_size {
                IdStep::Bury(cards)
            } else {
                IdStep::Pending(cards)
            }
        }
        Phase::Call => IdStep::Call((id - codec.call0) as i64),
        Phase::Play => IdStep::Play((id - codec.play0) as i64),
        Phase::GameOver => IdStep::Illegal,
    }
}

/// Applies the action of `step` (a bury in progress applies nothing; an illegal id is refused).
pub fn apply(game: &mut Game, step: IdStep) -> Result<(), Refusal> {
    match step {
        IdStep::Pending(_) => Ok(()),
        IdStep::Bury(cards) => game.bury(cards),
        IdStep::Pass => game.pass(),
        IdStep::Bid(amount) => game.bid(amount),
        IdStep::Trump(suit) => game.name_trump(suit),
        IdStep::Call(card) => game.call(card),
        IdStep::Play(card) => game.play(card),
        IdStep::Illegal => Err(Refusal::Malformed("not a legal action id now".into())),
    }
}

/// Calls `each` with every legal id of the seat to act, ascending.
fn for_each_legal(game: &Game, codec: &Codec, pending: u64, mut each: impl FnMut(usize)) {
    let mut bits = |mut mask: u64, base: usize| {
        while mask != 0 {
            each(base + mask.trailing_zeros() as usize);
            mask &= mask - 1;
        }
    };
    match game.phase {
        Phase::Bidding => {
            bits(1, 0);
            let rules = &game.rules;
            let mut amount = game.lowest_bid();
            while amount <= rules.effective_max_bid {
                bits(
                    1,
                    codec.bid0 + ((amount - rules.min_bid) / rules.bid_step) as usize,
                );
                amount += rules.bid_step;
            }
        }
        Phase::NameTrump => bits(0b1111, codec.trump0),
        Phase::Bury => bits(game.hands[game.current as usize] & !pending, codec.bury0),
        Phase::Call => bits(game.call_from(), codec.call0),
        Phase::Play => bits(game.legal_play_mask(), codec.play0),
        Phase::GameOver => {}
    }
}

/// The legal ids of the seat to act, ascending (none once the game is over).
pub fn legal_ids(game: &Game, codec: &Codec, pending: u64) -> Vec<i64> {
    let mut ids = Vec::with_capacity(16);
    for_each_legal(game, codec, pending, |id| ids.push(id as i64));
    ids
}

/// The legal mask of the seat to act into `row` (`codec.size` entries): 1 at every legal id.
pub fn write_mask(game: &Game, codec: &Codec, pending: u64, row: &mut [i8]) {
    row.fill(0);
    for_each_legal(game, codec, pending, |id| row[id] = 1);
}

/// `seat`'s observation tensor into `out` (`layout.size` entries), as
/// `ObservationEncoder.encode_into` writes it for `Game.observation_for(seat)`; `pending` is
/// the bury chosen so far, shown to the bidder while it buries.
pub fn write_observation(game: &Game, layout: &Layout, seat: usize, pending: u64, out: &mut [f32]) {
    out.fill(0.0);
    let rules = &*game.rules;
    let o = layout;
    let p = rules.players;
    let me = seat;
    let rel = |seat: usize| (seat + p - me) % p;
    let top = rules.effective_max_bid as f64;
    let bits = |mask: u64, base: usize, out: &mut [f32]| {
        let mut mask = mask;
        while mask != 0 {
            out[base + mask.trailing_zeros() as usize] = 1.0;
            mask &= mask - 1;
        }
    };
    out[o.phase + game.phase as usize] = 1.0;
    if game.current >= 0 {
        out[o.to_act + rel(game.current as usize)] = 1.0;
    }
    out[o.dealer + rel(game.dealer)] = 1.0;
    let is_bidder = game.bidder >= 0 && game.bidder as usize == me;
    bits(game.hands[me], o.hand, out);
    if is_bidder {
        bits(game.nest, o.nest, out);
        bits(game.buried, o.buried, out);
    }
    if game.phase == Phase::Bury && game.current as usize == me {
        bits(pending, o.pending, out);
    }
    for &(seat, amount) in &game.auction {
        if amount != 0 {
            out[o.last_bid + rel(seat)] = (amount as f64 / top) as f32;
        } else {
            out[o.passed + rel(seat)] = 1.0;
        }
    }
    out[o.high_bid] = (game.high_bid as f64 / top) as f32;
    if game.high_bidder >= 0 {
        out[o.high_bidder + rel(game.high_bidder as usize)] = 1.0;
    }
    if game.bidder >= 0 {
        out[o.bidder + rel(game.bidder as usize)] = 1.0;
        out[o.bid] = (game.bid as f64 / top) as f32;
    }
    if game.trump >= 0 {
        out[o.trump + game.trump as usize] = 1.0;
    }
    if game.called >= 0 {
        out[o.called + game.called as usize] = 1.0;
    }
    let partner = game.partner_for(me as i32);
    if partner >= 0 {
        out[o.partner + rel(partner as usize)] = 1.0;
    }
    if game.phase == Phase::Play {
        let leader = if game.trick_len > 0 {
            game.lead
        } else {
            game.current as usize
        };
        out[o.trick_leader + rel(leader)] = 1.0;
        for (offset, &card) in game.trick[..game.trick_len].iter().enumerate() {
            let at = rel((leader + offset) % p) * C + card as usize;
            out[o.trick + at] = 1.0;
            out[o.played + at] = 1.0;
        }
    }
    for trick in &game.tricks {
        for (offset, &card) in trick.cards[..p].iter().enumerate() {
            out[o.played + rel((trick.leader + offset) % p) * C + card as usize] = 1.0;
        }
    }
    let points = rules.deck_points.max(1) as f64;
    let mut captured = [0i64; 6];
    for seat in 0..p {
        captured[rules.sides[seat]] += game.won[seat];
    }
    let mine = rules.sides[me];
    for r in 0..p {
        let side = rules.sides[(me + r) % p];
        if side == mine {
            out[o.same_side + r] = 1.0;
        }
        out[o.points + r] = (captured[side] as f64 / points) as f32;
        out[o.scores + r] = (game.scores[side] as f64 / rules.target as f64) as f32;
    }
    if rules.nest_size > 0 {
        out[o.buried_count] = (game.buried.count_ones() as f64 / rules.nest_size as f64) as f32;
    }
}

/// The length of an information-state tensor (`ObservationEncoder.info_size`).
pub fn info_size(layout: &Layout, rules: &crate::rules::Rules) -> usize {
    let slots = rules.bid_count() as usize + rules.players;
    layout.size + slots * (rules.players + 1) + 3 * C
}

/// `seat`'s information-state tensor into `out` (`info_size` entries), as
/// `ObservationEncoder.encode_info_state` writes it: the observation, the auction in order (a
/// slot per call: relative seat one-hot and the amount), the play order (each card's place in
/// the hand's play over the cards dealt), then `picked_up` (the nest the bidder took) and
/// `bury_order` (the cards it chose to bury, each card's place over the nest's size).
pub fn write_info_state(
    game: &Game,
    layout: &Layout,
    seat: usize,
    pending: u64,
    picked_up: u64,
    bury_order: &[u32],
    out: &mut [f32],
) {
    let rules = &*game.rules;
    let p = rules.players;
    let size = layout.size;
    write_observation(game, layout, seat, pending, &mut out[..size]);
    out[size..].fill(0.0);
    let rel = |other: usize| (other + p - seat) % p;
    let top = rules.effective_max_bid as f64;
    let slots = rules.bid_count() as usize + p;
    for (slot, &(caller, amount)) in game.auction.iter().take(slots).enumerate() {
        let at = size + slot * (p + 1);
        out[at + rel(caller)] = 1.0;
        out[at + p] = (amount as f64 / top) as f32;
    }
    let order = size + slots * (p + 1);
    let total = rules.deck_size as f64;
    let mut index = 0u32;
    let mut place = |card: u8, out: &mut [f32]| {
        index += 1;
        out[order + card as usize] = (index as f64 / total) as f32;
    };
    for trick in &game.tricks {
        for &card in &trick.cards[..p] {
            place(card, out);
        }
    }
    if game.phase == Phase::Play {
        for &card in &game.trick[..game.trick_len] {
            place(card, out);
        }
    }
    let nest = order + C;
    let mut mask = picked_up;
    while mask != 0 {
        out[nest + mask.trailing_zeros() as usize] = 1.0;
        mask &= mask - 1;
    }
    let buried = nest + C;
    let nest_size = rules.nest_size.max(1) as f64;
    for (at, &card) in bury_order.iter().enumerate() {
        out[buried + card as usize] = ((at + 1) as f64 / nest_size) as f32;
    }
}
