"""The search bot: Perfect Information Monte Carlo (determinized search).

For every decision it samples deals consistent with its observation, plays each candidate
action out to the end of the hand on every sample (every seat playing the heuristic), and
chooses the candidate with the best average worth to its side: the hand's score for its side
(a set counts minus the bid) less the other sides' average. Bids come from the same
simulations: for each trump suit the simulated hand totals, and the highest bid whose expected
worth beats passing. Once cards have been played, each sample is the likeliest of a few drawn
deals given the opponents' cards so far, read as heuristic play (``read_play_tries``). Each
decision keeps a time budget and an iteration (sample) budget.

>>> from rookery.engine import Game, Ruleset
>>> game = Game(Ruleset.preset("standard"), seed=3)
>>> obs = game.observation_for(game.current_player)
>>> pimc = PimcPolicy(PimcParameters(time_budget=None, samples=4))
>>> pimc(obs, obs.legal_actions(), random.Random(0)) in obs.legal_actions()
True
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from rookery.engine import (
    PASS,
    PLAY,
    TRUMP,
    Action,
    Bury,
    CallCard,
    Deal,
    FirstLead,
    Game,
    HeuristicPlayouts,
    LegalActions,
    Observation,
    Partnership,
    Phase,
    Ruleset,
    bid_action,
    mask_points,
    sample_deal,
)

from ._bot import PolicyBot
from ._pimc_budget import PimcParameters, SearchStats, _sampled_totals, search_note
from ._pimc_budget import _Budget as _Budget
from ._play import alike_classes, choose_play, known_friends, play_view_from_observation
from ._sampling import Inference, PlayReader, Sample, play_likelihood, sample_hands
from ._simulate import (
    HandSimulation,
    bidding_mask,
    called_partner,
    core_playouts,
    game_utility,
    hand_utility,
    side_deltas,
)
from ._solve import EndgameSolver, solvable
from .heuristic import HeuristicPolicy, best_trump, bury_candidates, call_card

CardValues = Callable[[Sample, list[int], _Budget], list[float] | None]
"""A sample's worth to the observer per candidate card (``None``: the deadline cut it short)."""

__all__ = ["PimcBot", "PimcParameters", "PimcPolicy", "SearchStats", "distinct_cards"]


class PimcPolicy:
    """Determinized search over heuristic playouts: ``policy(obs, legal, rng) -> action``."""

    def __init__(self, parameters: PimcParameters | None = None) -> None:
        self.parameters = parameters or PimcParameters()
        self._heuristic = HeuristicPolicy()
        self._bid_cache: dict[tuple[int, int, int], int] = {}
        self._trump_cache: dict[tuple[int, int, int], int] = {}
        self._time_budget = self.parameters.time_budget
        self._time_limit: float | None = None
        self.last_search = SearchStats(0, 0.0)
        """The search of the last decision (no search: 0 samples)."""

    def __call__(self, obs: Observation, legal: LegalActions, rng: random.Random) -> Action:
        return self.choose(obs, legal, rng, time_budget=self.parameters.time_budget)

    def choose(
        self,
        obs: Observation,
        legal: LegalActions,
        rng: random.Random,
        *,
        time_budget: float | None,
        time_limit: float | None = None,
    ) -> Action:
        """The action for ``obs``, searching at most ``time_budget`` seconds (``None``: samples)
        for a card, the exchange and bidding scales of it for those, never over ``time_limit``."""
        self._time_budget = time_budget
        self._time_limit = time_limit
        self.last_search = SearchStats(0, 0.0)
        phase = legal.phase
        if phase is Phase.PLAY:
            return PLAY[self.play(obs, legal.play, rng)]
        if phase is Phase.BIDDING:
            return self.bid(obs, legal, rng)
        if phase is Phase.NAME_TRUMP:
            return TRUMP[self.trump(obs, rng)]
        if phase is Phase.BURY:
            return Bury(self.bury(obs, legal.bury_count, rng))
        if phase is Phase.CALL:
            return CallCard(self.call(obs, legal.call_from, rng))
        raise ValueError(f"no action to choose in phase {phase.name}")

    def _utility(self, sim: HandSimulation, obs: Observation) -> float:
        """A played-out hand's worth to the observer: its chance to win the game, or points."""
        return self._worth(sim.side_deltas(), obs)

    def _worth(self, deltas: list[int], obs: Observation) -> float:
        """A hand's score changes per seat, worth to the observer (``game_aware``) or points."""
        if self.parameters.game_aware:
            return game_utility(deltas, obs.seat, obs.ruleset, obs.scores)
        return hand_utility(deltas, obs.seat, obs.ruleset)

    def _sampler(self, obs: Observation) -> Callable[[random.Random], Sample]:
        """Draws samples for ``obs``: weighted by the auction (``infer_tries``), or uniform."""
        tries = self.parameters.infer_tries
        if tries <= 0:
            return lambda rng: sample_hands(obs, rng)
        inference = Inference(
            obs,
            spread=self.parameters.infer_spread,
            tries=tries,
        )
        return lambda rng: inference.sample(obs, rng)

    def _play_sampler(self, obs: Observation) -> Callable[[random.Random], Sample]:
        """Draws samples for a card to play: the likeliest of ``read_play_tries`` draws given
        the opponents' play so far, or as ``_sampler`` does."""
        sampler = self._sampler(obs)
        tries = self.parameters.read_play_tries
        if tries <= 1 or not (obs.completed_tricks or obs.current_trick.cards):
            return sampler
        miss = self.parameters.read_play_miss
        if self.parameters.infer_tries <= 0 and HeuristicPlayouts.available():
            return PlayReader(obs, tries, miss)

        def likeliest(rng: random.Random) -> Sample:
            best, best_likelihood = None, -1.0
            for _ in range(tries):
                drawn = sampler(rng)
                likelihood = play_likelihood(obs, drawn.hands, miss)
                if likelihood > best_likelihood:
                    best, best_likelihood = drawn, likelihood
                    if likelihood >= 1.0:
                        break
            assert best is not None
            return best

        return likeliest

    def _budget(self, scale: float = 1.0) -> _Budget:
        samples = max(1, round(self.parameters.samples * scale))
        seconds = self._time_budget
        if seconds is not None:
            seconds *= scale
        if self._time_limit is not None:
            seconds = self._time_limit if seconds is None else min(seconds, self._time_limit)
        return _Budget(samples, seconds)

    def _record(self, budget: _Budget, totals: Sequence[float] = (), playouts: int = 0) -> None:
        best = second = None
        if budget.count and len(totals) > 1:
            ranked = sorted(totals, reverse=True)
            best, second = ranked[0] / budget.count, ranked[1] / budget.count
        self.last_search = SearchStats(budget.count, budget.elapsed, best, second, playouts)

    # Card play ------------------------------------------------------------------------------

    def play(self, obs: Observation, legal: int, rng: random.Random) -> int:
        """The card with the best average worth over the sampled deals."""
        cards = distinct_cards(obs, legal)
        if len(cards) == 1:
            return cards[0]
        return self.search_cards(obs, legal, cards, rng, self._card_values(obs))

    def _card_values(self, obs: Observation) -> CardValues:
        """How a sample values the cards: solved in the endgame (``endgame_tricks``), else by
        heuristic playouts, on the native core where the engine runs on it."""
        tricks_left = obs.ruleset.hand_size - len(obs.completed_tricks)
        if tricks_left <= self.parameters.endgame_tricks and solvable(obs.ruleset):
            return self._solved_values(obs)
        if HeuristicPlayouts.available():
            return self._core_values(obs)
        return self._playout_values(obs)

    def search_cards(
        self,
        obs: Observation,
        legal: int,
        cards: list[int],
        rng: random.Random,
        values_of: CardValues,
    ) -> int:
        """The card of ``cards`` with the best total worth over the samples the budget allows,
        each sample's worth per card from ``values_of`` (``None``: the deadline cut it short);
        every ``prune_every`` samples, the cards far behind are dropped."""
        totals = dict.fromkeys(cards, 0.0)
        sampler = self._play_sampler(obs)
        budget = self._budget()
        prune_every = self.parameters.prune_every
        playouts = 0
        while budget.more():
            if prune_every and budget.count and budget.count % prune_every == 0:
                # Successive pruning: spend the samples on the candidates still in contention.
                best = max(totals[card] for card in cards)
                margin = self.parameters.prune_margin * budget.count
                cards = [card for card in cards if totals[card] >= best - margin]
                if len(cards) == 1:
                    break
            values = values_of(sampler(rng), cards, budget)
            if values is None:
                break
            for card, value in zip(cards, values, strict=True):
                totals[card] += value
            budget.count += 1
            playouts += len(values)
        self._record(budget, [totals[card] for card in cards], playouts)
        if not budget.count:
            return choose_play(play_view_from_observation(obs, legal))
        return max(cards, key=lambda card: (totals[card], -card))

    def _core_values(self, obs: Observation) -> CardValues:
        """A sample's worth per card by heuristic playouts on the native core (one call a
        sample); the same playouts as ``_playout_values``."""
        playouts = core_playouts(obs)
        rules = obs.ruleset
        masks: dict[int, int] = {}
        # A hand's worth depends only on the points won, the partner and the bury: playouts end
        # alike far more often than not, so each outcome is scored once.
        worths: dict[tuple[int, ...], float] = {}

        def worth(won: list[int], partner: int, buried: int) -> float:
            key = (partner, buried, *won)
            value = worths.get(key)
            if value is None:
                deltas = side_deltas(rules, won, obs.bidder, partner, obs.bid, buried)
                value = worths[key] = self._worth(deltas, obs)
            return value

        def values(sample: Sample, cards: list[int], budget: _Budget) -> list[float] | None:
            if budget.expired():
                return None
            hands, buried, _ = sample
            partner = called_partner(obs, hands)
            mask = masks.get(partner)
            if mask is None:
                mask = masks[partner] = bidding_mask(rules, obs.bidder, partner)
            points = mask_points(buried)
            outcomes = playouts.play_out(hands, partner, mask, cards)
            return [worth(won, partner, points) for won in outcomes]

        return values

    def _playout_values(self, obs: Observation) -> CardValues:
        """A sample's worth per card by heuristic playouts of the Python model."""

        def values(sample: Sample, cards: list[int], budget: _Budget) -> list[float] | None:
            return _each_card(self, obs, _base(obs, sample), cards, budget, HandSimulation.play_out)

        return values

    def _solved_values(self, obs: Observation) -> CardValues:
        """A sample's worth per card by solving the rest of the hand exactly (``EndgameSolver``)."""

        def values(sample: Sample, cards: list[int], budget: _Budget) -> list[float] | None:
            base = _base(obs, sample)
            solver = EndgameSolver(base)
            return _each_card(
                self, obs, base, cards, budget, lambda sim: _finish(sim, solver.points(sim))
            )

        return values

    # The auction ----------------------------------------------------------------------------

    def bid(self, obs: Observation, legal: LegalActions, rng: random.Random) -> Action:
        """Pass or bid the lowest legal amount, whichever plays out better (``auction_rollouts``);
        else bid up to the simulated limit. Either way, respect a partner's high bid."""
        if not legal.bids:
            return PASS
        if self.parameters.auction_rollouts:
            return self._auction_search(obs, legal, rng)
        limit = self.bid_limit(obs, rng)
        friends = known_friends(obs)
        partner_high = obs.high_bidder not in (-1, obs.seat) and friends >> obs.high_bidder & 1
        if partner_high and limit < obs.high_bid + self.parameters.overbid_partner:
            return PASS
        amount = legal.bids[0]
        return bid_action(amount) if amount <= limit else PASS

    def _auction_search(self, obs: Observation, legal: LegalActions, rng: random.Random) -> Action:
        """Pass or the lowest bid, by rollouts: on each sampled deal the rest of the auction with
        every seat bidding as the heuristic, then the winner's heuristic exchange and the play."""
        friends = known_friends(obs)
        partner_high = obs.high_bidder not in (-1, obs.seat) and friends >> obs.high_bidder & 1
        if partner_high and self._heuristic.bid_limit(obs) < obs.high_bid + (
            self.parameters.overbid_partner
        ):
            return PASS
        candidates: list[Action] = [PASS, bid_action(legal.bids[0])]
        budget = self._budget(self.parameters.bid_scale)
        totals = _sampled_totals(
            budget,
            candidates,
            lambda: sample_deal(obs, rng),
            lambda deal, action: self._auction_rollout(obs, deal, action),
        )
        self._record(budget, totals)
        if not budget.count:
            return self._heuristic.bid(obs, legal)
        return candidates[1] if totals[1] > totals[0] else PASS

    def _auction_rollout(self, obs: Observation, deal: Deal, action: Action) -> float:
        """The worth to the observer of ``action`` then heuristic bidding, exchange and play."""
        rules = obs.ruleset
        game = Game.from_observation(obs, deal)
        game.apply(action)
        heuristic = self._heuristic
        while game.phase is Phase.BIDDING and game.hand_number == obs.hand_number:
            seat = game.current_player
            assert seat is not None
            view = game.observation_for(seat)
            game.apply(heuristic.bid(view, view.legal_actions()))
        if game.hand_number != obs.hand_number or game.is_over:
            return 0.0  # every seat passed: the hand is void
        bidder = game.bidder
        bid = game.observation_for(bidder).bid
        hands = list(game.hands)
        trump = best_trump(hands[bidder], rules)[0]
        sim = self._simulate_contract(rules, bidder, hands, 0, trump)
        sim.bid = bid
        return hand_utility(sim.side_deltas(), obs.seat, rules)

    def bid_limit(self, obs: Observation, rng: random.Random) -> int:
        """The highest bid whose simulated expected worth beats passing (0: none)."""
        key = (obs.hand_number, obs.seat, obs.hand)
        cached = self._bid_cache.get(key)
        if cached is not None:
            return cached
        rules = obs.ruleset
        bids = list(range(rules.min_bid, rules.effective_max_bid + 1, rules.bid_step))
        # worth[trump][bid index]: summed worth over the samples. Naming trump on seeing the
        # nest (``bid_nest_trump``): one row, each sample with its own trump.
        nest_trump = self.parameters.bid_nest_trump
        worth = [[0.0] * len(bids) for _ in range(1 if nest_trump else 4)]
        sampler = self._sampler(obs)
        budget = self._budget(self.parameters.bid_scale)
        while budget.more():
            hands, nest, _ = sampler(rng)
            rows = []
            trumps = [best_trump(hands[obs.seat] | nest, rules)[0]] if nest_trump else range(4)
            for trump in trumps:
                if budget.expired():
                    break
                sim = self._simulate_contract(rules, obs.seat, hands, nest, trump)
                row = []
                for amount in bids:
                    sim.bid = amount
                    row.append(hand_utility(sim.side_deltas(), obs.seat, rules))
                rows.append(row)
            else:
                for trump, row in enumerate(rows):
                    for index, value in enumerate(row):
                        worth[trump][index] += value
                budget.count += 1
                continue
            break
        self._record(budget)
        if not budget.count:
            return self._heuristic.bid_limit(obs)
        limit = 0
        threshold = self.pass_value(obs) * budget.count
        for index, amount in enumerate(bids):
            if max(row[index] for row in worth) >= threshold:
                limit = amount
        if len(self._bid_cache) > 64:
            self._bid_cache.clear()
        self._bid_cache[key] = limit
        return limit

    def pass_value(self, obs: Observation) -> float:
        """What passing is worth: conceding the hand to opponents who bid, or nothing."""
        rules = obs.ruleset
        friends = known_friends(obs)
        passed = {seat for seat, amount in obs.auction if amount == 0}
        scale = rules.deck_points / 120
        if obs.high_bidder >= 0 and not friends >> obs.high_bidder & 1:
            return self.parameters.contested_value * scale
        if any(seat not in passed and not friends >> seat & 1 for seat in range(rules.players)):
            return self.parameters.open_value * scale
        return self.parameters.pass_value

    def _simulate_contract(
        self,
        rules: Ruleset,
        bidder: int,
        hands: list[int],
        nest: int,
        trump: int,
        bury: int | None = None,
        called: int | None = None,
    ) -> HandSimulation:
        """The hand played out with ``bidder`` taking ``nest`` and naming ``trump``."""
        full = hands[bidder] | nest
        if bury is None:
            bury = (
                bury_candidates(full, trump, rules.nest_size)[0]
                if rules.nest_size and full.bit_count() > rules.hand_size
                else 0
            )
        hands = list(hands)
        hands[bidder] = full & ~bury
        partner = -1
        if rules.partnership is Partnership.CALLED:
            if called is None:
                called = call_card(rules.deck_mask & ~full, trump)
            partner = next((s for s, hand in enumerate(hands) if hand >> called & 1), -1)
        leader = bidder if rules.first_lead is FirstLead.BIDDER else (bidder + 1) % rules.players
        sim = HandSimulation(
            rules,
            hands,
            trump=trump,
            bidder=bidder,
            bid=rules.min_bid,
            leader=leader,
            buried_points=mask_points(bury),
            called=-1 if called is None else called,
            partner=partner,
        )
        sim.play_out()
        return sim

    # The exchange ---------------------------------------------------------------------------

    def _exchange_search(
        self,
        obs: Observation,
        rng: random.Random,
        candidates: list[tuple[int, int | None, int | None]],
    ) -> int:
        """The index of the best (trump, bury, call) candidate for the bidder over the samples.

        -1 when the time budget allowed no complete sample.
        """
        if len(candidates) == 1:
            return 0
        rules = obs.ruleset
        sampler = self._sampler(obs)

        def sample() -> list[int]:
            hands = sampler(rng).hands
            hands[obs.seat] = obs.hand | obs.buried
            return hands

        def worth(hands: list[int], candidate: tuple[int, int | None, int | None]) -> float:
            trump, bury, called = candidate
            sim = self._simulate_contract(
                rules, obs.seat, hands, 0, trump, bury=bury, called=called
            )
            sim.bid = obs.bid
            return self._utility(sim, obs)

        budget = self._budget(self.parameters.exchange_scale)
        totals = _sampled_totals(budget, candidates, sample, worth)
        self._record(budget, totals)
        if not budget.count:
            return -1
        return max(range(len(candidates)), key=lambda i: (totals[i], -i))

    def trump(self, obs: Observation, rng: random.Random) -> int:
        """The trump suit with the best simulated worth (the heuristic bury for each)."""
        key = (obs.hand_number, obs.seat, obs.hand | obs.buried)
        cached = self._trump_cache.get(key)
        if cached is not None:
            return cached
        if obs.buried:
            # Buried first (``trump_first = false``): keep the buried cards buried.
            candidates: list[tuple[int, int | None, int | None]] = [
                (trump, obs.buried, None) for trump in range(4)
            ]
        else:
            count = self.parameters.trump_buries
            hand = obs.hand | obs.buried
            candidates = [
                (trump, bury, None)
                for trump in range(4)
                for bury in bury_candidates(hand, trump, obs.ruleset.nest_size, count)
            ]
        index = self._exchange_search(obs, rng, candidates)
        choice = candidates[index][0] if index >= 0 else self._heuristic.trump(obs)
        self._trump_cache[key] = choice
        return choice

    def bury(self, obs: Observation, count: int, rng: random.Random) -> int:
        """The best of the heuristic's top buries for the named trump, by simulation."""
        trump = self.trump(obs, rng) if obs.trump is None else int(obs.trump)
        options = bury_candidates(obs.hand, trump, count, self.parameters.bury_candidates)
        candidates: list[tuple[int, int | None, int | None]] = [
            (trump, bury, None) for bury in options
        ]
        return options[max(self._exchange_search(obs, rng, candidates), 0)]

    def call(self, obs: Observation, call_from: int, rng: random.Random) -> int:
        """The best of the top trumps and 14s the bidder lacks, by simulation."""
        assert obs.trump is not None
        trump = int(obs.trump)
        options: list[int] = []
        remaining = call_from
        while remaining and len(options) < self.parameters.call_candidates:
            card = call_card(remaining, trump)
            options.append(card)
            remaining &= ~(1 << card)
        candidates: list[tuple[int, int | None, int | None]] = [
            (trump, obs.buried, card) for card in options
        ]
        return options[max(self._exchange_search(obs, rng, candidates), 0)]


def _each_card(
    policy: PimcPolicy,
    obs: Observation,
    base: HandSimulation,
    cards: list[int],
    budget: _Budget,
    finish: Callable[[HandSimulation], object],
) -> list[float] | None:
    """Each card's worth to ``policy``'s side on one sample: ``base`` cloned, the card played, the
    hand ended by ``finish``; ``None`` when the deadline cuts it short."""
    out = []
    for card in cards:
        if budget.expired():
            return None
        sim = base.clone()
        sim.play(card)
        finish(sim)
        out.append(policy._utility(sim, obs))
    return out


def _base(obs: Observation, sample: Sample) -> HandSimulation:
    """The hand at ``obs`` with the sample's hands and its bury's points."""
    hands, buried, _ = sample
    base = HandSimulation.from_observation(obs, hands)
    base.buried_points = mask_points(buried)
    return base


def _finish(sim: HandSimulation, points: int) -> None:
    """End ``sim`` with the bidding side winning ``points`` of what is left, the other side
    the rest (two sides: ``side_deltas`` only counts points per side)."""
    if sim.is_over:
        return
    left = sim.trick_points + sim.last_trick_bonus
    for hand in sim.hands:
        left += mask_points(hand)
    bidding = sim.bidding_mask
    defender = next(seat for seat in range(sim.players) if not bidding >> seat & 1)
    sim.won[sim.bidder] += points
    sim.won[defender] += left - points
    sim.tricks_left = 0


def distinct_cards(obs: Observation, legal: int) -> list[int]:
    """The legal cards, one per class of equivalent cards: of one suit, worth the same points,
    with no card between them that another seat or the hidden cards may hold, or that lies in
    the trick under way."""
    # The cards of the trick under way split a class too: B6 and B8 do not play alike on B7.
    played = 0
    for trick in obs.completed_tricks:
        for _, card in trick.cards:
            played |= 1 << card
    return alike_classes(legal, obs.ruleset.deck_mask & ~played & ~obs.hand)


class PimcBot(PolicyBot):
    """The ``pimc`` reference bot: keeps its time budget and half the table's time left."""

    def __init__(self, parameters: PimcParameters | None = None, *, seed: int = 0) -> None:
        self.search = PimcPolicy(parameters)
        super().__init__(self.search, seed=seed)

    def act(self, observation: Observation) -> Action:
        left = self.time_left()
        action = self.search.choose(
            observation,
            observation.legal_actions(),
            self.rng,
            time_budget=self.search.parameters.time_budget,
            time_limit=left / 2 if left > 0 else None,
        )
        text, values = search_note(self.search.last_search)
        self.note(text, **values)
        return action
