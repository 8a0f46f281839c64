"""积分编排制 -- the Chinese Swiss ("score-bracket") system of the xiangqi rules, appendix 2.

Source: ``shared/rules/xiangqi-rules-with-appendices.txt``, 附录二 "积分编排制的编排原则和具体方法"
(items 一 to 六), with article 13.3 (colours in 积分编排制 follow appendix 2) and, for the round
robin helper at the end, appendix 1 (一) and article 13.5 (two-game matches).

Everything here is pure: no I/O, no wall clock.  The lots (抽签) the appendix prescribes are drawn
from ``random.Random(seed)``; the seed is an input and is returned in the result, and every lot
is listed in :attr:`ChineseSwissRound.decisions`, so a replay with the same inputs and seed
re-derives the same pairing.

Shapes
------
:class:`CSPlayer` per player (id, rating, club, score, opponents, colours, had_bye, no,
pending_opponent); :class:`CSOptions`; :func:`pair_round` returns a :class:`ChineseSwissRound`
(boards ``(red_id, black_id)``, bye, decisions, seed, numbers).  Colours are ``'r'`` (red, 先走),
``'b'`` (black, 后走) and ``'-'`` (no game: bye or forfeit).  Scores are individual points
(1 / 0.5 / 0) or, with ``CSOptions(team=True)``, match points (2 / 1 / 0, article 14.2).

Errors: every bad input raises :class:`ChineseSwissError`, a ``ValueError``.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

import networkx as nx

from shared.checks import pairing_history, player_ids
from shared.errors import PairingError

__all__ = [
    "SYSTEM",
    "VERSION",
    "ChineseSwissError",
    "CSPlayer",
    "CSOptions",
    "Decision",
    "ChineseSwissRound",
    "colour_need",
    "allocate_colours",
    "pair_round",
    "two_game_round_robin",
]

SYSTEM = "chinese-swiss"
VERSION = "1"

_COLOURS = ("r", "b", "-")


class ChineseSwissError(PairingError):
    """Bad input to the 积分编排制 pairing, or no pairing without a rematch exists."""


@dataclass(frozen=True)
class CSPlayer:
    """One player (or team) as the pairing sees him before the round.

    ``id``: unique non-empty str.  ``rating``: 等级分 (int/float) or ``None`` for no rating
    (item 三（一）: unrated players are ordered by lot after the rated ones).
    ``club``: 单位 / club, only used with ``CSOptions.avoid_same_club``.
    ``score``: points of the *finished* games (>= 0).  ``opponents``: ids already met.
    ``colours``: one entry per past round, ``'r'``/``'b'``/``'-'``.  ``had_bye``: already had a
    bye.  ``no``: the 编号 (draw number) from round 1 (:attr:`ChineseSwissRound.numbers`);
    the "小号/大号" of item 五（三）.  ``pending_opponent``: id of the opponent of a game that
    is still being played when this round is paired (item 六); that game counts as a draw
    for this pairing only -- its colour and opponent must already be in ``colours`` and
    ``opponents``, its result must not be in ``score``.
    """

    id: str
    rating: float | None = None
    club: str | None = None
    score: float = 0.0
    opponents: tuple[str, ...] = ()
    colours: tuple[str, ...] = ()
    had_bye: bool = False
    no: int | None = None
    pending_opponent: str | None = None


@dataclass(frozen=True)
class CSOptions:
    """Options.

    ``team``: team event -- scores are match points 2/1/0, so the last-round thresholds of
    item 三（五） are 2 and 1 match points ("队为2分", "队为1分") instead of 1 and 0.5.
    ``avoid_same_club``: avoid pairing players of the same club where the score pairing allows
    (not in the stored appendix text, which ends at item 六; see :func:`pair_round`).
    """

    team: bool = False
    avoid_same_club: bool = False


@dataclass(frozen=True)
class Decision:
    """One audit entry: ``kind`` (order, bye, provisional-draw, draw, float, adjust, colour,
    club), ``item`` (the appendix item applied, e.g. ``"三（二）"``), ``players`` and ``detail``."""

    kind: str
    item: str
    players: tuple[str, ...]
    detail: str


@dataclass(frozen=True)
class ChineseSwissRound:
    """Result of :func:`pair_round`.

    ``boards``: ``(red_id, black_id)``, ordered by the higher (provisional) score of the pair,
    then the smaller 编号.  ``bye``: id or ``None``.  ``decisions``: audit trail in the order
    taken.  ``seed``: the lot seed used.  ``numbers``: id -> 编号 (in round 1 assigned here;
    store them and pass them back as ``CSPlayer.no``).  ``system``/``version`` for the event.
    """

    round: int
    boards: list[tuple[str, str]]
    bye: str | None
    decisions: list[Decision]
    seed: int
    numbers: dict[str, int] = field(default_factory=dict)
    system: str = SYSTEM
    version: str = VERSION


# --------------------------------------------------------------------------------------------
# colours
# --------------------------------------------------------------------------------------------


def colour_need(colours: tuple[str, ...]) -> tuple[str | None, int]:
    """Which colour a player should get next, and how strongly: ``(colour, strength)``.

    * 3 -- he played the same colour in his last two games ("连走二先"/"连走二后"): a third one
      in a row is to be avoided (item 三（四）); he needs the other colour;
    * 2 -- he is two or more games off balance ("多走二先"/"多走二后");
    * 1 -- one game off balance ("多先者"/"后者", item 三（三）);
    * 0 -- balanced or no game: no need (``colour`` is ``None``).

    Rounds without a game (``'-'``) are skipped.  The appendix speaks of counts and of runs, not
    of alternation, so a balanced player has no need.
    """
    played = [c for c in colours if c != "-"]
    if len(played) >= 2 and played[-1] == played[-2]:
        return ("b" if played[-1] == "r" else "r"), 3
    diff = played.count("r") - played.count("b")
    if diff == 0:
        return None, 0
    return ("b" if diff > 0 else "r"), min(abs(diff), 2)


def allocate_colours(
    a: CSPlayer,
    b: CSPlayer,
    round_no: int,
    total_rounds: int,
    rng: random.Random,
    scores: dict[str, float] | None = None,
    team: bool = False,
) -> tuple[tuple[str, str], Decision]:
    """Red and black for one pair by appendix 2 item 三（三）-（五）; returns ``((red, black),
    decision)``.  ``scores`` overrides ``a.score``/``b.score`` (provisional scores).

    In order:
      1. needs differ (or one has none): each gets his colour;
      2. "应尽量避免出现连续走三先或连续走三后 ... 应首先平衡连走二先或连走二后一方的先后走，
         除非均系连走，才抽签确定先后走" (三（四）): the one with a run of two gets the other
         colour; both with the same run -> lot;
      3. "由倒数第三轮起 ... 按'低分服从高分'的原则，优先平衡高分一方的先后走" (三（五）): from
         the third-last round, between unequal scores the higher gets his colour; in the last
         round only when the gap is at least 1 point (teams 2), "若两人相差仅0.5分 ... 仍以抽签
         决定先走方";
      4. "优先安排多先者与后者 ... 在多先或多后条件相同者对弈时，抽签决定先后走" (三（三）): the
         more unbalanced gets his colour; equal -> lot.
    """
    sa_score = scores[a.id] if scores else a.score
    sb_score = scores[b.id] if scores else b.score
    ca, na = colour_need(a.colours)
    cb, nb = colour_need(b.colours)

    def give(player: CSPlayer, colour: str) -> tuple[str, str]:
        other = b if player is a else a
        return (player.id, other.id) if colour == "r" else (other.id, player.id)

    def lot(item: str, why: str) -> tuple[tuple[str, str], Decision]:
        pair = (a.id, b.id) if rng.random() < 0.5 else (b.id, a.id)
        return pair, Decision("colour", item, pair, f"lot ({why}): {pair[0]} red")

    if ca is None and cb is None:
        return lot("三（三）", "no colour need on either side")
    if ca is None or cb is None or ca != cb:
        pair = give(a, ca) if ca is not None else give(b, cb)
        return pair, Decision("colour", "三（三）", pair, "both colour needs met")
    # both need the same colour ca
    if na == 3 or nb == 3:
        if na != nb:
            who = a if na == 3 else b
            pair = give(who, ca)
            return pair, Decision(
                "colour", "三（四）", pair, f"{who.id} has two {ca == 'r' and 'blacks' or 'reds'} "
                "in a row: no third",
            )
        return lot("三（四）", "both would play a third same colour in a row")
    unit = 2.0 if team else 1.0
    if round_no >= total_rounds - 2 and sa_score != sb_score:
        high = a if sa_score > sb_score else b
        gap = abs(sa_score - sb_score)
        if round_no < total_rounds or gap >= unit:
            pair = give(high, ca)
            return pair, Decision("colour", "三（五）", pair, f"低分服从高分: {high.id} (higher score)")
        return lot("三（五）", f"last round, score gap only {gap:g}")
    if na != nb:
        who = a if na > nb else b
        pair = give(who, ca)
        return pair, Decision("colour", "三（三）", pair, f"{who.id} is more off balance")
    return lot("三（三）", "same colour condition")


# --------------------------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------------------------


def _num(value: object) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, float))


def _validate(players: list[CSPlayer], round_no: int, total_rounds: int, seed: int) -> None:
    """The inputs of a pairing checked, in this order: round numbers and seed, the field, each
    player, the 编号 (no), unfinished games. Raises ChineseSwissError naming the first fault."""
    _check_round(round_no, total_rounds, seed)
    if not isinstance(players, (list, tuple)) or len(players) < 2:
        raise ChineseSwissError("need a list of at least 2 players to pair")
    by_id: dict[str, CSPlayer] = player_ids(players, CSPlayer, ChineseSwissError)  # type: ignore[assignment]
    for p in players:
        _check_player(p)
    numbered = [p.no for p in players if p.no is not None]
    if round_no > 1 and numbered and len(numbered) != len(players):
        raise ChineseSwissError("give every player his 编号 (no) or none of them")
    if len(set(numbered)) != len(numbered):
        raise ChineseSwissError("duplicate 编号 (no)")
    for p in players:
        _check_pending(p, by_id)


def _check_round(round_no: int, total_rounds: int, seed: int) -> None:
    """``1 <= round_no <= total_rounds``, ints, and an int ``seed``."""
    for name, value, low in (("round_no", round_no, 1), ("total_rounds", total_rounds, 1)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ChineseSwissError(f"{name} must be an int >= {low}, got {value!r}")
    if round_no > total_rounds:
        raise ChineseSwissError(f"round_no {round_no} is beyond total_rounds {total_rounds}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ChineseSwissError(f"seed must be an int, got {seed!r}")


def _check_player(p: CSPlayer) -> None:
    """A number or None as rating, a score >= 0, colours ``r``/``b``/``-``, not his own
    opponent, an int >= 1 or None as 编号 (no)."""
    if p.rating is not None and not _num(p.rating):
        raise ChineseSwissError(f"rating of {p.id!r} must be a number or None, got {p.rating!r}")
    pairing_history(p, _COLOURS, ChineseSwissError)
    if p.no is not None and (isinstance(p.no, bool) or not isinstance(p.no, int) or p.no < 1):
        raise ChineseSwissError(f"no (编号) of {p.id!r} must be an int >= 1, got {p.no!r}")


def _check_pending(p: CSPlayer, by_id: dict[str, CSPlayer]) -> None:
    """An unfinished game is marked on both players and already among their opponents."""
    q = p.pending_opponent
    if q is None:
        return
    if q not in by_id:
        raise ChineseSwissError(f"pending opponent {q!r} of {p.id!r} is not in the field")
    if by_id[q].pending_opponent != p.id:
        raise ChineseSwissError(f"unfinished game {p.id!r}-{q!r} must be marked on both players")
    if q not in p.opponents:
        raise ChineseSwissError(f"unfinished game {p.id!r}-{q!r} must be in opponents already")


# --------------------------------------------------------------------------------------------
# matching helpers
# --------------------------------------------------------------------------------------------


def _legal(a: CSPlayer, b: CSPlayer) -> bool:
    return b.id not in a.opponents and a.id not in b.opponents


def _run3(x: CSPlayer, y: CSPlayer) -> bool:
    """Both need the same colour because of a run of two: one of them gets a third in a row."""
    cx, nx_ = colour_need(x.colours)
    cy, ny = colour_need(y.colours)
    return cx is not None and cx == cy and nx_ == ny == 3


def _best(
    ids: list[str], by_id: dict[str, CSPlayer], segment: set[str]
) -> tuple[int, int, int]:
    """``(pairs, pairs inside segment, third-same-colour pairs inside segment)`` of a maximum
    matching of ``ids`` that has the most pairs, then the most pairs inside the segment (item
    四（一）（二）: "充分配对"), then the fewest pairs inside it that force a third same colour in a
    row (三（四））."""
    big = len(ids) + 1
    graph = nx.Graph()
    graph.add_nodes_from(ids)
    for i, x in enumerate(ids):
        for y in ids[i + 1:]:
            a, b = by_id[x], by_id[y]
            if _legal(a, b):
                inside = x in segment and y in segment
                weight = big * inside - int(inside and _run3(a, b)) + big
                graph.add_edge(x, y, weight=weight)
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    inside = [(x, y) for x, y in matching if x in segment and y in segment]
    runs = sum(1 for x, y in inside if _run3(by_id[x], by_id[y]))
    return len(matching), len(inside), runs


# --------------------------------------------------------------------------------------------
# pairing
# --------------------------------------------------------------------------------------------


def _order_round1(
    players: list[CSPlayer], rng: random.Random, decisions: list[Decision]
) -> list[CSPlayer]:
    """Item 三（一）: rated players by rating (highest first); "对无等级分的棋手用抽签方法排定
    先后顺序，列在有等级分棋手的后面".  Equal ratings are also ordered by lot (the appendix does
    not say; a lot is its default for equal conditions, item 四)."""
    rated: dict[float, list[CSPlayer]] = {}
    unrated: list[CSPlayer] = []
    for p in sorted(players, key=lambda p: p.id):
        (unrated if p.rating is None else rated.setdefault(float(p.rating), [])).append(p)
    order: list[CSPlayer] = []
    for rating in sorted(rated, reverse=True):
        group = rated[rating]
        if len(group) > 1:
            rng.shuffle(group)
            decisions.append(Decision("order", "三（一）", tuple(p.id for p in group),
                                      f"equal rating {rating:g}: order by lot"))
        order.extend(group)
    if unrated:
        rng.shuffle(unrated)
        decisions.append(Decision("order", "三（一）", tuple(p.id for p in unrated),
                                  "no rating: order by lot, after the rated players"))
        order.extend(unrated)
    return order


def _choose_bye(
    pool: list[CSPlayer], scores: dict[str, float], number: dict[str, int], by_id: dict[str, CSPlayer]
) -> CSPlayer:
    """Odd field.  Appendix 2 says only "运动员（队）人（队）数宜为双数" (item 一) -- nothing on
    byes.  Common Chinese practice: the bye (轮空) goes to the lowest score, among them the
    largest 编号, who has not had one, and it scores as a win; whoever is chosen, the others must
    still be pairable without a rematch.  A second bye is given only if nobody else can take it."""
    candidates = sorted(pool, key=lambda p: (p.had_bye, scores[p.id], -number[p.id]))
    for cand in candidates:
        rest = [p.id for p in pool if p.id != cand.id]
        if _best(rest, by_id, set())[0] * 2 == len(rest):
            return cand
    raise ChineseSwissError("no legal pairing exists: every choice of bye leaves a forced rematch")


def pair_round(
    players: list[CSPlayer],
    round_no: int,
    total_rounds: int,
    seed: int,
    options: CSOptions | None = None,
) -> ChineseSwissRound:
    """Pair round ``round_no`` of ``total_rounds`` by 积分编排制 (appendix 2); lots from
    ``random.Random(seed)``.

    Round 1 (item 三（一）): order by rating (:func:`_order_round1`), the order gives the 编号;
    odd field: the last one gets the bye; "分成人（队）数相等的上、下两组，以抽签方式由每组各出一人
    （队）编对，并抽签决定先后走" -- the upper half draws its opponents from the lower half, small
    numbers first (item 五（三）, round 1 is odd), then one lot per board for colours.  With
    ``avoid_same_club`` a draw skips clubmates while the rest can still avoid them.

    Later rounds (items 三（二）-（五）, 四, 五, 六):
      * item 六: a game still running counts as a draw for this pairing ("可暂时先按双方和局计分");
      * bye for an odd field: :func:`_choose_bye`;
      * "由最高分按积分段逐段向下编排，同分者编对 ... 以近分者编对": the highest unpaired score
        level forms the 积分段 (extended by the next levels while it has an odd number, "一个9分，
        三个8分 ... 均应作为一个积分段统筹考虑"); its players draw in turn;
      * order of drawing (item 五): "从高调低" (the highest score draws, from lower ones),
        "以少调多" (of the players with more reds and those with more blacks, the smaller group
        draws first), "单数轮次由小号先抽，双数轮次由大号先抽"; a "受限制号" (one with at most one
        possible same-score opponent left) draws before all ("优先排，以免卡不通");
      * a drawer's candidates, best first: not met before; the rest of the field can still be
        paired completely AND the segment still gets as many pairs as it could before the draw
        (item 四（一）（二）: "本来可以做到的充分配对，不致由于采用抽签而出现障碍" -- this is the
        "受卡" rule of 三（二）: a choice that would leave the bottom stuck is never made, so the
        pairs changed are the last ones made from above, "由上排下来的最后一对或几对拆开重排");
        then the closest score (近分); then (option) not a clubmate; then the best colour fit
        (三（三）: "优先安排多先者与后者编对"; three same colours in a row avoided first,
        三（四）); in the last round only the three-in-a-row criterion is kept, "如果在最后一轮
        中，出现相差三先的配对，亦不拆开重排"; equal candidates: lot;
      * colours: :func:`allocate_colours`.

    Raises :class:`ChineseSwissError` on bad input or when no rematch-free pairing exists.
    """
    options = options or CSOptions()
    if not isinstance(options, CSOptions):
        raise ChineseSwissError(f"options must be CSOptions, got {type(options).__name__}")
    _validate(players, round_no, total_rounds, seed)
    rng = random.Random(seed)
    decisions: list[Decision] = []
    if round_no == 1:
        return _pair_first(players, total_rounds, seed, rng, options, decisions)
    by_id = {p.id: p for p in players}
    number = _numbers(players, decisions)
    scores = _pairing_scores(players, 1.0 if options.team else 0.5, decisions)
    pool = sorted(players, key=lambda p: (-scores[p.id], number[p.id]))
    bye: CSPlayer | None = None
    if len(pool) % 2:
        bye = _choose_bye(pool, scores, number, by_id)
        decisions.append(Decision("bye", "一", (bye.id,),
                                  f"odd field: bye to {bye.id} (score {scores[bye.id]:g})"))
        pool = [p for p in pool if p.id != bye.id]
    if _best([p.id for p in pool], by_id, set())[0] * 2 != len(pool):
        raise ChineseSwissError(
            f"no legal pairing exists for round {round_no}: some players cannot be paired "
            "without a rematch")
    draw = _Draw(by_id, scores, number, options, rng, decisions, round_no,
                 last_round=round_no == total_rounds)
    unpaired = [p.id for p in pool]
    pairs: list[tuple[str, str]] = []
    while unpaired:
        drawer, chosen = draw.one_pair(unpaired)
        pairs.append((drawer, chosen))
        unpaired = [i for i in unpaired if i not in (drawer, chosen)]
    boards: list[tuple[str, str]] = []
    for x, y in pairs:
        pair, decision = allocate_colours(by_id[x], by_id[y], round_no, total_rounds, rng,
                                          scores, options.team)
        boards.append(pair)
        decisions.append(decision)
    boards.sort(key=lambda bd: (-max(scores[bd[0]], scores[bd[1]]),
                                min(number[bd[0]], number[bd[1]])))
    return ChineseSwissRound(round=round_no, boards=boards, bye=bye.id if bye else None,
                             decisions=decisions, seed=seed, numbers=number)


def _numbers(players: list[CSPlayer], decisions: list[Decision]) -> dict[str, int]:
    """The 编号 (draw numbers) of item 三（一）: those given, else by rating, then id (noted)."""
    if all(p.no is not None for p in players):
        return {p.id: p.no for p in players}  # type: ignore[misc]
    ordered = sorted(players, key=lambda p: (p.rating is None, -(p.rating or 0), p.id))
    decisions.append(Decision("order", "三（一）", tuple(p.id for p in ordered),
                              "no 编号 given: numbered by rating, then id"))
    return {p.id: i for i, p in enumerate(ordered, 1)}


def _pairing_scores(players: list[CSPlayer], draw_unit: float,
                    decisions: list[Decision]) -> dict[str, float]:
    """Each player's score for this pairing: a game still running counts as a draw,
    ``draw_unit`` points (item 六, "可暂时先按双方和局计分"), noted once per game."""
    scores: dict[str, float] = {}
    for p in players:
        scores[p.id] = float(p.score)
        if p.pending_opponent is not None:
            scores[p.id] += draw_unit
            if p.id < p.pending_opponent:
                decisions.append(Decision(
                    "provisional-draw", "六", (p.id, p.pending_opponent),
                    "game not finished: counted as a draw for this pairing only"))
    return scores


@dataclass
class _Draw:
    """The drawing of one later round (items 三（二）-（五）, 四, 五): who draws next and whom."""

    by_id: dict[str, CSPlayer]
    scores: dict[str, float]
    number: dict[str, int]
    options: CSOptions
    rng: random.Random
    decisions: list[Decision]
    round_no: int
    last_round: bool

    def one_pair(self, unpaired: list[str]) -> tuple[str, str]:
        """The next pair of ``unpaired`` (best first in pairing order): the drawer of the
        highest 积分段 and the opponent it draws."""
        segment, level = self._segment(unpaired)
        drawer = self._drawer(level)
        return drawer, self._opponent(drawer, unpaired, segment)

    def _segment(self, unpaired: list[str]) -> tuple[set[str], list[str]]:
        """The highest score level of ``unpaired`` (who draws) and its 积分段: the level, with the
        next ones while it is odd ("一个9分，三个8分 ... 均应作为一个积分段统筹考虑")."""
        scores = self.scores
        levels = sorted({scores[i] for i in unpaired}, reverse=True)
        segment = {i for i in unpaired if scores[i] == levels[0]}
        k = 1
        while len(segment) % 2 and k < len(levels):
            segment |= {i for i in unpaired if scores[i] == levels[k]}
            k += 1
        return segment, [i for i in unpaired if scores[i] == levels[0]]

    def _drawer(self, level: list[str]) -> str:
        """Who draws first (item 五): a 受限制号 (at most one possible same-score opponent
        left, "优先排，以免卡不通"), then the smaller of the more-red and more-black groups
        ("以少调多"), then the small numbers in odd rounds, the large ones in even rounds."""
        by_id = self.by_id

        def options_left(i: str) -> int:
            return sum(1 for j in level if j != i and _legal(by_id[i], by_id[j]))

        more_red = [i for i in level if colour_need(by_id[i].colours)[0] == "b"]
        more_black = [i for i in level if colour_need(by_id[i].colours)[0] == "r"]
        small = set() if len(more_red) == len(more_black) else \
            set(more_red if len(more_red) < len(more_black) else more_black)
        odd_round = self.round_no % 2 == 1

        def key(i: str) -> tuple[int, int, int]:
            restricted = len(level) > 1 and options_left(i) <= 1
            return (0 if restricted else 1, 0 if i in small else 1,
                    self.number[i] if odd_round else -self.number[i])

        drawer = min(level, key=key)
        if len(level) > 1 and options_left(drawer) <= 1:
            self.decisions.append(Decision("order", "五", (drawer,), "受限制号: drawn first"))
        return drawer

    def _tiers(self, drawer: str, rest: list[str]) -> list[list[str]]:
        """The drawer's possible opponents (not met before), nearest score first (近分), then
        (option) those of another club."""
        d, keyed = self.by_id[drawer], {}
        for j in rest:
            q = self.by_id[j]
            if not _legal(d, q):
                continue
            club = int(self.options.avoid_same_club and d.club is not None and d.club == q.club)
            keyed.setdefault((abs(self.scores[j] - self.scores[drawer]), club), []).append(j)
        return [keyed[k] for k in sorted(keyed)]

    def _colour_cost(self, x: CSPlayer, y: CSPlayer) -> int:
        """How badly ``x`` and ``y`` fit in colour (三（三）): the smaller colour excess when both
        want the same colour, else 0; in the last round only three in a row counts."""
        cx, nx_ = colour_need(x.colours)
        cy, ny = colour_need(y.colours)
        if cx is None or cy is None or cx != cy:
            return 0
        cost = min(nx_, ny)
        return 0 if self.last_round and cost < 3 else cost

    def _opponent(self, drawer: str, unpaired: list[str], segment: set[str]) -> str:
        """The opponent ``drawer`` draws: in the nearest tier where the rest of the field can
        still be paired completely and the segment keeps as many pairs as it could before
        (item 四（一）（二）, 受卡 三（二）), the fewest three-colours-in-a-row and the best colour
        fit; a lot among equals. The decisions taken are noted."""
        by_id, d = self.by_id, self.by_id[drawer]
        rest = [i for i in unpaired if i != drawer]
        target = _best(unpaired, by_id, segment)
        chosen: str | None = None
        skipped = 0
        for tier in self._tiers(drawer, rest):
            ok: list[tuple[int, int, str]] = []
            for j in tier:
                left = [i for i in rest if i != j]
                inside = int(drawer in segment and j in segment)
                got = _best(left, by_id, segment)
                if got[0] * 2 == len(left) and got[1] + inside == target[1]:
                    runs = got[2] + int(inside and _run3(d, by_id[j]))
                    ok.append((runs, self._colour_cost(d, by_id[j]), j))
            if not ok:
                skipped += len(tier)
                continue
            best = min(ok)[:2]
            ok_ids = [j for runs, cost, j in ok if (runs, cost) == best]
            chosen = ok_ids[0] if len(ok_ids) == 1 else self.rng.choice(ok_ids)
            if len(ok_ids) > 1:
                self.decisions.append(Decision("draw", "五", (drawer, *ok_ids),
                                               f"{drawer} draws {chosen} by lot from {len(ok_ids)}"))
            break
        if chosen is None:  # cannot happen: the pool was checked to be perfectly pairable
            raise ChineseSwissError(f"no legal opponent for {drawer} in round {self.round_no}")
        self._note(drawer, chosen, skipped)
        return chosen

    def _note(self, drawer: str, chosen: str, skipped: int) -> None:
        """The decisions a pair carries: closer candidates skipped (受卡), a float (近分), clubmates."""
        if skipped:
            self.decisions.append(Decision("adjust", "三（二）", (drawer, chosen),
                                           f"{skipped} closer candidate(s) skipped so that everyone "
                                           "can be paired (受卡)"))
        if self.scores[chosen] != self.scores[drawer]:
            self.decisions.append(Decision("float", "三（二）", (drawer, chosen),
                                           f"近分: {self.scores[drawer]:g} meets {self.scores[chosen]:g}"))
        d, q = self.by_id[drawer], self.by_id[chosen]
        if self.options.avoid_same_club and d.club is not None and d.club == q.club:
            self.decisions.append(Decision("club", "七", (drawer, chosen), "clubmates: unavoidable"))


def _pair_first(
    players: list[CSPlayer],
    total_rounds: int,
    seed: int,
    rng: random.Random,
    options: CSOptions,
    decisions: list[Decision],
) -> ChineseSwissRound:
    order = _order_round1(list(players), rng, decisions)
    number = {p.id: i for i, p in enumerate(order, 1)}
    bye = None
    if len(order) % 2:
        bye = order.pop()
        decisions.append(Decision("bye", "一", (bye.id,),
                                  f"odd field: bye to the last in order, {bye.id} (No. {number[bye.id]})"))
    half = len(order) // 2
    upper, lower = order[:half], order[half:]
    remaining = list(lower)

    def club_free_possible(ups: list[CSPlayer], lows: list[CSPlayer]) -> bool:
        graph = nx.Graph()
        graph.add_nodes_from([("u", p.id) for p in ups] + [("l", p.id) for p in lows])
        for u in ups:
            for lo in lows:
                if u.club is None or u.club != lo.club:
                    graph.add_edge(("u", u.id), ("l", lo.id))
        return len(nx.max_weight_matching(graph, maxcardinality=True)) == len(ups)

    boards: list[tuple[str, str]] = []
    for k, u in enumerate(upper):  # 单数轮次由小号先抽
        cands = remaining
        if options.avoid_same_club and u.club is not None:
            good = [lo for lo in remaining if lo.club != u.club and club_free_possible(
                upper[k + 1:], [x for x in remaining if x is not lo])]
            if good:
                if len(good) < len(remaining):
                    decisions.append(Decision("club", "七", (u.id,),
                                              "clubmates left out of the draw"))
                cands = good
        lo = rng.choice(cands)
        remaining.remove(lo)
        decisions.append(Decision("draw", "三（一）", (u.id, lo.id),
                                  f"No. {number[u.id]} draws No. {number[lo.id]} from the lower half"))
        if options.avoid_same_club and u.club is not None and u.club == lo.club:
            decisions.append(Decision("club", "七", (u.id, lo.id), "clubmates: unavoidable"))
        red_upper = rng.random() < 0.5
        pair = (u.id, lo.id) if red_upper else (lo.id, u.id)
        decisions.append(Decision("colour", "三（一）", pair, f"lot: {pair[0]} red"))
        boards.append(pair)
    return ChineseSwissRound(round=1, boards=boards, bye=bye.id if bye else None,
                             decisions=decisions, seed=seed, numbers=number)


# --------------------------------------------------------------------------------------------
# appendix 1 with two-game matches
# --------------------------------------------------------------------------------------------


def two_game_round_robin(
    n: int, seed: int | None = None
) -> list[list[tuple[tuple[int, int], tuple[int, int]]]]:
    """Round robin of two-game matches: per round, per board ``(game1, game2)`` as
    ``(red_no, black_no)`` pairs; game 2 swaps the colours of game 1.

    Appendix 1 (一): "若比赛是两局制，则各轮第一局执红棋先走者，在第二轮改执黑棋后走" -- game 1
    follows the table (the first-listed number is red, 13.1).  Article 13.5: "两局制比赛，不论
    个人赛还是团体赛，第一局猜先，第二局互换先后走" -- with a ``seed`` game 1's red is drawn by lot
    (``random.Random(seed)``, one draw per board in table order) instead.  Odd ``n``: the pair
    with the phantom 最大号 is left out (appendix 1 (二)).
    """
    from services.pairing.core import PairingError, berger_table

    try:
        table = berger_table(n)
    except PairingError as exc:
        raise ChineseSwissError(str(exc)) from exc
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise ChineseSwissError(f"seed must be an int or None, got {seed!r}")
    rng = random.Random(seed) if seed is not None else None
    phantom = n + 1 if n % 2 else None
    out = []
    for pairs in table:
        games = []
        for a, b in pairs:
            if phantom in (a, b):
                continue
            if rng is not None and rng.random() < 0.5:
                a, b = b, a
            games.append(((a, b), (b, a)))
        out.append(games)
    return out
