"""StopCut: where an answer streamed in pieces ends at a stop string, without sockets."""

from __future__ import annotations

import pytest

from steer_tui.server.engines.stops import StopCut


def _run(stops, pieces):
    cut, sent, ended_at = StopCut(stops), [], None
    for i, piece in enumerate(pieces):
        text, ended = cut.feed(piece)
        sent.append(text)
        if ended:
            ended_at = i
            break
    else:
        sent.append(cut.flush())
    return "".join(sent), ended_at, cut.hit


@pytest.mark.parametrize("pieces, sent, ended_at", [
    (["A stack", '."""', "\n"], "A stack.", 1),  # inside one piece
    (["A stack.", '"', '""', " more"], "A stack.", 2),  # over three pieces, held back until whole
    (["x", '""', "y", '"""'], 'x""y', 3),  # a start of it that turned out not to be it is sent
    (["no stop here", '""'], 'no stop here""', None),  # held back, then flushed at the end
    (['"""at once'], "", 0),  # the answer's first piece
])
def test_text_is_sent_up_to_the_stop_string_and_never_past_it(pieces, sent, ended_at):
    got, at, hit = _run(['"""'], pieces)
    assert (got, at) == (sent, ended_at)
    assert hit == ('"""' if ended_at is not None else None)


def test_the_earliest_of_several_stop_strings_ends_the_answer():
    assert _run(["END", "\n\n"], ["one\n", "\ntwo END"]) == ("one", 1, "\n\n")


def test_without_stop_strings_every_piece_goes_through_at_once():
    cut = StopCut(None)
    assert cut.feed('a"""b') == ('a"""b', False) and cut.flush() == ""


def test_nothing_is_sent_after_the_stop():
    cut = StopCut(["!"])
    assert cut.feed("hi!there") == ("hi", True)
    assert cut.feed("more") == ("", True) and cut.flush() == ""
