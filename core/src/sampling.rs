//! Deal sampling for search bots, as `rookery.engine.sample_deal` draws: the hidden cards spread
//! over the hidden places (other hands, an unseen nest or bury, the dead pile), each place with
//! a capacity and the cards it may not hold (voids shown, the called card). The places and the
//! deal's fixed cards come from the engine (`engine/_sampling.py`, which keeps the reading of an
//! observation); this module draws. The law is the pure `_fill`'s: a shuffle dealt in order when
//! nothing constrains, otherwise the most constrained cards first, each to a place chosen in
//! proportion to its room among those that keep a consistent deal possible (Hall's condition).

/// A small, fast generator (xoshiro256**), seeded through splitmix64.
#[derive(Clone, Debug)]
pub struct Rng {
    state: [u64; 4],
}

impl Rng {
    pub fn new(seed: u64) -> Rng {
        let mut x = seed;
        let mut state = [0u64; 4];
        for word in state.iter_mut() {
            x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            *word = z ^ (z >> 31);
        }
        Rng { state }
    }

    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.state;
        let result = s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// A uniform integer in `0..bound` (`bound` > 0), without modulo bias.
    pub fn below(&mut self, bound: u64) -> u64 {
        let zone = u64::MAX - u64::MAX % bound;
        loop {
            let value = self.next_u64();
            if value < zone {
                return value % bound;
            }
        }
    }

    /// Shuffles `items` uniformly (Fisher-Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            items.swap(i, j);
        }
    }
}

/// What a place of the deal is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlaceKind {
    Hand(usize),
    Nest,
    Buried,
    Dead,
}

/// A hidden place: what it is, how many hidden cards it takes, the cards it may not hold.
#[derive(Clone, Copy, Debug)]
pub struct Place {
    pub kind: PlaceKind,
    pub capacity: u32,
    pub forbidden: u64,
}

/// The fixed part of a deal being sampled and its hidden places.
#[derive(Clone, Debug)]
pub struct Hidden {
    pub players: usize,
    /// The cards to spread over the places.
    pub unknown: u64,
    pub places: Vec<Place>,
    /// Each seat's known cards now (the observer's hand; 0 for the others).
    pub hands: Vec<u64>,
    /// Each seat's cards seen played: added back to its hand ("as dealt").
    pub played: Vec<u64>,
    /// The nest when the observer knows it (the bidder), else 0.
    pub nest: u64,
    /// The bury when the observer knows it, else 0.
    pub buried: u64,
    /// The bidder (-1: none yet).
    pub bidder: i64,
    pub nest_size: u32,
    /// Whether the bury is done (the sample's nest is then the bury).
    pub buried_done: bool,
}

/// One sampled deal: a hand per seat "as dealt", the nest, the dead pile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SampledDeal {
    pub hands: Vec<u64>,
    pub nest: u64,
    pub dead: u64,
}

fn cards_of(mask: u64) -> Vec<u32> {
    let mut cards = Vec::with_capacity(mask.count_ones() as usize);
    let mut rest = mask;
    while rest != 0 {
        cards.push(rest.trailing_zeros());
        rest &= rest - 1;
    }
    cards
}

/// Hall's condition on groups of cards that may go to the same places: for every set of
/// places, the cards that may only go there fit in them. `remaining[allowed]` counts the cards
/// still to place whose allowed places are the bit set `allowed`.
fn feasible(remaining: &[u32], capacities: &[u32]) -> bool {
    let mut groups = [(0usize, 0u32); 64];
    let mut count = 0;
    for (allowed, &cards) in remaining.iter().enumerate() {
        if cards != 0 && count < groups.len() {
            groups[count] = (allowed, cards);
            count += 1;
        }
    }
    if count == groups.len() {
        return feasible_slow(remaining, capacities);
    }
    let groups = &groups[..count];
    for subset in 1usize..(1 << capacities.len()) {
        let mut need = 0u32;
        for &(allowed, cards) in groups {
            if allowed & !subset == 0 {
                need += cards;
            }
        }
        if need == 0 {
            continue;
        }
        let mut room = 0u32;
        for (index, &capacity) in capacities.iter().enumerate() {
            if subset >> index & 1 == 1 {
                room += capacity;
            }
        }
        if need > room {
            return false;
        }
    }
    true
}

/// `feasible` over every group (when more than 64 are in use).
fn feasible_slow(remaining: &[u32], capacities: &[u32]) -> bool {
    for subset in 1usize..(1 << capacities.len()) {
        let mut need = 0u32;
        for (allowed, &cards) in remaining.iter().enumerate() {
            if cards != 0 && allowed & !subset == 0 {
                need += cards;
            }
        }
        let room: u32 = (0..capacities.len())
            .filter(|&index| subset >> index & 1 == 1)
            .map(|index| capacities[index])
            .sum();
        if need > room {
            return false;
        }
    }
    true
}

/// Spreads `cards` over the places at random: a mask per place (`_fill` of the pure engine).
pub fn fill(cards: u64, places: &[Place], rng: &mut Rng) -> Result<Vec<u64>, String> {
    let mut deck = cards_of(cards);
    rng.shuffle(&mut deck);
    let mut filled = vec![0u64; places.len()];
    if !places.iter().any(|place| place.forbidden & cards != 0) {
        let mut start = 0usize;
        for (index, place) in places.iter().enumerate() {
            let end = (start + place.capacity as usize).min(deck.len());
            for &card in &deck[start..end] {
                filled[index] |= 1 << card;
            }
            start = end;
        }
        return Ok(filled);
    }
    if places.len() > 16 {
        return Err("too many hidden places".to_string());
    }
    let mut capacities: Vec<u32> = places.iter().map(|place| place.capacity).collect();
    let allowed_of = |card: u32| -> usize {
        let mut allowed = 0usize;
        for (index, place) in places.iter().enumerate() {
            if place.forbidden >> card & 1 == 0 {
                allowed |= 1 << index;
            }
        }
        allowed
    };
    let mut allowed: Vec<(u32, usize)> =
        deck.iter().map(|&card| (card, allowed_of(card))).collect();
    // The most constrained cards first: fewer dead ends (a stable sort, as Python's).
    allowed.sort_by_key(|&(_, mask)| mask.count_ones());
    let mut remaining = vec![0u32; 1 << places.len()];
    for &(_, mask) in &allowed {
        remaining[mask] += 1;
    }
    if !feasible(&remaining, &capacities) {
        return Err("inconsistent observation: no deal satisfies the voids shown".to_string());
    }
    for &(card, mask) in &allowed {
        remaining[mask] -= 1;
        let mut options: Vec<usize> = (0..places.len())
            .filter(|&i| mask >> i & 1 == 1 && capacities[i] > 0)
            .collect();
        loop {
            let total: u64 = options.iter().map(|&i| capacities[i] as u64).sum();
            if total == 0 {
                return Err("inconsistent observation: no deal satisfies the voids shown".into());
            }
            let mut ticket = rng.below(total);
            let mut position = 0;
            for (at, &i) in options.iter().enumerate() {
                let weight = capacities[i] as u64;
                if ticket < weight {
                    position = at;
                    break;
                }
                ticket -= weight;
            }
            let pick = options[position];
            capacities[pick] -= 1;
            if feasible(&remaining, &capacities) {
                filled[pick] |= 1 << card;
                break;
            }
            capacities[pick] += 1;
            options.remove(position);
        }
    }
    Ok(filled)
}

/// `nest_size` cards of `hand` chosen uniformly.
fn choose_nest(hand: u64, nest_size: u32, rng: &mut Rng) -> u64 {
    let mut cards = cards_of(hand);
    let take = (nest_size as usize).min(cards.len());
    // A partial Fisher-Yates: the first `take` cards are a uniform subset.
    for i in 0..take {
        let j = i + rng.below((cards.len() - i) as u64) as usize;
        cards.swap(i, j);
    }
    cards[..take].iter().fold(0, |nest, &card| nest | 1 << card)
}

/// One deal consistent with `hidden` (`sample_deal` of the pure engine, after its reading).
pub fn sample(hidden: &Hidden, rng: &mut Rng) -> Result<SampledDeal, String> {
    let filled = fill(hidden.unknown, &hidden.places, rng)?;
    let mut hands = hidden.hands.clone();
    let mut nest = hidden.nest;
    let mut buried = hidden.buried;
    let mut dead = 0u64;
    for (place, &mask) in hidden.places.iter().zip(filled.iter()) {
        match place.kind {
            PlaceKind::Hand(seat) => hands[seat] = mask,
            PlaceKind::Nest => nest = mask,
            PlaceKind::Buried => buried = mask,
            PlaceKind::Dead => dead = mask,
        }
    }
    for (hand, played) in hands.iter_mut().zip(hidden.played.iter()) {
        *hand |= played;
    }
    if hidden.bidder >= 0 && hidden.nest_size > 0 {
        let bidder = hidden.bidder as usize;
        if hidden.buried_done {
            nest = buried;
        } else if nest == 0 {
            nest = choose_nest(hands[bidder], hidden.nest_size, rng);
        }
        hands[bidder] &= !nest;
    }
    Ok(SampledDeal { hands, nest, dead })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_respects_capacities_and_forbidden_cards() {
        let mut rng = Rng::new(7);
        let places = [
            Place {
                kind: PlaceKind::Hand(1),
                capacity: 3,
                forbidden: 0b1111,
            },
            Place {
                kind: PlaceKind::Hand(2),
                capacity: 5,
                forbidden: 0,
            },
        ];
        for _ in 0..200 {
            let filled = fill(0xFF, &places, &mut rng).unwrap();
            assert_eq!(filled[0].count_ones(), 3);
            assert_eq!(filled[1].count_ones(), 5);
            assert_eq!(filled[0] & 0b1111, 0);
            assert_eq!(filled[0] | filled[1], 0xFF);
        }
    }

    #[test]
    fn an_impossible_spread_is_refused() {
        let mut rng = Rng::new(1);
        let places = [
            Place {
                kind: PlaceKind::Hand(1),
                capacity: 3,
                forbidden: 0b1111,
            },
            Place {
                kind: PlaceKind::Hand(2),
                capacity: 1,
                forbidden: 0,
            },
        ];
        assert!(fill(0b1111, &places, &mut rng).is_err());
    }
}
