"""Monte-Carlo ownership of the points of a Go position (pure, deterministic, no I/O).

An *estimate*, not a rule: the rules leave the status of stones at the end to the players
(Chinese 1988 art. 8 and 21.3, Japanese 1989 art. 7-1 and 9-2).  The estimate is the standard
Monte-Carlo reading used by Go programs (Brügmann 1993, "Monte Carlo Go"; Bouzy & Helmstetter
2003): from the position, many random games are played to the end, neither side filling one of
its own *true eyes*, captures applied, until both sides pass; each point's owner at the end of
each game is recorded (a stone of a colour, or an empty point whose neighbours are all stones of
one colour).  A stone whose point ends owned by the opponent in most games is read as dead.

The random games are driven by ``random.Random(seed)``, so a call is deterministic.  The playout
board below is a flat array with a border, chains as circular linked lists and liberty sets,
updated incrementally; it is separate from the rules engine (:mod:`shared.rules.go`) and checks
only what random play needs (suicide refused, simple ko).

Eye rule (the usual one of Monte-Carlo programs): a colour does not play on an empty point whose
on-board neighbours are all its own stones, unless the point is a *false eye*: two or more of the
four diagonals held by the opponent in the middle of the board, one or more on the edge or in the
corner.

Playout policy: besides uniform random moves, a side first takes an opponent chain left in atari
next to the last move (capture) and, failing that, extends a chain of its own put in atari by the
last move when the extension gives it more than one liberty -- the "capture / escape atari"
policy of light playouts, which keeps groups with two eyes and simple shapes from dying at random.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from shared.rules.go import BLACK, WHITE, Board, GoError, Point

__all__ = ["Ownership", "DeadEstimate", "estimate_ownership", "estimate_dead_by_playouts", "DEFAULT_PLAYOUTS",
           "DEFAULT_SEED"]

DEFAULT_PLAYOUTS = 200
DEFAULT_SEED = 0
_EMPTY, _B, _W, _EDGE = 0, 1, 2, 3


@dataclass(frozen=True)
class Ownership:
    """The result of :func:`estimate_ownership`.

    ``black`` / ``white``: point -> share of the random games (0.0 .. 1.0) in which the point ended
    owned by that colour (the rest: no one's, a point touching both colours at the end);
    ``playouts``: games played; ``seed``: the seed of the generator; ``to_move``: the colour that
    moved first in each game.
    """

    black: dict[Point, float]
    white: dict[Point, float]
    playouts: int
    seed: int
    to_move: str

    def owner(self, p: Point, threshold: float = 0.5) -> str | None:
        """"black" / "white" when that colour owns ``p`` in more than ``threshold`` of the games,
        else None."""
        if self.black[p] > threshold:
            return BLACK
        if self.white[p] > threshold:
            return WHITE
        return None


class _Playout:
    """A playout board: ``size`` x ``size`` with a one-point border (``_EDGE``)."""

    __slots__ = ("n", "w", "cells", "head", "nxt", "libs", "dirs", "diag", "points", "ko", "edge_pt")

    def __init__(self, size: int, stones: dict[Point, str]):
        n = self.n = size
        w = self.w = size + 2
        cells = self.cells = [_EDGE] * (w * w)
        self.points = [(r + 1) * w + (c + 1) for r in range(n) for c in range(n)]
        for i in self.points:
            cells[i] = _EMPTY
        self.dirs = (1, -1, w, -w)
        self.diag = (w + 1, w - 1, -w + 1, -w - 1)
        self.edge_pt = [False] * (w * w)
        for i in self.points:
            self.edge_pt[i] = any(cells[i + d] == _EDGE for d in self.diag)
        self.head = list(range(w * w))
        self.nxt = list(range(w * w))
        self.libs: dict[int, set[int]] = {}
        self.ko = -1
        for (c, r), col in stones.items():
            i = (r + 1) * w + (c + 1)
            cells[i] = _B if col == BLACK else _W
        for i in self.points:  # chains of the set-up stones (no captures in a legal position)
            v = cells[i]
            if v in (_B, _W) and i not in self.libs and self.head[i] == i:
                stack, chain, libs = [i], [i], set()
                seen = {i}
                while stack:
                    j = stack.pop()
                    for d in self.dirs:
                        k = j + d
                        x = cells[k]
                        if x == _EMPTY:
                            libs.add(k)
                        elif x == v and k not in seen:
                            seen.add(k)
                            chain.append(k)
                            stack.append(k)
                for a, b in zip(chain, chain[1:] + chain[:1]):
                    self.nxt[a] = b
                for j in chain:
                    self.head[j] = i
                self.libs[i] = libs

    def copy(self) -> "_Playout":
        o = object.__new__(_Playout)
        o.n, o.w, o.dirs, o.diag, o.points, o.edge_pt = self.n, self.w, self.dirs, self.diag, self.points, self.edge_pt
        o.cells = self.cells[:]
        o.head = self.head[:]
        o.nxt = self.nxt[:]
        o.libs = {h: set(s) for h, s in self.libs.items()}
        o.ko = self.ko
        return o


class _Game:
    """One random game on a :class:`_Playout` (its lists changed in place): the board, its
    chains (``head``, ``nxt`` ring, ``libs`` by head), the empty points (``empties`` and each
    one's index ``where``) and the ko point (-1: none)."""

    __slots__ = ("cells", "head", "nxt", "libs", "dirs", "diag", "edge_pt", "empties", "where", "ko")

    def __init__(self, pb: _Playout) -> None:
        self.cells, self.head, self.nxt, self.libs = pb.cells, pb.head, pb.nxt, pb.libs
        self.dirs, self.diag, self.edge_pt = pb.dirs, pb.diag, pb.edge_pt
        self.empties = [i for i in pb.points if pb.cells[i] == _EMPTY]
        self.where = {i: k for k, i in enumerate(self.empties)}
        self.ko = pb.ko

    def legal(self, p: int, c: int) -> bool:
        """``c`` may play on empty ``p``: not the ko point, and a liberty, a friendly chain
        keeping one, or a capture."""
        if p == self.ko:
            return False
        cells, libs, head = self.cells, self.libs, self.head
        opp = 3 - c
        for d in self.dirs:
            q = p + d
            v = cells[q]
            if v == _EMPTY:
                return True
            if v == c:
                if len(libs[head[q]]) > 1:
                    return True
            elif v == opp and len(libs[head[q]]) == 1:
                return True
        return False

    def own_eye(self, p: int, c: int) -> bool:
        """``p`` is an eye of ``c``: surrounded by ``c`` or the edge, with fewer than two
        opposing diagonals (none on the edge)."""
        cells = self.cells
        for d in self.dirs:
            v = cells[p + d]
            if v != c and v != _EDGE:
                return False
        opp = 3 - c
        bad = sum(1 for d in self.diag if cells[p + d] == opp)
        return bad < (1 if self.edge_pt[p] else 2)

    def self_atari(self, p: int, c: int) -> bool:
        """A stone of ``c`` on ``p`` would join a chain of two or more stones left with one
        liberty, capturing nothing (a lone stone may still be thrown in)."""
        cells, libs, head = self.cells, self.libs, self.head
        opp = 3 - c
        lib = set()
        joined = False
        for d in self.dirs:
            q = p + d
            v = cells[q]
            if v == _EMPTY:
                lib.add(q)
            elif v == c:
                joined = True
                lib |= libs[head[q]]
            elif v == opp and len(libs[head[q]]) == 1:
                return False
        lib.discard(p)
        return joined and len(lib) <= 1

    def reply(self, last: int, c: int) -> int:
        """The tactical answer to the opponent's ``last`` move: capture a chain of his in
        atari next to it, else save a chain of ``c``'s it put in atari by extending to a point
        with two empty neighbours; -1 for none."""
        cells, libs, head, dirs = self.cells, self.libs, self.head, self.dirs
        opp = 3 - c
        for d in dirs:
            q = last + d
            if cells[q] == opp and len(ls := libs[head[q]]) == 1:
                (p,) = ls
                if self.legal(p, c):
                    return p
        if cells[last] != opp:
            return -1
        for d in dirs:
            q = last + d
            if cells[q] == c and len(ls := libs[head[q]]) == 1:
                (p,) = ls
                if sum(1 for e in dirs if cells[p + e] == _EMPTY) >= 2 and self.legal(p, c):
                    return p
        return -1

    def random_move(self, c: int, rand) -> int:
        """A random empty point for ``c`` (from ``rand()``, then the next ones in turn) that
        is not its own eye, is legal and no self-atari; -1 for none (a pass)."""
        empties, own_eye, legal, self_atari = self.empties, self.own_eye, self.legal, self.self_atari
        m = len(empties)
        k = int(rand() * m) if m else 0
        for _ in range(m):
            p = empties[k]
            if not own_eye(p, c) and legal(p, c) and not self_atari(p, c):
                return p
            k = 0 if k + 1 == m else k + 1
        return -1

    def play(self, p: int, c: int) -> None:
        """``c`` plays on ``p``: chains merged, opposing chains without liberties removed,
        the ko point set (a single stone captured by a single stone left in atari)."""
        captured = self._place(p, c)
        h0 = self._merge(p, c)
        ncap, single = self._remove(captured, c)
        libs, nxt = self.libs, self.nxt
        self.ko = single if (ncap == 1 and len(libs[h0]) == 1 and nxt[h0] == h0) else -1

    def _place(self, p: int, c: int) -> list[int]:
        """Put the stone (a one-stone chain with its liberties, taken from the neighbours'
        liberties); return the heads of the opposing chains left without one."""
        cells, libs, head, empties, where = self.cells, self.libs, self.head, self.empties, self.where
        opp = 3 - c
        cells[p] = c
        k = where.pop(p)
        tail = empties.pop()
        if tail != p:
            empties[k] = tail
            where[tail] = k
        head[p] = p
        self.nxt[p] = p
        mylibs = libs[p] = set()
        captured = []
        for d in self.dirs:
            q = p + d
            v = cells[q]
            if v == _EMPTY:
                mylibs.add(q)
            elif v == c or v == opp:
                ls = libs[head[q]]
                ls.discard(p)
                if v == opp and not ls:
                    captured.append(head[q])
        return captured

    def _merge(self, p: int, c: int) -> int:
        """Join the stone on ``p`` with the neighbouring chains of ``c`` (the chain with more
        liberties keeps its head); return the head of the chain."""
        cells, libs, head, nxt = self.cells, self.libs, self.head, self.nxt
        h0 = p
        for d in self.dirs:
            q = p + d
            if cells[q] != c or head[q] == h0:
                continue
            h = head[q]
            a, b = (h, h0) if len(libs[h]) >= len(libs[h0]) else (h0, h)
            s = b
            while True:
                head[s] = a
                s = nxt[s]
                if s == b:
                    break
            nxt[a], nxt[b] = nxt[b], nxt[a]
            libs[a] |= libs.pop(b)
            h0 = a
        return h0

    def _remove(self, captured: list[int], c: int) -> tuple[int, int]:
        """Take the chains with heads ``captured`` off the board; their points become
        liberties of the neighbouring chains of ``c``. Return (stones taken, the last one)."""
        cells, libs, head, nxt, empties, where = (self.cells, self.libs, self.head, self.nxt,
                                                  self.empties, self.where)
        ncap, single = 0, -1
        for h in captured:
            if h not in libs:
                continue
            del libs[h]
            s = h
            while True:
                cells[s] = _EMPTY
                where[s] = len(empties)
                empties.append(s)
                ncap += 1
                single = s
                s2 = nxt[s]
                nxt[s] = s
                head[s] = s
                s = s2
                if s == h:
                    break
        for s in empties[len(empties) - ncap:] if ncap else ():
            for d in self.dirs:
                q = s + d
                if cells[q] == c:
                    libs[head[q]].add(s)
        return ncap, single


def _run(pb: _Playout, first: int, rng: random.Random, max_moves: int) -> list[int]:
    """Play one random game on ``pb`` (changed in place), ``first`` to move, until two passes
    in a row or ``max_moves`` moves; return its cells at the end."""
    g = _Game(pb)
    colour, passes, last, moves = first, 0, -1, 0
    while passes < 2 and moves < max_moves:
        moves += 1
        move = g.reply(last, colour) if last >= 0 else -1
        if move < 0:
            move = g.random_move(colour, rng.random)
        if move < 0:
            passes, last, g.ko = passes + 1, -1, -1
        else:
            passes = 0
            g.play(move, colour)
            last = move
        colour = 3 - colour
    return g.cells


def estimate_ownership(board: Board, playouts: int = DEFAULT_PLAYOUTS, seed: int = DEFAULT_SEED,
                       to_move: str | None = None) -> Ownership:
    """Monte-Carlo ownership of every point of ``board`` (see the module text).

    ``playouts``: random games (>= 1); ``seed``: the generator's seed (same seed, same answer);
    ``to_move``: the colour that moves first in each game (default ``board.turn``).  Each game
    stops after two passes in a row or ``3 * size * size`` moves.  Raises ValueError for
    ``playouts < 1`` or an unknown colour (GoError, a ValueError).
    """
    if not isinstance(playouts, int) or playouts < 1:
        raise GoError(f"playouts must be a whole number >= 1, got {playouts!r}")
    to_move = board.turn if to_move is None else to_move
    if to_move not in (BLACK, WHITE):
        raise GoError(f"to_move must be 'black' or 'white', got {to_move!r}")
    n = board.size
    base = _Playout(n, board.stones)
    if board.ko_point is not None:
        c, r = board.ko_point
        base.ko = (r + 1) * base.w + (c + 1)
    rng = random.Random(seed)
    first = _B if to_move == BLACK else _W
    own_b = [0] * len(base.cells)
    own_w = [0] * len(base.cells)
    dirs = base.dirs
    for _ in range(playouts):
        cells = _run(base.copy(), first, rng, 3 * n * n)
        for i in base.points:
            v = cells[i]
            if v == _EMPTY:
                seen = {cells[i + d] for d in dirs} - {_EDGE}
                if len(seen) == 1:
                    v = seen.pop()
            if v == _B:
                own_b[i] += 1
            elif v == _W:
                own_w[i] += 1
    w = base.w
    black, white = {}, {}
    for i in base.points:
        p = (i % w - 1, i // w - 1)
        black[p] = own_b[i] / playouts
        white[p] = own_w[i] / playouts
    return Ownership(black=black, white=white, playouts=playouts, seed=seed, to_move=to_move)


@dataclass(frozen=True)
class DeadEstimate:
    """The dead stones :func:`estimate_dead_by_playouts` reads from an :class:`Ownership`.

    ``dead``: points of the dead stones (whole chains); ``chains``: one row per chain,
    ``(colour, stones as a sorted tuple of points, share of the games its points ended owned by
    the opponent, dead?)``; ``ownership``: the estimate itself.
    """

    dead: frozenset[Point]
    chains: tuple[tuple[str, tuple[Point, ...], float, bool], ...]
    ownership: Ownership


def estimate_dead_by_playouts(board: Board, playouts: int = DEFAULT_PLAYOUTS,
                              seed: int = DEFAULT_SEED) -> DeadEstimate:
    """Dead stones of a finished game read from Monte-Carlo ownership (see the module text).

    A chain is dead when its points end owned by the opponent in more than half of the random
    games (the mean over its stones), unless it is unconditionally alive (Benson 1976, see
    :func:`shared.rules.go_scoring.benson_alive`), which no sequence of play can capture.
    Deterministic for a given ``seed``; ``playouts`` random games (>= 1, default 200: about
    0.3 s on a finished 19x19 board).  Raises GoError for ``playouts < 1``.
    """
    from shared.rules.go_scoring import benson_alive

    own = estimate_ownership(board, playouts, seed)
    alive = benson_alive(board, BLACK) | benson_alive(board, WHITE)
    rows = []
    dead: set[Point] = set()
    for g in sorted(board.groups(), key=lambda g: min(g.stones)):
        opp = own.white if g.colour == BLACK else own.black
        share = sum(opp[p] for p in g.stones) / len(g.stones)
        is_dead = share > 0.5 and not (g.stones & alive)
        if is_dead:
            dead |= g.stones
        rows.append((g.colour, tuple(sorted(g.stones)), share, is_dead))
    return DeadEstimate(dead=frozenset(dead), chains=tuple(rows), ownership=own)
