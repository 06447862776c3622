//! The game state machine, rule for rule as `rookery.engine.Game`: deal, auction, nest, trump,
//! bury, call, play, scoring, redeals and the end of the game. Refusals carry the pure engine's
//! exact kind, reason and message, and leave the state unchanged.

use std::sync::Arc;

use crate::cards::{
    card_name, card_points, follow_mask, format_cards, mask_points, playable, trick_key,
    trump_mask, ALL_CARDS_MASK, NUM_CARDS, ROOK_MASK,
};
use crate::deal::{deal_for_hand, Deal};
use crate::rules::{Partnership, Rules};

/// What the game waits for, in the order of `rookery.engine.Phase`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Bidding = 0,
    NameTrump = 1,
    Bury = 2,
    Call = 3,
    Play = 4,
    GameOver = 5,
}

impl Phase {
    pub fn name(self) -> &'static str {
        match self {
            Phase::Bidding => "BIDDING",
            Phase::NameTrump => "NAME_TRUMP",
            Phase::Bury => "BURY",
            Phase::Call => "CALL",
            Phase::Play => "PLAY",
            Phase::GameOver => "GAME_OVER",
        }
    }
}

/// Why a game ended, in the order of `rookery.engine.Termination`'s names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Termination {
    TargetReached,
    MaxHands,
    Forfeit,
    Aborted,
}

impl Termination {
    pub fn name(self) -> &'static str {
        match self {
            Termination::TargetReached => "TARGET_REACHED",
            Termination::MaxHands => "MAX_HANDS",
            Termination::Forfeit => "FORFEIT",
            Termination::Aborted => "ABORTED",
        }
    }
}

/// A refused action: the pure engine's exception, its reason code and message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    Malformed(String),
    Illegal(&'static str, String),
    GameOver(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HandResult {
    pub hand_number: i64,
    pub dealer: usize,
    pub bidder: i32,
    pub bid: i64,
    pub forced: bool,
    pub trump: i32,
    pub made: bool,
    pub bidding_total: i64,
    pub points_per_side: Vec<i64>,
    pub score_deltas: Vec<i64>,
    pub scores_after: Vec<i64>,
    pub deal: Deal,
    pub buried: u64,
    pub called_card: i32,
    pub partner: i32,
    pub redeal: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameResult {
    pub winners: Vec<usize>,
    pub scores: Vec<i64>,
    pub hands_played: i64,
    pub reason: Termination,
}

/// One event of the log, as `rookery.engine`'s event classes (without `seq`: its index + 1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    HandDealt {
        hand: i64,
        dealer: usize,
        hands: [u64; 6],
    },
    BidMade {
        hand: i64,
        seat: usize,
        amount: i64,
    },
    Passed {
        hand: i64,
        seat: usize,
    },
    AuctionWon {
        hand: i64,
        seat: usize,
        amount: i64,
        forced: bool,
    },
    HandRedealt {
        hand: i64,
        dealer: usize,
    },
    NestTaken {
        hand: i64,
        seat: usize,
        cards: u64,
        count: u32,
    },
    TrumpNamed {
        hand: i64,
        seat: usize,
        suit: u32,
    },
    CardsBuried {
        hand: i64,
        seat: usize,
        cards: u64,
        count: u32,
    },
    CardCalled {
        hand: i64,
        seat: usize,
        card: u32,
    },
    PartnerRevealed {
        hand: i64,
        seat: usize,
    },
    CardPlayed {
        hand: i64,
        seat: usize,
        card: u32,
    },
    TrickWon {
        hand: i64,
        seat: usize,
        points: i64,
        trick_index: usize,
    },
    HandScored {
        hand: i64,
        result: Box<HandResult>,
    },
    GameOver {
        hand: i64,
        result: Box<GameResult>,
    },
}

/// A completed trick: its leader, winner, points and cards from the leader on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Trick {
    pub leader: usize,
    pub winner: usize,
    pub points: i64,
    pub cards: [u8; 6],
}

/// One game of Rook: a ruleset, a seed and the actions applied so far.
#[derive(Clone, Debug)]
pub struct Game {
    pub rules: Arc<Rules>,
    pub seed: u64,
    pub events_on: bool,
    pub events: Vec<Event>,
    pub scores: [i64; 6],
    pub hand_results: Vec<HandResult>,
    pub result: Option<GameResult>,
    pub forfeit: Option<(usize, String)>,
    pub aborted: bool,
    pub dealer: usize,
    pub hand_number: i64,
    pub played: i64,
    pub redeals: i64,
    pub deal: Deal,
    pub hands: [u64; 6],
    pub phase: Phase,
    pub current: i32,
    pub auction: Vec<(usize, i64)>,
    pub passed: u32,
    pub high_bid: i64,
    pub high_bidder: i32,
    pub bidder: i32,
    pub bid: i64,
    pub forced: bool,
    pub trump: i32,
    pub nest: u64,
    pub buried: u64,
    pub called: i32,
    pub partner: i32,
    pub partner_shown: bool,
    pub trick: [u8; 6],
    pub trick_len: usize,
    pub trick_points: i64,
    pub lead: usize,
    pub follow: u64,
    /// The winning card of the open trick: its strength shifted left 3, or'ed with its seat.
    pub win: u32,
    pub tricks: Vec<Trick>,
    pub won: [i64; 6],
}

impl Game {
    /// A game whose hand 0 is dealt from `seed`.
    pub fn new(rules: Arc<Rules>, seed: u64, events: bool) -> Game {
        let deal = deal_for_hand(&rules, seed, 0, 0);
        let mut game = Game::blank(rules, seed, events);
        game.start_hand(deal);
        game
    }

    /// A game whose current hand is `deal` (number `hand_number`, dealt by `dealer`).
    #[allow(clippy::too_many_arguments)]
    pub fn from_deal(
        rules: Arc<Rules>,
        deal: Deal,
        seed: u64,
        dealer: usize,
        hand_number: i64,
        scores: &[i64],
        events: bool,
    ) -> Result<Game, String> {
        check_deal(&rules, &deal)?;
        if scores.len() != rules.num_sides {
            return Err(format!(
                "scores must have {} entries, got {}",
                rules.num_sides,
                scores.len()
            ));
        }
        if dealer >= rules.players {
            return Err(format!("not a seat: {dealer}"));
        }
        let mut game = Game::blank(rules, seed, events);
        game.scores[..scores.len()].copy_from_slice(scores);
        game.dealer = dealer;
        game.hand_number = hand_number;
        game.start_hand(deal);
        Ok(game)
    }

    fn blank(rules: Arc<Rules>, seed: u64, events: bool) -> Game {
        let dealer = rules.first_dealer;
        Game {
            rules,
            seed,
            events_on: events,
            events: Vec::new(),
            scores: [0; 6],
            hand_results: Vec::new(),
            result: None,
            forfeit: None,
            aborted: false,
            dealer,
            hand_number: 0,
            played: 0,
            redeals: 0,
            deal: Deal::default(),
            hands: [0; 6],
            phase: Phase::Bidding,
            current: 0,
            auction: Vec::new(),
            passed: 0,
            high_bid: 0,
            high_bidder: -1,
            bidder: -1,
            bid: 0,
            forced: false,
            trump: -1,
            nest: 0,
            buried: 0,
            called: -1,
            partner: -1,
            partner_shown: false,
            trick: [0; 6],
            trick_len: 0,
            trick_points: 0,
            lead: 0,
            follow: 0,
            win: 0,
            tricks: Vec::new(),
            won: [0; 6],
        }
    }

    fn start_hand(&mut self, deal: Deal) {
        let players = self.rules.players;
        self.deal = deal;
        self.hands = deal.hands;
        self.phase = Phase::Bidding;
        self.current = ((self.dealer + 1) % players) as i32;
        self.auction.clear();
        self.passed = 0;
        self.high_bid = 0;
        self.high_bidder = -1;
        self.bidder = -1;
        self.bid = 0;
        self.forced = false;
        self.trump = -1;
        self.nest = 0;
        self.buried = 0;
        self.called = -1;
        self.partner = -1;
        self.partner_shown = false;
        self.trick_len = 0;
        self.trick_points = 0;
        self.lead = 0;
        self.follow = 0;
        self.win = 0;
        self.tricks.clear();
        self.won = [0; 6];
        if self.events_on {
            self.events.push(Event::HandDealt {
                hand: self.hand_number,
                dealer: self.dealer,
                hands: deal.hands,
            });
        }
    }

    pub fn is_over(&self) -> bool {
        self.result.is_some()
    }

    /// The number of sides (one per seat when scores are per player).
    pub fn num_sides(&self) -> usize {
        self.rules.num_sides
    }

    // Legal actions ---------------------------------------------------------------------------

    /// The cards the player to act may play (PLAY only).
    pub fn legal_play_mask(&self) -> u64 {
        let hand = self.hands[self.current as usize];
        if self.trick_len > 0 {
            playable(hand, self.follow, self.rules.rook_free_play)
        } else {
            hand
        }
    }

    /// The lowest legal bid now (the auction's next amounts run to `effective_max_bid`).
    pub fn lowest_bid(&self) -> i64 {
        if self.high_bid == 0 {
            self.rules.min_bid
        } else {
            self.high_bid + self.rules.bid_step
        }
    }

    /// The amounts that may be bid now, ascending (passing is always legal too).
    pub fn legal_bids(&self) -> Vec<i64> {
        let mut bids = Vec::new();
        let mut amount = self.lowest_bid();
        while amount <= self.rules.effective_max_bid {
            bids.push(amount);
            amount += self.rules.bid_step;
        }
        bids
    }

    /// The cards the bidder may call.
    pub fn call_from(&self) -> u64 {
        self.rules.deck_mask & !self.hands[self.bidder as usize] & !self.buried
    }

    // Applying actions ------------------------------------------------------------------------

    fn expect(&self, phase: Phase, what: &str) -> Result<usize, Refusal> {
        if self.phase != phase {
            if self.result.is_some() {
                return Err(Refusal::GameOver(format!(
                    "the game is over: cannot {what}"
                )));
            }
            return Err(Refusal::Illegal(
                "wrong_phase",
                format!(
                    "cannot {what} during {}; expected {}",
                    self.phase.name(),
                    phase.name()
                ),
            ));
        }
        Ok(self.current as usize)
    }

    fn check_card(&self, card: i64, what: &str) -> Result<u32, Refusal> {
        if !(0..NUM_CARDS as i64).contains(&card) {
            return Err(Refusal::Malformed(format!(
                "{what}: not a card index 0..{}: {card}",
                NUM_CARDS - 1
            )));
        }
        let card = card as u32;
        if self.rules.deck_mask >> card & 1 == 0 {
            return Err(Refusal::Malformed(format!(
                "{what}: {} is not in the {} deck",
                card_name(card),
                self.rules.name
            )));
        }
        Ok(card)
    }

    pub fn bid(&mut self, amount: i64) -> Result<(), Refusal> {
        let seat = self.expect(Phase::Bidding, "bid")?;
        let rules = &self.rules;
        if amount % rules.bid_step != 0 {
            return Err(Refusal::Illegal(
                "bid_not_multiple",
                format!("bid {amount} is not a multiple of {}", rules.bid_step),
            ));
        }
        if amount < rules.min_bid {
            return Err(Refusal::Illegal(
                "bid_too_low",
                format!("bid {amount} is below the minimum bid {}", rules.min_bid),
            ));
        }
        if amount <= self.high_bid {
            return Err(Refusal::Illegal(
                "bid_too_low",
                format!("bid {amount} is not above the high bid {}", self.high_bid),
            ));
        }
        if amount > rules.effective_max_bid {
            return Err(Refusal::Illegal(
                "bid_too_high",
                format!(
                    "bid {amount} is above the maximum bid {}",
                    rules.effective_max_bid
                ),
            ));
        }
        self.auction.push((seat, amount));
        self.high_bid = amount;
        self.high_bidder = seat as i32;
        if self.events_on {
            self.events.push(Event::BidMade {
                hand: self.hand_number,
                seat,
                amount,
            });
        }
        self.next_bidder();
        Ok(())
    }

    pub fn pass(&mut self) -> Result<(), Refusal> {
        let seat = self.expect(Phase::Bidding, "pass")?;
        self.auction.push((seat, 0));
        self.passed |= 1 << seat;
        if self.events_on {
            self.events.push(Event::Passed {
                hand: self.hand_number,
                seat,
            });
        }
        self.next_bidder();
        Ok(())
    }

    fn next_bidder(&mut self) {
        let players = self.rules.players;
        let remaining = players - self.passed.count_ones() as usize;
        if remaining == 1 && self.high_bidder >= 0 {
            self.win_auction(self.high_bidder as usize, self.high_bid, false);
        } else if remaining == 0 {
            self.all_passed();
        } else {
            let mut seat = (self.current as usize + 1) % players;
            while self.passed >> seat & 1 == 1 {
                seat = (seat + 1) % players;
            }
            self.current = seat as i32;
        }
    }

    fn all_passed(&mut self) {
        if self.rules.dealer_forced {
            self.win_auction(self.dealer, self.rules.min_bid, true);
            return;
        }
        let sides = self.rules.num_sides;
        self.hand_results.push(HandResult {
            hand_number: self.hand_number,
            dealer: self.dealer,
            bidder: -1,
            bid: 0,
            forced: false,
            trump: -1,
            made: false,
            bidding_total: 0,
            points_per_side: vec![0; sides],
            score_deltas: vec![0; sides],
            scores_after: self.scores[..sides].to_vec(),
            deal: self.deal,
            buried: 0,
            called_card: -1,
            partner: -1,
            redeal: true,
        });
        self.redeals += 1;
        if self.events_on {
            self.events.push(Event::HandRedealt {
                hand: self.hand_number,
                dealer: self.dealer,
            });
        }
        if self.hand_number + 1 >= self.rules.max_hands {
            self.adjudicate();
        } else {
            self.next_hand(false);
        }
    }

    fn win_auction(&mut self, seat: usize, amount: i64, forced: bool) {
        self.bidder = seat as i32;
        self.bid = amount;
        self.forced = forced;
        self.current = seat as i32;
        if self.events_on {
            self.events.push(Event::AuctionWon {
                hand: self.hand_number,
                seat,
                amount,
                forced,
            });
        }
        let nest_size = self.rules.nest_size;
        if nest_size > 0 {
            let nest = self.deal.nest;
            self.hands[seat] |= nest;
            self.nest = nest;
            if self.events_on {
                self.events.push(Event::NestTaken {
                    hand: self.hand_number,
                    seat,
                    cards: nest,
                    count: nest_size,
                });
            }
        }
        self.phase = if self.rules.trump_first || nest_size == 0 {
            Phase::NameTrump
        } else {
            Phase::Bury
        };
    }

    pub fn name_trump(&mut self, suit: i64) -> Result<(), Refusal> {
        if !(0..4).contains(&suit) {
            return Err(Refusal::Malformed(format!("not a suit: {suit}")));
        }
        let seat = self.expect(Phase::NameTrump, "name trump")?;
        self.trump = suit as i32;
        if self.events_on {
            self.events.push(Event::TrumpNamed {
                hand: self.hand_number,
                seat,
                suit: suit as u32,
            });
        }
        if self.rules.nest_size > 0 && self.buried == 0 {
            self.phase = Phase::Bury;
        } else {
            self.after_exchange();
        }
        Ok(())
    }

    pub fn bury(&mut self, cards: u64) -> Result<(), Refusal> {
        let rules = Arc::clone(&self.rules);
        let outside = cards & !rules.deck_mask;
        if outside != 0 {
            let named = if outside <= ALL_CARDS_MASK {
                format_cards(outside)
            } else {
                String::new()
            };
            let shown = if named.is_empty() {
                format!("{outside:#x}")
            } else {
                named
            };
            return Err(Refusal::Malformed(format!(
                "bury: not in the {} deck: {shown}",
                rules.name
            )));
        }
        if cards.count_ones() != rules.nest_size {
            return Err(Refusal::Malformed(format!(
                "bury: exactly {} cards must be buried, got {}",
                rules.nest_size,
                cards.count_ones()
            )));
        }
        let seat = self.expect(Phase::Bury, "bury")?;
        let hand = self.hands[seat];
        if cards & !hand != 0 {
            return Err(Refusal::Illegal(
                "not_in_hand",
                format!(
                    "cannot bury cards not in hand: {}",
                    format_cards(cards & !hand)
                ),
            ));
        }
        self.hands[seat] = hand ^ cards;
        self.buried = cards;
        self.nest = 0;
        if self.events_on {
            self.events.push(Event::CardsBuried {
                hand: self.hand_number,
                seat,
                cards,
                count: rules.nest_size,
            });
        }
        if self.trump < 0 {
            self.phase = Phase::NameTrump;
        } else {
            self.after_exchange();
        }
        Ok(())
    }

    fn after_exchange(&mut self) {
        if self.rules.partnership == Partnership::Called {
            self.phase = Phase::Call;
        } else {
            self.start_play();
        }
    }

    pub fn call(&mut self, card: i64) -> Result<(), Refusal> {
        let card = self.check_card(card, "call")?;
        let seat = self.expect(Phase::Call, "call a card")?;
        let bit = 1u64 << card;
        if self.hands[seat] & bit != 0 {
            return Err(Refusal::Illegal(
                "own_card",
                format!(
                    "cannot call {}: it is in the bidder's hand",
                    card_name(card)
                ),
            ));
        }
        if self.buried & bit != 0 {
            return Err(Refusal::Illegal(
                "own_card",
                format!("cannot call {}: the bidder buried it", card_name(card)),
            ));
        }
        self.called = card as i32;
        self.partner = (0..self.rules.players)
            .find(|&s| self.hands[s] & bit != 0)
            .map_or(-1, |s| s as i32);
        if self.events_on {
            self.events.push(Event::CardCalled {
                hand: self.hand_number,
                seat,
                card,
            });
        }
        self.start_play();
        Ok(())
    }

    fn start_play(&mut self) {
        let bidder = self.bidder as usize;
        self.current = if self.rules.first_lead_left {
            ((bidder + 1) % self.rules.players) as i32
        } else {
            bidder as i32
        };
        self.phase = Phase::Play;
    }

    pub fn play(&mut self, card: i64) -> Result<(), Refusal> {
        let card = self.check_card(card, "play")?;
        let seat = self.expect(Phase::Play, "play a card")?;
        let bit = 1u64 << card;
        let hand = self.hands[seat];
        if hand & bit == 0 {
            return Err(Refusal::Illegal(
                "not_in_hand",
                format!("seat {seat} does not hold {}", card_name(card)),
            ));
        }
        let trump = self.trump as u32;
        if self.trick_len > 0 {
            let follow = self.follow;
            if bit & follow != 0 {
                let win = trick_key(trump, card) << 3 | seat as u32;
                if win > self.win {
                    self.win = win;
                }
            } else if hand & follow != 0 && !(bit & ROOK_MASK != 0 && self.rules.rook_free_play) {
                return Err(Refusal::Illegal(
                    "must_follow_suit",
                    format!(
                        "seat {seat} must follow suit, not play {}: holds {}",
                        card_name(card),
                        format_cards(hand & follow)
                    ),
                ));
            } else if bit & trump_mask(trump) != 0 {
                let win = trick_key(trump, card) << 3 | seat as u32;
                if win > self.win {
                    self.win = win;
                }
            }
        } else {
            self.lead = seat;
            self.follow = follow_mask(trump, card);
            self.win = trick_key(trump, card) << 3 | seat as u32;
        }
        self.play_unchecked_tail(seat, card, bit, hand);
        Ok(())
    }

    fn play_unchecked_tail(&mut self, seat: usize, card: u32, bit: u64, hand: u64) {
        self.hands[seat] = hand ^ bit;
        self.trick[self.trick_len] = card as u8;
        self.trick_len += 1;
        self.trick_points += card_points(card);
        if self.events_on {
            self.events.push(Event::CardPlayed {
                hand: self.hand_number,
                seat,
                card,
            });
        }
        if card as i32 == self.called {
            self.partner_shown = true;
            if self.events_on {
                self.events.push(Event::PartnerRevealed {
                    hand: self.hand_number,
                    seat,
                });
            }
        }
        let players = self.rules.players;
        let next = if seat + 1 == players { 0 } else { seat + 1 };
        if next != self.lead {
            self.current = next as i32;
            return;
        }
        let winner = (self.win & 7) as usize;
        let points = self.trick_points;
        self.won[winner] += points;
        self.tricks.push(Trick {
            leader: next,
            winner,
            points,
            cards: self.trick,
        });
        if self.events_on {
            self.events.push(Event::TrickWon {
                hand: self.hand_number,
                seat: winner,
                points,
                trick_index: self.tricks.len() - 1,
            });
        }
        self.trick_len = 0;
        self.trick_points = 0;
        self.current = winner as i32;
        if self.tricks.len() == self.rules.hand_size as usize {
            self.score_hand();
        }
    }

    // Scoring and the end of the game ---------------------------------------------------------

    fn bidding_seats(&self) -> ([usize; 6], usize) {
        let rules = &self.rules;
        let bidder = self.bidder as usize;
        let mut seats = [0usize; 6];
        let mut count = 0;
        if !rules.is_per_player() {
            let side = rules.sides[bidder];
            for seat in 0..rules.players {
                if rules.sides[seat] == side {
                    seats[count] = seat;
                    count += 1;
                }
            }
        } else {
            seats[0] = bidder;
            count = 1;
            if self.partner >= 0 {
                seats[1] = self.partner as usize;
                count = 2;
            }
        }
        (seats, count)
    }

    fn score_hand(&mut self) {
        let rules = Arc::clone(&self.rules);
        let mut counted = self.won;
        let last = self.tricks[self.tricks.len() - 1].winner;
        counted[last] += rules.last_trick_bonus;
        let buried_points = mask_points(self.buried);
        let (seats, count) = self.bidding_seats();
        let mut bidding_total = buried_points;
        for &seat in &seats[..count] {
            bidding_total += counted[seat];
        }
        let made = bidding_total >= self.bid;
        let bidding_result = if made { bidding_total } else { -self.bid };
        let sides = rules.num_sides;
        let mut points = vec![0i64; sides];
        for seat in 0..rules.players {
            points[rules.sides[seat]] += counted[seat];
        }
        points[rules.sides[self.bidder as usize]] += buried_points;
        let mut bidding_sides = [false; 6];
        for &seat in &seats[..count] {
            bidding_sides[rules.sides[seat]] = true;
        }
        let deltas: Vec<i64> = (0..sides)
            .map(|side| {
                if bidding_sides[side] {
                    bidding_result
                } else {
                    points[side]
                }
            })
            .collect();
        for (score, delta) in self.scores.iter_mut().zip(&deltas) {
            *score += delta;
        }
        let result = HandResult {
            hand_number: self.hand_number,
            dealer: self.dealer,
            bidder: self.bidder,
            bid: self.bid,
            forced: self.forced,
            trump: self.trump,
            made,
            bidding_total,
            points_per_side: points,
            score_deltas: deltas,
            scores_after: self.scores[..sides].to_vec(),
            deal: self.deal,
            buried: self.buried,
            called_card: self.called,
            partner: self.partner,
            redeal: false,
        };
        if self.events_on {
            self.events.push(Event::HandScored {
                hand: self.hand_number,
                result: Box::new(result.clone()),
            });
        }
        self.hand_results.push(result);
        self.played += 1;
        self.redeals = 0;
        self.check_game_end(&bidding_sides);
    }

    fn check_game_end(&mut self, bidding_sides: &[bool; 6]) {
        let rules = Arc::clone(&self.rules);
        let sides = rules.num_sides;
        let over: Vec<usize> = (0..sides)
            .filter(|&side| self.scores[side] >= rules.target)
            .collect();
        if !over.is_empty() {
            let mut candidates = over.clone();
            if rules.bidder_wins {
                let taking_part: Vec<usize> = over
                    .iter()
                    .copied()
                    .filter(|&side| bidding_sides[side])
                    .collect();
                if !taking_part.is_empty() {
                    candidates = taking_part;
                }
            }
            let best = candidates
                .iter()
                .map(|&side| self.scores[side])
                .max()
                .unwrap_or(0);
            let top: Vec<usize> = candidates
                .into_iter()
                .filter(|&side| self.scores[side] == best)
                .collect();
            if top.len() == 1 {
                self.finish(top, Termination::TargetReached);
                return;
            }
        }
        if self.hand_number + 1 >= rules.max_hands {
            self.adjudicate();
        } else {
            self.next_hand(true);
        }
    }

    fn adjudicate(&mut self) {
        let sides = self.rules.num_sides;
        let best = self.scores[..sides].iter().copied().max().unwrap_or(0);
        let top: Vec<usize> = (0..sides)
            .filter(|&side| self.scores[side] == best)
            .collect();
        let winners = if top.len() == 1 { top } else { Vec::new() };
        self.finish(winners, Termination::MaxHands);
    }

    fn next_hand(&mut self, rotate: bool) {
        if rotate {
            self.dealer = (self.dealer + 1) % self.rules.players;
        }
        self.hand_number += 1;
        let deal = if self.rules.played_seeds {
            deal_for_hand(&self.rules, self.seed, self.played, self.redeals)
        } else {
            deal_for_hand(&self.rules, self.seed, self.hand_number, 0)
        };
        self.start_hand(deal);
    }

    fn finish(&mut self, winners: Vec<usize>, reason: Termination) {
        let result = GameResult {
            winners,
            scores: self.scores[..self.rules.num_sides].to_vec(),
            hands_played: self.hand_number + 1,
            reason,
        };
        self.phase = Phase::GameOver;
        self.current = -1;
        if self.events_on {
            self.events.push(Event::GameOver {
                hand: self.hand_number,
                result: Box::new(result.clone()),
            });
        }
        self.result = Some(result);
    }

    /// Ends the game by forfeit of `seat`: every other side wins jointly.
    pub fn forfeit(&mut self, seat: usize, reason: &str) -> Result<(), Refusal> {
        if self.result.is_some() {
            return Err(Refusal::GameOver(
                "the game is over: cannot forfeit".to_string(),
            ));
        }
        if seat >= self.rules.players {
            return Err(Refusal::Malformed(format!("not a seat: {seat}")));
        }
        let loser = self.rules.sides[seat];
        self.forfeit = Some((seat, reason.to_string()));
        let winners = (0..self.rules.num_sides)
            .filter(|&side| side != loser)
            .collect();
        self.finish(winners, Termination::Forfeit);
        Ok(())
    }

    /// Ends the game with no winner.
    pub fn abort(&mut self) -> Result<(), Refusal> {
        if self.result.is_some() {
            return Err(Refusal::GameOver(
                "the game is over: cannot abort".to_string(),
            ));
        }
        self.aborted = true;
        self.finish(Vec::new(), Termination::Aborted);
        Ok(())
    }

    // What a seat sees ------------------------------------------------------------------------

    /// The partner as `seat` knows it (-1: not known or none).
    pub fn partner_for(&self, seat: i32) -> i32 {
        if self.partner >= 0 && (self.partner_shown || seat == self.partner) {
            self.partner
        } else {
            -1
        }
    }

    /// Points captured in this hand's won tricks, per side.
    pub fn points_captured(&self) -> Vec<i64> {
        let mut points = vec![0i64; self.rules.num_sides];
        for seat in 0..self.rules.players {
            points[self.rules.sides[seat]] += self.won[seat];
        }
        points
    }
}

fn check_deal(rules: &Rules, deal: &Deal) -> Result<(), String> {
    let mut union = 0u64;
    for &mask in deal.hands[..rules.players]
        .iter()
        .chain([deal.nest, deal.dead].iter())
    {
        if union & mask != 0 {
            return Err("a card lies in two places in the deal".to_string());
        }
        union |= mask;
    }
    if union != rules.deck_mask || deal.hands[rules.players..].iter().any(|&hand| hand != 0) {
        return Err("the deal is not a partition of the deck over the seats".to_string());
    }
    if deal.hands[..rules.players]
        .iter()
        .any(|hand| hand.count_ones() != rules.hand_size)
    {
        return Err(format!("every hand must hold {} cards", rules.hand_size));
    }
    if deal.nest.count_ones() != rules.nest_size {
        return Err(format!("the nest must hold {} cards", rules.nest_size));
    }
    Ok(())
}
