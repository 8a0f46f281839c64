"""Go (围棋) rules engine: board, liberties, captures, suicide, ko, superko, passes (pure, no I/O).

Sources (../shared/rules/):

* 中国围棋竞赛规则 (1988), chess-laws-and-go-rules-1988-zh.txt, and 中国围棋规则 (2002),
  go-rules-china-2002-japan-1989-ing.txt: art. 2 play (Black first, alternate, one stone a move,
  passing allowed, 2.4), art. 3 liberties (气) and connected stones, art. 4 captures (提子; 4.2: when
  both sides are left without liberties the *opponent's* stones are taken), art. 5 forbidden points
  (禁着点: a stone left without liberties that captures nothing), art. 6 no repetition of a whole-board
  position (禁止全局同形再现 = positional superko); arbiter articles 17.1 (playing twice loses),
  19 (a move on a forbidden point is void and the turn is lost: 着手无效，弃权一次), 20.1 (an
  immediate ko recapture is void, the turn lost), 20.3 (triple ko, eternal life ... : draw or
  replay), 21.1 (the end: the side to move confirms it and passes; play ends when both confirm).
  The 2002 text stored here keeps only its chapter 1 (art. 1-9 titles and art. 9 in full): art. 9
  counts the same way and leaves the komi to the competition (采用贴子方式的围棋竞赛,另行制定胜负标准),
  under which current Chinese events give 3¾ stones = 7.5 points; the 1988 rules' art. 11 set
  2¾ stones = 5.5 points.
* 日本围棋规则 (1989): art. 4/5 existence and capture of stones, art. 6 ko (劫: the stone taken in a ko
  may not be retaken at once), art. 9-1 two passes stop play, art. 12 no result for an endless
  repetition agreed by both players.
* 应氏规则 (Ing): art. 2 气尽提取 (stones whose liberties are all filled are taken, both the opponent's
  and, after a multi-stone suicide, one's own), art. 3 打劫 (ko, simple ko here).  Suicide of a single
  stone is refused under Ing rules too: it takes the stone straight off and leaves the board as it
  was, i.e. a pass that repeats the position (Ing art. 3 "覆子" repetition), so only a suicide of two
  or more stones is a move.  The stored Ing text is a summary; this reading is stated, not quoted.

Rulesets whose texts are not in ../shared/rules, implemented from their published texts as
cited in :data:`RULES` (article numbers as we know them; see :data:`SPECS` for what each changes):

* Tromp-Taylor rules (J. Tromp and B. Taylor, "The Rules of Go", the ten logical rules; CGOS and
  KataGo's default): rule 6 a move may not repeat an earlier board colouring (positional superko),
  rule 7 a move clears the opponent's colour, then one's own (suicide of any size is a move; a
  single-stone suicide repeats the board and so is refused by rule 6), rule 8 two passes end the
  game, rule 9 every stone on the board counts (no dead stones are removed) plus the empty points
  that reach only that colour, rule 10 equal scores are a tie.
* AGA rules (American Go Association Rules of Go, 1991, komi revised to 7.5 in 2004): rule 5 self-
  capture is illegal, rule 6 a play may not recreate a board position the player created on a
  previous play (situational superko), rule 7 a pass hands the opponent one stone as a prisoner,
  rule 8 two passes in a row stop play and White passes last (one more pass stone when Black
  passed last), rule 12 area counting (equal to territory counting with the pass stones), rule
  3 komi (7.5; 0.5 in handicap
  games), rule 4 handicap: under area counting White receives N-1 points for N stones.
* New Zealand rules (NZ Go Society): area counting, suicide allowed, a play may not recreate an
  earlier position with the same player to move (situational superko), komi 7 (ties possible).
* Korean rules (Korea Baduk Association): territory counting as the Japanese 1989 rules, simple
  ko, a repeated position without result, komi 6.5.  The Korean text is not in ../shared/rules;
  the articles cited are those of the Japanese 1989 rules it follows.

Coordinates
-----------
``Point = (column, row)``, both 0-based; row 0 is the *bottom* row (GTP row 1), column 0 is GTP "A".
GTP letters skip "I" (A..H, J..Z: boards up to 25).  SGF coordinates count rows from the *top*:
``"aa"`` is the top-left point.  ``None`` is a pass.

Colours are the platform's seat names ``"black"`` / ``"white"``.  Black moves first unless handicap
stones were placed (then White, Japanese/Chinese custom).

Errors: :class:`GoError` (a ``ValueError``) for bad board text or setup; :class:`IllegalMove` (a
``GoError``) with ``reason`` and ``article`` for a refused move (the board is unchanged then).
"""
from __future__ import annotations

import random
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple

from contracts.messages import Rule
from shared.errors import RulesError

__all__ = [
    "BLACK", "WHITE", "EMPTY", "RULESETS", "DEFAULT_KOMI", "GoError", "IllegalMove", "Point",
    "Played", "Group", "Board", "Cycle", "chain_at", "parse_point", "to_gtp", "to_sgf", "handicap_points",
    "other", "RULES", "rule_for", "article_for", "endless_cycle", "GTP_LETTERS", "MIN_SIZE",
    "MAX_SIZE", "check_komi", "komi_rule", "DEFAULT_STONE_REMOVAL_S", "PLATFORM",
]

BLACK, WHITE = "black", "white"
EMPTY = "empty"
RULESETS = ("chinese", "japanese", "ing", "tromp-taylor", "aga", "nz", "korean")
#: Default komi in points (Chinese: 3¾ stones = 7.5 points, the standard of current events under
#: the 2002 rules' art. 9, see :func:`komi_rule`; Japanese 6.5; Ing 8; Tromp-Taylor, whose text
#: sets none, 7.5 as CGOS and KataGo; AGA 7.5 (rule 3, 2004); NZ 7; Korean 6.5).
DEFAULT_KOMI = {"chinese": 7.5, "japanese": 6.5, "ing": 8.0, "tromp-taylor": 7.5, "aga": 7.5,
                "nz": 7.0, "korean": 6.5}
#: Default komi in a handicap game: AGA rule 3 gives White 0.5; the others 0.
HANDICAP_KOMI = {"aga": 0.5}


class Spec(NamedTuple):
    """What a ruleset changes in play and counting.

    ``ko``: "simple" (the stone just taken may not be retaken at once), "positional" (no earlier
    board position may recur) or "situational" (no position the mover created before may recur);
    ``suicide``: "none", "multi" (two or more stones, Ing) or "any"; ``scoring``: "area" or
    "territory"; ``dame_shared``: under area counting, empty points touching both colours are
    halved (Chinese 1988 art. 21.2, Ing) rather than no one's; ``dead_removed``: dead stones are
    agreed and taken off (False: every stone on the board counts, Tromp-Taylor rule 9);
    ``pass_stone``: a pass hands the opponent a prisoner (AGA rule 7); ``white_passes_last``: when
    Black made the last of the passes that stopped play, White hands over one more pass stone
    (AGA rule 8; it changes a territory count, not the area count); ``handicap_bonus``:
    points White receives for N handicap stones: "N", "N-1" or "0"; ``cycle``: what an endless
    cycle gives: "draw-or-replay" (Chinese 1988 art. 20.3), "no-result" (Japanese 1989 art. 12),
    "arbiter" (Ing art. 3) or "illegal" (superko: the move closing the cycle is refused)."""

    ko: str
    suicide: str
    scoring: str
    dame_shared: bool
    dead_removed: bool
    pass_stone: bool
    white_passes_last: bool
    handicap_bonus: str
    cycle: str


SPECS: dict[str, Spec] = {
    "chinese": Spec("positional", "none", "area", True, True, False, False, "N", "draw-or-replay"),
    "japanese": Spec("simple", "none", "territory", False, True, False, False, "0", "no-result"),
    "ing": Spec("simple", "multi", "area", True, True, False, False, "0", "arbiter"),
    "tromp-taylor": Spec("positional", "any", "area", False, False, False, False, "0", "illegal"),
    "aga": Spec("situational", "none", "area", False, True, True, True, "N-1", "illegal"),
    "nz": Spec("situational", "any", "area", False, True, False, False, "0", "illegal"),
    "korean": Spec("simple", "none", "territory", False, True, False, False, "0", "no-result"),
}


def spec(rules: str) -> Spec:
    """The :class:`Spec` of ``rules``. Raises GoError for an unknown ruleset."""
    _check_rules(rules)
    return SPECS[rules]


def default_komi(rules: str, handicap: int = 0) -> float:
    """The komi in points a game under ``rules`` gets when none is given: :data:`DEFAULT_KOMI`,
    or with 2+ handicap stones :data:`HANDICAP_KOMI` (0 unless AGA's 0.5, rule 3). Raises GoError
    for an unknown ruleset."""
    _check_rules(rules)
    return HANDICAP_KOMI.get(rules, 0.0) if handicap >= 2 else DEFAULT_KOMI[rules]


#: Seconds to settle the dead stones once play stops, restarted by each proposal: a platform rule
#: for online play (no rule text here sets one; OGS runs a similar stone-removal timer). When it
#: runs out an unanswered proposal stands and is counted; with none the arbiter is called.
DEFAULT_STONE_REMOVAL_S = 300
GTP_LETTERS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
MIN_SIZE, MAX_SIZE = 2, 25

Point = tuple[int, int]

# ---------------------------------------------------------------------------------------- rules
C88 = "Chinese rules 1988"
C02 = "Chinese rules 2002"
J89 = "Japanese rules 1989"
ING = "Ing rules"
TT = "Tromp-Taylor rules"
AGA = "AGA rules"
NZ = "New Zealand rules"
KOR = "Korean rules"
#: The platform's own rules for online play, where no Go rule text decides (stone-removal time).
PLATFORM = "Arbiter platform rules (online play)"


def _r(ruleset: str, article: str, summary: str) -> Rule:
    return Rule(game="go", ruleset=ruleset, article=article, summary=summary)


#: The articles the engine and scoring apply, by decision.  Keys are ``"<decision>"`` (the same
#: article under every ruleset) or ``"<ruleset>:<decision>"``; use :func:`rule_for`.
RULES: dict[str, Rule] = {
    # play
    "chinese:play": _r(C88, "2", "Black first, alternate moves, one stone per move; passing allowed (2.4)"),
    "japanese:play": _r(J89, "2", "the players alternate, one stone per move"),
    "ing:play": _r(ING, "1", "着分虚实: a move is a stone (实) or a pass (虚)"),
    "chinese:occupied": _r(C88, "2.2", "a stone is played on an empty point and never moves (2.3)"),
    "japanese:occupied": _r(J89, "3", "a stone is played on an empty point (空点)"),
    "ing:occupied": _r(ING, "1", "a stone is played on an empty point"),
    "chinese:wrong-turn": _r(C88, "17.1", "playing twice in a row without the opponent passing loses"),
    "japanese:wrong-turn": _r(J89, "2", "the players alternate"),
    "ing:wrong-turn": _r(ING, "1", "the players alternate"),
    "chinese:off-board": _r(C88, "2.2", "stones are played on the points of the board"),
    "japanese:off-board": _r(J89, "3", "the points of the board"),
    "ing:off-board": _r(ING, "1", "the points of the board"),
    "chinese:malformed": _r(C88, "2.2", "a move names one point of the board or a pass"),
    "japanese:malformed": _r(J89, "3", "a move names one point of the board or a pass"),
    "ing:malformed": _r(ING, "1", "a move names one point of the board or a pass"),
    # liberties and captures
    "chinese:liberties": _r(C88, "3", "liberties (气); connected stones share their liberties"),
    "japanese:liberties": _r(J89, "4", "a stone exists while an adjacent point is empty"),
    "ing:liberties": _r(ING, "2", "气尽提取: stones whose liberties are all filled are taken"),
    "chinese:capture": _r(C88, "4.1", "an opponent's group left without liberties is taken at once"),
    "japanese:capture": _r(J89, "5", "stones that can no longer exist are taken (提子)"),
    "ing:capture": _r(ING, "2", "气尽提取"),
    "chinese:capture-first": _r(C88, "4.2", "both sides without liberties: the opponent's stones are taken"),
    "japanese:capture-first": _r(J89, "5", "the opponent's stones that cannot exist are taken"),
    "ing:capture-first": _r(ING, "2", "the opponent's stones whose liberties are filled are taken first"),
    "chinese:suicide": _r(C88, "5", "禁着点: a stone left without liberties that captures nothing (void, 19)"),
    "japanese:suicide": _r(J89, "4", "a stone without an empty neighbour cannot exist on the board"),
    "ing:suicide": _r(ING, "2", "single-stone suicide is no move; multi-stone suicide takes one's own stones"),
    "ing:multi-stone-suicide": _r(ING, "2", "气尽提取: one's own group left without liberties is taken"),
    # ko and superko
    "chinese:ko": _r(C88, "20.1", "an immediate ko recapture is void and the turn is lost (6)"),
    "japanese:ko": _r(J89, "6", "劫: the stone taken in a ko may not be retaken at once"),
    "ing:ko": _r(ING, "3", "打劫: the ko may not be retaken at once"),
    "japanese:confirmation-ko": _r(J89, "7-2", "confirming life and death after play stopped, the "
                                               "same ko may not be retaken until the side whose "
                                               "ko stone was taken has passed"),
    "chinese:superko": _r(C88, "6", "禁止全局同形再现: no whole-board position may recur (2002 art. 6)"),
    # passes and end of play
    "chinese:pass": _r(C88, "2.4", "either player may pass (放弃下子权)"),
    "japanese:pass": _r(J89, "9-1", "a pass; a second pass in a row stops play"),
    "ing:pass": _r(ING, "1", "虚着: a pass"),
    "chinese:end": _r(C88, "7.1", "play ends when both confirm that all moves are made (21.1)"),
    # two passes in a row: play has stopped (J89 9-1); under Chinese (and, by the 1988 arbiter
    # law, Ing) rules each pass is a confirmation of the end, both confirming ends play (21.1)
    "chinese:stop": _r(C88, "21.1", "轮走方确认终局，着手随之弃权: each side has confirmed the end by passing; "
                                    "both confirmed, play has ended"),
    "japanese:stop": _r(J89, "9-1", "two passes in a row stop play (对局停止)"),
    "ing:stop": _r(C88, "21.1", "both sides confirmed the end by passing: play has ended"),
    # komi (see komi_rule)
    "chinese:komi-1988": _r(C88, "11", "贴子: Black gives 2¾ stones (5.5 points)"),
    "chinese:komi": _r(C02, "9", "采用贴子方式的围棋竞赛，另行制定胜负标准: the competition sets the komi; "
                                 "current events give 3¾ stones (7.5 points)"),
    # platform rules (no rule text)
    "stone-removal-timeout": _r(PLATFORM, "stone removal", "no rule text sets a time for settling "
                                "the dead stones; online the players have the event's "
                                "stone-removal time (300 s by default), restarted by each "
                                "proposal: an unanswered proposal then stands and is counted, "
                                "with none the arbiter rules (Chinese rules 1988 art. 16.4, 25.1)"),
    "japanese:end": _r(J89, "9-1", "two passes in a row stop play (对局停止)"),
    "ing:end": _r(ING, "4", "play ends; points are counted after filling (填满计点)"),
    # endless cycles
    "chinese:endless-cycle": _r(C88, "20.3", "triple or quadruple ko, eternal life ...: a draw or a replay"),
    "japanese:endless-cycle": _r(J89, "12", "a position repeated endlessly, agreed by both: no result (无胜负)"),
    "ing:endless-cycle": _r(ING, "3", "变穷打劫: repeated captures are restricted by the ko rules"),
    "cycle-draw": _r(C88, "20.3", "triple or quadruple ko, eternal life ...: the arbiter rules a draw"),
    "cycle-replay": _r(C88, "20.3", "triple or quadruple ko, eternal life ...: the arbiter rules a replay"),
    "no-result": _r(J89, "12", "the same position repeated, both players agreeing: no result (无胜负)"),
    # time and lateness (ch. 3 of the 1988 rules: the arbiter law of every Go game here)
    "absence": _r(C88, "23.1", "late beyond the event's limit: loses by default (弃权作负)"),
    "double-absence": _r(C88, "23.2", "both late beyond the event's limit: both lose by default"),
    "lateness": _r(C88, "23.3", "late within the event's limit: the late time is deducted from "
                                "the player's time (扣除迟到时间)"),
    "timeout": _r(C88, "23.5", "对局者用时（包括读秒）超过时限，一律判负: time (byo-yomi "
                               "included) over the limit loses"),
    # handicap
    "handicap": _r(C88, "2.1", "handicap stones on the star points; White then moves first (custom)"),
}


def _rules_of(rules: str, ruleset: str, table: dict[str, tuple[str, str]]) -> dict[str, Rule]:
    return {f"{rules}:{k}": _r(ruleset, a, summ) for k, (a, summ) in table.items()}


RULES.update(_rules_of("tromp-taylor", TT, {
    "play": ("5", "the players alternate turns, starting with Black"),
    "occupied": ("7", "a move colours an empty point"),
    "wrong-turn": ("5", "the players alternate turns"),
    "off-board": ("1", "the points of the grid"),
    "malformed": ("1", "a move names one point of the grid or a pass"),
    "liberties": ("3", "a point reaches a colour through adjacent points of its own colour"),
    "capture": ("4, 7", "the opponent's points that do not reach empty are cleared"),
    "capture-first": ("7", "the opponent's colour is cleared first, then one's own"),
    "suicide": ("7", "one's own points that do not reach empty are cleared: suicide is a move"),
    "ko": ("6", "a move may not repeat an earlier board colouring"),
    "superko": ("6", "a move may not repeat an earlier board colouring (positional superko)"),
    "pass": ("6", "a turn is a pass or a move"),
    "stop": ("8", "the game ends after two consecutive passes"),
    "end": ("8", "the game ends after two consecutive passes; every stone on the board counts (9)"),
    "endless-cycle": ("6", "no board colouring may repeat: a cycle cannot close"),
}))
RULES.update(_rules_of("aga", AGA, {
    "play": ("2", "the players alternate; a move is a play or a pass"),
    "occupied": ("2", "a stone is played on an empty intersection"),
    "wrong-turn": ("2", "the players alternate"),
    "off-board": ("1", "the intersections of the board"),
    "malformed": ("2", "a move names one intersection or a pass"),
    "liberties": ("5", "a string without liberties is captured"),
    "capture": ("5", "opposing strings left without liberties are removed"),
    "capture-first": ("5", "the opponent's strings are removed before one's own would be"),
    "suicide": ("5", "self-capture is illegal"),
    "ko": ("6", "a play may not recreate a board position the player created on a previous play"),
    "superko": ("6", "a play may not recreate a board position the player created on a previous "
                     "play (situational superko)"),
    "pass": ("7", "a pass is always legal; the passer hands the opponent one stone as a prisoner"),
    "stop": ("8", "two passes in a row stop play; White passes last"),
    "end": ("8", "two passes in a row end play; White passes last (a further pass stone)"),
    "endless-cycle": ("6", "no position may recur with the same player to move: a cycle cannot close"),
}))
RULES.update(_rules_of("nz", NZ, {
    "play": ("Play", "the players alternate; a turn is a play or a pass"),
    "occupied": ("Play", "a stone is placed on an empty intersection"),
    "wrong-turn": ("Play", "the players alternate"),
    "off-board": ("Board", "the intersections of the board"),
    "malformed": ("Play", "a move names one intersection or a pass"),
    "liberties": ("Capture", "stones without liberties are removed"),
    "capture": ("Capture", "the opponent's stones without liberties are removed"),
    "capture-first": ("Capture", "the opponent's stones are removed first, then one's own"),
    "suicide": ("Suicide", "one's own stones left without liberties are removed: suicide is a play"),
    "ko": ("Repetition", "a play may not recreate a position with the same player to move"),
    "superko": ("Repetition", "a play may not recreate a position with the same player to move "
                              "(situational superko)"),
    "pass": ("Play", "a player may pass"),
    "stop": ("End", "two passes in a row end play"),
    "end": ("End", "two passes in a row end play; dead stones agreed, else play continues"),
    "endless-cycle": ("Repetition", "no position may recur with the same player to move: a cycle "
                                    "cannot close"),
}))
# Korean rules: territory counting as the Japanese 1989 rules, whose articles are cited ("J89 6")
RULES.update({k.replace("japanese:", "korean:"): r.model_copy(update={
    "ruleset": KOR, "article": f"J89 {r.article}", "summary": f"as Japanese 1989 art. {r.article}: {r.summary}"})
    for k, r in list(RULES.items()) if k.startswith("japanese:")})
RULES["korean:no-result"] = RULES["no-result"].model_copy(update={"ruleset": KOR, "article": "J89 12"})


def rule_for(decision: str, rules: str = "chinese") -> Rule:
    """The :class:`contracts.messages.Rule` for ``decision`` under ``rules`` (e.g. "suicide", "ing").

    Raises :class:`GoError` for an unknown ruleset or decision.
    """
    _check_rules(rules)
    rule = RULES.get(f"{rules}:{decision}") or RULES.get(decision)
    if rule is None:
        raise GoError(f"no rule article for decision {decision!r}")
    return rule


def komi_rule(komi: float, rules: str = "chinese") -> Rule:
    """The article behind a komi of ``komi`` points under ``rules``: Chinese 5.5 points = 2¾
    stones is the 1988 rules' art. 11; any other Chinese komi (7.5 = 3¾ stones in current
    events) rests on the 2002 rules' art. 9 (the competition sets the komi); Japanese 1989 art.
    10 (the event's komi), Ing art. 4 (8 points). Raises GoError for an unknown ruleset."""
    _check_rules(rules)
    if rules == "chinese":
        return RULES["chinese:komi-1988" if float(komi) == 5.5 else "chinese:komi"]
    from shared.rules.go_scoring import SCORING_RULES

    return SCORING_RULES[f"{rules}:komi"]


def article_for(decision: str, rules: str = "chinese") -> str:
    """``"Chinese rules 1988 art. 5"``: the citation text of :func:`rule_for`."""
    rule = rule_for(decision, rules)
    return f"{rule.ruleset} art. {rule.article}"


# ---------------------------------------------------------------------------------------- errors
class GoError(RulesError):
    """Bad Go input: board text, size, ruleset, setup, coordinates."""


class IllegalMove(GoError):
    """A move the rules refuse.

    ``reason``: one of "occupied", "suicide", "ko", "superko", "off-board", "malformed",
    "wrong-turn", "confirmation-ko" (Japanese 1989 art. 7-2, :meth:`Board.confirmation`); ``article``: the rule article it rests on (e.g. "Chinese rules 1988 art. 5");
    ``point``: the point tried (``None`` for a pass or unparsed text).
    """

    REASONS = ("occupied", "suicide", "ko", "superko", "off-board", "malformed", "wrong-turn",
               "confirmation-ko")

    def __init__(self, reason: str, message: str, *, rules: str = "chinese",
                 point: Point | None = None):
        if reason not in self.REASONS:
            raise ValueError(f"unknown illegal-move reason {reason!r}")
        self.reason = reason
        self.message = message  # without the article
        self.rules = rules if rules in RULESETS else "chinese"
        self.article = article_for(reason, self.rules)
        self.rule = rule_for(reason, self.rules)
        self.point = point
        super().__init__(f"{message} ({self.article})")


def _check_rules(rules: str) -> None:
    if rules not in RULESETS:
        raise GoError(f"unknown Go ruleset {rules!r}; expected one of {', '.join(RULESETS)}")


def _check_size(size: int) -> None:
    if not isinstance(size, int) or isinstance(size, bool) or not MIN_SIZE <= size <= MAX_SIZE:
        raise GoError(f"board size must be an integer {MIN_SIZE}..{MAX_SIZE}, got {size!r}")


def check_komi(komi: float, size: int, *, default: bool = False) -> float:
    """``komi`` (points given to White) as a float, if a game on a ``size`` x ``size`` board can
    be counted with it: finite and at most the board's points in size (``abs(komi) <= size**2``;
    a komi larger than every point of the board decides the game before the first move, and no
    count can reach it).  ``default``: the komi is the ruleset's default (the message then asks
    for an explicit komi, e.g. 7.5 points on a 2x2 board of 4 points).  Raises GoError.
    Source: Chinese rules 1988 art. 9/11 and Japanese 1989 art. 10 count points of the board.
    """
    _check_size(size)
    try:
        k = float(komi)
    except (TypeError, ValueError):
        raise GoError(f"komi must be a number of points, got {komi!r}") from None
    points = size * size
    if k != k or abs(k) > points:
        what = "the default komi" if default else "komi"
        hint = "; give a komi within the board's points" if default else ""
        raise GoError(f"{what} {k:g} is out of range for a {size}x{size} board: at most "
                      f"{points} points either way{hint}")
    return k


def other(colour: str) -> str:
    """The opponent's colour. Raises GoError for anything but "black"/"white"."""
    if colour == BLACK:
        return WHITE
    if colour == WHITE:
        return BLACK
    raise GoError(f"unknown colour {colour!r}; expected 'black' or 'white'")


# ----------------------------------------------------------------------------------- coordinates
_GTP_RE = re.compile(r"^([A-Za-z])(\d{1,2})$")
_SGF_RE = re.compile(r"^[a-z]{2}$")


def parse_point(text: str, size: int, *, sgf_pass: bool = True) -> Point | None:
    """Parse a move's point: GTP ("D4", "q16", no letter I), "pass", or SGF ("dd").  With
    ``sgf_pass`` (SGF text) "" and, on boards up to 19x19, "tt" are passes too (FF[4] ``B[]``;
    FF[3] wrote ``B[tt]``); without (a typed move) they are refused as malformed: a player who
    types "tt" on a 9x9 board meant no pass.  Returns ``(column, row)`` (row 0 = bottom) or
    ``None`` for a pass.  Raises IllegalMove(reason="malformed") for unreadable text, ("off-board")
    for a point outside a ``size`` x ``size`` board.
    """
    _check_size(size)
    if not isinstance(text, str):
        raise IllegalMove("malformed", f"move must be text, got {type(text).__name__}")
    s = text.strip()
    if s.lower() == "pass" or (s == "" and sgf_pass):
        return None
    if s == "":
        raise IllegalMove("malformed", "empty move: type 'pass' to pass")
    m = _GTP_RE.match(s)
    if m:
        letter = m.group(1).upper()
        if letter == "I":
            raise IllegalMove("malformed", f"GTP coordinates have no letter I: {text!r}")
        col, row = GTP_LETTERS.index(letter), int(m.group(2)) - 1
        if not (0 <= col < size and 0 <= row < size):
            raise IllegalMove("off-board", f"{text!r} is off a {size}x{size} board")
        return (col, row)
    if _SGF_RE.match(s):
        if s == "tt" and size <= 19:
            if sgf_pass:
                return None
            raise IllegalMove("malformed", "'tt' is how old SGF files (FF[3]) wrote a pass, not a "
                                           "point of the board: type 'pass' to pass")
        col, top = ord(s[0]) - 97, ord(s[1]) - 97
        if not (col < size and top < size):
            raise IllegalMove("off-board", f"SGF point {text!r} is off a {size}x{size} board")
        return (col, size - 1 - top)
    raise IllegalMove("malformed", f"unreadable Go move {text!r} (GTP like 'D4', SGF like 'dd', or 'pass')")


def _check_point(p: Point, size: int, rules: str = "chinese") -> None:
    if (not isinstance(p, tuple) or len(p) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in p)):
        raise IllegalMove("malformed", f"a point is a (column, row) pair of integers, got {p!r}",
                          rules=rules)
    if not (0 <= p[0] < size and 0 <= p[1] < size):
        raise IllegalMove("off-board", f"{p!r} is off a {size}x{size} board", rules=rules)


def to_gtp(p: Point | None, size: int) -> str:
    """GTP text of a point ("D4"), "pass" for ``None``. Raises IllegalMove for an off-board point."""
    _check_size(size)
    if p is None:
        return "pass"
    _check_point(p, size)
    return f"{GTP_LETTERS[p[0]]}{p[1] + 1}"


def to_sgf(p: Point | None, size: int) -> str:
    """SGF text of a point ("dd", rows from the top), "" for a pass (FF[4])."""
    _check_size(size)
    if p is None:
        return ""
    _check_point(p, size)
    return chr(97 + p[0]) + chr(97 + size - 1 - p[1])


def handicap_points(size: int, stones: int) -> list[Point]:
    """The standard fixed handicap placement (the GTP ``fixed_handicap`` order, the traditional
    star points): 2 = D4 Q16, 3 = + Q4, 4 = + D16, 5 = 4 + tengen, 6 = 4 + D10 Q10, 7 = 6 +
    tengen, 8 = 6 + K4 K16, 9 = 8 + tengen (on 19x19; the 4th line on boards from 13x13, the 3rd
    line from 7x7).  ``stones`` 0 or 1 gives no stones (one stone = no komi, Black first).
    Raises GoError where the board has no such placement (boards under 7x7, more than 4 on an
    even-sized board or on 7x7, more than 9).
    """
    _check_size(size)
    if not isinstance(stones, int) or stones < 0:
        raise GoError(f"handicap must be a whole number of stones >= 0, got {stones!r}")
    if stones <= 1:
        return []
    if size < 7:
        raise GoError(f"no fixed handicap placement on {size}x{size}")
    limit = 4 if (size % 2 == 0 or size == 7) else 9
    if stones > limit:
        raise GoError(f"at most {limit} fixed handicap stones on {size}x{size}, asked {stones}")
    lo = 3 if size >= 13 else 2
    hi, mid = size - 1 - lo, size // 2
    corners = [(lo, lo), (hi, hi), (hi, lo), (lo, hi)]  # D4 Q16 Q4 D16
    if stones <= 4:
        return corners[:stones]
    pts = list(corners)
    if stones in (6, 7, 8, 9):
        pts += [(lo, mid), (hi, mid)]
    if stones in (8, 9):
        pts += [(mid, lo), (mid, hi)]
    if stones % 2 == 1:
        pts.append((mid, mid))
    return pts


# ----------------------------------------------------------------------------------- geometry
@lru_cache(maxsize=None)
def _neighbours(size: int) -> tuple[tuple[int, ...], ...]:
    out = []
    for i in range(size * size):
        c, r = i % size, i // size
        n = []
        if c > 0:
            n.append(i - 1)
        if c < size - 1:
            n.append(i + 1)
        if r > 0:
            n.append(i - size)
        if r < size - 1:
            n.append(i + size)
        out.append(tuple(n))
    return tuple(out)


@lru_cache(maxsize=None)
def _zobrist(size: int) -> tuple[tuple[int, int, int], ...]:
    """Per point: (0, key of a black stone, key of a white stone); 64-bit, fixed seed (deterministic)."""
    rng = random.Random(0x60_2002 + size)
    return tuple((0, rng.getrandbits(64), rng.getrandbits(64)) for _ in range(size * size))


_CODE = {BLACK: 1, WHITE: 2}
_COLOUR = {1: BLACK, 2: WHITE}


class Played(NamedTuple):
    """One move made: ``colour``, ``point`` (None = pass), ``captured`` (points taken off, the
    mover's own stones after an Ing multi-stone suicide), ``superko_hash`` (Zobrist hash of the
    whole-board position after the move, 64-bit int)."""

    colour: str
    point: Point | None
    captured: tuple[Point, ...]
    superko_hash: int


class Group(NamedTuple):
    """A chain (块) of connected stones: ``colour``, ``stones``, ``liberties`` (art. 3)."""

    colour: str
    stones: frozenset[Point]
    liberties: frozenset[Point]


class Cycle(NamedTuple):
    """A whole-board position (with the same player to move) seen again: ``first_ply`` when it
    was first seen, ``ply`` now, ``length`` plies of the shortest loop back to it that took
    stones, ``count`` times seen in all, ``captures`` stones taken by each side during that loop
    (both > 0 for a triple ko or eternal life)."""

    first_ply: int
    ply: int
    length: int
    count: int
    captures: dict[str, int]


@dataclass
class _State:
    cells: list[int]
    turn: str
    ko: int | None
    prisoners: dict[str, int]
    passes: int
    ply: int
    hash: int
    moves: list[Played] = field(default_factory=list)
    # history of (hash, side-to-move code) after each ply, index 0 = the start position
    history: list[tuple[int, int]] = field(default_factory=list)
    seen: set[int] = field(default_factory=set)
    # (hash, side-to-move code) of the positions created by stone plays (situational superko)
    created: set[tuple[int, int]] = field(default_factory=set)
    # confirmation phase (J89 7-2): colour -> (point, stone) ko captures it may not make yet
    bans: dict[str, set[tuple[int, int]]] | None = None



def chain_at(cells: list[int], nb, i: int) -> tuple[set[int], set[int]]:
    """Flood fill on a flat board: the chain (cell indices) of the stone at index ``i`` and its
    liberties (empty neighbour indices). ``cells``: 0 empty, else a colour code; ``nb[j]``: the
    neighbour indices of cell ``j``. Shared by the engine and the scoring."""
    colour = cells[i]
    stack, chain, libs = [i], {i}, set()
    while stack:
        j = stack.pop()
        for k in nb[j]:
            v = cells[k]
            if v == 0:
                libs.add(k)
            elif v == colour and k not in chain:
                chain.add(k)
                stack.append(k)
    return chain, libs

class Board:
    """A Go board and game state under one ruleset.

    ``Board(size=19, rules="chinese", *, setup_black=(), setup_white=(), turn=BLACK)``: an empty
    board with optional setup stones (handicap: ``setup_black=handicap_points(19, n),
    turn=WHITE``).  Raises GoError for a bad size/ruleset/turn, overlapping or off-board setup
    stones, or setup stones without liberties.

    Ko: simple ko (the single stone just captured may not be retaken at once) under every
    ruleset; positional superko (no stone move may recreate any earlier whole-board position)
    under Chinese (1988/2002 art. 6) and Tromp-Taylor rules (rule 6); situational superko (no play
    may recreate a position the same player created by an earlier play) under AGA (rule 6) and
    New Zealand rules.  Suicide (:data:`SPECS`): refused under Chinese, Japanese, Korean and AGA
    rules; under Ing rules refused for a single stone and played for two or more; under
    Tromp-Taylor and New Zealand rules played (the mover's stones taken off, counted as the
    opponent's prisoners), a single-stone suicide being refused by positional superko under
    Tromp-Taylor.  AGA: each pass hands the opponent a prisoner (rule 7).
    """

    __slots__ = ("_size", "_rules", "_s", "_nb", "_z")

    def __init__(self, size: int = 19, rules: str = "chinese", *, setup_black: Iterable[Point] = (),
                 setup_white: Iterable[Point] = (), turn: str = BLACK):
        _check_size(size)
        _check_rules(rules)
        other(turn)
        self._size, self._rules = size, rules
        self._nb, self._z = _neighbours(size), _zobrist(size)
        cells = [0] * (size * size)
        h = 0
        for colour, pts in ((BLACK, setup_black), (WHITE, setup_white)):
            for p in pts:
                try:
                    _check_point(p, size)
                except IllegalMove as e:
                    raise GoError(f"setup stone {p!r}: {e}") from None
                i = p[1] * size + p[0]
                if cells[i]:
                    raise GoError(f"two setup stones on {to_gtp(p, size)}")
                cells[i] = _CODE[colour]
                h ^= self._z[i][cells[i]]
        self._s = _State(cells, turn, None, {BLACK: 0, WHITE: 0}, 0, 0, h)
        for g in self.groups():
            if not g.liberties:
                raise GoError(f"setup {g.colour} stones at {to_gtp(min(g.stones), size)} have no liberties")
        self._s.history.append((h, _CODE[turn]))
        self._s.seen.add(h)

    # --------------------------------------------------------------------------- properties
    @property
    def size(self) -> int:
        """Board size (lines)."""
        return self._size

    @property
    def rules(self) -> str:
        """The ruleset, one of :data:`RULESETS`."""
        return self._rules

    @property
    def turn(self) -> str:
        """The colour to move."""
        return self._s.turn

    @property
    def stones(self) -> dict[Point, str]:
        """A fresh dict point -> colour of every stone on the board."""
        n = self._size
        return {(i % n, i // n): _COLOUR[v] for i, v in enumerate(self._s.cells) if v}

    @property
    def prisoners(self) -> dict[str, int]:
        """Stones each colour has captured (提子), e.g. ``{"black": 3, "white": 0}``."""
        return dict(self._s.prisoners)

    @property
    def consecutive_passes(self) -> int:
        """Passes in a row just made (2 = play stops, Japanese art. 9-1)."""
        return self._s.passes

    @property
    def ply(self) -> int:
        """Moves (stones and passes) made on this board object."""
        return self._s.ply

    @property
    def moves(self) -> list[Played]:
        """The moves made (a copy)."""
        return list(self._s.moves)

    @property
    def ko_point(self) -> Point | None:
        """The point the player to move may not play at once (simple ko), or None."""
        k = self._s.ko
        return None if k is None else (k % self._size, k // self._size)

    @property
    def history(self) -> list[int]:
        """Zobrist hashes of the whole-board positions after each ply (index 0 = the start)."""
        return [h for h, _ in self._s.history]

    def zobrist(self) -> int:
        """64-bit Zobrist hash of the stones on the board (positional: not the side to move)."""
        return self._s.hash

    def __getitem__(self, p: Point) -> str | None:
        _check_point(p, self._size)
        return _COLOUR.get(self._s.cells[p[1] * self._size + p[0]])

    def confirmation(self, turn: str | None = None) -> Board:
        """A copy on which to confirm life and death after play stopped (Japanese 1989 art. 7-1,
        7-2; Korean rules as Japanese), ``turn`` to move first (default the player to move): a
        ko taken in it may not be retaken by the other side, even after moves elsewhere, until
        that side has passed ("confirmation-ko"); the rest plays as usual. Raises GoError under
        area-counting rules, which settle disputes by play (e.g. Chinese 1988 art. 21.3)."""
        if SPECS[self._rules].scoring != "territory":
            raise GoError(f"{self._rules} rules have no confirmation phase: a dispute is played out")
        b = self.copy()
        b._s.turn = self._s.turn if turn is None else turn
        other(b._s.turn)
        b._s.ko = None
        b._s.bans = {BLACK: set(), WHITE: set()}
        return b

    def copy(self) -> Board:
        """An independent copy (history included)."""
        b = Board.__new__(Board)
        b._size, b._rules, b._nb, b._z = self._size, self._rules, self._nb, self._z
        s = self._s
        b._s = _State(list(s.cells), s.turn, s.ko, dict(s.prisoners), s.passes, s.ply, s.hash,
                      list(s.moves), list(s.history), set(s.seen), set(s.created),
                      None if s.bans is None else {c: set(v) for c, v in s.bans.items()})
        return b

    # --------------------------------------------------------------------------- groups
    def _chain(self, cells: list[int], i: int) -> tuple[list[int], set[int]]:
        chain, libs = chain_at(cells, self._nb, i)
        return list(chain), libs

    def _pt(self, i: int) -> Point:
        return (i % self._size, i // self._size)

    def liberties(self, point: Point) -> frozenset[Point]:
        """Liberties of the group at ``point`` (art. 3). Raises GoError if the point is empty."""
        _check_point(point, self._size)
        i = point[1] * self._size + point[0]
        if not self._s.cells[i]:
            raise GoError(f"no stone on {to_gtp(point, self._size)}")
        return frozenset(self._pt(k) for k in self._chain(self._s.cells, i)[1])

    def group(self, point: Point) -> Group:
        """The group holding the stone on ``point``. Raises GoError if the point is empty."""
        _check_point(point, self._size)
        i = point[1] * self._size + point[0]
        v = self._s.cells[i]
        if not v:
            raise GoError(f"no stone on {to_gtp(point, self._size)}")
        chain, libs = self._chain(self._s.cells, i)
        return Group(_COLOUR[v], frozenset(map(self._pt, chain)), frozenset(map(self._pt, libs)))

    def groups(self) -> list[Group]:
        """Every group on the board (order: by lowest point index)."""
        cells, seen, out = self._s.cells, set(), []
        for i, v in enumerate(cells):
            if v and i not in seen:
                chain, libs = self._chain(cells, i)
                seen.update(chain)
                out.append(Group(_COLOUR[v], frozenset(map(self._pt, chain)),
                                 frozenset(map(self._pt, libs))))
        return out

    # --------------------------------------------------------------------------- moves
    def _try(self, point: Point | None, colour: str):
        """Work out a move without changing the board: (IllegalMove | None, result tuple), the
        result ``(i, captured, suicide, hash)`` with cell indices and the Zobrist hash after."""
        if point is None:
            return None, None
        try:
            _check_point(point, self._size, self._rules)
        except IllegalMove as e:
            return e, None
        i = point[1] * self._size + point[0]
        err = self._occupied_or_ko(point, i)
        if err is not None:
            return err, None
        me = _CODE[colour]
        captured, own_chain, own_libs = self._captures(i, me)
        err = self._confirmation_ko(point, i, colour, captured)
        if err is not None:
            return err, None
        suicide: list[int] = []
        if own_chain is not None and not own_libs:
            err = self._suicide(point, own_chain)
            if err is not None:
                return err, None
            suicide = own_chain
        h = self._hash_after(i, me, captured, suicide)
        err = self._superko(point, colour, h)
        if err is not None:
            return err, None
        return None, (i, captured, suicide, h)

    def _occupied_or_ko(self, point: Point, i: int) -> IllegalMove | None:
        """A stone goes on an empty point (Chinese 1988 art. 2.2) and may not retake a ko at once
        (art. 20.1, Japanese 1989 art. 6); ``i``: the point's cell index."""
        s, rules = self._s, self._rules
        if s.cells[i]:
            return IllegalMove("occupied", f"{to_gtp(point, self._size)} is occupied", rules=rules,
                               point=point)
        if s.ko is not None and i == s.ko:
            return IllegalMove("ko", f"{to_gtp(point, self._size)} retakes the ko at once",
                               rules=rules, point=point)
        return None

    def _captures(self, i: int, me: int) -> tuple[list[int], list[int] | None, set[int] | None]:
        """A stone of colour code ``me`` put on cell ``i``: (opponent stones it takes, its own
        chain and liberties when it takes none, else None, None). The opponent's stones without
        liberties go first (Chinese 1988 art. 4.2). The board is left as it was."""
        opp = 3 - me
        cells = self._s.cells
        cells[i] = me  # tentatively (restored below)
        try:
            captured: list[int] = []
            done: set[int] = set()
            for k in self._nb[i]:
                if cells[k] == opp and k not in done:
                    chain, libs = self._chain(cells, k)
                    done.update(chain)
                    if not libs:
                        captured.extend(chain)  # art. 4.2: the opponent's stones go first
            own_chain, own_libs = None, None
            if not captured:
                own_chain, own_libs = self._chain(cells, i)
        finally:
            cells[i] = 0
        return captured, own_chain, own_libs

    def _confirmation_ko(self, point: Point, i: int, colour: str, captured: list[int]) -> IllegalMove | None:
        """In the confirmation of life and death a ko taken there is not retaken until the
        player has passed (Japanese 1989 art. 7-2)."""
        bans = self._s.bans
        if bans is not None and len(captured) == 1 and (i, captured[0]) in bans[colour]:
            return IllegalMove("confirmation-ko", f"{to_gtp(point, self._size)} retakes a ko taken "
                               "in the confirmation of life and death: pass first",
                               rules=self._rules, point=point)
        return None

    def _suicide(self, point: Point, own_chain: list[int]) -> IllegalMove | None:
        """A move that leaves its own group without liberties and takes nothing: illegal
        (Chinese 1988 art. 5, Japanese 1989 art. 4; under Ing art. 2 only for a single stone),
        None where the ruleset lets the group be taken."""
        sp = SPECS[self._rules]
        if sp.suicide == "none" or (sp.suicide == "multi" and len(own_chain) == 1):
            what = "a single stone" if sp.suicide == "multi" else "the stone"
            return IllegalMove("suicide", f"{to_gtp(point, self._size)} leaves {what} without "
                               "liberties and captures nothing", rules=self._rules, point=point)
        return None

    def _hash_after(self, i: int, me: int, captured: list[int], suicide: list[int]) -> int:
        """The Zobrist hash of the board after a stone of code ``me`` on ``i`` takes ``captured``
        and loses ``suicide``."""
        z, opp = self._z, 3 - me
        h = self._s.hash ^ z[i][me]
        for k in captured:
            h ^= z[k][opp]
        for k in suicide:
            h ^= z[k][me]
        return h

    def _superko(self, point: Point, colour: str, h: int) -> IllegalMove | None:
        """Positional superko: no earlier whole-board position recurs (Chinese 2002 art. 6);
        situational: none ``colour`` created before (AGA, NZ). ``h``: the hash after the move."""
        s, ko = self._s, SPECS[self._rules].ko
        if ko == "positional" and h in s.seen:
            return IllegalMove("superko", f"{to_gtp(point, self._size)} repeats an earlier "
                               "whole-board position", rules=self._rules, point=point)
        if ko == "situational" and (h, 3 - _CODE[colour]) in s.created:
            return IllegalMove("superko", f"{to_gtp(point, self._size)} recreates a whole-board "
                               f"position {colour} created before", rules=self._rules, point=point)
        return None

    def legality(self, point: Point | None, colour: str | None = None) -> IllegalMove | None:
        """None if ``colour`` (default: the player to move) may play ``point`` now (a pass is
        always legal in turn), else the IllegalMove that :meth:`play` would raise."""
        colour = self._s.turn if colour is None else colour
        if colour != self._s.turn:
            other(colour)
            return IllegalMove("wrong-turn", f"it is {self._s.turn}'s move, not {colour}'s",
                               rules=self._rules, point=point)
        return self._try(point, colour)[0]

    def play(self, point: Point | str | None, colour: str | None = None) -> Played:
        """Play a stone on ``point`` (a Point, GTP/SGF text, or None = pass) for ``colour``
        (default: the player to move).  Returns :class:`Played`.  Raises IllegalMove (the board
        is unchanged then): "wrong-turn", "occupied", "suicide", "ko", "superko", "off-board",
        "malformed".
        """
        if isinstance(point, str):
            point = parse_point(point, self._size)
        err = self.legality(point, colour)
        if err is not None:
            raise err
        s = self._s
        mover = s.turn
        if point is None:
            s.passes += 1
            s.ko = None
            if SPECS[self._rules].pass_stone:  # AGA rule 7: the passer hands over a prisoner
                s.prisoners[other(mover)] += 1
            if s.bans is not None:  # J89 7-2: having passed, the player may retake its kos
                s.bans[mover].clear()
            played = Played(mover, None, (), s.hash)
        else:
            _, (i, captured, suicide, h) = self._try(point, mover)
            me = _CODE[mover]
            s.cells[i] = me
            for k in captured:
                s.cells[k] = 0
            for k in suicide:
                s.cells[k] = 0
            s.prisoners[mover] += len(captured)
            s.prisoners[other(mover)] += len(suicide)
            s.ko = None
            if len(captured) == 1 and not suicide:
                chain, libs = self._chain(s.cells, i)
                if len(chain) == 1 and len(libs) == 1:
                    s.ko = captured[0]
                    if s.bans is not None:  # J89 7-2: not until the opponent has passed
                        s.bans[other(mover)].add((captured[0], i))
            s.hash = h
            s.seen.add(h)
            s.created.add((h, 3 - me))  # the position this play created, the opponent to move
            s.passes = 0
            played = Played(mover, point, tuple(self._pt(k) for k in captured + suicide), h)
        s.turn = other(mover)
        s.ply += 1
        s.moves.append(played)
        s.history.append((s.hash, _CODE[s.turn]))
        return played

    def pass_move(self) -> Played:
        """Pass (放弃下子权, 1988 art. 2.4); clears the ko ban."""
        return self.play(None)

    def position_count(self) -> int:
        """How many times the current whole-board position with the same player to move has
        occurred on this board object (1 = first time)."""
        key = self._s.history[-1]
        return sum(1 for e in self._s.history if e == key)

    # --------------------------------------------------------------------------- text
    def to_text(self) -> str:
        """One-line position: ``"go 19 chinese black ko=- passes=0 prisoners=0,0 B:dd,pp W:dp"``
        (size, rules, turn, simple-ko point in SGF or "-", consecutive passes, stones captured by
        black,white, then the stones in SGF coordinates).  History hashes are not included."""
        n = self._size
        b = ",".join(sorted(to_sgf(p, n) for p, c in self.stones.items() if c == BLACK))
        w = ",".join(sorted(to_sgf(p, n) for p, c in self.stones.items() if c == WHITE))
        ko = to_sgf(self.ko_point, n) if self.ko_point else "-"
        pr = self._s.prisoners
        return (f"go {n} {self._rules} {self._s.turn} ko={ko} passes={self._s.passes} "
                f"prisoners={pr[BLACK]},{pr[WHITE]} B:{b} W:{w}")

    @classmethod
    def from_text(cls, text: str) -> Board:
        """Inverse of :meth:`to_text`. Raises GoError for malformed text."""
        if not isinstance(text, str):
            raise GoError("Go position text must be a string")
        parts = text.split()
        if len(parts) != 9 or parts[0] != "go":
            raise GoError("Go position text must be 'go SIZE RULES TURN ko=.. passes=.. "
                          f"prisoners=B,W B:.. W:..', got {text!r}")
        try:
            size = int(parts[1])
        except ValueError:
            raise GoError(f"bad board size {parts[1]!r}") from None
        _check_size(size)
        rules, turn = parts[2], parts[3]
        fields = {}
        for p in parts[4:7]:
            k, _, v = p.partition("=")
            fields[k] = v
        if set(fields) != {"ko", "passes", "prisoners"}:
            raise GoError(f"expected ko=, passes=, prisoners= fields in {text!r}")
        if not parts[7].startswith("B:") or not parts[8].startswith("W:"):
            raise GoError(f"expected 'B:' and 'W:' stone lists in {text!r}")

        def pts(v: str) -> list[Point]:
            out = []
            for t in filter(None, v.split(",")):
                if not _SGF_RE.match(t):
                    raise GoError(f"bad SGF point {t!r} in Go position text")
                try:
                    p = parse_point(t, size)
                except IllegalMove as e:
                    raise GoError(str(e)) from None
                if p is None:
                    raise GoError(f"{t!r} is a pass, not a stone")
                out.append(p)
            return out

        try:
            other(turn)
        except GoError:
            raise GoError(f"bad turn {turn!r} in Go position text") from None
        board = cls(size, rules, setup_black=pts(parts[7][2:]), setup_white=pts(parts[8][2:]), turn=turn)
        try:
            passes = int(fields["passes"])
            pb, pw = (int(x) for x in fields["prisoners"].split(","))
        except ValueError:
            raise GoError(f"bad passes/prisoners in {text!r}") from None
        if passes < 0 or pb < 0 or pw < 0:
            raise GoError("passes and prisoners must be >= 0")
        s = board._s
        s.passes, s.prisoners = passes, {BLACK: pb, WHITE: pw}
        if fields["ko"] != "-":
            kp = pts(fields["ko"])
            if len(kp) != 1 or board[kp[0]] is not None:
                raise GoError(f"ko point {fields['ko']!r} must be one empty point")
            s.ko = kp[0][1] * size + kp[0][0]
        return board

    def __repr__(self) -> str:
        return f"Board.from_text({self.to_text()!r})"

    def __str__(self) -> str:
        """The board as text rows, top row first: X black, O white, . empty."""
        n, cells = self._size, self._s.cells
        return "\n".join("".join(".XO"[cells[r * n + c]] for c in range(n)) for r in range(n - 1, -1, -1))


def endless_cycle(board: Board, min_count: int = 3) -> Cycle | None:
    """Detect an endless cycle (triple ko, eternal life 长生, sending-two-returning-one...): the
    current whole-board position, with the same player to move, has now occurred ``min_count``
    times or more in ``board``'s history and stones were captured along the way.  Returns the
    :class:`Cycle` from the last earlier occurrence, or None.

    Used by the arbiter (Chinese 1988 art. 20.3: draw or replay; Japanese 1989 art. 12: no result
    when both agree).  Under Chinese rules positional superko (art. 6) prevents any stone move from
    recreating a position, so a cycle can only close through passes (counted here only when some
    capture happened inside it).  Raises GoError if ``min_count`` < 2.
    """
    if min_count < 2:
        raise GoError("an endless cycle needs a position seen at least twice")
    hist = board._s.history
    key = hist[-1]
    occ = [i for i, e in enumerate(hist) if e == key]
    if len(occ) < min_count:
        return None
    now = occ[-1]
    for first in reversed(occ[:-1]):  # the shortest loop back that took stones
        caps = {BLACK: 0, WHITE: 0}
        for m in board._s.moves[first:now]:
            if m.point is not None and m.captured:
                # an Ing multi-stone suicide's own stones count for the opponent
                taker = other(m.colour) if m.point in m.captured else m.colour
                caps[taker] += len(m.captured)
        if any(caps.values()):
            return Cycle(occ[0], now, now - first, len(occ), caps)
    return None
