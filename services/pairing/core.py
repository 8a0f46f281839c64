"""Pure pairing core: round robin (Berger tables) and a first FIDE Dutch Swiss pairing.

No I/O, no wall clock, no randomness: the same input always gives the same pairing, so a
``RoundPaired`` event can be re-derived and audited from the events that preceded it.

Sources
-------
* Round robin: xiangqi competition rules, appendix 1 "循环赛对局秩序表的使用和编排"
  (``shared/rules/xiangqi-rules-with-appendices.txt``, section 附录一).  The construction it
  describes gives the same tables as the FIDE Berger tables (FIDE Handbook C.05 annex 1).
* Swiss: FIDE Handbook C.04.3 "FIDE (Dutch) System" (2017 text, with C.04.1 basic rules),
  simplified as documented on :func:`dutch_pair`.

Errors: every bad input raises :class:`PairingError` (a ``ValueError``).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import networkx as nx

from shared.checks import pairing_history, player_ids
from shared.errors import PairingError  # the pairing layer's error (re-exported)

__all__ = [
    "PairingError",
    "RoundPlan",
    "berger_table",
    "round_robin",
    "SwissPlayer",
    "SwissRound",
    "colour_preference",
    "dutch_pair",
]


def _check_int(name: str, value: object, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise PairingError(f"{name} must be an int, got {value!r}")
    if value < minimum:
        raise PairingError(f"{name} must be >= {minimum}, got {value}")
    return value


# --------------------------------------------------------------------------------------------
# Round robin
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RoundPlan:
    """One round of a round robin.

    ``round``: 1-based round number (continuing across cycles: cycle 2 of 8 players starts at 8).
    ``boards``: ``(white_no, black_no)`` 1-based draw numbers, board order as in the table; the
    phantom pair of an odd field is left out.  White is xiangqi's red (先走).
    ``bye``: the draw number facing the phantom "最大号" this round, or ``None`` for even fields.
    """

    round: int
    boards: list[tuple[int, int]]
    bye: int | None = None


def berger_table(n: int) -> list[list[tuple[int, int]]]:
    """Berger table for ``n`` players, built with the method of xiangqi rules appendix 1 (二).

    Returns ``最大号 - 1`` rounds, each a list of ``(white_no, black_no)`` pairs in table order,
    where 最大号 = ``n`` if ``n`` is even else ``n + 1`` (the phantom; whoever meets it has the
    bye).  The first-listed number of a pair moves first (white/red), appendix 1 (一).

    Construction (appendix 1, 二):
      * round 1: "首尾相对，依次靠拢" -> 1-N, 2-(N-1), ...;
      * from round 2 the 最大号 pair is listed first; 最大号 moves first in round 2 and then
        alternates; its opponent is the number listed last in the previous round;
      * the other pairs: "上轮跨邻相遇，前后顺序依然，从后往前配对" -- take the previous round's
        list without 最大号 and without that last number, pair neighbours (keeping their order,
        so the earlier-listed moves first), and list those pairs from the back to the front.

    Raises :class:`PairingError` if ``n`` is not an int >= 2.
    """
    _check_int("n", n, 2)
    top = n if n % 2 == 0 else n + 1
    rounds: list[list[tuple[int, int]]] = [[(i, top + 1 - i) for i in range(1, top // 2 + 1)]]
    for r in range(2, top):
        previous = [no for pair in rounds[-1] for no in pair]
        last = previous[-1]
        first = (top, last) if r % 2 == 0 else (last, top)
        rest = [no for no in previous[:-1] if no != top]
        pairs = [(rest[i], rest[i + 1]) for i in range(0, len(rest), 2)]
        rounds.append([first, *reversed(pairs)])
    return rounds


def round_robin(n: int, cycles: int = 1) -> list[RoundPlan]:
    """All rounds of an ``n``-player round robin played ``cycles`` times.

    Each cycle repeats :func:`berger_table`; in every even-numbered cycle the colours are
    swapped (appendix 1 (一): in a two-game match the first game's red plays black in the
    second).  Rounds are numbered consecutively across cycles.  With an odd ``n`` the player
    paired with the phantom 最大号 gets ``bye`` and that pair is not listed in ``boards``.

    Raises :class:`PairingError` if ``n < 2`` or ``cycles < 1``.
    """
    _check_int("cycles", cycles, 1)
    table = berger_table(n)
    phantom = n + 1 if n % 2 else None
    plans: list[RoundPlan] = []
    for cycle in range(cycles):
        swap = cycle % 2 == 1
        for pairs in table:
            bye = None
            boards: list[tuple[int, int]] = []
            for a, b in pairs:
                if phantom is not None and phantom in (a, b):
                    bye = b if a == phantom else a
                    continue
                boards.append((b, a) if swap else (a, b))
            plans.append(RoundPlan(round=len(plans) + 1, boards=boards, bye=bye))
    return plans


# --------------------------------------------------------------------------------------------
# Swiss: FIDE Dutch system (first version)
# --------------------------------------------------------------------------------------------

_COLOURS = ("w", "b", "-")
# preference strength, C.04.3 A.6
_NONE, _MILD, _STRONG, _ABSOLUTE = 0, 1, 2, 3


@dataclass(frozen=True)
class SwissPlayer:
    """A player as the Dutch pairing sees him before a round.

    ``id``: unique id.  ``pairing_no``: initial rank (1 = highest rated), unique, >= 1.
    ``score``: points so far (>= 0).  ``opponents``: ids already met (rematches are forbidden).
    ``colours``: one entry per past round: ``'w'``, ``'b'`` or ``'-'`` (did not play: bye,
    forfeit, absence).  ``had_bye``: already received a pairing-allocated bye.
    ``float_history``: one entry per past round: ``'d'`` floated down, ``'u'`` floated up,
    ``''`` or ``'-'`` neither (optional; used to avoid repeated floats).
    """

    id: str
    pairing_no: int
    score: float = 0.0
    opponents: tuple[str, ...] = ()
    colours: tuple[str, ...] = ()
    had_bye: bool = False
    float_history: tuple[str, ...] = ()


@dataclass(frozen=True)
class SwissRound:
    """Result of :func:`dutch_pair`.

    ``boards``: ``(white_id, black_id)`` ordered by the higher score of the pair (descending),
    then by the better pairing number in the pair (ascending).  ``bye``: the id receiving the
    pairing-allocated bye, or ``None``.  ``floats``: ``{id: 'd' | 'u'}`` for players paired
    outside their score group (down-floater / up-floater), to feed the next ``float_history``.
    """

    round: int
    boards: list[tuple[str, str]]
    bye: str | None = None
    floats: dict[str, str] = field(default_factory=dict)


def colour_preference(colours: tuple[str, ...]) -> tuple[str | None, int]:
    """Colour preference per C.04.3 A.6 from a colour history (``'w'``/``'b'``/``'-'``).

    Returns ``(colour, strength)`` with strength 0 none, 1 mild, 2 strong, 3 absolute:
    absolute if the colour difference (whites - blacks) is beyond +-1 or the last two played
    games had the same colour; strong if the difference is +-1; mild (alternate from the last
    played game) if it is 0; none if no game was played.
    """
    played = [c for c in colours if c != "-"]
    if not played:
        return None, _NONE
    diff = played.count("w") - played.count("b")
    if diff > 1:
        return "b", _ABSOLUTE
    if diff < -1:
        return "w", _ABSOLUTE
    if len(played) >= 2 and played[-1] == played[-2]:
        return ("b" if played[-1] == "w" else "w"), _ABSOLUTE
    if diff == 1:
        return "b", _STRONG
    if diff == -1:
        return "w", _STRONG
    return ("b" if played[-1] == "w" else "w"), _MILD


def _validate(players: list[SwissPlayer], round_no: int) -> None:
    _check_int("round_no", round_no, 1)
    if len(players) < 2:
        raise PairingError(f"need at least 2 players to pair, got {len(players)}")
    player_ids(players, SwissPlayer, PairingError)
    numbers: set[int] = set()
    for p in players:
        _check_int(f"pairing_no of {p.id!r}", p.pairing_no, 1)
        if p.pairing_no in numbers:
            raise PairingError(f"duplicate pairing_no {p.pairing_no} ({p.id!r})")
        numbers.add(p.pairing_no)
        pairing_history(p, _COLOURS, PairingError)


def _legal(a: SwissPlayer, b: SwissPlayer) -> bool:
    return b.id not in a.opponents and a.id not in b.opponents


def _has_perfect_matching(players: list[SwissPlayer]) -> bool:
    graph = nx.Graph()
    graph.add_nodes_from(p.id for p in players)
    for i, a in enumerate(players):
        for b in players[i + 1:]:
            if _legal(a, b):
                graph.add_edge(a.id, b.id)
    return len(nx.max_weight_matching(graph, maxcardinality=True)) * 2 == len(players)


def _choose_bye(players: list[SwissPlayer]) -> SwissPlayer:
    """C.04.1 c / C.04.3: the bye goes to a player without a previous bye, from the lowest score
    group, lowest ranked first -- the first such candidate whose removal leaves a legal pairing.
    Simplification: if no bye-free player works, a second bye is given rather than failing."""
    candidates = sorted(players, key=lambda p: (p.had_bye, p.score, -p.pairing_no))
    for cand in candidates:  # players who already had a bye come last: a second bye only if forced
        rest = [p for p in players if p.id != cand.id]
        if _has_perfect_matching(rest):
            return cand
    raise PairingError("no legal pairing exists: every choice of bye leaves a forced rematch")


def _allocate_colours(
    a: SwissPlayer, b: SwissPlayer, ranking: dict[str, int], initial_colour: str
) -> tuple[str, str]:
    """Colour allocation per C.04.3 E.1-E.5.  Returns ``(white_id, black_id)``."""
    pa, sa = colour_preference(a.colours)
    pb, sb = colour_preference(b.colours)
    high, low = (a, b) if ranking[a.id] < ranking[b.id] else (b, a)
    ph, sh = (pa, sa) if high is a else (pb, sb)

    def give(player: SwissPlayer, colour: str) -> tuple[str, str]:
        other = b if player is a else a
        return (player.id, other.id) if colour == "w" else (other.id, player.id)

    if pa is None and pb is None:
        # E.5: higher ranked gets the initial colour if his pairing number is odd.  In round 1
        # (pairing n vs n + N/2) this is "top board white, then alternate by board".
        odd = high.pairing_no % 2 == 1
        colour = initial_colour if odd else ("b" if initial_colour == "w" else "w")
        return give(high, colour)
    if pa is None or pb is None or pa != pb:  # E.1: grant both preferences
        return give(a, pa) if pa is not None else give(b, "b" if pb == "w" else "w")
    if sa != sb:  # E.2: grant the stronger preference
        return give(a, pa) if sa > sb else give(b, pb)
    # E.3: alternate from the most recent round in which one had white and the other black
    for ca, cb in zip(reversed(a.colours), reversed(b.colours)):
        if ca in "wb" and cb in "wb" and ca != cb:
            return give(a, "b" if ca == "w" else "w")
    return give(high, ph)  # E.4: the higher ranked player gets his preference


def dutch_pair(
    players: list[SwissPlayer], round_no: int, initial_colour: str = "w"
) -> SwissRound:
    """Pair one Swiss round by a first version of the FIDE Dutch system (C.04.3).

    ``players``: everyone to be paired this round (withdrawn players left out).
    ``round_no``: 1-based number of the round being paired.  ``initial_colour``: ``'w'`` or
    ``'b'``, the colour the top-ranked player gets in round 1 (C.04.3 E.5 / drawn by lot).

    What it does:
      * bye (odd count): lowest score group first, lowest ranked first, never a second bye
        while another player could take it, and only if the others can still be paired
        without a rematch (C.04.1 c, C.04.3 A/C.2);
      * the rest is paired as ONE global maximum-weight perfect matching (networkx, exact
        integer weights) on the graph whose edges are the non-rematches, so a legal pairing is
        found whenever one exists.  Edge costs are lexicographic, most important first:
          1. both players have the same absolute colour preference (a 3rd same colour in a row
             or a colour difference beyond +-2 would follow) -- only when unavoidable;
          2. score differences: pairs crossing each score-group boundary, counted boundary by
             boundary from the top (fewest and lowest down-floaters); then the sum of squared
             score differences (a down-floater meets the next group, not one further down);
          3. repeated floats (down-floater who floated down last round, up-floater who floated
             up last round);
          4. unmet colour preferences (weighted by the strength of the preference lost);
          5. Dutch order: in a score group of size m, S1 = the better m//2 by pairing number,
             S2 = the rest; the ideal is S1[i]-S2[i]; the deviation |j - i| is minimised for
             S1[0] first, then S1[1], ... (transpositions in S2; S1/S2 exchanges cost more).
             A down-floater prefers the lowest ranked of the upper group and the highest ranked
             of the lower group.
      * colours per E.1-E.5 (:func:`_allocate_colours`); boards ordered by the pair's higher
        score, then the better pairing number.

    Simplified (not endorsement-grade): no explicit bracket-by-bracket processing with MDP/
    limbo handling, the S1/S2 order and float criteria are approximated by weights rather than
    the exact C.04.3 candidate sequence, no top-scorer exceptions in the last round, the bye
    ignores forfeit wins (only ``had_bye``), ranking for colour ties is score then pairing_no.

    Raises :class:`PairingError` on bad input or when no rematch-free pairing exists.
    """
    _validate(players, round_no)
    if initial_colour not in ("w", "b"):
        raise PairingError(f"initial_colour must be 'w' or 'b', got {initial_colour!r}")
    ranked = sorted(players, key=lambda p: (-p.score, p.pairing_no))
    ranking = {p.id: i for i, p in enumerate(ranked)}
    bye = _choose_bye(ranked) if len(ranked) % 2 else None
    pool = [p for p in ranked if bye is None or p.id != bye.id]
    groups = _ScoreGroups(pool)
    matching = _max_weight_pairs(pool, _packed_costs(_edge_costs(pool, groups), len(pool)))
    if len(matching) * 2 != len(pool):
        raise PairingError(
            f"no legal pairing exists for round {round_no}: "
            f"{len(pool) - 2 * len(matching)} players cannot be paired without a rematch"
        )
    by_id = {p.id: p for p in pool}
    boards: list[tuple[str, str]] = []
    floats: dict[str, str] = {}
    for u, v in matching:
        a, b = by_id[u], by_id[v]
        hi, lo = (a, b) if ranking[a.id] < ranking[b.id] else (b, a)
        if groups.group_of[hi.id] != groups.group_of[lo.id]:
            floats[hi.id], floats[lo.id] = "d", "u"
        boards.append(_allocate_colours(a, b, ranking, initial_colour))
    boards.sort(key=lambda pair: (-max(by_id[pair[0]].score, by_id[pair[1]].score),
                                  min(by_id[pair[0]].pairing_no, by_id[pair[1]].pairing_no)))
    return SwissRound(round=round_no, boards=boards, bye=bye.id if bye else None, floats=floats)


class _ScoreGroups:
    """The score groups of :func:`dutch_pair`'s pool (players in score-descending,
    pairing-number order, bye removed) and the lexicographic cost tiers that read them
    (C.04.3 A.3 score groups, A.6 S1/S2, B.1-B.4 of the 2017 text, approximated)."""

    def __init__(self, pool: list[SwissPlayer]) -> None:
        scores = sorted({p.score for p in pool}, reverse=True)
        self.group_of = {p.id: scores.index(p.score) for p in pool}
        self.members: dict[int, list[SwissPlayer]] = {}
        for p in pool:  # pool is already in (score desc, pairing_no asc) order
            self.members.setdefault(self.group_of[p.id], []).append(p)
        self.pos = {p.id: i for grp in self.members.values() for i, p in enumerate(grp)}
        # > any per-player deviation and > number of pairs, so sums stay lexicographic
        self.base = len(pool) + 2
        self.n_groups = len(scores)

    def score_cost(self, hi: SwissPlayer, lo: SwissPlayer) -> int:
        """Score-group boundaries the pair crosses, the top ones weighing most."""
        return sum(self.base ** (self.n_groups - 1 - k)
                   for k in range(self.group_of[hi.id], self.group_of[lo.id]))

    def order_cost(self, hi: SwissPlayer, lo: SwissPlayer) -> int:
        """Deviation from S1[i]-S2[i] (transpositions, then exchanges), S1[0] first; a
        down-floater prefers the lowest of the upper group and the highest of the lower."""
        gh, gl = self.group_of[hi.id], self.group_of[lo.id]
        pos = self.pos
        if gh != gl:
            return (len(self.members[gh]) - 1 - pos[hi.id]) + pos[lo.id]
        m = len(self.members[gh])
        half = m // 2
        i, j = sorted((pos[hi.id], pos[lo.id]))
        deviation = abs(j - half - i) if i < half <= j else m  # both in S1 or S2: exchange
        return deviation * self.base ** max(0, half - 1 - min(i, half - 1))

    def float_cost(self, hi: SwissPlayer, lo: SwissPlayer) -> int:
        """Repeated floats: a down-floater who floated down last round, an up-floater up."""
        if self.group_of[hi.id] == self.group_of[lo.id]:
            return 0
        return int(hi.float_history[-1:] == ("d",)) + int(lo.float_history[-1:] == ("u",))


def _colour_costs(a: SwissPlayer, b: SwissPlayer) -> tuple[int, int]:
    """(same absolute colour preference, strength of the preference lost) of a pair."""
    pa, sa = colour_preference(a.colours)
    pb, sb = colour_preference(b.colours)
    if pa is None or pb is None or pa != pb:
        return 0, 0
    if sa == sb == _ABSOLUTE:
        return 1, 0
    return 0, min(sa, sb)


def _edge_costs(pool: list[SwissPlayer],
                groups: _ScoreGroups) -> list[tuple[str, str, tuple[int, ...]]]:
    """``(id, id, cost tuple)`` of every non-rematch pair of the pool, most important tier
    first: absolute colour clash, score boundaries, squared score gap (half points), repeated
    floats, lost colour preference, Dutch order."""
    raw = []
    for x, a in enumerate(pool):
        for b in pool[x + 1:]:
            if not _legal(a, b):
                continue
            absolute, pref = _colour_costs(a, b)
            raw.append((a.id, b.id, (absolute, groups.score_cost(a, b),
                                     round(2 * (a.score - b.score)) ** 2,
                                     groups.float_cost(a, b), pref, groups.order_cost(a, b))))
    return raw


def _packed_costs(raw: list[tuple[str, str, tuple[int, ...]]], n: int) -> dict:
    """The cost tuples as one integer per pair: each tier's multiplier exceeds the largest
    possible sum of all lower tiers over a matching (``n // 2 + 1`` pairs at most)."""
    pairs_max = n // 2 + 1
    tiers = 6
    weights = [1] * tiers
    for tier in range(tiers - 2, -1, -1):
        top_lower = max((c[tier + 1] for _, _, c in raw), default=0)
        weights[tier] = weights[tier + 1] * (top_lower * pairs_max + 1)
    return {(u, v): sum(w * c for w, c in zip(weights, cost)) for u, v, cost in raw}


def _max_weight_pairs(pool: list[SwissPlayer], costs: dict) -> set:
    """A maximum-cardinality matching of least total cost (networkx, exact integers)."""
    ceiling = max(costs.values(), default=0) + 1
    graph = nx.Graph()
    graph.add_nodes_from(p.id for p in pool)
    for (u, v), cost in costs.items():
        graph.add_edge(u, v, weight=ceiling - cost)
    return nx.max_weight_matching(graph, maxcardinality=True)
