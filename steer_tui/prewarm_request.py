"""The request a prewarm sends: exactly the prefix a turn on the same region and words would start with (system prompt, file view, project context, region block, words)."""

from __future__ import annotations

import asyncio

from steer_tui.events import NoticeCode


async def send_prewarm(session, region: tuple[int, int] | None, typed: str, complete: bool, lane: str) -> None:
    """Ask `session`'s engine to evaluate the prefix now (`generate: false`); a failure is a notice,
    never a failed session (a prewarm only saves time)."""
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
                                context=context, file_tokens=session_budget(session)),
            stream_id=lane,
        )
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        session.notice("warning", NoticeCode.PREWARM_FAILED, f"prewarm failed: {exc}")
