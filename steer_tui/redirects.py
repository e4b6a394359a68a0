"""Words said while a turn's answer is written, or on its proposal once it ended: how they reach
the model (the turn started over with them, a steer, an addition asked before or after the
request), and the prewarm of that turn while they are typed. The Session's redirect, follows_up
and prewarm_redirect are this."""

from __future__ import annotations

import asyncio
from typing import NamedTuple

from steer_tui.backend import cancel_quietly
from steer_tui.events import NoticeCode, StateChanged, Stats, TurnEnded
from steer_tui.state import GENERATING, REVIEW

# The stream_id suffix of the prewarms of a redirect being typed (Redirects.prewarm): its own
# lane, not the answer's, where it would wait for that answer to end.
REDIRECT_LANE = "~redirect"


class Ended(NamedTuple):
    """How a turn ended, for words sent after it that go on from its request (Redirects.follow_up)."""

    task: asyncio.Task  # the turn's task: a later turn has another
    text: str  # the file's text then
    proposed: str | None  # the proposed text then (None: no proposal)
    stopped: bool  # by Esc or a lost connection, not by its answer's end


async def ended(task: asyncio.Task | None) -> None:
    """Wait for `task` to end without cancelling it; its own cancellation is not an error here."""
    if task is None:
        return
    try:
        await asyncio.shield(task)
    except asyncio.CancelledError:
        if not task.cancelled():
            raise


class Redirects:
    """The words said to one session's turns (`session`: steer_tui.session.Session), and what they
    were: `said` is (the turn's task, its first instruction, the words said since)."""

    def __init__(self, session):
        self.session = session
        self.said: tuple | None = None

    def prewarm(self, typed: str, complete: bool = False, naming: str | None = None, *,
                         behind: bool = False) -> bool:
        """The user types `typed` while the model writes (or a correction of the answer under review,
        `follows_up`): prewarm the turn a redirect with these words would start over (restart_turn),
        so that Enter leaves only what was typed since. `naming`:
        the words with the one being typed, when it names a definition (its region, known before the
        word ends). False when the redirect would not start the turn over (a steer, an addition
        asked after the answer), or is an addition asked at once on the turn's own region.

        It goes on a lane of its own, and the embedded engine evaluates it between two steps of
        the answer (LocalEngine._let_prewarms_in): that answer is about to be replaced."""
        s = self.session
        from steer_tui.prompts import names_a_definition

        words, naming = typed.strip(), (naming or typed).strip()
        if s.client is None or s.format != "rewrite" or s.region is None or not naming:
            return False
        if s.state is GENERATING:
            mode = self.mode_for(naming)
            if mode == "before" and self.asks_first(naming):
                # An addition asked at once (restart_turn's `addition`): prewarmed where it names a
                # region other than the turn's, whose block the engine holds already. Asked of the
                # whole class around the region, its block was evaluated after Enter (1-3 s).
                region, instruction = self.asked_first(words, naming)
                if region == s.region:
                    return False
                s.prewarm(region, instruction, complete, lane=s.stream_id + REDIRECT_LANE, behind=behind)
                return True
            if mode != "restart":
                return False
        elif not self.follows_up(naming):
            return False  # words sent now would be a turn of their own
        elif self.asks_first(naming):
            # Asked first, on their own (follow_up): the region they name, and the words as asked.
            region, instruction = self.asked_first(words, naming)
            s.prewarm(region, instruction, complete, lane=s.stream_id + REDIRECT_LANE, behind=behind)
            return True
        first, said = self.history()
        region = s.region
        if complete or names_a_definition(s.document.text, naming, s.path):
            # Until a name follows the verb, "no, only add" names the method `add`: keep the region.
            region, _ = self.restarted_turn(first, said + [naming])
        if complete:
            _, instruction = self.restarted_turn(first, said + [words])
        else:
            # The new words open the restarted turn's request (redirect_instruction); what follows
            # them depends on the words still to come.
            instruction = words
        s.prewarm(region, instruction, complete, lane=s.stream_id + REDIRECT_LANE, behind=behind)
        return True

    async def redirect(self, words: str) -> None:
        """Enter while generating: the new words redirect the turn; its new answer replaces the proposal.

        How the words reach the model is `redirect_mode` (REDIRECT_MODES): "restart" stops the
        answer and starts the turn over with the first instruction and the new words in one
        request (file and region stay cached: only the instruction is evaluated again);
        "continue" steers (`response.steer`): the model answers again after its partial answer
        and the new words; "after" lets the answer finish and then asks for the words alone, as an
        edit of the code that answer leaves (a rewrite's additions, "also X"); "before" stops the
        answer and asks the words alone at once, then the request they interrupted again, of the
        code the words' answer leaves; "auto" is the setting `redirect_additions` ("after" or
        "before") for words that add to the request and "restart" for the rest. On a restart or a steer the
        superseded partial leaves the live diff at once.
        """
        s = self.session
        words = words.strip()
        first, said = self.history()
        said = said + [words]
        mode = self.mode_for(words)
        if mode == "before" and s.turn is not None and s.region is not None:
            s.notice("info", NoticeCode.REDIRECTED,
                     f"redirected: {' '.join(words.split())} (asked first, then the request again)")
            await self.restart_turn(first, said, addition=words)
            return
        if mode == "after" and s.turn is not None and s.region is not None:
            s.turn.additions.append(words)
            s.instruction = f"{s.instruction}\n{words}" if s.instruction else words
            s.notice("info", NoticeCode.REDIRECTED, f"after this answer: {' '.join(words.split())}")
            self.said = (s.turn_task, first, said)
            return
        s.notice("info", NoticeCode.REDIRECTED, f"redirected: {' '.join(words.split())} (the answer starts over)")
        if s.stream is None or mode != "continue":
            # Also when the request is still on its way: there is nothing to steer yet.
            await self.restart_turn(first, said)
            return
        s.instruction = f"{s.instruction}\n{words}" if s.instruction else words
        if s.turn.answer is not None:
            s.turn.answer.instruction = s.instruction  # whether a rewrite may delete code follows the words
        self.said = (s.turn_task, first, said)
        try:
            await s.stream.steer(words)
        except Exception as exc:
            s.notice("error", NoticeCode.REDIRECT_FAILED, f"redirect failed: {exc}")

    def follows_up(self, words: str) -> bool:
        """Words sent now would go on from the last turn's request (`follow_up`)."""
        s = self.session
        from steer_tui.prompts import refers_back

        task, ended = s.turn_task, s.ended_turn
        if (s.state is GENERATING or ended is None or task is None or ended.task is not task or not task.done()
                or not s.instruction or ended.text != s.document.text or s.review.conflict):
            return False
        if (s.review.proposed_text() if s.has_proposal else None) != ended.proposed:
            return False  # rejected, in whole or in part: what is left is the user's pick, not the answer
        # After Esc, only words that go on from the request: a stopped request is asked again only then.
        return s.state is REVIEW and s.has_proposal or ended.stopped and refers_back(words)

    def asks_first(self, words: str) -> bool:
        """Words that go on from the answer ended are asked first, on their own (an addition, a new
        request), rather than starting its turn over with them (a correction, or a format without
        regions)."""
        s = self.session
        from steer_tui.prompts import redirect_corrects

        return s.format == "rewrite" and s.region is not None and not redirect_corrects(words)

    def asked_first(self, words: str, naming: str | None = None) -> tuple[tuple[int, int], str]:
        """(region, instruction) of words asked first, on their own, before the request they add to:
        on the turn's region, whose block the request showed and the engine still holds, so only the
        words are new; on the definitions the words (`naming`: those with the one being typed) name
        apart from it, or the span taking in one that overlaps it (prompts.addition_region)."""
        s = self.session
        from steer_tui.prompts import addition_instruction, addition_region
        from steer_tui.turn import docstring_request

        # A class's docstring alone is asked of the class's header (steer_tui.turn.docstring_request).
        doc = docstring_request(s, addition_instruction(naming or words))
        region = doc[0] if doc is not None else addition_region(s.document.text, s.region, naming or words, path=s.path)
        return region, addition_instruction(words)

    async def follow_up(self, words: str) -> bool:
        """Words sent after the answer ended, while its proposal is under review (or after Esc), go
        on from that turn's request, as a redirect would: a correction ("no, only to pop", "use a
        dict, not a list") starts the turn over with the request and the words as one request;
        any other words (an addition, a new request) are asked at once on their own, and their
        answer is merged with the proposal as it stands (Turn.known), or, where that proposal is
        not one whole answer, with the request asked again (the "before" path of `redirect`).
        After Esc, only words that go on from the request do (prompts.refers_back).
        False when the words start a turn of their own: nothing was asked yet, the proposal was
        accepted, rejected (in whole or in part) or overtaken by a change of the file."""
        s = self.session
        from steer_tui.prompts import redirect_adds

        task = s.turn_task
        if task is not None and not task.done() and s.turn is not None and s.turn.stopped:
            await ended(task)  # Esc: the stopped turn is winding down
        if not self.follows_up(words):
            return False
        words = words.strip()
        first, said = self.history()
        said = said + [words]
        said_text = " ".join(words.split())
        if self.asks_first(words):
            # The request's answer is the proposal under review, when one whole answer made it (not
            # a merge of two, nor what Esc kept of one): it is merged with the addition's as it
            # stands, not asked again.
            before = s.turn
            known = (before.result.raw_text if before is not None and before.base is None and s.state is REVIEW
                     and s.has_proposal and not s.ended_turn.stopped else None)
            then = "then merged with it" if known else "then the request again"
            s.notice("info", NoticeCode.REDIRECTED, f"on top of the proposal: {said_text} (asked first, {then})")
            if not redirect_adds(words):
                # Kept as what it was taken for, an addition: a later follow-up adds it to the request.
                said[-1] = f"also {words}"
            await self.restart_turn(first, said, addition=words, known=known)
        else:
            s.notice("info", NoticeCode.REDIRECTED, f"redirected: {said_text} (the answer starts over)")
            await self.restart_turn(first, said)
        return True

    def mode_for(self, words: str) -> str:
        """redirect_mode, with "auto" decided for these words."""
        s = self.session
        mode = s.redirect_mode
        if mode == "auto":
            from steer_tui.prompts import redirect_adds

            mode = s.settings.redirect_additions if redirect_adds(words) else "restart"
        return mode

    def restarted_turn(self, first: str, said: list[str]) -> tuple[tuple[int, int] | None, str]:
        """(region, instruction) of the turn a redirect starts over: the first request and the words
        said since, as one request (prompts.redirect_instruction), on the region they name."""
        s = self.session
        from steer_tui.prompts import redirect_region

        region = redirect_region(s.document.text, s.region, said[-1:], s.path)
        # Measured for a region rewrite only (prompts.redirect_instruction): other formats have no region.
        return region, self.redirected_request(first, said, same_region=region is not None and region == s.region)

    @staticmethod
    def redirected_request(first: str, said: list[str], same_region: bool = False) -> str:
        """The first request and the words said since, as one request (prompts.redirect_instruction)."""
        from steer_tui.prompts import redirect_instruction

        return redirect_instruction(first, said, same_region) if first else "\n".join(said)

    def history(self) -> tuple[str, list[str]]:
        """(first instruction, redirects so far) of the turn under way."""
        s = self.session
        got = self.said
        if got is not None and got[0] is s.turn_task:
            return got[1], list(got[2])
        return s.instruction or "", []

    async def restart_turn(self, first: str, said: list[str], addition: str | None = None,
                            known: str | None = None) -> None:
        """Stop the answer and start the turn over with `redirect_instruction(first, said)`; with
        `addition` (words that add to the request, the last of `said`), the turn asks the addition
        alone first, on the region (steer_tui.turn.Turn.then), then the request it interrupted again, or
        takes `known` as that request's answer (Turn.known: a follow-up on a proposal under review).

        To the listener the turn goes on: the superseded turn's state changes, stats and end are
        not shown (it is replaced, not stopped); its partial leaves the live diff before anything
        is awaited, and no later delta of it reaches the diff (it is no longer the session's turn).
        """
        s = self.session
        stream, listener, old = s.stream, s.on_event, s.turn_task
        if addition is None:
            region, combined = self.restarted_turn(first, said)
        else:
            region, combined = self.asked_first(addition)
            request = self.redirected_request(first, said[:-1]) if said[:-1] else first
        s.let_go_of_turn()  # the old turn sees it was superseded: none of its deltas reach the diff any more
        s.discard_proposal()

        def quiet(ev) -> None:
            if not isinstance(ev, (StateChanged, Stats, TurnEnded)):
                listener(ev)

        s.on_event = quiet
        try:
            if stream is not None and old is not None and not old.done():
                await cancel_quietly(stream)
            await ended(old)
        finally:
            if s.on_event is quiet:
                s.on_event = listener
        back = s.region
        await s.start_turn(combined, region)
        if addition is not None and s.turn is not None:
            s.turn.then, s.turn.then_region, s.turn.known = request, back, known or None
            s.instruction = f"{request}\n{addition}"
        self.said = (s.turn_task, first, said)
