"""A faster, pairing-identical run of the FIDE Dutch engine (C.04.3 as amended in 2025:
py4swiss's engine with :mod:`services.pairing.dutch2025`).

py4swiss 0.3.1 (MIT, https://github.com/Moritz72/py4swiss; a port of bbpPairings) pairs each
bracket by maximum-weight matching in its compiled ``matching_computer``.  Profile of round 5
of a 1,000-player event (~26 s, loadtests/bench.py): ~20 s building the bracket edge weights in
pure Python (``BracketMatcher._get_weight``: absolute criteria C.1/C.3, then quality criteria
C.5-C.19 packed into an arbitrary-precision ``DynamicUint``, ~60 us per edge, ~320,000 edges),
~2-4 s in the validity matcher (its full-field graph and first matching) and ~3-4 s in the
bracket matchings themselves (figures vary with the load of the shared cores).  Subclasses here change how that work is done, never what it
decides:

1. :class:`FastBracketMatcher` -- the quality weight of an edge depends on the two players only
   through what the criteria read (:func:`_signature`: role in the bracket, score with
   acceleration, colour preference side and strength, colour difference, same colour twice,
   floats of the last two rounds, bye received, topscorer).  Each distinct (signature,
   signature) weight is computed once with py4swiss's own ``_get_weight`` (no criterion is
   re-implemented) and shared by the edges that have it; C.1 is checked per edge, C.3 once per
   signature pair with py4swiss's ``C3.evaluate``.  On py4swiss's graph (``reduce_lower``
   off, or the proof below not found) the compiled computer receives the same
   ``set_edge_weight`` calls, in the same order, with the same values.  Where it is proven
   exact (:func:`_lower_stand_ins`: one weight inside the next scoregroup and one per
   bracket player towards it, Dirac's degree bound), the next scoregroup is represented by a
   few stand-in vertices instead of all its players (3,000 players: brackets of ~1,300
   vertices become ~700).
2. :class:`FastValidityMatcher` -- "can the rest of the round still be paired?" is a yes/no
   question (a perfect matching exists or not).  A greedy matching with repairs answers yes
   with a proof in milliseconds; only when it finds none is py4swiss's blossom asked, on the
   graph py4swiss would have built.
3. :class:`FastBracketPairer` -- a D.1 transposition step whose result is proven from the last
   optimal matching skips the matching computation and its weight additions (argument in
   :meth:`FastBracketPairer.transpose_homogeneous_s2`); with no D.2 exchange the D.2
   matching seeds that proof.  The D.2 matching starts on a new computer
   (:meth:`FastBracketMatcher.restart`) with one unit per S1-S2 edge instead of py4swiss's
   D.2 values where its result proves them equivalent (:meth:`FastBracketPairer.
   _d2_by_units`: ~55 % of the time); a bracket without MDPs then needs no first matching,
   and one with a single MDP gets his D.3 and D.1 steps from the same matching
   (:meth:`FastBracketPairer._one_mdp`): one matching of the bracket instead of two.  The
   removals within S1 and S2 stay out of the computer when proven not to matter
   (:meth:`FastBracketPairer.perform_homogeneous_exchanges`); a D.1 computation after many
   proven steps starts on a computer without the fixed pairs (:class:`_SubComputer`) rather
   than re-matching every vertex they touched.  Every other step, and everything else
   (exchanges, colours E.1-E.5, board order), is py4swiss's code.  Round 5 of 9 of 3,000
   players (loadtests/bench.py): 3 matchings of brackets of ~700 vertices, then 2, now 1.

``tests/unit/test_dutch_fast.py`` checks weights and pairings against py4swiss's own classes
with the same amendments (generated events with byes, absences, forfeits, late entries,
withdrawals; the real TRFs).
Tied to py4swiss 0.3.1 (pinned in pyproject.toml): :data:`SUPPORTED` is False for any other
installed version and :func:`services.pairing.dutch.pair_dutch` then runs py4swiss's own classes
with the amendments (:class:`services.pairing.dutch2025.Dutch2025Engine`, itself written
against 0.3.1).
"""
from __future__ import annotations

from importlib.metadata import version as _dist_version

from py4swiss.dynamicuint import DynamicUint
from py4swiss.engines.common import ColorPreferenceSide
from py4swiss.engines.dutch.bracket.bracket import Bracket
from py4swiss.engines.dutch.criteria.absolute import C2, C3
from py4swiss.engines.dutch.player import Player, PlayerRole
from py4swiss.engines.dutch.validity_matcher import ValidityMatcher
from py4swiss.matching_computer import ComputerDutchOptimality, ComputerDutchValidity

from services.pairing.dutch2025 import (Dutch2025BracketMatcher, Dutch2025BracketPairer,
                                        Dutch2025Engine, greedy_mate)

__all__ = ["FastDutchEngine", "SUPPORTED", "PY4SWISS_VERSION"]

PY4SWISS_VERSION = "0.3.1"
SUPPORTED = _dist_version("py4swiss") == PY4SWISS_VERSION


def _signature(p: Player) -> tuple:
    """Every attribute of ``p`` that py4swiss 0.3.1's quality criteria C.5-C.19, the bye
    preference of ``BracketMatcher._get_weight``, the absolute criterion C.3 and the 2025
    amendments (services.pairing.dutch2025) read (not the id, pairing number, opponents or
    colour sequence); of a ``far`` player only whether he can take the bye and what C.3
    reads."""
    cp = p.color_preference
    if p.far:  # below the next scoregroup: the completion weight and C.3 (dutch2025)
        return (True, p.bye_received, p.top_scorer, cp.side, cp.strength)
    return (p.role, p.points_with_acceleration, cp.side, cp.strength, p.color_difference,
            p.color_double, p.float_1, p.float_2, p.bye_received, p.top_scorer,
            p.bye_rank, p.bye_active, p.far)


def _signature_classes(players: list[Player]) -> tuple[list[int], list[Player]]:
    """Class index of each player (equal signatures share one) and one player per class."""
    index: dict[tuple, int] = {}
    classes, reps = [], []
    for p in players:
        sig = _signature(p)
        k = index.get(sig)
        if k is None:
            k = index[sig] = len(reps)
            reps.append(p)
        classes.append(k)
    return classes, reps


class _EveryPairAllowed:
    """Stands in for the validity matcher inside ``BracketMatcher._get_weight`` so that it
    returns the quality weight alone; the absolute criteria are applied per edge instead."""

    @staticmethod
    def is_allowed_pair(player_1: Player, player_2: Player) -> bool:
        return True


_UNSET = object()


class _Deferred:
    """Stands in for the compiled computer while it is to be rebuilt from the weights
    (:meth:`FastBracketMatcher.restart`): edge changes go to the weights only."""

    @staticmethod
    def set_edge_weight(u: int, v: int, weight: DynamicUint) -> None:
        return None

    @staticmethod
    def add_vertex() -> None:
        return None


_DEFERRED = _Deferred()


class _SubComputer:
    """The compiled computer on the bracket's vertices other than those of fixed pairs
    (``finalize_match``: the pair's edge alone, with the fixed-pair weight), which every
    maximum-weight matching contains and which take no part in the rest of it.  Vertex
    indices are the matcher's; an edge change at an excluded vertex has the matcher start
    afresh (:meth:`FastBracketMatcher.restart`)."""

    def __init__(self, matcher: FastBracketMatcher, fixed: dict[int, int]) -> None:
        self._matcher, self._fixed = matcher, fixed
        self._keep = keep = [v for v in range(matcher._len) if v not in fixed]
        self._slot = {v: k for k, v in enumerate(keep)}
        self._raw = raw = ComputerDutchOptimality(len(keep), matcher._max_weight)
        for _ in keep:
            raw.add_vertex()
        set_edge, weights = raw.set_edge_weight, matcher._weights
        for a, i in enumerate(keep):
            row = weights[i]
            for b in range(a + 1, len(keep)):
                w = row[keep[b]]
                if w:
                    set_edge(a, b, w)

    def size(self) -> int:
        return len(self._keep)

    def set_edge_weight(self, i: int, j: int, weight: DynamicUint) -> None:
        a, b = self._slot.get(i), self._slot.get(j)
        if a is None or b is None:
            self._matcher._computer = _DEFERRED
        else:
            self._raw.set_edge_weight(a, b, weight)

    def compute_matching(self) -> None:
        self._raw.compute_matching()

    def get_matching(self) -> list[int]:
        mate = list(range(self._matcher._len))
        for v, u in self._fixed.items():
            mate[v] = u
        keep = self._keep
        for a, b in enumerate(self._raw.get_matching()):
            mate[keep[a]] = keep[b]
        return mate


class FastBracketMatcher(Dutch2025BracketMatcher):
    """py4swiss's ``BracketMatcher`` (one bracket's maximum-weight matching, C.04.3 B.8) with
    the edge weights computed once per pair of player signatures (module docstring).

    Edges with the same weight share one ``DynamicUint`` (a copy costs ~3 us, as much as the
    rest of an edge), so a weight is never changed in place here: a removed edge gets the
    shared zero (py4swiss zeroes the object in place; the value seen is the same).  The one
    object py4swiss itself shares, the maximum weight of fixed pairs, is still zeroed in place
    as py4swiss would.  Same calls to the compiled computer, same order, same values, except
    where a matching starts on a new computer (:meth:`restart`) or removals stay out of it
    (:meth:`hide_removals`).
    """

    #: Stand in for the next scoregroup with a few vertices when that is proven exact
    #: (:func:`_lower_stand_ins`); False: py4swiss's graph (the weight tests use it).
    reduce_lower = True

    def __init__(self, bracket: Bracket, validity_matcher: ValidityMatcher) -> None:
        # py4swiss's BracketMatcher.__init__, with the graph's players chosen here.
        self._pair_validity = validity_matcher
        self._validity_matcher = _EveryPairAllowed()  # type: ignore[assignment]
        self._deltas: dict[int, DynamicUint] = {}  # add_to_weights: value -> zero | abs(value)
        # Edges removed from the weights but kept in the computer (:meth:`hide_removals`):
        # vertex -> the other ends.
        self._hidden: dict[int, set[int]] = {}
        self._hiding = False
        self._fixed: dict[int, int] = {}  # vertex -> partner, pairs fixed by finalize_match
        self._exposed = 0  # vertices the computer has unmatched since its last matching
        #: Set by :class:`FastBracketPairer` where every optimal matching gives the same
        #: result: the computer may then start afresh without the fixed pairs (see
        #: :meth:`update_matching`).
        self.shrink = False
        self._bracket = bracket
        self._max_weight = self._get_max_weight()
        self._zero_weight = self._max_weight & 0
        inside = bracket.mdp_list + bracket.resident_list
        everyone = inside + bracket.lower_list
        self._classes, self._reps = _signature_classes(everyone)
        self._table: list[list] = [[_UNSET] * len(self._reps) for _ in self._reps]
        self._ids = [p.id for p in everyone]
        self._everyone = everyone
        stand_ins = _lower_stand_ins(self, len(inside)) if self.reduce_lower else None
        self._player_list = everyone if stand_ins is None else inside + stand_ins[0]
        self._stand_in_weights = None if stand_ins is None else stand_ins[1:]
        self._len = len(self._player_list)
        self._index_dict_reverse = dict(enumerate(self._player_list))
        self._index_dict = {p: i for i, p in self._index_dict_reverse.items()}
        self._position = {id(p): i for i, p in enumerate(self._player_list)}
        # The first matching is computed when first read (:meth:`first_pending`), on a
        # computer built then: D.2 or D.1 of one MDP may make it unneeded.
        self._first_pending = bool(self._max_weight)
        self._computer = _DEFERRED if self._first_pending else ComputerDutchOptimality(
            self._len, self._max_weight)
        self._weights = [[self._zero_weight] * self._len for _ in range(self._len)]
        self._matching: dict = {}
        self._mate: list[int] = []
        self._set_up_computer()
        if not self._first_pending:
            self.update_matching()

    @property
    def matching(self) -> dict:
        """py4swiss's ``matching`` (player -> player, himself when unmatched)."""
        if self._first_pending:
            self.update_matching()
        return self._matching

    @matching.setter
    def matching(self, value: dict) -> None:
        self._matching = value

    @property
    def mate(self) -> list[int]:
        """The matching by vertex index (itself when unmatched)."""
        if self._first_pending:
            self.update_matching()
        return self._mate

    def first_pending(self) -> bool:
        """Whether py4swiss's first matching (of the weights as set up) has not been
        computed yet: it is, when :attr:`matching` or :attr:`mate` is read before any other
        computation (:meth:`FastBracketPairer._d2_by_units` may make it unneeded)."""
        return bool(self._first_pending)

    def _template(self, ci: int, cj: int):
        """The quality weight of a pair of signature classes (None: C.3 forbids the pair)."""
        row = self._table[ci]
        template = row[cj]
        if template is _UNSET:
            p1, p2 = self._reps[ci], self._reps[cj]
            template = row[cj] = self._get_weight(p1, p2) if C3.evaluate(p1, p2) else None
        return template

    def _allowed(self, i: int, j: int) -> bool:
        """Absolute criteria C.1, C.3 and the forbidden pairs for players ``i``, ``j`` (indices
        into bracket + next scoregroup), without the next-bracket block."""
        forbidden = self._pair_validity._forbidden_pairs
        id1, id2 = self._ids[i], self._ids[j]
        return (self._template(self._classes[i], self._classes[j]) is not None
                and id1 not in self._everyone[j].opponents
                and not (forbidden and ((id1, id2) in forbidden or (id2, id1) in forbidden)))

    def _set_up_computer(self) -> None:
        computer = self._computer
        for _ in range(self._len):
            computer.add_vertex()
        reduced = self._stand_in_weights is not None
        n = len(self._bracket.mdp_list) + len(self._bracket.resident_list) if reduced \
            else self._len
        players = self._player_list
        classes, template_of = self._classes, self._template
        forbidden = self._pair_validity._forbidden_pairs
        blocked = getattr(self._bracket, "blocked", ())
        lower = [p.role == PlayerRole.LOWER for p in players]
        ids = self._ids
        opponents = [p.opponents for p in players]
        zero = self._zero_weight
        weights = self._weights
        set_edge = computer.set_edge_weight
        for i in range(n):
            id1, ci, wi = ids[i], classes[i], weights[i]
            for j in range(i + 1, n):
                template = template_of(ci, classes[j])
                if (template is None or id1 in opponents[j]
                        or (ids[j] in blocked and lower[j] and not lower[i])
                        or (forbidden and ((id1, ids[j]) in forbidden
                                           or (ids[j], id1) in forbidden))):
                    w = zero
                else:
                    w = template
                wi[j] = w
                weights[j][i] = w
                set_edge(i, j, w)
        if reduced:
            self._set_up_stand_ins(n)

    def _set_up_stand_ins(self, size: int) -> None:
        """Each of the ``size`` bracket players joined to every stand-in by his edge weight to
        the next scoregroup (or not at all), the stand-ins to each other by the next
        scoregroup's common edge weight (:func:`_lower_stand_ins`)."""
        floats, lower_weight = self._stand_in_weights
        weights, set_edge = self._weights, self._computer.set_edge_weight
        for i in range(self._len):
            for j in range(max(i + 1, size), self._len):
                w = floats[i] if i < size else lower_weight
                weights[i][j] = weights[j][i] = w
                set_edge(i, j, w)

    def remove_weight(self, player_1: Player, player_2: Player) -> None:
        """py4swiss's ``remove_weight``; a next-scoregroup player without a vertex of his own
        (not a stand-in) has no edge to remove."""
        i, j = self._position.get(id(player_1)), self._position.get(id(player_2))
        if i is not None and j is not None:
            self._remove_weight(i, j)

    def remove_weights(self, player: Player, player_list: list[Player]) -> None:
        """py4swiss's ``remove_weights`` (:meth:`remove_weight` for each of ``player_list``)."""
        position, remove = self._position, self._remove_weight
        i = position.get(id(player))
        if i is None:
            return
        for other in player_list:
            j = position.get(id(other))
            if j is not None:
                remove(i, j)

    # py4swiss's methods below, with per-edge helper calls inlined.

    def _remove_weight(self, i: int, j: int) -> None:
        weight = self._weights[i][j]
        if not weight:  # an edge weight of zero counts as no edge
            return
        if weight is self._max_weight:
            self._flush()  # the computer must hold the fixed pairs' edges before this
            weight &= 0  # in place, as py4swiss (every fixed pair shares this object)
        else:
            weight = self._weights[i][j] = self._weights[j][i] = self._zero_weight
            if self._hiding:
                self._hidden.setdefault(i, set()).add(j)
                self._hidden.setdefault(j, set()).add(i)
                return
        self._computer.set_edge_weight(i, j, weight)

    def hide_removals(self, on: bool) -> None:
        """While ``on``, an edge removed (:meth:`remove_weight`) leaves the weights but stays
        in the compiled computer, which keeps its matching and need not update it; the edge
        leaves the computer when one of its ends is fixed (:meth:`finalize_match`) or a new
        computer is built.  For :meth:`FastBracketPairer.perform_homogeneous_exchanges`, where
        it is proven that no maximum-weight matching uses such an edge."""
        self._hiding = on

    def restart(self) -> None:
        """Have the next :meth:`update_matching` start on a new compiled computer holding the
        weights as they are then; the edge changes until then are made in ``_weights`` only
        (:class:`_Deferred`).  The computer updates its matching from every vertex whose edges
        changed; after changes at (nearly) every vertex (the D.2 additions, the removals
        within S1 and within S2) that update was measured slower than a matching from
        scratch.  Not when py4swiss has zeroed the shared weight of fixed pairs in place
        (their edges stay in its computer, not in ``_weights``)."""
        if self._max_weight:
            self._computer = _DEFERRED

    def _flush(self) -> None:
        """Build the deferred computer now (see :meth:`restart`)."""
        if self._computer is _DEFERRED:
            self._new_computer()

    def _new_computer(self) -> None:
        self._hidden = {}
        top = self._max_weight
        fixed = {v: u for v, u in self._fixed.items() if top and self._weights[v][u] is top}
        if fixed and self.shrink:
            self._computer = _SubComputer(self, fixed)
            return
        self._computer = computer = ComputerDutchOptimality(self._len, self._max_weight)
        for _ in range(self._len):
            computer.add_vertex()
        set_edge = computer.set_edge_weight
        for i, row in enumerate(self._weights):
            for j in range(i + 1, self._len):
                if row[j]:
                    set_edge(i, j, row[j])

    def update_matching(self) -> None:
        if self.shrink and self._computer is not _DEFERRED and self._max_weight:
            # The computer re-matches each vertex it has unmatched (O(size^2) each); a new one
            # without the fixed pairs costs O(open^3) (bbpPairings' matching computer).
            size = self._computer.size()
            open_ = self._len - len(self._fixed)
            if open_ < size and open_ ** 3 < self._exposed * size * size:
                self._computer = _DEFERRED
        self._first_pending = False
        self._flush()
        self._exposed = 0
        self._computer.compute_matching()
        players = self._player_list
        self._mate = self._computer.get_matching()  # vertex -> vertex (itself: unmatched)
        self.matching = {players[i]: players[j] for i, j in enumerate(self.mate)}

    def weights_aligned(self) -> bool:
        """Whether every edge weight as set up is a multiple of ``2^(3 x bracket_bits + 1)``
        (py4swiss leaves those low bits to the transpositions and exchanges)."""
        low = (1 << (3 * self._bracket.bracket_bits + 1)) - 1
        weights = [w for row in self._table for w in row if w is not _UNSET and w is not None]
        if self._stand_in_weights is not None:
            weights += [*self._stand_in_weights[0], self._stand_in_weights[1]]
        return not any(_to_int(w) & low for w in weights)

    def matching_weight(self) -> int:
        """The weight of the current matching (:attr:`mate`) under the current weights."""
        row, mate = self._weights, self.mate
        return sum(_to_int(row[i][j]) for i, j in enumerate(mate) if i < j)

    def add_to_weights(self, player: Player, player_list: list[Player], value: int,
                       increment: bool = False) -> None:
        weights, zero, deltas = self._weights, self._zero_weight, self._deltas
        position = self._position
        set_edge = self._computer.set_edge_weight
        i = position[id(player)]
        row = weights[i]
        step = int(increment)
        # Weights are shared objects never changed in place (class docstring): one sum per
        # distinct (old weight, value), shared by the edges that have them.
        sums: dict[tuple[int, int], tuple[DynamicUint, DynamicUint]] = {}  # -> (old, sum)
        for other in player_list:
            j = position[id(other)]
            old = row[j]
            if old:  # an edge weight of zero counts as no edge
                key = (id(old), value)
                done = sums.get(key)
                if done is not None and done[0] is old:
                    new = done[1]
                else:
                    delta = deltas.get(value)
                    if delta is None:
                        delta = deltas[value] = zero | abs(value)
                    new = old + delta if value > 0 else old - delta
                    sums[key] = (old, new)
                row[j] = new
                weights[j][i] = new
                set_edge(i, j, new)
            value += step
        self._exposed += 1

    def finalize_match(self, player_1: Player, player_2: Player) -> None:
        i, j = self._position[id(player_1)], self._position[id(player_2)]
        weights, zero, top = self._weights, self._zero_weight, self._max_weight
        wi, wj = weights[i], weights[j]
        set_edge = self._computer.set_edge_weight
        for a in (i, j):  # hidden edges (hide_removals) leave the computer now
            for k in sorted(self._hidden.pop(a, ())):
                self._hidden[k].discard(a)
                set_edge(a, k, zero)
        edges = {k for wa in (wi, wj) for k, w in enumerate(wa) if w is not zero and w}
        for k in sorted(edges):  # the others are zero (py4swiss's calls do nothing there)
            for a, wa in ((i, wi), (j, wj)):  # py4swiss: _remove_weight(i, k), (j, k)
                w = wa[k]
                if w is zero or not w:
                    continue
                if w is top:
                    self._flush()
                    set_edge = self._computer.set_edge_weight
                    w &= 0
                else:
                    w = wa[k] = weights[k][a] = zero
                set_edge(a, k, w)
        self._set_weight(i, j, top)
        if i != j:
            self._fixed[i], self._fixed[j] = j, i
        self._exposed += 2


def _common_weight(m: FastBracketMatcher, rows: list[int], cols: list[int]):
    """The one weight of every C.3-allowed pair of signature classes ``rows`` x ``cols``:
    ``_UNSET`` when no pair is allowed, None when the weights differ."""
    common, text = _UNSET, None
    for ci in rows:
        for cj in cols:
            w = m._template(ci, cj)
            if w is None:
                continue
            if common is _UNSET:
                common, text = w, str(w)
            elif w is not common and str(w) != text:
                return None
    return common


def _greedy_pairs(m: FastBracketMatcher, size: int) -> int:
    """Pairs of a maximal matching of the bracket's players (indices ``0..size-1``) under
    the absolute criteria: ``size - 2 x pairs`` bounds the players any optimal matching
    leaves to float (C.5 of 2017, the top quality field, maximises the bracket's pairs)."""
    return sum(v >= 0 for v in greedy_mate(size, m._allowed)) // 2


def _min_lower_degree(m: FastBracketMatcher, size: int) -> int:
    """Smallest number of next-scoregroup players (indices ``size..``) a next-scoregroup
    player may meet (C.1, C.3, forbidden pairs), counted by signature class."""
    classes, players = m._classes, m._everyone
    lower_ids = {p.id: i for i, p in enumerate(players) if i >= size}
    count: dict[int, int] = {}
    for i in range(size, len(players)):
        count[classes[i]] = count.get(classes[i], 0) + 1
    reach = {c: sum(k for d, k in count.items() if m._template(c, d) is not None) for c in count}
    barred: dict[int, set[int]] = {i: set() for i in lower_ids.values()}
    for a, b in m._pair_validity._forbidden_pairs:
        if a in lower_ids and b in lower_ids:
            barred[lower_ids[a]].add(lower_ids[b])
            barred[lower_ids[b]].add(lower_ids[a])
    worst = len(players)
    for i, bars in barred.items():
        bars |= {lower_ids[o] for o in players[i].opponents if o in lower_ids}
        bars.add(i)
        degree = reach[classes[i]] - sum(m._template(classes[i], classes[j]) is not None
                                         for j in bars)
        worst = min(worst, degree)
    return worst


def _float_weights(m: FastBracketMatcher, size: int, need: int) -> list | None:
    """Each bracket player's edge weight to the next scoregroup (zero: he can meet none of
    them), or None when it is not one weight, or when he can meet fewer than ``need``
    (C.1, C.3, forbidden pairs, the next-bracket block)."""
    classes, n = m._classes, len(m._everyone)
    lower_classes = sorted(set(classes[size:]))
    blocked = getattr(m._bracket, "blocked", ())
    out = []
    for i in range(size):
        weight = _common_weight(m, [classes[i]], lower_classes)
        if weight is None:
            return None
        met = 0
        if weight is not _UNSET:
            for j in range(size, n):
                if m._ids[j] not in blocked and m._allowed(i, j):
                    met += 1
                    if met == need:
                        break
        if 0 < met < need:
            return None
        out.append(weight if met else m._zero_weight)
    return out


def _lower_stand_ins(m: FastBracketMatcher, size: int) -> tuple | None:
    """``(stand_ins, floats, lower_weight)``: a few next-scoregroup players that replace the
    whole next scoregroup in the bracket's matching graph (C.04.3 B.8, the criteria C.5-C.19
    as py4swiss weighs them) without changing which bracket pairs and downfloaters are
    optimal; None when that is not proven (py4swiss's full graph is used).

    ``size``: the bracket's players (MDPs and residents), indices ``0..size-1`` of
    ``m._everyone``, the next scoregroup (``L``, ``m`` players) after them.  Proof: every
    criterion weighs a pair inside ``L`` alike (``lower_weight``, checked), and a bracket
    player's pair with any allowed member of ``L`` alike (``floats``, checked): the partner's
    identity in ``L`` is never read.  At most ``k = size - 2 x (a maximal matching's pairs)``
    bracket players float.  When every member of ``L`` may meet at least ``(m + k) / 2`` others
    (checked), ``L`` minus any ``j <= k`` players is Hamiltonian (Dirac), so its best inner
    matching has ``(m - j) // 2`` pairs whoever floated into it; and a bracket player who
    may meet any member of ``L`` may meet ``k`` of them (checked), so any ``j`` floaters find
    distinct partners.  A matching's weight thus depends on ``L`` only through ``j``, as with
    ``k + (m - k) % 2`` stand-ins that all floaters may meet and that meet each other with
    ``lower_weight``: the same optimal matchings, up to the stand-ins' identities.  Not used in
    the penultimate or last pairing bracket or in a whole-round bracket (bye and completion
    weights differ inside ``L`` there).
    """
    bracket, lower = m._bracket, m._bracket.lower_list
    if (not lower or bracket.penultimate_pairing_bracket or bracket.last_pairing_bracket
            or getattr(bracket, "whole_round", False)):
        return None
    lower_classes = sorted(set(m._classes[size:]))
    lower_weight = _common_weight(m, lower_classes, lower_classes)
    if lower_weight is None or lower_weight is _UNSET:
        return None
    k = size - 2 * _greedy_pairs(m, size)
    if len(lower) - k < 3 or 2 * _min_lower_degree(m, size) < len(lower) + k:
        return None
    floats = _float_weights(m, size, max(k, 1))
    if floats is None:
        return None
    return lower[:k + (len(lower) - k) % 2], floats, lower_weight


def _c3_key(p: Player) -> tuple:
    """What absolute criterion C.3 reads of a player (py4swiss 0.3.1)."""
    return (p.top_scorer, p.color_preference.side, p.color_preference.strength)


class FastValidityMatcher(ValidityMatcher):
    """py4swiss's ``ValidityMatcher`` (can the rest of the round still be paired under the
    absolute criteria C.1-C.3?) answering from a witness when it can.

    The answer is whether a perfect matching of the allowed pairs exists (plus a bye vertex
    for an odd field).  A greedy matching with short repairs usually finds one in a few
    milliseconds; a perfect matching found is a proof.  Only when none is found is the
    compiled blossom asked: its graph is then built with py4swiss's edges in py4swiss's
    order (C.3 evaluated once per pair of colour-preference classes), followed by the edge
    updates of every ``finalize_match`` so far, in order.
    """

    def __init__(self, players: list[Player], forbidden_pairs: set[tuple[int, int]]) -> None:
        # py4swiss's attributes; the computer is built on first need (_build_computer).
        self._players = players
        self._forbidden_pairs = forbidden_pairs
        self._len = len(players) + len(players) % 2
        self._index_dict = {player: i for i, player in enumerate(players)}
        self._computer = None
        self._finalized: list[tuple[int, int]] = []
        self._applied = 0
        index: dict[tuple, int] = {}
        self._c3_class = [index.setdefault(_c3_key(p), len(index)) for p in players]
        reps = {k: players[i] for i, k in reversed(list(enumerate(self._c3_class)))}
        self._c3 = [[bool(C3.evaluate(reps[a], reps[b])) for b in range(len(reps))]
                    for a in range(len(reps))]
        self._ids = [p.id for p in players]

    def _allowed_base(self, a: int, b: int) -> bool:
        """py4swiss's ``is_allowed_pair`` for players ``a < b`` (indices)."""
        ids, forbidden = self._ids, self._forbidden_pairs
        return bool(self._c3[self._c3_class[a]][self._c3_class[b]]
                    and ids[a] not in self._players[b].opponents
                    and not (forbidden and ((ids[a], ids[b]) in forbidden
                                            or (ids[b], ids[a]) in forbidden)))

    def _build_computer(self) -> None:
        """py4swiss's ``_set_up_computer``: the same edges in the same order."""
        self._computer = ComputerDutchValidity(self._len, 1)
        computer = self._computer
        for _ in range(self._len):
            computer.add_vertex()
        players = self._players
        n = len(players)
        set_edge, allowed = computer.set_edge_weight, self._allowed_base
        for i in range(n):
            for j in range(i + 1, n):
                set_edge(i, j, int(allowed(i, j)))
        if n % 2 == 1:
            for i, player in enumerate(players):
                set_edge(i, n, int(C2.evaluate(player, player)))

    def finalize_match(self, player_1: Player, player_2: Player) -> None:
        self._finalized.append((self._index_dict[player_1], self._index_dict[player_2]))

    def _apply_finalized(self) -> None:
        """py4swiss's ``finalize_match`` edge updates, in the order they were requested."""
        set_edge = self._computer.set_edge_weight
        for i, j in self._finalized[self._applied:]:
            for k in range(self._len):
                set_edge(i, k, 0)
                set_edge(j, k, 0)
            set_edge(i, j, 1)
        self._applied = len(self._finalized)

    def _edge_test(self):
        """``allowed(a, b)`` for vertex indices (``n`` = the bye vertex of an odd field) on the
        graph as py4swiss's computer holds it after the finalized matches."""
        n = len(self._players)
        fixed: dict[int, int] = {}
        zeroed: set[int] = set()
        for i, j in self._finalized:
            for v in (i, j):
                w = fixed.pop(v, None)
                if w is not None:
                    fixed.pop(w, None)
            zeroed.update((i, j))
            if i != j:
                fixed[i], fixed[j] = j, i
        players, base = self._players, self._allowed_base

        def allowed(a: int, b: int) -> bool:
            if a in zeroed or b in zeroed:
                return fixed.get(a) == b
            lo, hi = (a, b) if a < b else (b, a)
            if hi == n:  # the bye vertex: C.2
                return bool(C2.evaluate(players[lo], players[lo]))
            return base(lo, hi)
        return allowed

    def _witness(self) -> bool:
        """True when a perfect matching of the current graph is found (a proof that the round
        can be completed); False means only that none was found here."""
        allowed = self._edge_test()
        size = self._len
        mate = greedy_mate(size, allowed)
        unmatched = [v for v in range(size) if mate[v] == -1]
        # Repairs: u - x = y - v turns matched pair (x, y) and free u, v into (u, x), (y, v).
        while unmatched:
            u = unmatched.pop()
            done = False
            for v in unmatched:
                if allowed(u, v):
                    mate[u], mate[v] = v, u
                    done = True
                    break
                for x in range(size):
                    y = mate[x]
                    if y < 0 or x in (u, v) or not allowed(u, x) or not allowed(y, v):
                        continue
                    mate[u], mate[x], mate[y], mate[v] = x, u, v, y
                    done = True
                    break
                if done:
                    break
            if not done:
                return False
            unmatched = [v for v in unmatched if mate[v] == -1]
        return all(mate[mate[v]] == v and allowed(v, mate[v]) for v in range(size))

    def is_valid_matching(self) -> bool:
        if self._witness():
            return True
        if self._computer is None:
            self._build_computer()
        self._apply_finalized()
        return super().is_valid_matching()


class FastBracketPairer(Dutch2025BracketPairer):
    """py4swiss's ``BracketPairer`` using :class:`FastBracketMatcher`, and skipping the matching
    computation of a D.1 transposition step when its outcome is proven (see
    :meth:`transpose_homogeneous_s2`)."""

    matcher_class = FastBracketMatcher

    def __init__(self, state: Bracket, validity_matcher: ValidityMatcher,
                 initial_color: bool) -> None:
        super().__init__(state, validity_matcher, initial_color)
        self.skipped = self.computed = 0  # transposition steps proven / computed (statistics)
        self._optimal_mate: list[int] | None = None  # see determine_homogeneous_exchanges
        # statistics: whether the removals of the S1/S2 exchanges stayed out of the computer
        self.hid_removals = False
        self._merged = False  # the MDP's steps and D.2 done in one matching (_one_mdp)
        # statistics: how D.2 was matched: "py4swiss", "units" (_d2_by_units), "units, no
        # first matching" (a bracket without MDPs), "one MDP" (_one_mdp)
        self.d2 = "py4swiss"

    def determine_homogeneous_exchanges(self) -> None:
        """py4swiss's D.2 step, which computes a maximum-weight matching last.  When it makes
        no exchange, that matching stays optimal up to the transpositions: the D.2 moves
        (:meth:`determine_moves_from_s1_to_s2`, ``..._s2_to_s1``) do nothing, and
        :meth:`perform_homogeneous_exchanges` removes only edges within S1 or within S2,
        which it does not use (it defines S1 and S2).  It is kept for the first D.1 step's
        proof (:meth:`transpose_homogeneous_s2`), which then needs no computation of its own.
        The additions change every resident's edges: the matching starts afresh
        (:meth:`FastBracketMatcher.restart`)."""
        if self._merged:  # done with the MDP's pairing (determine_heterogeneous_s1)
            self._optimal_mate = list(self._bracket_matcher.mate)
            return
        self._bracket_matcher.restart()
        if not self._d2_by_units():
            super().determine_homogeneous_exchanges()
        self._optimal_mate = list(self._bracket_matcher.mate) if self._exchanges == 0 else None

    def determine_heterogeneous_s1(self) -> None:
        """py4swiss's D.3 step (then :meth:`determine_heterogeneous_s2`'s D.1 for the MDPs),
        or, for a single MDP, that step, D.1 for him and D.2 in one matching when it proves
        them (:meth:`_one_mdp`)."""
        if not self._one_mdp():
            super().determine_heterogeneous_s1()

    def determine_heterogeneous_s2(self) -> None:
        if not self._merged:
            super().determine_heterogeneous_s2()

    def _one_mdp(self) -> bool:
        """A bracket with one MDP ``m`` and no matching yet: py4swiss's D.3 and D.1 steps for
        ``m`` and its D.2 step in one matching ``M``, when ``M`` proves them.

        With ``R`` residents, ``pairs = (R - 1) // 2``, ``A`` the first ``pairs + 1`` residents
        and S2 the others: to the weights as set up, each edge from ``m`` to the resident of
        index ``k`` gets ``(R - k) x K`` and each edge from ``A`` to S2 gets ``unit``
        (:meth:`_d2_by_units`), ``K = 2^(2 x bracket_bits - 1)`` above all the units together.
        Kept when ``M`` pairs ``m`` with a resident ``r`` of ``A`` and every other player of
        ``A`` (S1) with a lower-ranked S2 player, and no two S2 players with each other; the
        pair ``m``-``r`` is then fixed as py4swiss fixes it.  Otherwise everything added is
        taken back and py4swiss's steps run.

        Proof: every weight as set up is a multiple of ``2^(3 x bracket_bits + 1)`` (checked)
        and all that is added sums below it, so ``M`` has the largest weight without the
        additions; some such matching pairs ``m`` with a resident, so py4swiss puts ``m`` in S1
        (D.3).  A matching of that weight pairing ``m`` with a resident ranked above ``r`` would
        gain at least ``K`` over ``M`` and lose less in units: there is none, so D.1 gives ``m``
        the partner ``r``.  py4swiss's D.2 then starts from a matching as heavy as ``M``, with
        as many bracket pairs (C.5): ``pairs`` in the remainder, as ``M`` has; ``M`` keeps the
        largest weight once ``m``-``r`` is fixed, and has the largest D.2 value
        (:meth:`_d2_by_units`)."""
        bm, bracket = self._bracket_matcher, self._bracket
        residents = bracket.resident_list
        size = len(residents)
        k_unit = 1 << (2 * bracket.bracket_bits - 1)
        if (len(bracket.mdp_list) != 1 or size < 3 or size * k_unit >= 1 << 32
                or not bm.first_pending() or not bm.weights_aligned()):
            return False
        (mdp,) = bracket.mdp_list
        pairs = (size - 1) // 2
        top = residents[:pairs + 1]
        for k, resident in enumerate(residents):
            bm.add_to_weights(mdp, [resident], (size - k) * k_unit)
        if self._units_matching(top, residents[pairs + 1:], None, mdp):
            first = bm.matching[mdp]
            self._homogeneous_s1 = [r for r in top if r is not first]
            self._heterogeneous_s1, self._heterogeneous_s2 = [mdp], [first]
            bm.finalize_match(mdp, first)
            self._validity_matcher.finalize_match(mdp, first)
            self._merged, self.d2 = True, "one MDP"
            return True
        for k, resident in enumerate(residents):
            bm.add_to_weights(mdp, [resident], -(size - k) * k_unit)
        bm.restart()
        bm._first_pending = True
        return False

    def _d2_by_units(self) -> bool:
        """D.2 without py4swiss's D.2 values when they cannot matter: each edge from the
        original S1 (the first ``pairs`` residents of the remainder) to S2 gets one ``unit =
        2^bracket_bits`` (above any D.1 addition, which stays below ``|S2|``), and nothing
        else changes (measured: a fresh matching on these weights takes ~55 % of the time of
        one on py4swiss's, whose many distinct values cost the compiled computer more dual
        updates).  Kept when the matching ``M`` found pairs every S1 player with a
        lower-ranked S2 player, no two S2 players with each other, and weighs, without the
        units, as much as the matching before (then it is maximum-weight without them);
        otherwise the units are taken back and py4swiss's step runs.  Only with ``pairs >= 1``
        and no MDP in Limbo.  A bracket without MDPs and no matching yet presumes ``pairs``
        (:meth:`_units_matching`).

        Proof that ``M`` is what py4swiss's step could return, and that every later step has
        the same maximum-weight matchings on these weights as on py4swiss's: py4swiss adds
        ``f = 2 x 2^(2 x bracket_bits) - 2 x i`` to each pair whose higher-ranked player has
        index ``i < pairs`` in the remainder, ``-2 x i`` for ``i >= pairs`` (py4swiss's
        comment: a lost D.2.a unit outweighs every D.2.b sum, below ``pairs^2``).  ``M`` has
        the largest old weight and the largest ``f`` any matching can have (``pairs`` D.2.a
        units, the smallest index sum, no other remainder pair), so it is maximum-weight under
        py4swiss's weights and makes no exchange; then every maximum-weight matching there has
        the same S1 and S2 (they all reach that largest ``f``).  Afterwards the candidates of
        each D.1 step (largest old weight) pair every open S1 player into S2 (C.5: the
        bracket's pairs, equal for all of them, and no Limbo MDP), where ``f`` and the units
        differ by the same amount for all of them; any other matching loses a D.2.a unit under
        py4swiss's weights and a ``unit`` here, more than the step's additions."""
        bm = self._bracket_matcher
        bracket = self._bracket
        if any(m not in self._heterogeneous_s1 for m in bracket.mdp_list):
            return False
        if bm.first_pending() and not bracket.mdp_list:
            # No MDP and no matching yet: the first matching's pairs presumed (all residents
            # but one at most), checked on the matching found (see _units_matching).
            residents = bracket.resident_list
            pairs = len(residents) // 2
            if pairs and bm.weights_aligned() and self._units_matching(
                    residents[:pairs], residents[pairs:], None):
                self.d2 = "units, no first matching"
                return True
        paired = set(self._heterogeneous_s2)
        remainder = [r for r in bracket.resident_list if r not in paired]
        pairs = sum(self._has_resident_match(r) for r in remainder) // 2
        if pairs >= 1 and self._units_matching(remainder[:pairs], remainder[pairs:],
                                               bm.matching_weight()):
            self.d2 = "units"
            return True
        return False

    def _units_matching(self, s1: list[Player], s2: list[Player], before: int | None,
                        mdp: Player | None = None) -> bool:
        """:meth:`_d2_by_units` with S1 ``s1`` and S2 ``s2``: the units added, the matching
        ``M`` computed and checked: every player of ``s1`` is paired with a lower-ranked one
        of ``s2`` (but the one paired with ``mdp``, who must be one of ``s1``), no two of
        ``s2`` with each other, and, with ``before`` given (the weight of the current
        maximum-weight matching), ``M`` weighs as much without the units.  False (units taken
        back, the next matching afresh) if it fails.

        ``before`` None: there is no matching yet (nothing added to the weights as set up but
        ``mdp``'s edges, :meth:`_one_mdp`), and the S1 size is presumed.  Every weight as set
        up is a multiple of ``2^(3 x bracket_bits + 1)`` (:meth:`FastBracketMatcher.
        weights_aligned`) and the additions sum below it, so ``M`` has the largest weight
        without them, hence as many bracket pairs (C.5, a sum of the weights' own field) as
        py4swiss's first matching: S1's."""
        bm = self._bracket_matcher
        unit = 1 << self._bracket.bracket_bits
        for resident in s1:
            bm.add_to_weights(resident, s2, unit)
        bm.update_matching()
        matching, in_s2 = bm.matching, set(map(id, s2))
        if (all((id(matching[r]) in in_s2 and not r <= matching[r]) or matching[r] is mdp
                for r in s1)
                and (mdp is None or any(matching[mdp] is r for r in s1))
                and not any(id(matching[r]) in in_s2 for r in s2)
                and (before is None or bm.matching_weight() == before + len(s1) * unit)):
            self._homogeneous_s1, self._homogeneous_s2, self._exchanges = s1, s2, 0
            return True
        for resident in s1:
            bm.add_to_weights(resident, s2, -unit)
        bm.restart()
        return False

    def perform_homogeneous_exchanges(self) -> None:
        """py4swiss's step: it removes the edges within S1 and within S2, i.e. changes every
        vertex, and the compiled computer would update its matching from each of them.

        With no D.2 exchange, and no MDP in Limbo or ``2 x |S1| >= |S2|``, the removed edges
        stay in the computer (:meth:`FastBracketMatcher.hide_removals`): no maximum-weight
        matching of any later step uses one, so the computer's graph has the same maximum-weight
        matchings as py4swiss's.  Proof: the D.2 matching ``M`` pairs each S1 player with an
        S2 player (no exchange) and is optimal on the graph with those edges.  A matching
        keeps the D.2.a unit of a pair only through the pair's higher-ranked player in S1, so
        with an S1-S1 pair it has fewer units than ``M``, a loss above all D.2.b and D.1 values
        (py4swiss's bit layout).  With every S1 player paired into S2, an S2-S2 pair would add
        a bracket pair, which C.5 (above D.2) forbids unless an MDP of Limbo lost his; then its
        D.2.b value, minus twice a BSN of S2 (at least ``2 x |S1|``), outweighs any D.1
        addition (below ``|S2|``).  The fixed pairs of D.1 keep this: each comes from an
        optimal matching of py4swiss's graph, and their hidden edges are removed when fixed.
        With the units of :meth:`_d2_by_units` instead of py4swiss's D.2 values (no MDP in
        Limbo), an S1-S1 or S2-S2 pair costs a unit, more than any D.1 addition.
        Otherwise the next matching starts afresh (:meth:`FastBracketMatcher.restart`)."""
        bm = self._bracket_matcher
        limbo = [m for m in self._bracket.mdp_list if m not in self._heterogeneous_s1]
        if self._exchanges == 0 and (
                not limbo or 2 * len(self._homogeneous_s1) >= len(self._homogeneous_s2)):
            bm.hide_removals(True)
            self.hid_removals = True
            try:
                super().perform_homogeneous_exchanges()
            finally:
                bm.hide_removals(False)
        else:
            super().perform_homogeneous_exchanges()
            bm.restart()

    def transpose_homogeneous_s2(self) -> None:
        """D.1: each S1 player in turn gets the S2 player of lowest BSN compatible with an
        optimal pairing of the bracket.  py4swiss adds ``len(S2)-1, ..., 1, 0`` to the S1
        player's edges to S2 (lowest BSN first), recomputes the maximum-weight matching ``M``,
        takes the partner and fixes the pair.

        The recomputation is skipped when the answer is proven from the last matching
        (:meth:`_TranspositionProof.partner`): S2 players still joined to the S1 player ``r``
        are taken in BSN order; one whose every pairing with ``r`` has fewer C.10-conflict-free
        pairs than ``M`` (a Hall bound over colour-preference classes) is passed over: it is a
        whole C.10 unit lighter, more than any addition.  If exchanging the partners of ``r``
        and the next one, ``s``, in ``M`` loses no weight, that matching is optimal before the
        additions and, after them, reaches the largest value any matching can have; every
        optimal matching then pairs ``r`` with ``s`` (the added values differ), which is what
        the computation would return.  Anything else is computed.  This needs the weights of equally good pairings to differ
        only by the additions, which holds when D.2 moved nobody between S1 and S2 (``exchanges
        == 0``; then each pair's D.2 value is that of its S1 player); and at most one MDP left
        in Limbo (no MDP-MDP pair whose choice could depend on ties).  Otherwise, py4swiss's
        step is run unchanged.
        """
        limbo = [m for m in self._bracket.mdp_list if m not in self._heterogeneous_s1]
        if self._exchanges or len(limbo) > 1:
            super().transpose_homogeneous_s2()
            return
        bm = self._bracket_matcher
        bm.shrink = True  # every computation's partner is the same in any optimal matching
        index, players = bm._index_dict, bm._player_list
        s2 = self._homogeneous_s2
        proof = _TranspositionProof(bm, [index[p] for p in self._homogeneous_s1],
                                    [index[p] for p in s2], [index[m] for m in limbo])
        proof.mate = self._optimal_mate
        last_skipped = False
        for resident in self._homogeneous_s1:
            a = index[resident]
            # A proven step's additions would be wiped by finalize_match at once: the
            # computer ends in the same state without them (same edges, same vertices to
            # update), so they are made only for a computation.
            b = proof.partner(a)
            if b is None:
                bm.add_to_weights(resident, s2[::-1], 0, increment=True)
                bm.update_matching()
                proof.mate = list(bm.mate)
                b = proof.mate[a]
                self.computed += 1
                last_skipped = False
            else:
                self.skipped += 1
                last_skipped = True
            proof.fix(a, b)
            match = players[b]
            bm.finalize_match(resident, match)
            self._validity_matcher.finalize_match(resident, match)
        if last_skipped:
            bm.matching = {players[i]: players[j] for i, j in enumerate(proof.mate)}


class _TranspositionProof:
    """Proves, when it can, the partner that py4swiss's matching computation would give an S1
    player in a D.1 transposition step (see :meth:`FastBracketPairer.transpose_homogeneous_s2`).

    ``mate``: a maximum-weight matching of the current weights before the step's additions
    (vertex -> vertex, itself = unmatched); None until the first computation.
    """

    def __init__(self, bm: FastBracketMatcher, s1: list[int], s2: list[int],
                 limbo: list[int]) -> None:
        self.weights = bm._weights
        self.s2 = s2
        self.inc = {v: len(s2) - 1 - k for k, v in enumerate(s2)}  # the step's additions
        self.open_s1, self.open_s2 = set(s1), set(s2)
        self.limbo, self.limbo_set = len(limbo), set(limbo)
        self.side = [p.color_preference.side for p in bm._player_list]
        self.count_s1 = {x: 0 for x in ColorPreferenceSide}
        self.count_s2 = dict(self.count_s1)
        for v in s1:
            self.count_s1[self.side[v]] += 1
        for v in s2:
            self.count_s2[self.side[v]] += 1
        self.lower = [p.role == PlayerRole.LOWER for p in bm._player_list]
        self.mate: list[int] | None = None

    def fix(self, a: int, b: int) -> None:
        for group, counts, v in ((self.open_s1, self.count_s1, a),
                                 (self.open_s2, self.count_s2, b)):
            if v in group:
                group.discard(v)
                counts[self.side[v]] -= 1

    def _c10(self, u: int, v: int) -> int:
        """C.10's term of pair u-v (py4swiss C10.get_weight): 1 unless a lower-bracket player
        is involved or both want the same colour."""
        if self.lower[u] or self.lower[v]:
            return 0
        return int(not self.side[u].conflicts(self.side[v]))

    def _c10_bound(self, a: int, s: int) -> int:
        """Most pairs without a C.10 colour conflict between open S1 minus ``a`` and open S2
        minus ``s`` (edges within S1 or within S2 are removed by then): |S1| minus Hall's
        largest deficiency over the colour-preference classes (missing edges, e.g. C.1, can
        only lower it)."""
        c1, c2 = dict(self.count_s1), dict(self.count_s2)
        c1[self.side[a]] -= 1
        c2[self.side[s]] -= 1
        sides = [x for x in c1 if c1[x]]
        worst = 0
        for mask in range(1, 1 << len(sides)):
            chosen = [x for k, x in enumerate(sides) if mask >> k & 1]
            reach = sum(c2[y] for y in c2 if any(not x.conflicts(y) for x in chosen))
            worst = max(worst, sum(c1[x] for x in chosen) - reach)
        return sum(c1.values()) - worst

    def partner(self, a: int) -> int | None:
        """The S2 vertex every maximum-weight matching pairs with ``a`` after the additions, or
        None when not proven; asked before the additions are made (the weights are those
        before them).  Candidates in order of decreasing addition (lowest BSN first):
        a candidate is accepted when exchanging partners in ``mate`` gives it without losing
        weight (then it is optimal before the additions, and the largest addition wins); it
        is passed over when every matching pairing it with ``a`` has fewer pairs free of a C.10
        colour conflict than ``mate`` (a whole C.10 unit lighter: no addition makes up for it);
        anything else is left to the computation."""
        mate = self.mate
        if mate is None:
            return None
        row = self.weights[a]
        c10_now = None
        for s in self.s2:
            if s not in self.open_s2 or not row[s]:
                continue
            if self.inc[s] == 0:
                return None  # nothing added: ties with a non-S2 partner are not excluded
            if _exchange(a, s, mate, self.weights):
                return s
            if self._c10(a, s):
                return None
            if c10_now is None:  # C.10 pairs of mate among the open players (and Limbo)
                live = self.open_s1 | self.open_s2 | self.limbo_set
                c10_now = sum(self._c10(u, mate[u]) for u in live
                              if mate[u] in live and u < mate[u])
            # a Limbo MDP (at most one) can add at most one pair to the bound
            if self._c10_bound(a, s) + self.limbo >= c10_now:
                return None
        return None


def _to_int(weight: DynamicUint) -> int:
    return int(str(weight), 2)  # str(): the binary digits


def _exchange(a: int, s: int, mate: list[int], weights: list[list[DynamicUint]]) -> bool:
    """Whether exchanging partners in ``mate`` (a-q, s-t -> a-s, q-t) loses no weight under
    ``weights`` (those before the step's additions); if so ``mate`` is changed accordingly
    (still optimal)."""
    row = weights[a]
    q, t = mate[a], mate[s]
    if q == s:
        return True

    def old(v: int) -> int:  # weight of edge a-v
        return _to_int(row[v])

    qt = _to_int(weights[q][t]) if q != a and t != s else 0
    if old(s) + qt < (old(q) if q != a else 0) + (_to_int(weights[s][t]) if t != s else 0):
        return False
    mate[a], mate[s] = s, a
    if q != a:
        mate[q] = q
    if t != s:
        mate[t] = t
    if qt:
        mate[q], mate[t] = t, q
    return True


class FastDutchEngine(Dutch2025Engine):
    """:class:`services.pairing.dutch2025.Dutch2025Engine` with the fast matcher set-up; same
    pairings.  ``generate_pairings(trf) -> list[Pairing]`` (``black == 0``: the
    pairing-allocated bye); raises py4swiss's ``PairingError`` when the round cannot be paired.
    """

    validity_matcher_class = FastValidityMatcher
    bracket_pairer_class = FastBracketPairer
