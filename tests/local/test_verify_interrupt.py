"""A verify in flight gives way to waiting work (a redirect's prewarm) and is done again after it,
as often as work arrives; work that cannot be let in ends the interruptions instead of looping.
The decoder runs on a stand-in model whose verify reports the abort llama.cpp's callback causes."""

from __future__ import annotations

from steer_tui.server.engines.speculative import SpeculativeDecoder

EOG = 0


class _Model:
    def __init__(self):
        self.n_tokens = 10
        self.n_batch = 512
        self.input_ids = [0] * 64

    def n_ctx(self) -> int:
        return 64

    def n_vocab(self) -> int:
        return 16


class _Drafter:
    guess = copying_search = fresh = False
    declined = 0

    def draft(self, room: int) -> list[int]:
        return [5, 6, 7][:room]

    def accept(self, tokens) -> None:
        pass

    def feedback(self, n: int, m: int) -> None:
        pass

    def decline(self) -> None:
        pass


def _decoder(log: list[str], arrivals: list[int], let_in: bool = True) -> SpeculativeDecoder:
    """`arrivals`: how many more pieces of work arrive, one at each verify and at each let-in."""
    waiting = [False]

    def between():
        if not waiting[0]:
            return True
        if not let_in:
            log.append("could not")
            return False
        log.append("let in")
        waiting[0] = bool(arrivals) and arrivals.pop() > 0  # the next one came while this one ran
        return True

    spec = SpeculativeDecoder(_Model(), None, _Drafter(), is_eog=lambda t: t == EOG, stopped=lambda: False,
                              between=between, interrupt=lambda: waiting[0])

    def verify(tokens, n_past):
        if len(tokens) > 1 and not log:
            waiting[0] = True  # arrives while the first verify runs
        if len(tokens) > 1 and spec.interrupt is not None and spec.interrupt():
            log.append("interrupted")
            return None
        log.append("verified")
        spec.margins = [1.0] * len(tokens)
        return [*tokens[1:], EOG]  # the draft accepted, then the end

    spec._argmax_rows = verify
    spec._seq_rm = lambda p0: None
    spec.first_token = lambda: 4
    return spec


def test_work_that_arrives_right_after_a_let_in_interrupts_the_verify_again():
    log: list[str] = []
    spec = _decoder(log, arrivals=[0, 1])
    assert list(spec.run(lambda: 32)) == [4, 5, 6, 7]
    assert log == ["interrupted", "let in", "interrupted", "let in", "verified"]
    assert spec.stats.interrupted == 2 and not spec.aborted


def test_work_that_cannot_be_let_in_ends_the_interruptions():
    log: list[str] = []
    spec = _decoder(log, arrivals=[], let_in=False)
    assert list(spec.run(lambda: 32)) == [4, 5, 6, 7]
    assert log == ["interrupted", "could not", "verified"]
    assert spec.interrupt is None and spec.stats.interrupted == 1
