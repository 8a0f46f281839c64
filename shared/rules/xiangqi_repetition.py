"""Xiangqi 棋例: classifying the moves of a repeating cycle and ruling on it (pure, no I/O).

Source: 中国象棋竞赛规则 (1999), art. 24 (待判局面的裁定), chapter 6 art. 25-29 (棋例总纲) and the
16 worked cases of chapter 7 (棋例细则), ../shared/rules/xiangqi-competition-rules-1999.txt.

Public API: :func:`classify_move` (one move: 将 check, 杀 mate threat, 捉 chase or 闲 idle) and
:func:`rule_cycle` (the verdict on a cycle of moves that repeats a position, art. 24 / 26), with the
dataclasses :class:`Target`, :class:`Classification`, :class:`RuledMove` and :class:`Ruling`.

How the engine reads the text (each decision is repeated in the docstring that implements it):

* Piece values (art. 25.3): chariot 10 = two horses / two cannons / horse + cannon; horse 5 =
  cannon 5; advisor 2 = elephant 2; a soldier across the river 2 (a "piece", 子力, with a floating
  value); a soldier on its own side 1 and the general are not pieces and are never chased.
* A 捉 (art. 28.3, 29) is a capture threat the mover would have if it could move again at once
  (a "null move"): a legal capture that wins material in the complete exchange on that square
  (static exchange with legal moves only, so a pinned protector or one whose recapture would
  expose its own general is no protector: 假根, art. 28.16; a chariot attacked by a horse or
  cannon loses value even when protected: 少根), or such a capture reached through one or two
  checks (art. 29.1). It must be new (art. 29.2 "上一着尚不存在"), judged threat by threat: a
  threat exists before the move when the same piece could already win the same target in the
  same form of art. 29.1 (a capture on its square, or a win through checks), so a threat that
  survives a move is 从捉到捉 (图六-图八) while a chariot following a piece to its new file
  chases (图七), and a threat remade after a check is new (图二); it must not let the opponent
  mate by checks after the capture (art. 29.4, 图九), and a trade of a crossed soldier for
  pieces, or of a piece for crossed soldiers, is no gain (art. 25.3 floating value, 图十二).
* 杀 (art. 28.2): after the move the mover could mate by a check or consecutive checks (up to
  three checking moves), a threat it did not have before the move.
* Art. 27: the general's own capture threats are idle, other pieces capturing with its help or
  alongside it chase (27.1, 图十一); a soldier's own capture threats are idle unless the other
  side attacks throughout the cycle as well (27.2, 图十三; decided per cycle in
  :func:`rule_cycle`); threats only to advisors / elephants are idle when the move occupies a
  defensive point that at once makes a simple draw (27.3, 图十五, 图十六), read from the
  position (:func:`_holds_simple_draw`: the moved piece stops a check, mate threat or capture
  of the opponent, the opponent is left no mate threat or capture threat, and the mover is not
  the stronger side); the heaviest nature wins: check, then mate threat, then chase (27.4).
* A cycle is ruled on each side's moves (art. 25.2, 26): every move an attack (将, 杀, 捉) is a
  禁止着法; any idle move among them makes the side's play allowed (数将一闲 etc.). The chased pieces
  may differ from move to move (art. 28.12 "追捉一子或数子", 图十三 where a chariot chases a horse
  and an elephant in turn).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from shared.rules.xiangqi import FILES, Board, Move, XiangqiError, colour_of

__all__ = ["Target", "Classification", "RuledMove", "Ruling", "classify_move", "rule_cycle",
           "piece_value", "CHECK", "MATE_THREAT", "CHASE", "IDLE"]

CHECK, MATE_THREAT, CHASE, IDLE = "check", "mate-threat", "chase", "idle"
RULESET = "xiangqi 1999"

_NAMES = {"K": "general", "A": "advisor", "B": "elephant", "N": "horse", "R": "chariot",
          "C": "cannon", "P": "soldier"}

#: Depth limits of the bounded searches (in moves of the attacking side).
MATE_THREAT_DEPTH = 3     # 杀: mate by up to three consecutive checks (art. 28.2)
CAPTURE_MATE_DEPTH = 2    # art. 29.4: the capturer must not be mated by up to two checks
CHECKS_TO_WIN = 2         # art. 29.1: material won after at most two checks


# ------------------------------------------------------------------------------- helpers
def _other(colour: str) -> str:
    return "black" if colour == "red" else "red"


def _sq_name(sq: int) -> str:
    """ICCS square name: file a-i, rank 0-9 from Red's back rank."""
    return f"{FILES[sq % 9]}{sq // 9}"


def _crossed(piece: str, sq: int) -> bool:
    """A soldier across the river (art. 25.3: then it counts as a piece, 子力)."""
    rank = sq // 9
    return rank >= 5 if piece == "P" else rank <= 4


def piece_value(piece: str, sq: int) -> int:
    """Material value by art. 25.3 (车 = 2 马 = 2 炮, 马 = 炮, 士 = 相; a crossed soldier counts,
    its value floats; an uncrossed soldier and the general are not 子力)."""
    u = piece.upper()
    if u == "P":
        return 2 if _crossed(piece, sq) else 1
    return {"R": 10, "N": 5, "C": 5, "A": 2, "B": 2, "K": 1000}[u]


def _is_valued(piece: str, sq: int) -> bool:
    """Art. 25.3: chariot, horse, cannon, crossed soldier, advisor, elephant are 子力 and can be
    chased; the general and an uncrossed soldier cannot."""
    u = piece.upper()
    return u != "K" and (u != "P" or _crossed(piece, sq))


def _null(board: Board, colour: str) -> Board:
    """A copy of ``board`` with ``colour`` to move (the "if it could move again" view that art.
    28.2 / 28.3 "下一着" ask about)."""
    b = board.copy()
    b.turn = colour
    return b


def _legal_captures_on(b: Board, sq: int) -> list[Move]:
    """Legal moves of the side to move that capture on ``sq``."""
    out = []
    for a in b.attackers(sq, b.turn):
        m = Move(a, sq)
        if b.is_legal(m):
            out.append(m)
    return out


def _legal_captures(b: Board) -> list[Move]:
    return [m for m in b.legal_moves() if b.piece_at(m.to_sq) is not None]


def _attack_force(board: Board, colour: str) -> int:
    """Attacking material (chariots, horses, cannons, soldiers) for art. 27.3's "和棋": the side
    with more of it is playing to win, not holding a draw."""
    total = 0
    for sq, p in enumerate(board.squares):
        if p is not None and colour_of(p) == colour and p.upper() in "RNCP":
            total += piece_value(p, sq) if p.upper() != "P" else 1
    return total


# --------------------------------------------------------------------------- mate search
def _mate_by_checks(b: Board, depth: int) -> list[Move] | None:
    """A forced mate for the side to move made of checks only, at most ``depth`` of its moves
    (art. 28.2 "照将或连续照将，将死对方"). Returns the first line found or None."""
    if depth <= 0:
        return None
    for m, replies in _checks(b):
        if not replies:
            return [m]
        if depth == 1:
            continue
        line = None
        b.push(m)
        try:
            for r in replies:
                b.push(r)
                sub = _mate_by_checks(b, depth - 1)
                b.pop()
                if sub is None:
                    line = None
                    break
                line = [m, r, *sub]
        finally:
            b.pop()
        if line is not None:
            return line
    return None


def _checks(b: Board) -> list[tuple[Move, list[Move]]]:
    """The side to move's checking moves (照将, art. 28.1), each with the opponent's legal
    replies (none: the check mates), in ``b.legal_moves()`` order; ``b`` is left as it was."""
    out: list[tuple[Move, list[Move]]] = []
    for m in b.legal_moves():
        b.push(m)
        try:
            if b.is_check():
                out.append((m, b.legal_moves()))
        finally:
            b.pop()
    return out


# ----------------------------------------------------------------------- exchange (SEE)
def _swap(b: Board, sq: int) -> tuple[int, list[tuple[str, str, int]]]:
    """Best result for the side to move of continuing the exchange on ``sq`` (it may stop: 0).
    Returns (score, line) with line = [(capturing side, captured piece, square)]."""
    best, best_line = 0, []
    victim = b.piece_at(sq)
    if victim is None:
        return 0, []
    side = b.turn
    for m in _legal_captures_on(b, sq):
        b.push(m)
        s, line = _swap(b, sq)
        b.pop()
        val = piece_value(victim, sq) - s
        if val > best:
            best, best_line = val, [(side, victim, sq), *line]
    return best, best_line


def _counts_as_gain(chaser: str, line: list[tuple[str, str, int]]) -> bool:
    """Material gained along ``line`` by ``chaser``, with art. 25.3's floating soldier: "一兵换取
    数子或一子换取数兵均不算得子" - if the chaser gives a crossed soldier for pieces, or gets only
    crossed soldiers for pieces, it is no gain (图十二). A crossed soldier taken for nothing is a
    gain."""
    won = [(p, s) for c, p, s in line if c == chaser]
    lost = [(p, s) for c, p, s in line if c != chaser]
    val = sum(piece_value(p, s) for p, s in won) - sum(piece_value(p, s) for p, s in lost)
    if val <= 0:
        return False
    if not lost:
        return True
    lost_soldiers = any(p.upper() == "P" and _crossed(p, s) for p, s in lost)
    won_only_soldiers = all(p.upper() == "P" and _crossed(p, s) for p, s in won)
    if lost_soldiers and any(p.upper() != "P" for p, _ in won):
        return False
    if won_only_soldiers and any(p.upper() != "P" for p, _ in lost):
        return False
    return True


@dataclass(frozen=True)
class _Threat:
    square: int          # the target's square in the position examined
    piece: str
    by: int              # square of the first capturing piece
    by_piece: str
    how: str             # "direct" | "exchange" | "checks"
    line: tuple[str, ...] = ()
    gain: int = 0


def _threats(b: Board, *, allow_checks: bool = True) -> tuple[dict[int, list[_Threat]], list[str]]:
    """Capture threats of the side to move of ``b`` (art. 28.3, 29.1, 29.3, 29.4).

    Returns ({target square: [threats]}, notes) where notes record threats discarded by art.
    29.4 (the capture would let the opponent mate by checks)."""
    chaser, opp = b.turn, _other(b.turn)
    found: dict[int, list[_Threat]] = {}
    notes: list[str] = []
    for m in _legal_captures(b):
        victim = b.piece_at(m.to_sq)
        if victim is None or not _is_valued(victim, m.to_sq):
            continue
        attacker = b.piece_at(m.from_sq)
        b.push(m)
        s, rest = _swap(b, m.to_sq)
        line = [(chaser, victim, m.to_sq), *rest]
        gain = piece_value(victim, m.to_sq) - s
        ok = gain > 0 and _counts_as_gain(chaser, line)
        mated = ok and _mate_by_checks(b, CAPTURE_MATE_DEPTH) is not None
        b.pop()
        if mated:
            notes.append(f"{_NAMES[victim.upper()]} {_sq_name(m.to_sq)}: capturing it lets "
                         f"{opp} mate (art. 29.4)")
            continue
        if ok:
            how = "direct" if not rest else "exchange"
            found.setdefault(m.to_sq, []).append(
                _Threat(m.to_sq, victim, m.from_sq, attacker, how,
                        tuple(f"{c}x{p}@{_sq_name(q)}" for c, p, q in line)))
    if allow_checks:  # every form is kept: art. 29.2 compares threats form by form
        for t in _threats_through_checks(b, CHECKS_TO_WIN):
            found.setdefault(t.square, []).append(t)
    return found, notes


def _threat_key(t: _Threat, moved: Move | None = None) -> tuple[int, int, str, str]:
    """What makes two threats the same threat for art. 29.2: the piece that makes it (its square,
    followed through ``moved`` when that piece is the one that moved), the target (square and
    letter) and the form of art. 29.1 - a capture on the target's square (direct or through the
    exchange there: the same capture, judged by what the exchange gives) or a win through
    consecutive checks."""
    by = moved.to_sq if moved is not None and t.by == moved.from_sq else t.by
    return by, t.square, t.piece, "checks" if t.how == "checks" else "capture"


def _new_threats(before: dict[int, list[_Threat]], after: dict[int, list[_Threat]],
                 move: Move) -> dict[int, list[_Threat]]:
    """The threats of ``after`` (the position after ``move``, mover to move again) that did not
    exist in ``before`` (the position before ``move``, the same side to move), as {target
    square: [new threats]}.

    Art. 29.2 "捉产生于刚走的这着棋，上一着尚不存在", read threat by threat: a threat exists before
    the move when the same piece could already win the same target in the same form of art. 29.1
    (see :func:`_threat_key`). So a piece whose threat survives its own move (图八: the chariot
    along rank 2 still on the cannon) or the move of another piece (图六, 图七: 从捉到捉) makes no
    new chase, while a chariot that follows a piece to its new file (图七's 黑车长捉红炮) does, even
    when before its move it could have won that piece another way (by checks along the rank)."""
    had = {_threat_key(t, move) for ts in before.values() for t in ts}
    out: dict[int, list[_Threat]] = {}
    for sq, ts in after.items():
        fresh = [t for t in ts if _threat_key(t) not in had]
        if fresh:
            out[sq] = fresh
    return out


def _threats_through_checks(b: Board, depth: int) -> list[_Threat]:
    """Material won through consecutive checks (art. 29.1 "能够通过连续照将吃子"): a checking
    move after which, against every reply, the chaser wins material overall (the check's own
    capture and any piece given up counted) - e.g. 图三 "卧槽将弃马得车". The target is the piece
    won at the end, named by its square before the checks."""
    out: list[_Threat] = []
    for m, replies in _checks(b):
        if not replies:
            continue  # a mate, not a capture threat (杀 is classified separately)
        cap0 = b.piece_at(m.to_sq)
        b.push(m)
        try:
            worst: tuple[int, _Threat | None] | None = None
            for r in replies:
                cap_r = b.piece_at(r.to_sq)
                b.push(r)
                best = _best_gain_after_checks(b, depth - 1, r)
                b.pop()
                total = (piece_value(cap0, m.to_sq) if cap0 else 0) \
                    - (piece_value(cap_r, r.to_sq) if cap_r else 0) + best[0]
                if worst is None or total < worst[0]:
                    worst = (total, best[1])
                if worst[0] <= 0:
                    break
            if worst is not None and worst[0] > 0 and worst[1] is not None:
                t = worst[1]
                out.append(_Threat(t.square, t.piece, m.from_sq, b.piece_at(m.to_sq), "checks",
                                   (m.iccs(), *t.line), worst[0]))
        finally:
            b.pop()
    return out


def _best_gain_after_checks(b: Board, depth: int, reply: Move) -> tuple[int, _Threat | None]:
    """The chaser's best material result from here (it may stop: 0), with captures judged by
    the exchange on their square and, while ``depth`` lasts, further checks. The returned threat's
    square is mapped back through ``reply`` to the target's square before the checks."""
    chaser = b.turn
    best: tuple[int, _Threat | None] = (0, None)
    for m in _legal_captures(b):
        victim = b.piece_at(m.to_sq)
        if not _is_valued(victim, m.to_sq):
            continue
        b.push(m)
        s, rest = _swap(b, m.to_sq)
        mated = _mate_by_checks(b, CAPTURE_MATE_DEPTH) is not None
        b.pop()
        gain = piece_value(victim, m.to_sq) - s
        if mated or gain <= best[0]:
            continue
        if not _counts_as_gain(chaser, [(chaser, victim, m.to_sq), *rest]):
            continue
        orig = reply.from_sq if m.to_sq == reply.to_sq else m.to_sq
        best = (gain, _Threat(orig, victim, m.from_sq, b.piece_at(m.from_sq), "checks",
                              (m.iccs(),), gain))
    if depth > 0:  # a further check before the capture (连续照将)
        for t in _threats_through_checks(b, depth):
            if t.gain > best[0]:
                orig = reply.from_sq if t.square == reply.to_sq else t.square
                best = (t.gain, _Threat(orig, t.piece, t.by, t.by_piece, "checks", t.line, t.gain))
    return best


# ---------------------------------------------------------------------------- results
@dataclass(frozen=True)
class Target:
    """A piece a move attacks: its square (ICCS), letter, and how it would be won."""

    square: str
    piece: str
    how: str = ""
    by: str = ""

    def as_dict(self) -> dict:
        return {"square": self.square, "piece": self.piece, "name": _NAMES[self.piece.upper()],
                "how": self.how, "by": self.by}


@dataclass(frozen=True)
class Classification:
    """The nature of one move (art. 28): ``kind`` is "check" (将), "mate-threat" (杀), "chase"
    (捉) or "idle" (闲). ``targets``: the general checked / threatened, or the pieces chased.
    ``soldier_targets``: capture threats made by a soldier alone, idle by art. 27.2 unless the
    cycle is mutual attack (then :func:`rule_cycle` counts the move as a chase). ``reason`` and
    ``article`` show the work."""

    kind: str
    targets: tuple[Target, ...] = ()
    reason: str = ""
    article: str = ""
    soldier_targets: tuple[Target, ...] = ()

    @property
    def is_attack(self) -> bool:
        """将, 杀 and 捉 are attacks (打, art. 28.4)."""
        return self.kind in (CHECK, MATE_THREAT, CHASE)

    def as_dict(self) -> dict:
        return {"classification": self.kind, "targets": [t.as_dict() for t in self.targets],
                "reason": self.reason, "rule": f"{RULESET} art. {self.article}".strip()}


def classify_move(board_before: Board, move: Move) -> Classification:
    """Classify ``move`` (legal for the side to move of ``board_before``; the board is left
    unchanged) by art. 28 and 29, with the special cases of art. 27.

    Order (art. 27.4 "从重": the heaviest nature names the move): 将 (art. 28.1) - the move checks;
    杀 (art. 28.2) - after it the mover could mate by consecutive checks and could not before;
    捉 (art. 28.3, 29) - a new capture threat on a piece of value (see :func:`_threats`; new by
    art. 29.2: :func:`_new_threats`), not by the general alone (27.1), not by a soldier alone
    (27.2: reported in ``soldier_targets``), not only on advisors / elephants from a defensive
    point that makes a simple draw (27.3, :func:`_holds_simple_draw`); else 闲 (art. 28.9; 兑, 献, 拦, 跟 included). The
    result's ``article`` names every article that decided (e.g. ``"29.2"`` for an idle move whose
    threats all existed before it). Raises :class:`XiangqiError` for an illegal ``move``.
    """
    if not board_before.is_legal(move):
        raise XiangqiError(f"illegal move {move.iccs()} in {board_before.fen()}")
    mover = board_before.turn
    opp = _other(mover)
    after = board_before.copy()
    after.push(move)
    ksq = after.king_square(opp)
    if after.is_check(opp):
        return Classification(CHECK, (Target(_sq_name(ksq), after.piece_at(ksq)),),
                              "the move attacks the general", "28.1")

    null_after = _null(after, mover)
    line = _mate_by_checks(null_after, MATE_THREAT_DEPTH)
    if line is not None and _mate_by_checks(board_before.copy(), MATE_THREAT_DEPTH) is None:
        return Classification(
            MATE_THREAT, (Target(_sq_name(ksq), after.piece_at(ksq), "mate",
                                 " ".join(m.iccs() for m in line)),),
            f"threatens mate by checks: {' '.join(m.iccs() for m in line)}", "28.2")

    before, _ = _threats(board_before.copy())
    now, notes = _threats(null_after)
    new = _new_threats(before, now, move)
    why: list[tuple[str, str]] = []          # (what was set aside, the article that did it)
    old = sorted(sq for sq in now if sq not in new)
    if old:
        why.append(("threatened already before the move, and in the same way (art. 29.2, 从捉到捉): "
                    + ", ".join(_sq_name(s) for s in old), "29.2"))
    why += [(n, "29.4") for n in notes]
    return _chase_or_idle(after, move, mover, new, why)


def _chase_or_idle(after: Board, move: Move, mover: str, new: dict[int, list[_Threat]],
                   why: list[tuple[str, str]]) -> Classification:
    """捉 or 闲 from the new capture threats ``new`` of ``mover`` (art. 28.3, 29) with art. 27's
    special cases: the general's own threats are idle (27.1), a soldier's own threats idle unless
    the cycle is mutual attack (27.2: kept in ``soldier_targets``), incidental attacks on advisors
    / elephants from a defensive point that makes a simple draw idle (27.3,
    :func:`_holds_simple_draw`). ``why``: threats already set aside
    and by which article; the classification's ``article`` names every article that decided."""
    chased: list[Target] = []
    king_only: list[str] = []
    soldier: list[Target] = []
    for sq, ts in sorted(new.items()):
        movers = {"*" if t.how == "checks" else t.by_piece.upper() for t in ts}
        t0 = next((t for t in ts if t.by_piece.upper() not in "KP" or t.how == "checks"), ts[0])
        tgt = Target(_sq_name(sq), t0.piece, t0.how, _sq_name(t0.by))
        if movers <= {"K"}:
            king_only.append(_sq_name(sq))          # 27.1: the general's own threat is idle
        elif movers <= {"K", "P"}:
            soldier.append(tgt)                      # 27.2: a soldier's own threat
        else:
            chased.append(tgt)
    if king_only:
        why.append(("threatened by the general alone (art. 27.1): " + ", ".join(king_only), "27.1"))
    held = (_holds_simple_draw(after, move, mover)
            if chased and all(t.piece.upper() in "AB" for t in chased) else None)
    if held:
        why.insert(0, ("attacks only advisors / elephants ("
                       + ", ".join(f"{_NAMES[t.piece.upper()]} {t.square}" for t in chased)
                       + f") from a defensive point that makes a simple draw ({held}): "
                       "incidental, idle (art. 27.3)", "27.3"))
        chased = []
    if chased:
        desc = ", ".join(f"{_NAMES[t.piece.upper()]} {t.square} ({t.how} by {t.by})" for t in chased)
        squares = {t.square for t in chased}
        if any(t.by_piece.upper() == "K" for sq, ts in new.items() if _sq_name(sq) in squares
               for t in ts):
            why.insert(0, ("the general attacks as well; another piece chasing with it is a "
                           "chase (art. 27.1)", "27.1"))
        return Classification(CHASE, tuple(chased), _join(f"new capture threat on {desc}", why),
                              _articles("28.3, 29", why), tuple(soldier))
    if soldier:
        desc = ", ".join(f"{_NAMES[t.piece.upper()]} {t.square}" for t in soldier)
        why.insert(0, (f"only a soldier threatens {desc}: idle unless both sides attack "
                       "(art. 27.2)", "27.2"))
    if why:
        return Classification(IDLE, (), _join(why[0][0], why[1:]), _articles("", why),
                              tuple(soldier))
    return Classification(IDLE, (), "no check, mate threat or capture threat", "28.9")


def _holds_simple_draw(after: Board, move: Move, mover: str) -> str | None:
    """Art. 27.3 "占据防守要点，立即构成简明和棋": whether ``move`` (just played, ``after`` the
    position it leaves, the opponent to move) occupies a defensive point that at once makes a
    simple draw; the reason when it does, else None.  Read from the position, in three parts:

    1. a defensive point (防守要点): the moved piece, on the square it reached, stops an attack
       of the opponent: with that piece taken off the board the opponent would have a check,
       a mate by checks (art. 28.2) or a capture threat (art. 28.3) that it does not have with
       the piece there, or the mover's general would stand attacked (the piece shields it);
    2. the draw is made at once (立即): after the move the opponent has no mate by checks and no
       capture threat (art. 28.3, 29) left: the defence holds everything;
    3. a draw (和棋) by material: the mover is not the stronger side (its attacking force, art.
       25.3 values, is no greater than the opponent's), so it holds rather than plays to win.

    图十五: the chariot's return to e3 parries 车i3-i2 mate; 图十六: the cannon on d6 or c6 bars
    the red cannon's way to a check on the d-file.  A piece that only hunts an advisor or an
    elephant (it shields nothing) chases, whatever the material."""
    opp = _other(mover)
    if _attack_force(after, mover) > _attack_force(after, opp):
        return None
    if _mate_by_checks(after.copy(), MATE_THREAT_DEPTH) is not None or _threats(after.copy())[0]:
        return None
    without = after.copy()
    without.squares[move.to_sq] = None
    if without.is_check(mover):
        return f"it shields its general from the {_sq_name(move.to_sq)} square"
    if _checking_moves(without) - _checking_moves(after):
        return f"on {_sq_name(move.to_sq)} it bars a check"
    if _mate_by_checks(without.copy(), MATE_THREAT_DEPTH) is not None:
        return f"on {_sq_name(move.to_sq)} it parries a mate threat"
    if _threats(without)[0]:
        return f"on {_sq_name(move.to_sq)} it guards against a capture"
    return None


def _checking_moves(b: Board) -> set[Move]:
    """The legal moves of the side to move of ``b`` that check (art. 28.1)."""
    return {m for m in b.legal_moves() if b.gives_check(m)}


def _join(head: str, why: list[tuple[str, str]]) -> str:
    return "; ".join([head, *(w for w, _ in why)])


def _articles(first: str, why: list[tuple[str, str]]) -> str:
    """The articles that decided, in order, each once: ``"28.3, 29, 27.1"``."""
    arts = [a for a in [first, *(a for _, a in why)] if a]
    return ", ".join(dict.fromkeys(arts))


# ------------------------------------------------------------------------------ ruling
@dataclass(frozen=True)
class RuledMove:
    """One move of the ruled cycle with its side and classification."""

    move: str            # ICCS
    side: str
    classification: Classification

    def as_dict(self) -> dict:
        return {"move": self.move, "side": self.side, "classification": self.classification.kind,
                "targets": [t.square for t in self.classification.targets],
                "reason": self.classification.reason,
                "rule": f"{RULESET} art. {self.classification.article}"}


@dataclass(frozen=True)
class Ruling:
    """The verdict on a repeated cycle (art. 24, 26): "red-loses", "black-loses", "draw",
    "must-vary:red" or "must-vary:black"; the article applied, the number of times the position
    has occurred, and every move of the (last) cycle with its classification."""

    verdict: str
    article: str
    reason: str
    repetitions: int
    moves: tuple[RuledMove, ...]
    side_nature: dict = field(default_factory=dict)
    cycle_start: int = 0     # index in the given moves of the first move of the ruled cycle

    @property
    def rule(self) -> str:
        return f"{RULESET} art. {self.article}"

    @property
    def result(self) -> str:
        """The game result this ruling implies now ("*" while the game goes on)."""
        return {"red-loses": "0-1", "black-loses": "1-0", "draw": "1/2-1/2"}.get(self.verdict, "*")

    def as_dict(self) -> dict:
        return {"verdict": self.verdict, "result": self.result, "rule": self.rule,
                "reason": self.reason, "repetitions": self.repetitions,
                "sides": dict(self.side_nature), "moves": [m.as_dict() for m in self.moves]}


def _find_cycle(board: Board, moves: list[Move]) -> tuple[int, int, int]:
    """(start, end, occurrences): the last cycle is moves[start:end] (end = len(moves)), i.e. the
    moves between the last two occurrences of the final position; occurrences counts the final
    position in the whole sequence (the starting position included)."""
    b = board.copy()
    keys = [b.position_key()]
    for i, m in enumerate(moves):
        if not b.is_legal(m):
            raise XiangqiError(f"move {i + 1} ({m.iccs()}) is illegal in {b.fen()}")
        b.push(m)
        keys.append(b.position_key())
    final = keys[-1]
    where = [i for i, k in enumerate(keys) if k == final]
    if len(where) < 2:
        raise XiangqiError("the moves do not repeat a position (art. 24 needs a cycle)")
    return where[-2], len(moves), len(where)


def rule_cycle(board_at_cycle_start: Board, moves: list[Move | str],
               repetitions: int | None = None) -> Ruling:
    """Rule on a repeating cycle (art. 24, 26).

    ``moves`` (Move or ICCS text) are played from ``board_at_cycle_start``; they may hold one or
    more turns of the cycle and a lead-in: the cycle ruled on is the stretch between the last two
    occurrences of the final position, and ``repetitions`` (default: how often the final position
    occurs, taken as at least 3 since art. 24 rules on a threefold repetition) decides between
    "must vary" and "loses" for a side whose moves are forbidden: 24.3 / 26.4 - the side must
    vary, and loses if the cycle repeats once more (a 4th occurrence).

    Per side: 长将 = every move a check; 禁止着法 = every move 将 / 杀 / 捉 (art. 25.2, 28.10-28.15);
    otherwise allowed (an idle move among them). Verdict: a one-sided perpetual check loses at once
    (24.1, 26.1); both forbidden (a mutual perpetual check included) or both allowed: draw (24.2,
    26.2, 26.3); one forbidden: "must-vary:<side>" (24.3, 26.4), "<side>-loses" from the 4th
    occurrence. Art. 27.2: a soldier's own threats count as chases only when the other side's
    moves are all attacks too (相互长打, 图十三).
    """
    ms = [Move.from_iccs(m) if isinstance(m, str) else m for m in moves]
    start, end, occ = _find_cycle(board_at_cycle_start, ms)
    reps = repetitions if repetitions is not None else max(occ, 3)
    ruled = _classify_cycle(board_at_cycle_start, ms, start, end)
    forbidden = _forbidden_sides(ruled)
    perpetual = {s: all(c.kind == CHECK for _, side, c in ruled if side == s) for s in _SIDES}
    nature = {s: ("perpetual-check" if perpetual[s] else "forbidden" if forbidden[s] else "allowed")
              + " (" + ", ".join(c.kind for _, side, c in ruled if side == s) + ")" for s in _SIDES}
    rm = tuple(RuledMove(m.iccs(), s, c) for m, s, c in ruled)
    return _verdict(perpetual, forbidden, reps, rm, nature, start)


_SIDES = ("red", "black")


def _classify_cycle(board: Board, ms: list[Move], start: int, end: int) -> list[list]:
    """The cycle's moves ``ms[start:end]``, played after the lead-in ``ms[:start]`` from
    ``board``: ``[move, side, Classification]`` each (art. 25.2, 28.10-28.15)."""
    b = board.copy()
    for m in ms[:start]:
        b.push(m)
    ruled: list[list] = []
    for m in ms[start:end]:
        ruled.append([m, b.turn, classify_move(b, m)])
        b.push(m)
    return ruled


def _forbidden_sides(ruled: list[list]) -> dict[str, bool]:
    """Per side, whether every move of the cycle is forbidden (将 / 杀 / 捉, art. 25.2). A
    soldier's own threats count as chases only when both sides attack throughout (art. 27.2,
    相互长打, 图十三): such moves are reclassified in ``ruled`` as CHASE."""

    def attacks(side: str, count_soldiers: bool) -> bool:
        return all(c.is_attack or (count_soldiers and c.soldier_targets)
                   for _, s, c in ruled if s == side)

    plain = {s: attacks(s, False) for s in _SIDES}
    forbidden = dict(plain)
    for s in _SIDES:  # art. 27.2: mutual attack makes the soldier's threats chases
        if not plain[s] and attacks(s, True) and attacks(_other(s), True):
            forbidden[s] = True
    for entry in ruled:
        m, s, c = entry
        if forbidden[s] and not plain[s] and not c.is_attack and c.soldier_targets:
            entry[2] = Classification(CHASE, c.soldier_targets, "soldier's capture threat counts "
                                      "as a chase: both sides attack throughout (art. 27.2)",
                                      "27.2", c.soldier_targets)
    return forbidden


def _verdict(perpetual: dict[str, bool], forbidden: dict[str, bool], reps: int,
             rm: tuple, nature: dict[str, str], start: int) -> Ruling:
    """The ruling on a cycle from each side's nature: one-sided perpetual check loses (24.1,
    26.1); both sides alike: draw (24.2, 26.2, 26.3); one side forbidden: it must vary, and
    loses from the 4th occurrence (24.3, 26.4)."""
    if perpetual["red"] != perpetual["black"]:
        loser = "red" if perpetual["red"] else "black"
        return Ruling(f"{loser}-loses", "24.1, 26.1",
                      f"{loser} checks on every move of the cycle (一方长将)", reps, rm, nature, start)
    if forbidden["red"] == forbidden["black"]:
        both = "forbidden" if forbidden["red"] else "allowed"
        art = "24.2, 26.3" if forbidden["red"] else "24.2, 26.2"
        return Ruling("draw", art, f"both sides' moves are {both} (双方不变作和)", reps, rm, nature,
                      start)
    culprit = "red" if forbidden["red"] else "black"
    if reps >= 4:
        return Ruling(f"{culprit}-loses", "24.3, 26.4",
                      f"{culprit}'s moves are forbidden, the other side's allowed, and {culprit} "
                      "repeated the cycle again instead of varying", reps, rm, nature, start)
    return Ruling(f"must-vary:{culprit}", "24.3, 26.4",
                  f"{culprit}'s moves are forbidden, the other side's allowed: {culprit} must "
                  "vary; repeating the cycle once more loses", reps, rm, nature, start)
