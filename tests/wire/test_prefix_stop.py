"""steer's `prefix` and `stop` on a response.create, through a real gateway and the real client:
an answer ends before its stop string, unsent; a prefix is refused by an engine that cannot go on
from one, and kept as the start of the assistant's turn by one that can."""

from __future__ import annotations

import threading

import pytest

from steer_tui.server.engines.base import EngineRequest
from steer_tui.server.engines.replay import ReplayEngine
from steer_tui.server.gateway import Gateway
from steer_tui.transport.events import Completed, Error, Failed, TextDelta
from tests.wire.conftest import events_of


class GoesOnFromPrefix(ReplayEngine):
    """A recording of what a model wrote after a request's prefix: not a model."""

    features = frozenset({"prefix", "stop"})

    def __init__(self, text: str):
        super().__init__(text)
        self.requests: list[EngineRequest] = []

    async def stream(self, request: EngineRequest, cancel: threading.Event):
        self.requests.append(request)
        async for delta in super().stream(request, cancel):
            yield delta


async def _answer(client, **extra):
    stream = await client.create(input="write it", extra=extra or None)
    events = await events_of(stream)
    return "".join(e.delta for e in events if isinstance(e, TextDelta)), events


@pytest.mark.parametrize("stop, sent", [
    (['"""'], "A stack of at most `limit` items. "),  # the stop string comes whole in one piece
    (["tems. \""], "A stack of at most `limit` i"),  # ... or split over pieces (" item", "s.", ' """')
    (["nowhere"], 'A stack of at most `limit` items. """ and the rest'),  # never written: all is sent
    ("at most", "A stack of "),  # a string alone, as in chat completions
])
async def test_an_answer_ends_before_its_stop_string_which_is_not_sent(gateway_factory, client_factory, stop, sent):
    gw, _ = await gateway_factory(text='A stack of at most `limit` items. """ and the rest')
    client = await client_factory(gw.url)
    text, events = await _answer(client, stop=stop)
    assert text == sent
    assert isinstance(events[-1], Completed) and events[-1].text == sent


async def test_a_prefix_is_refused_by_an_engine_that_cannot_go_on_from_one(gateway_factory, client_factory):
    gw, _ = await gateway_factory()
    assert gw.engine.features == {"stop"}
    client = await client_factory(gw.url)
    _, events = await _answer(client, prefix="```python\n")
    problem = events[-1]
    assert isinstance(problem, (Error, Failed)) and problem.code == "unsupported_parameter", problem
    assert "prefix" in problem.message


async def test_the_assistants_turn_holds_the_prefix_it_went_on_from(client_factory):
    engine = GoesOnFromPrefix('A bounded stack."""\n    def push')
    gw = Gateway(engine)
    await gw.start("127.0.0.1", 0)
    try:
        client = await client_factory(gw.url)
        stream = await client.create(input="add a docstring", extra={"prefix": 'class Stack:\n    """', "stop": ['"""']})
        events = await events_of(stream)
        first = events[-1]
        assert isinstance(first, Completed) and first.text == "A bounded stack."
        assert engine.requests[0].prefix == 'class Stack:\n    """' and engine.requests[0].stop == ('"""',)
        # The next response in the chain sees the whole turn: the prefix and what followed it.
        stream = await client.create(input="thanks", previous_response_id=stream.response_id)
        await events_of(stream)
        assert engine.requests[1].messages[-2] == {"role": "assistant", "content": 'class Stack:\n    """A bounded stack.'}
        assert engine.requests[1].prefix is None
    finally:
        await gw.close()

