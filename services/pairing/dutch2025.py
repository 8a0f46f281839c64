"""The FIDE Dutch system as amended in 2025 (C.04.3, in force from 1 February 2026) on top of
py4swiss 0.3.1, whose engine implements the text in force until then.

py4swiss is a port of bbpPairings' earlier Dutch; bbpPairings (the FIDE-endorsed engine) now
pairs by the 2025 text.  The differences found by re-pairing every round of events generated
and paired by bbpPairings (tests/e2e/test_dutch_bbp_oracle.py, docs/pairing-comparison.md)
are applied here, behind py4swiss's interfaces (py4swiss itself untouched):

* 1.4.3 (floats): an unplayed round gives a downfloat only when the player scored more in it
  than a loss (a pairing-allocated, full- or half-point bye, a forfeit win); a zero-point bye,
  an absence or a forfeit loss gives no float.  py4swiss floats down every unplayed round.
* C.2 / C.04.1 d (bye eligibility): a player who already had the pairing-allocated bye (of any
  value) or scored, without playing, as much as a win (forfeit win, full-point bye) does not
  get it again.  py4swiss looks only at ``U`` and ``+``.  Only eligible players of the lowest
  score at which one can be left out are the bye's candidates (:func:`_bye_assignee`).
* 3.4.4 (new quality criterion, after the next-bracket criterion (C.7 of 2017) and before the
  colour criteria): minimise the number of unplayed games of the player who receives the
  pairing-allocated bye (:class:`ByeAssigneeUnplayedGames`).
* the next-bracket criterion (C.7 of 2017) counts the next bracket's pairs within a completion
  of the round (:func:`_blocked_lower`), and there is no collapsed scoregroup (A.9 of the
  earlier text is gone): a bracket that cannot complete the round is paired inside a matching of
  the whole round, and so are the brackets after it (:func:`_whole_round_bracket`).
* E.5 (colour when neither player has a colour history): the higher-ranked
  player's pairing number is counted among the players of the round's pairing, i.e. those
  paired now or in an earlier round (a player absent so far has no number yet): odd gets the
  initial colour.  py4swiss counts the start numbers, so with a top seed absent in round 1
  every board below him had its colours reversed (bbpPairings issue 30 discusses this case).

Everything else (brackets, exchanges, transpositions, colour rules, board order) is
py4swiss's code; :class:`Dutch2025Engine` runs py4swiss's classes with these amendments and
:class:`services.pairing.dutch_fast.FastDutchEngine` the faster set-up of the same steps.
"""
from __future__ import annotations

from py4swiss.dynamicuint import DynamicUint
from py4swiss.engines.common import Float, PairingError
from py4swiss.engines.dutch.bracket import BracketPairer, Brackets
from py4swiss.engines.dutch.bracket.bracket import Bracket
from py4swiss.engines.dutch.bracket.bracket_matcher import BracketMatcher
from py4swiss.engines.dutch.criteria import QUALITY_CRITERIA
from py4swiss.engines.dutch.criteria.abstract import QualityCriterion
from py4swiss.engines.dutch.criteria.absolute import C3
from py4swiss.engines.dutch.criteria.quality import C7
from py4swiss.engines.dutch.engine import Engine
from py4swiss.engines.dutch.player import Player, PlayerRole, get_player_infos_from_trf
from py4swiss.engines.dutch.validity_matcher import ValidityMatcher
from py4swiss.trf import ParsedTrf
from py4swiss.trf.results import ColorToken, ResultToken, RoundResult

__all__ = ["Player2025", "players_2025", "ByeAssigneeUnplayedGames", "QUALITY_CRITERIA_2025",
           "Dutch2025BracketMatcher", "Dutch2025BracketPairer", "Dutch2025Engine", "greedy_mate"]


class Player2025(Player):
    """py4swiss's player with what the 2025 criteria read besides: ``played_games``,
    ``bye_score`` (10 x the score of the pairing-allocated bye's assignee this round, -1 when
    the number of players is even), ``bye_rank`` and ``bye_active`` (3.4.4, set by
    :func:`_bye_assignee`), and ``far``: below the next scoregroup, in a bracket paired
    within the whole round (:func:`_whole_round_bracket`)."""

    played_games: int = 0
    bye_score: int = -1
    bye_rank: int = 0
    bye_active: bool = False
    far: bool = False


def _participated(result) -> bool:
    """bbpPairings' "participated in the pairing" of a round: against an opponent (played or
    forfeit), or the pairing-allocated bye (``U``, older programs ``0000 - +``)."""
    return result.id != 0 or result.result in (ResultToken.PAIRING_ALLOCATED_BYE,
                                                ResultToken.FORFEIT_WIN)


def players_2025(trf: ParsedTrf) -> list[Player2025]:
    """py4swiss's player records for the round to pair, amended to the 2025 text: floats
    (1.4.3), bye eligibility (C.2), pairing numbers for the colour rule E.5 (module
    docstring) and the played games for 3.4.4."""
    sections = trf.player_sections
    round_number = min(len(s.results) for s in sections)
    by_rank = trf.x_section.configuration.by_rank
    points = trf.x_section.scoring_point_system.get_points_times_ten
    win = max(trf.x_section.scoring_point_system.score_dict.values())
    loss = points(_LOSS)
    order = sections if by_rank else sorted(sections, key=lambda s: s.starting_number)
    number, counter = {}, 0
    for s in order:  # E.5: the players of this round's pairing or of an earlier one
        if len(s.results) == round_number or any(map(_participated, s.results[:round_number])):
            counter += 1
            number[s.starting_number] = counter
    by_id = {s.starting_number: s for s in sections}
    out = []
    for p in get_player_infos_from_trf(trf):
        results = by_id[p.id].results[:round_number]
        unplayed = [r for r in results if not r.result.is_played()]
        floats = [p.float_1, p.float_2]
        for back in (1, 2):
            k = round_number - back
            if k >= 0 and not results[k].result.is_played():
                floats[back - 1] = Float.DOWN if points(results[k]) > loss else Float.NONE
        bye_received = any(points(r) >= win or (r.id == 0 and _participated(r))
                           for r in unplayed)
        out.append(Player2025(**{**p.model_dump(), "number": number[p.id],
                                 "float_1": floats[0], "float_2": floats[1],
                                 "bye_received": bye_received,
                                 "played_games": len(results) - len(unplayed)}))
    return out


_LOSS = RoundResult(id=1, color=ColorToken.WHITE, result=ResultToken.LOSS)  # its points: 1.4.3


class ByeAssigneeUnplayedGames(QualityCriterion):
    """C.04.3 (2025) 3.4.4: minimise the number of unplayed games of the assignee of the
    pairing-allocated bye.

    Weighed in the brackets where the bye is decided, as bbpPairings does: a bracket whose
    residents score no more than the bye's assignee (:func:`_bye_assignee`) and whose only
    player to leave it unpaired is the assignee, i.e. the players below it can all be paired
    among themselves (``bye_active``).  Each paired player of the assignee's score adds his
    ``bye_rank`` (his rank among all the players of that score by games played, most first;
    ties share the last rank of their run), so the player left unpaired has played the most
    games that the higher criteria leave possible.  A pair with a player of the next
    scoregroup does not count: in such a bracket the players below pair among themselves, so
    the bracket's player matched to one of them here is the one who gets the bye."""

    @classmethod
    def _active(cls, bracket: Bracket) -> bool:
        residents = bracket.resident_list or bracket.mdp_list
        return bool(residents) and residents[-1].bye_active

    @classmethod
    def get_shift(cls, bracket: Bracket) -> int:
        players = bracket.mdp_list + bracket.resident_list + bracket.lower_list
        return 2 * max(p.bye_rank for p in players).bit_length() + bracket.bracket_bits + 1 \
            if players and cls._active(bracket) else 0

    @classmethod
    def get_weight(cls, player_1: Player, player_2: Player, zero: DynamicUint,
                   bracket: Bracket) -> DynamicUint:
        weight = DynamicUint(zero)
        if cls._active(bracket) and player_2.role != PlayerRole.LOWER:
            weight |= player_1.bye_rank + player_2.bye_rank
        return weight


QUALITY_CRITERIA_2025 = tuple(
    c for crit in QUALITY_CRITERIA for c in ((crit, ByeAssigneeUnplayedGames)
                                              if crit is C7 else (crit,)))


class Dutch2025BracketMatcher(BracketMatcher):
    """py4swiss's bracket matcher (B.8) weighing the 2025 quality criteria
    :data:`QUALITY_CRITERIA_2025` (3.4.4 added), without the edges from the bracket to the
    next scoregroup's players that no completion of the round allows (``bracket.blocked``,
    :func:`_blocked_lower`)."""

    def _get_max_weight(self) -> DynamicUint:
        weight = DynamicUint(1)
        weight.shift_grow(2)
        for criterion in QUALITY_CRITERIA_2025:
            weight.shift_grow(criterion.get_shift(self._bracket))
        weight.shift_grow(3 * self._bracket.bracket_bits)
        weight.shift_grow(2)
        weight >>= 1
        weight -= (weight & 0) | 1
        return weight

    def _get_weight(self, player_1: Player, player_2: Player) -> DynamicUint:
        weight = DynamicUint(self._zero_weight)
        if not self._validity_matcher.is_allowed_pair(player_1, player_2) or (
                player_2.id in getattr(self._bracket, "blocked", ())
                and player_1.role != PlayerRole.LOWER):
            return weight
        bracket = self._bracket
        if (bracket.penultimate_pairing_bracket or bracket.last_pairing_bracket
                or getattr(bracket, "whole_round", False)):
            weight |= 1 + player_1.bye_received + player_2.bye_received
        if player_1.far or player_2.far:  # only the completion of the round counts
            return weight << self._criteria_shift()
        for criterion in QUALITY_CRITERIA_2025:
            weight <<= criterion.get_shift(self._bracket)
            weight += criterion.get_weight(player_1, player_2, self._zero_weight, self._bracket)
        weight <<= 3 * self._bracket.bracket_bits + 1
        return weight

    def _criteria_shift(self) -> int:
        """Bits below the completion weight: every criterion's, and the transpositions'."""
        shift = getattr(self, "_shift_below_completion", None)
        if shift is None:
            shift = self._shift_below_completion = (
                sum(c.get_shift(self._bracket) for c in QUALITY_CRITERIA_2025)
                + 3 * self._bracket.bracket_bits + 1)
        return shift


class Dutch2025BracketPairer(BracketPairer):
    """py4swiss's bracket pairer (S1/S2, exchanges and transpositions: B and D of the 2017 text)
    weighing with :class:`Dutch2025BracketMatcher` (``matcher_class``)."""

    matcher_class = Dutch2025BracketMatcher

    def __init__(self, state: Bracket, validity_matcher: ValidityMatcher,
                 initial_color: bool) -> None:
        self._bracket = state
        self._validity_matcher = validity_matcher
        self._initial_color = initial_color
        self._num = len(state.mdp_list + state.resident_list + state.lower_list)
        self._bracket_matcher = self.matcher_class(state, validity_matcher)
        self._heterogeneous_s1 = []
        self._heterogeneous_s2 = []
        self._homogeneous_s1 = []
        self._homogeneous_s2 = []
        self._exchanges = 0


#: Brackets with at most this many players below them are paired inside a matching of the
#: whole round (:func:`_whole_round_bracket`), as bbpPairings pairs every bracket: there the
#: next bracket's pairs (C.7 of 2017) count only within a completion of the round.  Above it the
#: bracket's matching holds the bracket and the next scoregroup only (py4swiss; the quadratic
#: graph of the whole round would cost seconds in large events), with the completion asked of
#: the downfloater's pairs (:func:`_blocked_lower`) and the whole round taken when it fails.
WHOLE_ROUND_BELOW = 150


class Dutch2025Engine(Engine):
    """py4swiss 0.3.1's Dutch ``Engine`` steps with the 2025 amendments (module docstring).

    ``generate_pairings(trf) -> list[Pairing]`` (``black == 0``: the pairing-allocated bye);
    raises py4swiss's ``PairingError`` when the round cannot be paired (the absolute
    criteria, C.1-C.3 of 2017).
    Subclasses change the classes doing the work, never the decisions.
    """

    validity_matcher_class = ValidityMatcher
    bracket_pairer_class = Dutch2025BracketPairer

    @classmethod
    def generate_pairings(cls, trf: ParsedTrf) -> list:
        player_pairs = []
        round_number = min(len(section.results) for section in trf.player_sections) + 1
        initial_color = trf.x_section.configuration.first_round_color
        players = players_2025(trf)
        players.sort(reverse=True)
        forbidden = set(trf.x_section.forbidden_pairs)
        forbidden |= _bye_assignee(players, forbidden, cls.validity_matcher_class)
        validity_matcher = cls.validity_matcher_class(players, forbidden)
        brackets = Brackets(players, round_number)
        if not validity_matcher.is_valid_matching():
            raise PairingError("Round can not be paired")
        whole_round = False  # once a bracket needed the whole round, the rest do too
        while not brackets.is_finished():
            bracket = brackets.get_current_bracket()
            below = [p for group in brackets._brackets[brackets._index + 1:] for p in group]
            bracket_pairings = None
            if not whole_round and len(below) > WHOLE_ROUND_BELOW:
                object.__setattr__(bracket, "blocked", _blocked_lower(bracket, below, forbidden))
                bracket_pairings = cls._get_bracket_pairs(
                    cls.bracket_pairer_class(bracket, validity_matcher, initial_color))
            if not whole_round and bracket_pairings is None:
                # 2025: no collapsing (A.9 of the earlier text is gone); the bracket is paired
                # within the whole round, so that its downfloaters complete it.  The validity
                # matcher starts again from the pairs made (a failed try fixed pairs in it).
                whole_round = True
                validity_matcher = cls.validity_matcher_class(players, forbidden)
                for a, b in player_pairs:
                    validity_matcher.finalize_match(a, b)
            if whole_round:
                bracket_pairings = cls._get_bracket_pairs(cls.bracket_pairer_class(
                    _whole_round_bracket(bracket, below), validity_matcher, initial_color))
                for p in below:
                    object.__setattr__(p, "far", False)
            if bracket_pairings is None:
                brackets.collapse()
            else:
                brackets.apply_bracket_pairings(bracket_pairings)
                player_pairs.extend(bracket_pairings)
        player_pairs.sort(key=cls._get_player_pair_score, reverse=True)
        return [cls._get_pairing(pair) for pair in player_pairs]


def _bye_assignee(players: list[Player2025], forbidden: set[tuple[int, int]],
                  matcher_class) -> set[tuple[int, int]]:
    """Settle what the round's pairing-allocated bye depends on (C.2, 3.4.4), in place.

    The assignee's score is the lowest score of an eligible player who can be left unpaired
    while everyone else is paired under the absolute criteria C.1-C.3 (a perfect matching of the
    others); only eligible players of that score are candidates, so every other player is
    marked ``bye_received`` (bbpPairings' "bye candidate" test).  Every player gets that score
    as ``bye_score``, and those with it their ``bye_rank`` by games played
    (:class:`ByeAssigneeUnplayedGames`), and ``bye_active`` when the players scoring less
    than he does can be paired among themselves.  When a single player can be the assignee
    he cannot be paired: the pairs with him are returned, to be forbidden.  An even field has
    no bye.
    """
    if len(players) % 2 == 0:
        return set()

    def can_be_left_out(p: Player2025) -> bool:
        return matcher_class([q for q in players if q is not p], forbidden).is_valid_matching()

    eligible = sorted((p for p in players if not p.bye_received),
                      key=lambda p: p.points_with_acceleration)
    assignees = []
    for p in eligible:
        if assignees and p.points_with_acceleration > assignees[0].points_with_acceleration:
            break
        if can_be_left_out(p):
            assignees.append(p)
            if len(assignees) == 2:
                break
    if not assignees:
        return set()
    score = assignees[0].points_with_acceleration
    counts = sorted((q.played_games for q in players if q.points_with_acceleration == score),
                    reverse=True)
    rank = {c: i for i, c in enumerate(counts)}
    for q in players:
        object.__setattr__(q, "bye_score", score)
        if q.points_with_acceleration == score:
            object.__setattr__(q, "bye_rank", rank[q.played_games])
        else:
            object.__setattr__(q, "bye_received", True)
    below_paired: dict[int, bool] = {}
    for q in players:
        s = q.points_with_acceleration
        if s <= score and s not in below_paired:
            below = [x for x in players if x.points_with_acceleration < s]
            below_paired[s] = len(below) % 2 == 0 and (
                not below or matcher_class(below, forbidden).is_valid_matching())
        object.__setattr__(q, "bye_active", below_paired.get(s, False))
    if len(assignees) == 1:
        only = assignees[0].id
        return {(only, q.id) for q in players if q.id != only}
    return set()


def greedy_mate(size: int, allowed) -> list[int]:
    """A maximal matching found greedily: each vertex ``0..size-1`` in turn is matched to the
    first free later vertex ``b`` with ``allowed(a, b)``; ``mate[v]`` is -1 when unmatched."""
    mate = [-1] * size
    for a in range(size):
        if mate[a] == -1:
            for b in range(a + 1, size):
                if mate[b] == -1 and allowed(a, b):
                    mate[a], mate[b] = b, a
                    break
    return mate


def _completion_test(nodes: list, forbidden: set[tuple[int, int]]):
    """``allowed(i, j)`` for ``nodes`` (players, ``None`` = the bye): C.1, C.3 (evaluated once
    per pair of C.3 classes), the forbidden pairs, and C.2 for the bye (not ``bye_received``)."""
    c3_keys: dict[tuple, int] = {}
    c3_class = [None if p is None else c3_keys.setdefault(
        (p.top_scorer, p.color_preference.side, p.color_preference.strength), len(c3_keys))
        for p in nodes]
    c3_reps = {k: p for p, k in zip(nodes, c3_class) if p is not None}
    c3_ok = {(a, b): bool(C3.evaluate(c3_reps[a], c3_reps[b])) for a in c3_reps for b in c3_reps}

    def allowed(i: int, j: int) -> bool:
        a, b = nodes[i], nodes[j]
        if a is None or b is None:
            return not (b if a is None else a).bye_received
        return (a.id not in b.opponents and c3_ok[c3_class[i], c3_class[j]]
                and (a.id, b.id) not in forbidden and (b.id, a.id) not in forbidden)
    return allowed


def _even_reach(mate: list[int], allowed, wanted: set[int]) -> set[int]:
    """With ``mate`` near-perfect (one vertex exposed), the vertices an even alternating path
    from the exposed vertex reaches (each can be the one left out of a maximum matching);
    the search stops once every vertex of ``wanted`` is reached.  Empty otherwise."""
    exposed = [v for v, m in enumerate(mate) if m == -1]
    if len(exposed) != 1:
        return set()
    free = {exposed[0]}
    missing = len(wanted - free)
    queue, head = [exposed[0]], 0
    while head < len(queue) and missing:
        v = queue[head]
        head += 1
        for x, y in enumerate(mate):
            if y >= 0 and y not in free and x != v and allowed(v, x):
                free.add(y)
                queue.append(y)
                missing -= y in wanted
                if not missing:
                    break
    return free


def _blocked_lower(bracket: Bracket, below: list[Player2025],
                   forbidden: set[tuple[int, int]]) -> frozenset[int]:
    """Ids of next-scoregroup players that the bracket's downfloater cannot be paired with in
    any completion of the round (C.7 of 2017 counts the pairs of the next bracket; bbpPairings
    counts them within a pairing of the whole round).

    Asked where C.7 applies with one downfloater (an odd bracket, not the penultimate or
    last pairing bracket): the downfloater can meet ``L`` only if the players below the
    bracket other than ``L`` can all be paired (one of them with the bye when their number is
    odd; only the bye's candidates, i.e. not ``bye_received``).  Proven from a maximal
    matching of those players: ``L`` is free when an alternating path from the unmatched
    vertex reaches it (:func:`_even_reach`); the others are decided by py4swiss's exact matcher.
    """
    size = len(bracket.mdp_list) + len(bracket.resident_list)
    if (bracket.penultimate_pairing_bracket or bracket.last_pairing_bracket or size % 2 == 0
            or not bracket.lower_list):
        return frozenset()
    nodes: list = list(below) + ([None] if len(below) % 2 == 0 else [])  # None: the bye
    allowed = _completion_test(nodes, forbidden)
    index = {id(p): i for i, p in enumerate(nodes) if p is not None}
    wanted = {index[id(p)] for p in bracket.lower_list if id(p) in index}
    free = _even_reach(greedy_mate(len(nodes), allowed), allowed, wanted)
    return frozenset(
        lower.id for lower in bracket.lower_list
        if index.get(id(lower)) not in free
        and not ValidityMatcher([p for p in below if p is not lower], forbidden).is_valid_matching())


def _whole_round_bracket(bracket: Bracket, below: list[Player2025]) -> Bracket:
    """The bracket with every player below it in its matching graph, as bbpPairings pairs a
    bracket (completion of the round, C.4 of 2017): the next scoregroup as usual,
    the players further down ``far`` (their edges carry only the completion weight), and on
    every edge the completion weight of the last brackets (a pair of players who cannot take
    the bye weighs more), so the maximum matching pairs everyone but one bye candidate."""
    lower = bracket.lower_list
    taken = {id(p) for p in lower}
    far = [p for p in below if id(p) not in taken]
    for p in far:
        object.__setattr__(p, "far", True)
        p.role = PlayerRole.LOWER
    out = Bracket.from_data(bracket.mdp_list, bracket.resident_list, lower + far,
                            2 + bracket.two_rounds_played if bracket.one_round_played else 1,
                            False)
    object.__setattr__(out, "whole_round", True)
    return out
