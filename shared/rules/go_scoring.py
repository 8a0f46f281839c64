"""Go scoring at the end of a game: Chinese area counting, Japanese territory counting, Ing
fill-in counting; seki detection (pure, no I/O).

Sources (../shared/rules/):

* Chinese rules 1988 art. 8-9 and 2002 art. 9 (数子法): the dead stones are taken off; each side
  counts its live stones plus the empty points they surround, "one point is one stone" (一个点即为
  一子); empty points between both sides' live stones (单官/公气) are split half and half; the
  baseline (归本数) is half the points of the board, 180.5 on 19x19: more wins, equal draws, less
  loses.  Art. 11 (1988): Black gives 2¾ stones (= 5.5 points); today's events give 3¾ stones
  (= 7.5 points, ``DEFAULT_KOMI["chinese"]``).  Art. 21.2: points still open between both sides
  when both declare the end are treated as seki (按双活处理), i.e. shared.
* Japanese rules 1989 art. 8 (地: empty points surrounded by a live group are its 目; a live group
  touching a dame point 单官 is in seki 双活 and its 目 are *not* territory), art. 10 (dead stones
  taken out of territory join the prisoners, prisoners fill the opponent's territory; compare;
  equal = 和棋 draw); komi 6.5 points by default.
* Ing rules art. 4 (子空皆地、填满计点): stones and surrounded points are both counted; the two
  sides' points add up to the points of the board; their difference is the margin; compensation 8
  points; "几无和棋" (almost no draws: with all dame filled a 19x19 board has an odd number of
  points, so B - W - 8 is never 0; a seki's shared points, split, can give a draw).

Seki (双活) detection, used by every ruleset: an empty region touching both colours is a seki
region when it has a point which neither side can fill without leaving its own chain with at most
one liberty and capturing nothing (self-atari): the groups live by sharing liberties.  Its
points are shared (dame) under area counting; under Japanese rules they and the eyes of the
groups touching them are no one's territory (art. 8).

Units: every score is in **points**; the Chinese result is also given in stones (子 = points / 2
against the baseline).  Komi is in points (``komi_from_stones(2.75) == 5.5``).
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction

from contracts.messages import Rule
from shared.rules.go import (
    AGA, BLACK, KOR, NZ, TT, WHITE, Board, GoError, IllegalMove, Point, _check_point, _neighbours,
    C02, C88, ING, J89, _r, chain_at, check_komi, default_komi, komi_rule, spec, to_gtp,
)

__all__ = ["Score", "score", "ownership", "seki_regions", "komi_from_stones", "SCORING_RULES",
           "chinese_stones_text", "format_result", "handicap_bonus"]

#: Scoring articles, by decision (see also :data:`shared.rules.go.RULES`).
SCORING_RULES: dict[str, Rule] = {
    "chinese:dead": _r(C88, "8", "stones that cannot avoid capture, as both players confirm, are dead"),
    "chinese:count": _r(C88, "9", "数子法: live stones plus surrounded points; points between both split (2002 art. 9)"),
    "chinese:baseline": _r(C88, "9", "归本数: half the board (180.5 on 19x19): more wins, equal draws"),
    "chinese:open-points": _r(C88, "21.2", "points still open at the end are treated as seki (shared)"),
    "chinese:handicap": _r(C02, "9", "采用贴子方式的竞赛另行规定: handicap games give back half the handicap stones"),
    "japanese:dead": _r(J89, "7-1", "stones that can be captured are dead; confirmed after play stops (9-2)"),
    "japanese:territory": _r(J89, "8", "目 surrounded by live stones; no territory in seki (双活)"),
    "japanese:count": _r(J89, "10", "dead stones join the prisoners; prisoners fill territory; compare (10-2)"),
    "japanese:komi": _r(J89, "10", "komi 6.5 points by event rule"),
    "ing:count": _r(ING, "4", "子空皆地、填满计点: stones and surrounded points; both sum to the board"),
    "ing:komi": _r(ING, "4", "8-point compensation; 几无和棋"),
    "chinese:seki": _r(C88, "21.2", "双活: points open between both sides are treated as seki (shared)"),
    "japanese:seki": _r(J89, "8", "双活: a live group touching a dame point is in seki; its 目 are not territory"),
    "ing:seki": _r(ING, "4", "子空皆地: points shared in seki are split between both sides"),
    "tromp-taylor:count": _r(TT, "9", "a player's score: the points of her colour plus the empty "
                                      "points that reach only her colour; no stone is taken off"),
    "tromp-taylor:komi": _r(TT, "10", "the higher score wins, equal scores tie; komi, which the "
                                      "rules leave to the event, is added to White's score"),
    "tromp-taylor:seki": _r(TT, "9", "empty points reaching both colours count for neither"),
    "aga:dead": _r(AGA, "9", "stones both players agree are dead are removed"),
    "aga:count": _r(AGA, "12", "area counting: stones on the board plus surrounded empty points; "
                               "equal to territory counting with pass stones (rule 7)"),
    "aga:komi": _r(AGA, "3", "compensation 7.5 points in an even game, 0.5 with handicap (2004)"),
    "aga:handicap": _r(AGA, "4", "area counting: White receives one point for each handicap "
                                 "stone after the first (N-1)"),
    "aga:seki": _r(AGA, "12", "eyes of groups in seki are counted; shared points count for neither"),
    "nz:dead": _r(NZ, "End", "stones both players agree are dead are removed"),
    "nz:count": _r(NZ, "Score", "area counting: stones plus the empty points they surround"),
    "nz:komi": _r(NZ, "Komi", "7 points to White; equal scores are a draw"),
    "nz:seki": _r(NZ, "Score", "empty points touching both colours count for neither"),
}
# Korean rules: territory counting as the Japanese 1989 rules ("J89 10"); komi 6.5
SCORING_RULES.update({k.replace("japanese:", "korean:"): r.model_copy(update={
    "ruleset": KOR, "article": f"J89 {r.article}", "summary": f"as Japanese 1989 art. {r.article}: {r.summary}"})
    for k, r in list(SCORING_RULES.items()) if k.startswith("japanese:")})


def komi_from_stones(stones: float) -> float:
    """Komi in points from komi in stones (Chinese rules: one stone = two points against the
    baseline; 1988 art. 11: 2¾ stones -> 5.5 points)."""
    return float(stones) * 2.0


def format_result(margin: float) -> str:
    """"B+3.5", "W+0.5", "B+2" or "Draw" from Black's margin in points."""
    if margin == 0:
        return "Draw"
    v = abs(margin)
    txt = f"{v:g}" if v != int(v) else str(int(v))
    return ("B+" if margin > 0 else "W+") + txt


def chinese_stones_text(margin_stones: float) -> str:
    """The Chinese way of giving a result in stones: 黑胜2又3/4子, 白胜1/4子, 和棋."""
    if margin_stones == 0:
        return "和棋"
    who = "黑胜" if margin_stones > 0 else "白胜"
    f = Fraction(abs(margin_stones)).limit_denominator(8)
    whole, frac = divmod(f, 1)
    if frac == 0:
        return f"{who}{whole}子"
    frac_txt = f"{frac.numerator}/{frac.denominator}"
    return f"{who}{whole}又{frac_txt}子" if whole else f"{who}{frac_txt}子"


@dataclass(frozen=True)
class Score:
    """A counted result.

    ``black``, ``white``: points (komi and handicap compensation included in White's);
    ``margin`` = black - white (points); ``result``: "B+3.5", "W+0.5" or "Draw"; ``rule``: the
    articles applied; ``detail``: stones, territory, dame, seki points, prisoners, dead stones per
    colour and, under Chinese rules, the count in stones (``black_stones``, ``baseline``,
    ``komi_stones``, ``margin_stones``, ``result_stones``); ``ownership``: point -> "black" /
    "white" / "dame" / "seki".
    """

    black: float
    white: float
    result: str
    margin: float
    rule: str
    detail: dict = field(default_factory=dict)
    ownership: dict = field(default_factory=dict)
    rules: tuple[Rule, ...] = ()


# ----------------------------------------------------------------------------------- analysis
def _cells(board: Board) -> list[int]:
    n = board.size
    cells = [0] * (n * n)
    for (c, r), col in board.stones.items():
        cells[r * n + c] = 1 if col == BLACK else 2
    return cells


_chain = chain_at  # flood fill of a chain and its liberties (shared with the engine)


def _regions(cells: list[int], nb) -> list[tuple[list[int], set[int]]]:
    """Connected empty regions with the colour codes (1, 2) bordering each."""
    seen: set[int] = set()
    out = []
    for i, v in enumerate(cells):
        if v or i in seen:
            continue
        stack, reg, border = [i], [i], set()
        seen.add(i)
        while stack:
            j = stack.pop()
            for k in nb[j]:
                w = cells[k]
                if w:
                    border.add(w)
                elif k not in seen:
                    seen.add(k)
                    reg.append(k)
                    stack.append(k)
        out.append((reg, border))
    return out


def _self_atari(cells: list[int], nb, p: int, colour: int) -> bool:
    """Would a ``colour`` stone on empty ``p`` capture nothing and leave its chain <= 1 liberty?"""
    opp = 3 - colour
    cells[p] = colour
    try:
        for k in nb[p]:
            if cells[k] == opp and not _chain(cells, nb, k)[1]:
                return False
        return len(_chain(cells, nb, p)[1]) <= 1
    finally:
        cells[p] = 0


def _eye_seki(cells: list[int], nb, reg: list[int], region_of: dict[int, int],
              borders: list[set[int]], sizes: list[int]) -> bool:
    """Seki by the liberties of the groups around shared region ``reg``: every chain touching it
    has all its liberties in shared regions (touching both colours) or in one eye (a region
    touching only its colour) of at most 3 points, and the chains of both colours have eyes of
    the same size, or all have none and at least two (shared) liberties.  Then whoever fills the
    shared liberties first runs out of liberties first: one eye each, the last shared point
    filled leaves the filler with its eye only and the opponent captures it; no eyes, the
    filler of the second-last shared liberty is left in atari (双活)."""
    chains: dict[int, tuple[set[int], set[int]]] = {}
    seen: set[int] = set()
    for p in reg:
        for k in nb[p]:
            if cells[k] and k not in seen:
                ch, libs = _chain(cells, nb, k)
                seen |= ch
                chains[k] = (ch, libs)
    eye_size = {1: set(), 2: set()}
    for k, (_ch, libs) in chains.items():
        colour = cells[k]
        eyes = {region_of[i] for i in libs if borders[region_of[i]] == {colour}}
        shared = all(borders[region_of[i]] == {1, 2} for i in libs
                     if region_of[i] not in eyes)
        if len(eyes) > 1 or not shared or (not eyes and len(libs) < 2):
            return False
        eye_size[colour].add(sizes[next(iter(eyes))] if eyes else 0)
    return (len(eye_size[1]) == len(eye_size[2]) == 1 and eye_size[1] == eye_size[2]
            and max(eye_size[1]) <= 3)


def _seki(cells: list[int], nb, regions) -> tuple[set[int], set[int]]:
    """(indices of seki region points, indices of stones of the chains in seki).

    A shared region (touching both colours) is in seki when one of its points can be filled by
    neither side without self-atari (a single shared liberty), or, by the groups' liberties
    (:func:`_eye_seki`), when the groups around it each live by one eye of the same size and
    share the region's liberties (any number of shared points)."""
    region_of: dict[int, int] = {}
    for n, (reg, _b) in enumerate(regions):
        for i in reg:
            region_of[i] = n
    borders = [b for _r, b in regions]
    sizes = [len(r) for r, _b in regions]
    seki_pts: set[int] = set()
    for reg, border in regions:
        if border != {1, 2}:
            continue
        for p in reg:
            touch = {cells[k] for k in nb[p] if cells[k]}
            if touch == {1, 2} and all(_self_atari(cells, nb, p, c) for c in (1, 2)):
                seki_pts.update(reg)
                break
        else:
            if _eye_seki(cells, nb, reg, region_of, borders, sizes):
                seki_pts.update(reg)
    seki_stones: set[int] = set()
    for p in seki_pts:
        for k in nb[p]:
            if cells[k] and k not in seki_stones:
                seki_stones |= _chain(cells, nb, k)[0]
    return seki_pts, seki_stones


def _dead_indices(board: Board, dead: Iterable[Point], cells: list[int]) -> set[int]:
    n, nb = board.size, _neighbours(board.size)
    out: set[int] = set()
    for p in dead:
        try:
            _check_point(p, n)
        except IllegalMove as e:
            raise GoError(f"dead stone {p!r}: {e}") from None
        i = p[1] * n + p[0]
        if not cells[i]:
            raise GoError(f"dead stone marked on {to_gtp(p, n)}, which holds no stone")
        if i not in out:
            out |= _chain(cells, nb, i)[0]  # a chain lives or dies as a whole (art. 8)
    return out


def seki_regions(board: Board, dead: Iterable[Point] = ()) -> list[frozenset[Point]]:
    """The empty regions in seki (双活) once ``dead`` stones (whole chains) are taken off."""
    n, nb = board.size, _neighbours(board.size)
    cells = _cells(board)
    for i in _dead_indices(board, dead, cells):
        cells[i] = 0
    regions = _regions(cells, nb)
    seki_pts, _ = _seki(cells, nb, regions)
    return [frozenset((i % n, i // n) for i in reg) for reg, _b in regions if reg[0] in seki_pts]


def _analyse(board: Board, dead: Iterable[Point], rules: str) -> dict:
    n, nb = board.size, _neighbours(board.size)
    cells = _cells(board)
    dead_idx = _dead_indices(board, dead, cells)
    dead_count = {BLACK: 0, WHITE: 0}
    for i in dead_idx:
        dead_count[BLACK if cells[i] == 1 else WHITE] += 1
        cells[i] = 0
    regions = _regions(cells, nb)
    seki_pts, seki_stones = _seki(cells, nb, regions)
    own: dict[int, str] = {}
    terr = {BLACK: 0, WHITE: 0}
    eyes_in_seki = {BLACK: 0, WHITE: 0}
    dame = shared_seki = 0
    for reg, border in regions:
        if reg[0] in seki_pts:
            shared_seki += len(reg)
            for i in reg:
                own[i] = "seki"
            continue
        if border == {1} or border == {2}:
            colour = BLACK if border == {1} else WHITE
            in_seki = any(cells[k] and k in seki_stones for i in reg for k in nb[i])
            if in_seki:
                eyes_in_seki[colour] += len(reg)
            if in_seki and spec(rules).scoring == "territory":
                label = "seki"  # art. 8: the 目 of a group in seki are not territory
            else:
                label = colour
                terr[colour] += len(reg)
            for i in reg:
                own[i] = label
            continue
        dame += len(reg)
        for i in reg:
            own[i] = "dame"
    stones = {BLACK: 0, WHITE: 0}
    for i, v in enumerate(cells):
        if v:
            colour = BLACK if v == 1 else WHITE
            stones[colour] += 1
            own[i] = colour
    ownership = {(i % n, i // n): own[i] for i in range(n * n)}
    return {
        "stones": stones, "territory": terr, "dame": dame, "seki_points": shared_seki,
        "seki_eyes": eyes_in_seki, "seki_stones": len(seki_stones), "dead": dead_count,
        "prisoners": board.prisoners, "ownership": ownership,
    }


def ownership(board: Board, dead: Iterable[Point] = (), rules: str = "chinese") -> dict[Point, str]:
    """Point -> "black" / "white" / "dame" / "seki" after taking ``dead`` chains off."""
    return _analyse(board, dead, rules)["ownership"]


# ----------------------------------------------------------------------------------- scoring
def score(board: Board, rules: str | None = None, komi: float | None = None, dead: Iterable[Point] = (),
          *, handicap: int = 0) -> Score:
    """Count a finished game.

    ``rules``: one of :data:`shared.rules.go.RULESETS`, default ``board.rules``: territory
    counting under Japanese (1989 art. 8/10) and Korean rules, area counting under the others
    (Chinese 1988/2002 art. 9, Ing art. 4, Tromp-Taylor rule 9, AGA rule 12, New Zealand);
    points touching both colours are halved under Chinese and Ing rules and count for no one
    under Tromp-Taylor, AGA and New Zealand rules (:class:`shared.rules.go.Spec`).  ``komi``:
    points given to White (default :func:`shared.rules.go.default_komi`).  ``dead``: points of
    dead stones; each marks its whole chain.  ``handicap``: handicap stones; White receives N
    points for N stones under Chinese rules (2002 art. 9: half the stones given back), N-1 under
    AGA rules (rule 4), none otherwise.  Raises GoError for an unknown ruleset, a bad komi or
    handicap, a dead point without a stone, or any dead stone under Tromp-Taylor rules (rule 9:
    every stone on the board counts).
    """
    rules = board.rules if rules is None else rules
    sp = spec(rules)
    if not isinstance(handicap, int) or isinstance(handicap, bool) or handicap < 0:
        raise GoError(f"handicap must be a whole number of stones >= 0, got {handicap!r}")
    dead = list(dead)
    if dead and not sp.dead_removed:
        raise GoError(f"{rules} rules count every stone on the board (Tromp-Taylor rule 9): no "
                      f"dead stones are taken off, they are captured in play")
    komi = check_komi(default_komi(rules, handicap) if komi is None else komi, board.size)
    a = _analyse(board, dead, rules)
    detail = {k: v for k, v in a.items() if k != "ownership"}
    detail["komi"] = komi
    if sp.scoring == "territory":
        black, white, applied = _territory(a, komi, rules)
    else:
        black, white, applied = _area(a, komi, handicap, rules, board, detail)
    if a["seki_points"] or a["seki_stones"]:
        applied.append(SCORING_RULES[f"{rules}:seki"])  # the game's own ruleset's article
    margin = black - white
    cites = [f"{r.ruleset} art. {r.article}" for r in applied]
    rule = "; ".join(dict.fromkeys(cites))  # each article once, in order
    return Score(black=black, white=white, result=format_result(margin), margin=margin, rule=rule,
                 detail=detail, ownership=a["ownership"], rules=tuple(applied))


def _territory(a: dict, komi: float, rules: str) -> tuple[float, float, list[Rule]]:
    """Territory plus prisoners plus the opponent's dead stones (Japanese 1989 art. 10)."""
    te, pr, de = a["territory"], a["prisoners"], a["dead"]
    black = te[BLACK] + pr[BLACK] + de[WHITE]
    white = te[WHITE] + pr[WHITE] + de[BLACK] + komi
    keys = ("dead", "territory", "count", "komi")
    return black, white, [SCORING_RULES[f"{rules}:{k}"] for k in keys]


def handicap_bonus(rules: str, handicap: int) -> int:
    """Points White receives for ``handicap`` stones under ``rules`` (0 with fewer than 2):
    N under Chinese rules (2002 art. 9), N-1 under AGA rules (rule 4), else 0."""
    if handicap < 2:
        return 0
    return {"N": handicap, "N-1": handicap - 1, "0": 0}[spec(rules).handicap_bonus]


def pass_stones_owed(board: Board) -> int:
    """1 when Black made the last pass of two or more in a row, so that White hands over one
    more pass stone (AGA rule 8: White passes last), else 0."""
    moves = board.moves
    return int(board.consecutive_passes >= 2 and moves[-1].colour == BLACK)


def _area(a: dict, komi: float, handicap: int, rules: str, board: Board,
          detail: dict) -> tuple[float, float, list[Rule]]:
    """Stones plus surrounded points; shared points halved where the ruleset says (Chinese
    1988 art. 21.2, Ing) else no one's; the handicap bonus and komi to White. Adds the area, the
    bonus, under AGA rules the territory count with pass stones (``territory_count``: territory
    plus prisoners, pass stones included, plus the opponent's dead stones, komi and bonus not
    included; rule 12 makes its margin equal the area margin) and (Chinese) the count in stones
    to ``detail``."""
    st, te = a["stones"], a["territory"]
    if spec(rules).pass_stone:
        pr, de = a["prisoners"], a["dead"]
        detail["territory_count"] = {BLACK: te[BLACK] + pr[BLACK] + pass_stones_owed(board) + de[WHITE],
                                     WHITE: te[WHITE] + pr[WHITE] + de[BLACK]}
    shared = a["dame"] + a["seki_points"]
    half = shared / 2 if spec(rules).dame_shared else 0
    area_b, area_w = st[BLACK] + te[BLACK] + half, st[WHITE] + te[WHITE] + half
    comp = float(handicap_bonus(rules, handicap))
    black, white = area_b, area_w + komi + comp
    detail.update(area={BLACK: area_b, WHITE: area_w}, handicap_compensation=comp)
    if rules != "chinese":
        keys = ("dead", "count", "handicap" if comp else "", "komi")
        return black, white, [SCORING_RULES[f"{rules}:{k}"] for k in keys if f"{rules}:{k}" in SCORING_RULES]
    margin_stones = (black - white) / 2
    total = board.size ** 2
    detail.update(black_stones=area_b, baseline=total / 2, komi_stones=komi / 2,
                  margin_stones=margin_stones, result_stones=chinese_stones_text(margin_stones),
                  black_needs_more_than=total / 2 + (komi + comp) / 2)
    keys = ["chinese:dead", "chinese:count", "chinese:baseline"]
    if shared:
        keys.append("chinese:open-points")
    if comp:
        keys.append("chinese:handicap")
    return black, white, [SCORING_RULES[k] for k in keys] + [komi_rule(komi, "chinese")]


# ----------------------------------------------------------------------------- life analysis
def _flood(cells: list[int], nb, i: int, wall: tuple[int, ...]) -> tuple[set[int], set[int]]:
    """The cells reached from cell ``i`` through cells whose value is not in ``wall`` (colour
    codes: 0 empty, 1 black, 2 white), and the wall cells touching them: (reached, wall cells)."""
    stack, pts, edge = [i], {i}, set()
    while stack:
        j = stack.pop()
        for k in nb[j]:
            if cells[k] in wall:
                edge.add(k)
            elif k not in pts:
                pts.add(k)
                stack.append(k)
    return pts, edge


def benson_alive(board: Board, colour: str) -> set[Point]:
    """Stones of ``colour`` that are unconditionally alive (Benson 1976, "Life in the game of Go"):
    they cannot be captured even if their owner always passes.  Chains are kept while they have
    at least two *vital* enclosed regions (every empty point of the region is a liberty of the
    chain) and every region kept is bordered only by chains kept.  Returns the stones' points."""
    n, nb = board.size, _neighbours(board.size)
    cells = _cells(board)
    me = 1 if colour == BLACK else 2
    chain_of, chains = _chains_of(cells, nb, me)
    regions = _enclosed_regions(cells, nb, me, chain_of)
    vital: dict[int, set[int]] = {c: set() for c in chains}
    for rid, (pts, border) in regions.items():
        empties = [p for p in pts if cells[p] == 0]
        for c in border:
            if all(p in chains[c][1] for p in empties):
                vital[c].add(rid)
    live = _benson_fixpoint(vital, regions)
    return {(k % n, k // n) for c in live for k in chains[c][0]}


def _chains_of(cells: list[int], nb, me: int) -> tuple[dict[int, int], dict[int, tuple[set[int], set[int]]]]:
    """The chains of colour code ``me``: (cell -> chain id, chain id -> (stones, liberties)), a
    chain's id being its lowest cell index."""
    chain_of: dict[int, int] = {}
    chains: dict[int, tuple[set[int], set[int]]] = {}
    for i, v in enumerate(cells):
        if v == me and i not in chain_of:
            ch, libs = _chain(cells, nb, i)
            for k in ch:
                chain_of[k] = i
            chains[i] = (ch, libs)
    return chain_of, chains


def _enclosed_regions(cells: list[int], nb, me: int,
                      chain_of: dict[int, int]) -> dict[int, tuple[set[int], set[int]]]:
    """Benson's regions: the connected areas of cells not of colour code ``me``, each as
    region id (lowest cell) -> (its cells, the ids of the chains bordering it)."""
    regions: dict[int, tuple[set[int], set[int]]] = {}
    seen: set[int] = set()
    for i, v in enumerate(cells):
        if v == me or i in seen:
            continue
        pts, edge = _flood(cells, nb, i, (me,))
        seen |= pts
        regions[i] = (pts, {chain_of[k] for k in edge})
    return regions


def _benson_fixpoint(vital: dict[int, set[int]], regions: dict[int, tuple[set[int], set[int]]]) -> set[int]:
    """Benson's algorithm: drop chains with fewer than two vital regions kept and regions
    bordered by a chain dropped, until nothing changes; the chain ids left are alive."""
    live_chains, live_regions = set(vital), set(regions)
    changed = True
    while changed:
        changed = False
        for c in list(live_chains):
            if len(vital[c] & live_regions) < 2:
                live_chains.discard(c)
                changed = True
        for rid in list(live_regions):
            if not regions[rid][1] <= live_chains:
                live_regions.discard(rid)
                changed = True
    return live_chains


def estimate_dead(board: Board, method: str = "static", *, playouts: int | None = None,
                  seed: int | None = None) -> set[Point]:
    """An estimate of the dead stones of a finished game (not a rule: the rules leave the
    decision to the players, Chinese 1988 art. 8/21.3, Japanese 1989 art. 9-2).

    ``method="playouts"``: Monte-Carlo ownership, ``playouts`` random games from ``seed``
    (defaults 200 and 0; see :func:`shared.rules.go_ownership.estimate_dead_by_playouts`), the
    better reading of the two (18 of the 30 GNU Go regression boards scored exactly, against 4).
    ``method="static"`` (default, instant), described below.  Raises GoError for another method.

    A chain is *dead* when it is not unconditionally alive (:func:`benson_alive`) and the area it
    can reach through empty points and stones of its own colour (bounded by opponent stones and
    the edge) contains no unconditionally alive stones of its colour and fewer than two eyes (empty
    regions inside the area touching only its colour).  When such areas of both colours touch
    each other (a capturing race or seki) neither is marked dead.  Returns the dead stones' points.
    """
    if method == "playouts":
        from shared.rules import go_ownership as mc

        return set(mc.estimate_dead_by_playouts(
            board, mc.DEFAULT_PLAYOUTS if playouts is None else playouts,
            mc.DEFAULT_SEED if seed is None else seed).dead)
    if method != "static":
        raise GoError(f"unknown dead-stone estimate {method!r}: static or playouts")
    return _estimate_dead_static(board)


def _estimate_dead_static(board: Board) -> set[Point]:
    """The ``method="static"`` estimate of :func:`estimate_dead`: the stones of eyeless areas
    (fewer than two eyes, no unconditionally alive stone) that touch no eyeless area of the other
    colour (a race or seki leaves both alive)."""
    n, nb = board.size, _neighbours(board.size)
    cells = _cells(board)
    alive = {1: {p[1] * n + p[0] for p in benson_alive(board, BLACK)},
             2: {p[1] * n + p[0] for p in benson_alive(board, WHITE)}}
    candidate: dict[int, set[int]] = {1: set(), 2: set()}
    area_touch: dict[int, list[tuple[set[int], set[int]]]] = {1: [], 2: []}
    done: set[int] = set()
    for i, v in enumerate(cells):
        if not v or i in done or i in alive[v]:
            continue
        area, touches = _flood(cells, nb, i, (3 - v,))
        stones = {k for k in area if cells[k] == v}
        done |= stones
        if stones & alive[v]:
            continue
        if _eyes(cells, nb, area, 3 - v) < 2:
            candidate[v] |= stones
            area_touch[v].append((stones, touches))
    dead: set[int] = set()
    for v in (1, 2):
        for stones, touches in area_touch[v]:
            if touches & candidate[3 - v]:
                continue  # both sides look eyeless here: a race or seki, leave both alive
            dead |= stones
    return {(k % n, k // n) for k in dead}


def _eyes(cells: list[int], nb, area: set[int], opp: int) -> int:
    """How many eyes ``area`` holds: its connected empty regions touching no stone of colour
    code ``opp``."""
    eyes = 0
    seen: set[int] = set()
    for k in area:
        if cells[k] or k in seen:
            continue
        reg, edge = _flood(cells, nb, k, (1, 2))
        seen |= reg
        if all(cells[m] != opp for m in edge):
            eyes += 1
    return eyes
