//! Every parameter of RULES.md that the play needs, validated as `rookery.engine.Ruleset` does.

use crate::cards::{mask_points, ROOK};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Partnership {
    Fixed,
    None,
    Called,
}

/// The frozen parameters of a game and what follows from them.
#[derive(Clone, Debug)]
pub struct Rules {
    pub name: String,
    pub players: usize,
    pub partnership: Partnership,
    pub lowest_rank: u32,
    pub rook_cards: u32,
    pub nest_size: u32,
    pub min_bid: i64,
    pub bid_step: i64,
    pub max_bid: Option<i64>,
    pub first_lead_left: bool,
    pub dealer_forced: bool,
    pub trump_first: bool,
    pub rook_free_play: bool,
    pub bidder_wins: bool,
    pub target: i64,
    pub max_hands: i64,
    pub last_trick_bonus: i64,
    pub first_dealer: usize,
    pub played_seeds: bool,
    // Derived.
    pub deck_mask: u64,
    pub deck_size: u32,
    pub deck_points: i64,
    pub effective_max_bid: i64,
    pub hand_size: u32,
    pub num_sides: usize,
    pub sides: [usize; 6],
}

impl Rules {
    /// The standard preset's parameters (the defaults of `Ruleset`).
    pub fn standard() -> Rules {
        let mut rules = Rules {
            name: "standard".to_string(),
            players: 4,
            partnership: Partnership::Fixed,
            lowest_rank: 1,
            rook_cards: 1,
            nest_size: 5,
            min_bid: 70,
            bid_step: 5,
            max_bid: None,
            first_lead_left: false,
            dealer_forced: false,
            trump_first: true,
            rook_free_play: false,
            bidder_wins: false,
            target: 300,
            max_hands: 200,
            last_trick_bonus: 0,
            first_dealer: 0,
            played_seeds: false,
            deck_mask: 0,
            deck_size: 0,
            deck_points: 0,
            effective_max_bid: 0,
            hand_size: 0,
            num_sides: 0,
            sides: [0; 6],
        };
        rules.derive().expect("the standard preset is valid");
        rules
    }

    /// Checks the parameters (as `Ruleset._validate`) and computes what follows from them.
    pub fn derive(&mut self) -> Result<(), String> {
        if !(3..=6).contains(&self.players) {
            return Err(format!("players must be 3 to 6, got {}", self.players));
        }
        if self.partnership == Partnership::Fixed && (self.players % 2 == 1 || self.players < 4) {
            return Err(format!(
                "FIXED needs an even number of players, got {}",
                self.players
            ));
        }
        if !(1..=14).contains(&self.lowest_rank) {
            return Err(format!(
                "lowest_rank must be 1 to 14, got {}",
                self.lowest_rank
            ));
        }
        if !(1..=2).contains(&self.rook_cards) {
            return Err(format!(
                "rook_cards must be 1 or 2, got {}",
                self.rook_cards
            ));
        }
        let mut deck_mask: u64 = 1 << ROOK;
        if self.rook_cards == 2 {
            deck_mask |= 1 << (ROOK + 1);
        }
        for suit in 0..4 {
            for rank in self.lowest_rank..=14 {
                deck_mask |= 1 << (suit * 14 + rank - 1);
            }
        }
        let deck_size = deck_mask.count_ones();
        if deck_size < self.nest_size || (deck_size - self.nest_size) / (self.players as u32) < 1 {
            return Err(format!(
                "a nest of {} leaves fewer than 1 card per player",
                self.nest_size
            ));
        }
        if self.bid_step <= 0 {
            return Err(format!("bid_step must be positive, got {}", self.bid_step));
        }
        if self.min_bid <= 0 || self.min_bid % self.bid_step != 0 {
            return Err(format!(
                "min_bid must be a positive multiple of bid_step, got {}",
                self.min_bid
            ));
        }
        let deck_points = mask_points(deck_mask);
        let effective_max_bid = match self.max_bid {
            Some(max_bid) => {
                if max_bid <= 0 || max_bid % self.bid_step != 0 {
                    return Err(format!(
                        "max_bid must be a positive multiple of bid_step, got {max_bid}"
                    ));
                }
                max_bid
            }
            None => deck_points - deck_points % self.bid_step,
        };
        if self.min_bid > effective_max_bid {
            return Err(format!(
                "min_bid {} is above the maximum bid {}",
                self.min_bid, effective_max_bid
            ));
        }
        if self.target <= 0 {
            return Err(format!("target must be positive, got {}", self.target));
        }
        if self.max_hands < 1 {
            return Err(format!(
                "max_hands must be at least 1, got {}",
                self.max_hands
            ));
        }
        if self.last_trick_bonus < 0 {
            return Err(format!(
                "last_trick_bonus must not be negative, got {}",
                self.last_trick_bonus
            ));
        }
        if self.first_dealer >= self.players {
            return Err(format!(
                "first_dealer must be a seat, got {}",
                self.first_dealer
            ));
        }
        self.deck_mask = deck_mask;
        self.deck_size = deck_size;
        self.deck_points = deck_points;
        self.effective_max_bid = effective_max_bid;
        self.hand_size = (deck_size - self.nest_size) / self.players as u32;
        if self.partnership == Partnership::Fixed {
            self.num_sides = self.players / 2;
            for seat in 0..self.players {
                self.sides[seat] = seat % self.num_sides;
            }
        } else {
            self.num_sides = self.players;
            for seat in 0..self.players {
                self.sides[seat] = seat;
            }
        }
        Ok(())
    }

    /// Whether every seat is its own side for scoring (`NONE` or `CALLED`).
    pub fn is_per_player(&self) -> bool {
        self.partnership != Partnership::Fixed
    }

    /// The number of legal bid amounts (`min_bid` … `effective_max_bid` by `bid_step`).
    pub fn bid_count(&self) -> i64 {
        (self.effective_max_bid - self.min_bid) / self.bid_step + 1
    }
}
