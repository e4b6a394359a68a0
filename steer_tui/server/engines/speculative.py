"""Speculative edits for the local engine: greedy decoding that verifies many copied tokens per forward pass.

An edit mostly copies text the model was just shown (the region for a rewrite, the file for
SEARCH/REPLACE and patches). `Drafter` guesses the next tokens by copying from the prompt
after the system turn (and from the answer so far: a REPLACE side starts as a copy of its
SEARCH side): it follows a pointer into that text while the model agrees with it, and after
the model departs it re-synchronises on the longest recent n-gram that occurs there again,
drafting only as far as all of that n-gram's occurrences agree. `SpeculativeDecoder`
evaluates [last token] + draft in one llama_decode with logits for those rows only, keeps
the longest prefix the model's own argmax agrees with plus the model's next token, and
removes the rejected rows from the KV cache, so `input_ids`, `n_tokens` and the KV cache
always hold exactly the tokens the answer contains. A re-sync draft is verified only when
its batch is expected to cost less than the one-row steps it saves (`DecodeCosts`, measured).

The answer is the plain greedy answer (argmax at every position, as llama.cpp's greedy
sampler picks it: the first maximum); batched rows can differ from one-row evaluation in the
last bits of a logit, which can flip a near-tie, so a verified row whose winner leads by less
than NEAR_TIE is decided again by a one-row decode (bench/local.py counts remaining flips).
A stop (cancel) aborts a verify in flight through llama.cpp's abort callback. A sampled answer
verifies the same drafts by speculative sampling's rule instead of the argmax (sampling.py).
"""

from __future__ import annotations

import bisect
import logging
import re
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable, Iterator

from steer_tui.server.engines import llama_internals as llama
from steer_tui.server.engines.depart import RowRecord
from steer_tui.server.engines.sampling import DraftSampler

NGRAM_MAX = 4  # longest history suffix tried when re-synchronising
NGRAM_MIN = 2  # shorter matches are too ambiguous to be worth a draft
DRAFT_START = 8  # tokens in the first draft after a (re)synchronisation: a miss costs little
DRAFT_MAX = 32  # on two cores a batch of 32 costs ~11 one-token steps; longer barely pays (issue 12's table)
MAX_BACKOFF = 8  # most steps without drafts after drafts that did not pay
PROBE_EVERY = 16  # a declined kind of re-sync is verified anyway after this many declines (its rate is measured)
PROBE_MAX = 128  # ... and after up to this many, once probes keep missing
PAYING = 3  # accepted tokens a draft needs to have been worth its batch
NEAR_TIE = 0.1  # logit lead below which a verify's choice is decided again one row at a time
LOCAL_WINDOW = 4096  # a re-sync prefers the first match at most this far after where copying last stopped

_FENCE = re.compile(r"```[^\n`]*\n")
_DIVIDER = re.compile(rb"[ \t]*={5,9}[ \t]*\r?")  # a SEARCH/REPLACE block's middle line
_SEARCH_OPEN = re.compile(rb"[ \t]*<{5,9}[ \t]*SEARCH\b[^\n]*")
_REPLACE_CLOSE = re.compile(rb"[ \t]*>{5,9}[ \t]*REPLACE\b[^\n]*")


@dataclass
class SpecStats:
    """What speculation did in one request (reported in the response's usage)."""

    steps: int = 0  # verify batches decoded
    drafted: int = 0  # draft tokens proposed
    accepted: int = 0  # draft tokens the model agreed with (emitted without a decode step of their own)
    redecoded: int = 0  # near-ties in a verify decided again by a one-row decode
    interrupted: int = 0  # verifies aborted to let waiting prewarms in, then done again


class DecodeCosts:
    """What a decode of n rows costs, measured: a one-row step, and verifies of the sizes seen.

    Kept by the engine across requests, so the first re-sync draft of an answer is judged like
    the rest. A verify is not n one-row steps, nor a step plus a fixed cost a row: on two cores
    a 9-row batch took ~8 steps and a 33-row one ~17, so the estimate is the line through the
    sizes measured (and the one-row step) nearest to the size asked about."""

    def __init__(self) -> None:
        self.step_s: float | None = None  # a one-row decode
        self.batch_s: dict[int, float] = {}  # rows -> running cost of a verify of that many rows

    def record(self, n: int, seconds: float) -> None:
        if n == 1:
            self.step_s = seconds if self.step_s is None else 0.8 * self.step_s + 0.2 * seconds
        else:
            old = self.batch_s.get(n)
            self.batch_s[n] = seconds if old is None else 0.7 * old + 0.3 * seconds

    def estimate(self, n: int) -> float | None:
        """Seconds for a decode of n rows, or None before a step and a verify were measured."""
        if self.step_s is None or not self.batch_s:
            return None
        if n == 1:
            return self.step_s
        if n in self.batch_s:
            return self.batch_s[n]
        points = sorted([(1, self.step_s), *self.batch_s.items()])
        below = [p for p in points if p[0] < n]
        above = [p for p in points if p[0] > n]
        (n0, t0), (n1, t1) = (below[-1], above[0]) if above else (points[-2], points[-1])
        return max(self.step_s, t0 + (t1 - t0) * (n - n0) / (n1 - n0))


class Drafter:
    """Proposes the tokens that come next by copying from `corpus` (prompt tokens; the answer is appended).

    `anchor`: the corpus position where the answer is expected to start copying (a rewrite's
    region), tried once the answer's first line (its opening fence) is written; a callable is
    asked on first use. Indexing the prompt also waits for the first draft: the first token
    goes out before either costs anything (tens of ms for a 16k-token prompt).
    """

    def __init__(self, corpus: list[int], anchor: int | Callable[[], int | None] | None = None, *,
                 ends_line: Callable[[int], bool] = lambda _t: False, max_draft: int = DRAFT_MAX,
                 floor: int | Callable[[], int] = 0, ceiling: int | Callable[[], int] | None = None,
                 piece: Callable[[int], bytes] | None = None,
                 markers: tuple[list[int], list[int]] | None = None) -> None:
        self.corpus = list(corpus)
        self.n_prompt = len(corpus)
        self._anchor = anchor
        self._floor = floor
        self._ceiling = ceiling
        self.ends_line = ends_line
        self.piece = piece  # a token's bytes: lets a REPLACE side copy its SEARCH side
        self._out = bytearray()  # the answer's bytes so far (with `piece`)
        self._starts: list[int] = []  # where each answer token starts in _out
        self.pending: int | None = None  # a copy to start at the next draft (a REPLACE side begins)
        # The tokens of a SEARCH/REPLACE block's opening line and closing line (with `piece`): a
        # line begun as one of them is drafted to its end, and a REPLACE side's copy of its
        # SEARCH side ends with the closing line where the SEARCH side ended with the divider.
        self.markers = markers
        self.span: tuple[int, int] | None = None  # corpus positions of the SEARCH side being copied
        self.departed: int | None = None  # corpus length when a copy inside `span` was departed from
        self.cap: int | None = None  # most tokens the next draft may hold (an ambiguous re-sync)
        self.max_draft = max_draft
        self.ptr: int | None = None  # corpus position of the token expected next, while copying
        self.last_ptr: int | None = None  # where copying last stopped (locality for re-sync)
        self.k = DRAFT_START
        self.copied = False
        self.backoff = 0  # steps to wait after the next draft rejected at its first token
        self.fresh = False  # the last draft came from an n-gram re-sync (not a copy in progress, not the anchor)
        self.resync_rate = 0.6  # running share of re-sync drafts' tokens the model accepted
        # The same for re-syncs near where copying stopped alone: they start trusted (a rewrite
        # resumes its region after the changed line, and that nearly always pays), and lose it
        # where the answer changes every few lines (type hints on every method: each signature
        # matches some nearby text that the model then departs from).
        self.near_rate = 0.9
        # The same for re-syncs with nothing near where copying stopped (the latest match in the
        # prompt): an answer's own new text matches the prompt by accident more often than not.
        self.guess = False
        self.guess_rate = 0.3
        self.copying_search = False  # the last draft starts a REPLACE side's copy of its SEARCH side
        self.declined = 0  # re-sync drafts declined in a row (see SpeculativeDecoder.run)
        # Declines before a draft is verified anyway: doubled by each such probe that misses (on
        # two cores a 9-row probe costs 6-8 steps: where the answer changes every line, probing
        # every 16th step loses more than the rate it measures can win back).
        self.probe_every = PROBE_EVERY
        self.probing = False  # the draft being verified is such a probe
        self.wait = 0  # steps left before the next re-sync
        self._index: dict[tuple, list[int]] | None = None

    @property
    def anchor(self) -> int | None:
        if callable(self._anchor):
            self._anchor = self._anchor()
        a = self._anchor
        return a if a is not None and 0 <= a < self.n_prompt else None

    @property
    def floor(self) -> int:
        """Re-syncs never point before this corpus position (the system prompt's examples are
        not what an answer copies)."""
        if callable(self._floor):
            self._floor = self._floor()
        return self._floor

    @property
    def ceiling(self) -> int:
        """Nor into the prompt's tail after its last code block (a rewrite's instruction): the
        answer's own tokens, from n_prompt on, stay sources."""
        if callable(self._ceiling):
            self._ceiling = self._ceiling()
        return self.n_prompt if self._ceiling is None else self._ceiling

    def _built_index(self) -> dict[tuple, list[int]]:
        """n-gram -> corpus positions right after it, for every n in NGRAM_MIN..NGRAM_MAX."""
        if self._index is None:
            c, idx = self.corpus, {}
            for n in range(NGRAM_MIN, NGRAM_MAX + 1):
                for end in range(n, len(c)):
                    idx.setdefault(tuple(c[end - n : end]), []).append(end)
            self._index = idx
        return self._index

    def accept(self, tokens: list[int]) -> None:
        """The answer grew by `tokens`: follow or drop the pointer, and make them searchable too."""
        for t in tokens:
            if self.ptr is not None and self.ptr < len(self.corpus) and self.corpus[self.ptr] == t:
                self.ptr += 1
                self.copied = True
            elif self.ptr is not None:
                self.last_ptr = self.ptr
                self.ptr = None
                self.k = DRAFT_START
                # (The closing line written where the divider was copied is no departure.)
                inside = self.span is not None and self.span[0] <= self.last_ptr < self.span[1]
                self.departed = len(self.corpus) + 1 if inside else None
            end = len(self.corpus)
            self.corpus.append(t)
            if self._index is not None:
                # n-grams ending at the previous last token now have a continuation: index them.
                for n in range(NGRAM_MIN, NGRAM_MAX + 1):
                    if end >= n:
                        self._index.setdefault(tuple(self.corpus[end - n : end]), []).append(end)
            if self.piece is not None:
                self._track(t)

    def replay(self, tokens: list[int]) -> None:
        """The answer starts with `tokens`, decided before decoding (a departure from a rejected
        answer): follow them as copies would have been followed, so that drafting goes on from
        the place in the prompt where they leave off."""
        for t in tokens:
            if self.ptr is None and self.wait == 0:
                self.ptr = self._resync()
            self.accept([t])
        self.fresh = self.guess = False
        self.cap = None

    def _track(self, t: int) -> None:
        """Keep the answer's bytes; when a block's middle line ends, the REPLACE side that starts
        is most likely its SEARCH side with a change: copy that next."""
        piece = self.piece(t)
        start = len(self._out)
        self._starts.append(start)
        self._out += piece
        nl = piece.find(b"\n")
        if nl < 0:
            return
        p = start + nl  # the newline that ends the line just written
        line_start = self._out.rfind(b"\n", 0, p) + 1
        line = bytes(self._out[line_start:p])
        if _SEARCH_OPEN.fullmatch(line) or _REPLACE_CLOSE.fullmatch(line):
            self.span = self.departed = None  # a block ends or the next begins: no SEARCH side is being copied
        if not _DIVIDER.fullmatch(line):
            return
        # The SEARCH marker line of this block: the last one before the divider.
        q = None
        at = line_start
        while at > 0:
            prev = self._out.rfind(b"\n", 0, at - 1) + 1
            if _SEARCH_OPEN.fullmatch(bytes(self._out[prev : at - 1])):
                q = at - 1  # its newline
                break
            if _DIVIDER.fullmatch(bytes(self._out[prev : at - 1])):
                return
            at = prev
        if q is None:
            return
        j = bisect.bisect_right(self._starts, q) - 1  # the answer token holding SEARCH's newline
        if j + 1 >= len(self._starts):
            return  # one token holds both newlines: nothing of the SEARCH side to copy
        # The token after the divider's newline must continue as the one after SEARCH's did
        # (indentation can share a token with the newline): then the copy starts token-aligned.
        if self._out[q : self._starts[j + 1]] == self._out[p:]:
            self.pending = self.n_prompt + j + 1
            # The SEARCH side ends where the divider's token starts (when it starts the divider's line).
            d = bisect.bisect_left(self._starts, line_start)
            aligned = d < len(self._starts) and self._starts[d] == line_start
            self.span = (self.pending, self.n_prompt + d) if aligned and self.markers else None
            self.departed = None

    def feedback(self, proposed: int, accepted: int) -> None:
        """Grow the draft while the model keeps agreeing with all of it; start small after a miss.

        A draft that did not pay for its batch (a 9-row verify takes ~5 one-token steps on two
        cores; fewer than PAYING tokens accepted) makes the next re-syncs wait 2, 4, up to 8
        steps, so text that matches the prompt only by accident (SEARCH/REPLACE markers, the
        changed line) is not drafted at every token."""
        if not proposed:
            return
        if self.probing:
            self.probing = False
            self.probe_every = PROBE_EVERY if accepted == proposed else min(PROBE_MAX, 2 * self.probe_every)
        if self.fresh and self.guess:
            self.guess_rate = 0.7 * self.guess_rate + 0.3 * accepted / proposed
        elif self.fresh:
            self.resync_rate = 0.7 * self.resync_rate + 0.3 * accepted / proposed
            if not self.copying_search:
                self.near_rate = 0.7 * self.near_rate + 0.3 * accepted / proposed
        if accepted == proposed:
            self.k = min(self.max_draft, self.k * 2)
        else:
            self.k = DRAFT_START
        if accepted < min(PAYING, proposed):
            self.backoff = min(MAX_BACKOFF, max(2, self.backoff * 2))
            self.wait = self.backoff
        else:
            self.backoff = 0

    def draft(self, limit: int) -> list[int]:
        """Up to `limit` tokens to verify next (empty: decode one token the plain way)."""
        limit = min(limit, self.k)
        self.fresh = self.guess = self.copying_search = False
        if limit <= 0:
            return []
        if self.pending is not None:
            self.ptr, self.pending, self.wait = self.pending, None, 0
            self.fresh = self.copying_search = True  # a new place to copy from: judged and measured like a re-sync
        if self.ptr is None:
            rest = self._marker_rest()
            if rest:
                return rest[:limit]
            if self.departed == len(self.corpus):
                # One token replaced one of the SEARCH side's ("4" -> "5"): its copy goes on after it.
                self.ptr, self.departed = self.last_ptr + 1, None
                self.fresh = self.copying_search = True
        if self.ptr is None:
            if self.wait > 0:
                self.wait -= 1
                return []
            self.ptr = self._resync()
            if self.ptr is None:
                return []
            if self.cap is not None:
                limit, self.cap = min(limit, self.cap), None
        # A copy of the prompt stops where the prompt does (its end is the assistant header).
        end = min(self.ptr + limit, self.n_prompt if self.ptr < self.n_prompt else len(self.corpus))
        if self._in_span(self.ptr) and self.span[1] < self.ptr + limit:
            # A REPLACE side ends with the closing line where its SEARCH side met the divider.
            return [*self.corpus[self.ptr : self.span[1]], *self.markers[1]][:limit]
        return self.corpus[self.ptr : end]

    def _in_span(self, at: int | None) -> bool:
        """`at` is a position of the SEARCH side a REPLACE side is copying (or just past its end)."""
        return self.span is not None and at is not None and self.span[0] <= at <= self.span[1]

    def _marker_rest(self) -> list[int]:
        """The rest of a marker line the answer's current line begins with, token for token (a
        SEARCH/REPLACE block's opening or closing line): the format's text, not the file's."""
        if not self.markers or self.piece is None:
            return []
        line_start = self._out.rfind(b"\n") + 1
        i = bisect.bisect_left(self._starts, line_start)
        if i == len(self._starts) or self._starts[i] != line_start:
            return []  # nothing written on this line yet, or its first token holds the newline before it
        written = self.corpus[self.n_prompt + i :]
        for marker in self.markers:
            if len(written) < len(marker) and marker[: len(written)] == written:
                return marker[len(written) :]
        return []

    def decline(self) -> None:
        """The decoder will not verify the re-sync draft just made: forget where it pointed."""
        if self.ptr is not None:
            self.ptr = None
        self.declined += 1

    def _resync(self) -> int | None:
        hist = self.corpus
        n_out = len(hist) - self.n_prompt
        if not self.copied and n_out > 0 and self._anchor is not None:
            if not self.ends_line(hist[-1]):
                return None  # the opening fence's line: the region's copy starts after it
            anchor, self._anchor = self.anchor, None
            if anchor is not None:
                return anchor
        self.fresh = True
        index = self._built_index()
        floor, ceiling, n_prompt = self.floor, self.ceiling, self.n_prompt
        for n in range(min(NGRAM_MAX, n_out), NGRAM_MIN - 1, -1):
            hits = index.get(tuple(hist[-n:]))
            if not hits:
                continue
            hits = [h for h in hits if floor <= h < len(hist) and (h < ceiling or h >= n_prompt)]
            if not hits:
                continue
            # The first match after where copying stopped (an edit resumes the text it left).
            last = self.last_ptr
            near = [h for h in hits if last is not None and last <= h <= last + LOCAL_WINDOW]
            if near:
                return min(near)
            # Else the latest one (the region block comes after the file), but only as far as
            # every match agrees: "limit * " occurring five times says nothing about the digit.
            agreed = self._agreed(hits)
            if agreed < PAYING:
                return None
            self.cap, self.guess = agreed, True
            return hits[-1]
        return None

    def _agreed(self, hits: list[int]) -> int:
        """How many tokens the continuations at `hits` share (up to DRAFT_MAX)."""
        c, n = self.corpus, len(self.corpus)
        if len(hits) == 1:
            return DRAFT_MAX
        length = 0
        while length < DRAFT_MAX:
            firsts = {c[h + length] if h + length < n else None for h in hits}
            if len(firsts) != 1 or None in firsts:
                break
            length += 1
        return length


def region_anchor(prompt_text: str, tokenize: Callable[[str], list[int]], prompt_tokens: list[int]) -> int | None:
    """Token position of the region a rewrite is expected to copy: the body of the last fenced
    block of the last user turn, when that turn holds one (prompts.instruction_message puts the
    region there); None otherwise (the answer's start is found by n-gram match instead)."""
    start = prompt_text.rfind("<|im_start|>user\n")
    turn = prompt_text[start:] if start >= 0 else ""
    fences = list(_FENCE.finditer(turn))
    if not fences:
        return None
    offset = start + fences[-1].end() if len(fences) % 2 else None
    if offset is None:
        # An even count: the last fence closes a block; its body starts after the one before it.
        offset = start + fences[-2].end()
    return _token_cut(prompt_text, offset, tokenize, prompt_tokens)


def _token_cut(prompt_text: str, offset: int, tokenize: Callable[[str], list[int]], prompt_tokens: list[int]) -> int | None:
    """The token position of character `offset` in the prompt, or None when the cut falls inside
    a token (the text before it does not tokenize to a prefix of the prompt's tokens)."""
    head = tokenize(prompt_text[:offset])
    n = len(head)
    return n if 0 < n <= len(prompt_tokens) and head == prompt_tokens[:n] else None


def system_end(prompt_text: str, tokenize: Callable[[str], list[int]], prompt_tokens: list[int]) -> int:
    """Token position where the system turn ends (0 when the prompt has none or the cut falls
    inside a token): copies are not drafted from before it."""
    if not prompt_text.startswith("<|im_start|>system"):
        return 0
    end = prompt_text.find("<|im_end|>")
    if end < 0:
        return 0
    return _token_cut(prompt_text, end + len("<|im_end|>"), tokenize, prompt_tokens) or 0


def last_block_end(prompt_text: str, tokenize: Callable[[str], list[int]], prompt_tokens: list[int]) -> int | None:
    """Token position where the prompt's last fenced code block closes (its closing fence
    starts there), or None when there is none or the cut falls inside a token."""
    body = prompt_text.rfind("\n```")
    return _token_cut(prompt_text, body + 1, tokenize, prompt_tokens) if body >= 0 else None


@contextmanager
def abort_when(cpp, ctx, stopped: Callable[[], bool]) -> Iterator[None]:
    """Inside: llama_decode on `ctx` stops between two graph nodes once `stopped()` is true
    (it returns 2; rows of the aborted batch may remain in the KV cache: remove them)."""
    callback = cpp.ggml_abort_callback(lambda _data: bool(stopped()))  # referenced until reset below
    cpp.llama_set_abort_callback(ctx, callback, None)
    # llama.cpp logs every abort as an error ("removing memory module entries ..."); a stop is
    # not one, and the return code says all the caller needs.
    log = logging.getLogger("llama-cpp-python")
    level = log.level
    log.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        log.setLevel(level)
        cpp.llama_set_abort_callback(ctx, cpp.ggml_abort_callback(), None)


class SpeculativeDecoder:
    """Greedy (or, with a `sampler`, sampled) decoding with draft verification over a llama_cpp.Llama (logits_all=False).

    `run` yields the answer's tokens one by one, as the plain loop would; it stops on
    end of generation (not yielded), when the caller stops iterating, or when `stopped()` turns
    true (a verify in flight is aborted). On exit the KV cache, `llm.input_ids[:llm.n_tokens]`
    hold the prompt plus the tokens that were yielded and evaluated.
    """

    def __init__(self, llm, llama_cpp, drafter: Drafter, *, is_eog: Callable[[int], bool],
                 stopped: Callable[[], bool], max_batch: int | None = None, costs: DecodeCosts | None = None,
                 between: Callable[[], bool | None] | None = None, interrupt: Callable[[], bool] | None = None,
                 sampler: DraftSampler | None = None, record: RowRecord | None = None) -> None:
        self.llm = llm
        self.cpp = llama_cpp
        self.drafter = drafter
        self.is_eog = is_eog
        self.stopped = stopped
        self.max_batch = min(max_batch or llm.n_batch, llm.n_batch, DRAFT_MAX + 1)
        self.stats = SpecStats()
        self.aborted = False
        self.costs = costs if costs is not None else DecodeCosts()
        # Called between steps, with the cache holding exactly the tokens yielded before the one
        # about to be verified; it may use the model if it leaves the cache as it found it. It
        # returns False when it had work waiting that it could not do.
        self.between = between
        # True when `between` has work waiting: a verify in flight is aborted and done again after it
        # (a verify costs up to ~17 one-row steps on two cores: too long for a redirect being typed).
        self.interrupt = interrupt
        self.verify_started: float | None = None  # perf_counter() while a multi-row verify runs (benchmarks)
        self.margins: list[float] = []  # the last verify's lead of each row's winner over the runner-up
        self._n_vocab = llm.n_vocab()
        # A sampled answer: drafts stand or fall by speculative sampling's rule (sampling.py), not by
        # the argmax, and no near-tie is decided again (a sample has no rounding to undo).
        self.sampler = sampler
        # A greedy answer's rows (winner, runner-up, lead) as they were verified: a departure from
        # this answer reads them instead of evaluating it again (depart.py).
        self.record = record
        self.seconds: list[int] = []  # the last decode's runner-up of each row (with a record)

    # -- llama.cpp calls --------------------------------------------------------------------

    def _seq_rm(self, p0: int) -> None:
        ctx = llama.context_ptr(self.llm)
        self.cpp.llama_memory_seq_rm(self.cpp.llama_get_memory(ctx), 0, p0, -1)

    def _decode_rows(self, tokens: list[int], n_past: int):
        """Decode `tokens` at n_past.. with logits for every row: those rows (a view that the next
        decode overwrites), or None if aborted."""
        import numpy as np

        llm, cpp = self.llm, self.cpp
        llama.batch(llm).set_batch(batch=tokens, n_past=n_past, logits_all=True)
        started = time.perf_counter()
        if len(tokens) > 1:
            # A verify takes up to ~11 one-token steps: a stop aborts it between graph nodes.
            # (One-row steps go without: the callback takes the GIL at every node.)
            self.verify_started = time.perf_counter()
            interrupt = self.interrupt
            halt = self.stopped if interrupt is None else (lambda: self.stopped() or interrupt())
            try:
                with abort_when(cpp, llama.context_ptr(llm), halt):
                    rc = cpp.llama_decode(llama.context_ptr(llm), llama.batch(llm).batch)
            finally:
                self.verify_started = None
        else:
            rc = cpp.llama_decode(llama.context_ptr(llm), llama.batch(llm).batch)
        if rc == 2 or (rc != 0 and self.stopped()):
            self._seq_rm(n_past)  # rows of an aborted batch may have reached the cache
            if self.stopped() or self.between is None:
                self.aborted = True
            return None
        if rc != 0:
            self._seq_rm(n_past)
            raise RuntimeError(f"llama_decode returned {rc}")
        self._time(len(tokens), time.perf_counter() - started)
        return np.ctypeslib.as_array(cpp.llama_get_logits(llama.context_ptr(llm)), shape=(len(tokens), self._n_vocab))

    def _argmax_rows(self, tokens: list[int], n_past: int):
        """Decode `tokens` at n_past.. with logits for every row; the argmax of each row, or None if aborted."""
        logits = self._decode_rows(tokens, n_past)
        if logits is None:
            return None
        best_ids = logits.argmax(axis=1)
        if len(tokens) > 1 or self.record is not None:
            # How far each row's winner leads the runner-up: a batch's logits differ from a
            # one-row decode's in the last bits, which decides a near-tie (see run()).
            self._lead(logits, best_ids)
        return best_ids.tolist()

    def _lead(self, logits, best_ids) -> None:
        """Each row's runner-up (`seconds`) and its winner's lead over it (`margins`), for rows of
        `logits` whose winners are `best_ids` (left as they were)."""
        import numpy as np

        at = np.arange(len(best_ids))
        best = logits[at, best_ids].copy()
        logits[at, best_ids] = -np.inf
        seconds = logits.argmax(axis=1)
        self.margins = (best - logits[at, seconds]).tolist()
        self.seconds = seconds.tolist()
        logits[at, best_ids] = best

    def _time(self, n: int, seconds: float) -> None:
        """Keep the running costs that decide whether a re-sync draft is worth its batch."""
        self.costs.record(n, seconds)

    def _worth(self, drafter: Drafter, n: int) -> bool:
        """Whether a draft of n tokens from a new, uncertain place (a guessed n-gram match, a
        REPLACE side's copy of its SEARCH side) is expected to save more time than its batch
        costs: a verify of n + 1 rows against the one-row steps of the tokens it should yield.

        Resuming the copy near where it stopped is judged by its own rate, which starts high:
        that is how a rewrite gets back onto its region after the changed line, and it nearly
        always pays, but not where every signature changes. Accidental n-gram matches lose time,
        more so where a batch costs many steps (a loaded machine, few cores). After
        `probe_every` declines a draft is verified anyway, so the acceptance rate keeps being
        measured."""
        if not drafter.fresh or drafter.declined >= drafter.probe_every:
            return True
        batch, step = self.costs.estimate(n + 1), self.costs.step_s
        if batch is None:
            return True
        rate = (drafter.guess_rate if drafter.guess else drafter.resync_rate if drafter.copying_search
                else drafter.near_rate)
        return batch < (1 + rate * n) * step

    def _verify(self, tokens: list[int], n_past: int):
        """Decode `tokens` at n_past..: each row's argmax (greedy), or the rows' logits for the
        sampler; None if aborted."""
        return self._argmax_rows(tokens, n_past) if self.sampler is None else self._decode_rows(tokens, n_past)

    def first_token(self) -> int:
        """The token after the evaluated prompt, greedy or sampled (its last row's logits are in the context)."""
        import numpy as np

        ptr = self.cpp.llama_get_logits_ith(llama.context_ptr(self.llm), -1)
        row = np.ctypeslib.as_array(ptr, shape=(1, self._n_vocab))
        if self.sampler is not None:
            return self.sampler.sample(row[0])
        best = row.argmax(axis=1)
        if self.record is not None:
            self._lead(row, best)
        return int(best[0])

    # -- the loop ---------------------------------------------------------------------------

    def _choose(self, rows, draft: list[int]) -> tuple[int, int, bool]:
        """(draft tokens kept, the token after them, whether that token is a near-tie to decide
        again one row at a time) from a verify's rows: argmax rows (greedy) or logits (sampled)."""
        if self.sampler is not None:
            m, after = self.sampler.choose(rows, draft)
            return m, after, False
        m = 0
        while m < len(draft) and rows[m] == draft[m]:
            m += 1
        # A row whose winner leads by less than NEAR_TIE may have won only through the batch's
        # rounding: keep the draft up to it, and let a one-row decode of the token before it
        # choose, as plain greedy decoding would.
        tie = next((j for j in range(m + 1) if draft and self.margins[j] < NEAR_TIE), None)
        if tie is not None:
            return tie, rows[tie], True
        return m, rows[m], False

    def run(self, limit: Callable[[], int]) -> Iterator[int]:
        """Yield the answer's tokens; `limit()` is how many more tokens may still be yielded."""
        llm, drafter, stats = self.llm, self.drafter, self.stats
        seen = llm.n_tokens  # cache positions holding prompt or yielded tokens
        record = self.record
        token = self.first_token()
        row = (token, self.seconds[0], self.margins[0]) if record is not None else None
        try:
            while not self.is_eog(token):
                n_past = llm.n_tokens
                if record is not None:
                    record.add(token, *row)
                yield token
                drafter.accept([token])
                if self.between is not None:
                    self.between()
                room = min(limit(), self.max_batch, llm.n_ctx() - n_past) - 1
                if room < 0 or self.stopped():
                    return
                draft = drafter.draft(room)
                if draft and not self._worth(drafter, len(draft)):
                    drafter.decline()
                    draft = []
                elif draft and drafter.fresh:
                    drafter.probing = drafter.declined >= drafter.probe_every
                    drafter.declined = 0
                rows = self._verify([token, *draft], n_past)
                while rows is None and not self.aborted:
                    # Interrupted for waiting work: let it in, then verify the same rows again.
                    stats.interrupted += 1
                    if self.between() is False:
                        self.interrupt = None  # the work could not be let in: no more interruptions, no loop
                    rows = self._verify([token, *draft], n_past)
                if rows is None:
                    return
                stats.steps += 1
                stats.drafted += len(draft)
                verified = (self.seconds, self.margins)
                m, after, tie = self._choose(rows, draft)
                drafter.feedback(len(draft), m)
                kept = [token, *draft[:m]]
                llm.input_ids[n_past : n_past + len(kept)] = kept
                llm.n_tokens = n_past + len(kept)
                if tie:
                    self._seq_rm(llm.n_tokens - 1)
                    stats.redecoded += 1
                    again = self._argmax_rows([kept[-1]], llm.n_tokens - 1)
                    if again is None:
                        llm.n_tokens -= 1
                        return
                    after = again[0]
                elif m < len(draft):
                    self._seq_rm(llm.n_tokens)
                if record is not None:  # the row that chose `after`: the one-row decode of a near-tie
                    row = (after, self.seconds[0], self.margins[0]) if tie else (after, verified[0][m], verified[1][m])
                seen = n_past + 1
                for j, t in enumerate(draft[:m]):
                    if self.is_eog(t):
                        return
                    stats.accepted += 1
                    if record is not None:
                        record.add(t, t, verified[0][j], verified[1][j])
                    yield t
                    seen += 1
                    drafter.accept([t])
                token = after
        finally:
            # Stopped inside an accepted draft (end of generation, a limit, a cancel): the cache
            # keeps only what the answer holds, as the plain loop would have it.
            if llm.n_tokens > seen:
                llm.n_tokens = seen
                self._seq_rm(seen)
