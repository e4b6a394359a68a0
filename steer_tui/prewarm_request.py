"""The request a prewarm sends: exactly the prefix a turn on the same region and words would start with (system prompt, file view, project context, region block, words); and the one `steer edit` leaves running after it wrote."""

from __future__ import annotations

import asyncio

from steer_tui.events import NoticeCode


async def send_prewarm(session, region: tuple[int, int] | None, typed: str, complete: bool, lane: str, *,
                       detach: bool = False) -> None:
    """Ask `session`'s engine to evaluate the prefix now (`generate: false`); a failure is a notice,
    never a failed session (a prewarm only saves time). `detach`: it goes on after the session closes
    (ResponsesClient.prewarm); this returns once the gateway took it."""
    from steer_tui.project.window import session_budget
    from steer_tui.prompts import prewarm_input, system_prompt

    fmt = session.format
    try:
        # Chosen on a thread: on a big project it takes a noticeable part of a second.
        context = (await asyncio.to_thread(session.request_context, region, typed)
                   if session.context is not None else None)
        await session.client.prewarm(
            model=session.model,
            instructions=system_prompt(fmt),
            input=prewarm_input(fmt, session.prompt_path, session.document.text, region, typed, complete,
                                context=context, file_tokens=session_budget(session), once=session.region_once),
            stream_id=lane,
            **({"detach": True} if detach else {}),  # only our gateway's client takes it (ResponsesClient.prewarm)
        )
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        session.notice("warning", NoticeCode.PREWARM_FAILED, f"prewarm failed: {exc}")


async def leave_warm(session, timeout: float = 2.0) -> None:
    """The file as it is now stays evaluated in `session`'s engine after the session closes: a
    prewarm the gateway runs on past the connection (`detach`), so that the next command on the
    file evaluates only its own words (steer edit, after it wrote). Returns once the gateway took it
    (or after `timeout`); a gateway without `detach` is left alone, and so is a file over its budget
    in a format that shows it around the region (prompts.view_follows_region: no view of it now is
    the next turn's prefix). A rewrite shows every region after the same view of the file; where
    the same words' region is all but a few lines of the file, the next command shows that region
    alone (prompts.build_input `once`), and its block is what is left warm."""
    from steer_tui.project.window import fits, region_once, session_budget
    from steer_tui.prompts import REWRITE, edit_region, view_follows_region

    if session.client is None or "detach" not in session.server_features:
        return
    text = session.document.text
    if not fits(text, session_budget(session)) and view_follows_region(session.format):
        return
    region = None
    if session.region_once and session.format == REWRITE:
        again = edit_region(text, session.instruction or "", session.path)  # as Session.scoped chooses it
        region = again if region_once(text, again) else None
    # A lane of its own: the engine keeps each lane's cache apart, so the request's stays beside it
    # (a command run again on the file as it was, a script's retry or a benchmark's, finds that whole).
    lane = f"{session.stream_id}-written"
    session.prewarms.start(send_prewarm(session, region, "", False, lane, detach=True), text, region)
    try:
        await asyncio.wait_for(session.prewarms.task, timeout)
    except asyncio.TimeoutError:
        pass
