"""Client pipeline benchmark: replay -> gateway -> client -> session -> the headless app, 10,000-line file.

A long recorded edit (many SEARCH/REPLACE blocks spread over the file) is replayed at an
unlimited rate through the real gateway and client into the app built by make_app. We
measure the sustained token rate to the final screen, the work per screen update (our
once-per-frame flush plus Textual's compositor render of the dirty regions, rendered to
terminal bytes as a real terminal would get them), the time from Esc to the last screen
change, and start-up to the first frame (process spawn to the first frame that shows the file, timed
from the parent process: interpreter start-up and imports included).
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.table import percentile, print_table
from steer_tui.spawn import python_argv, python_code_argv

STEER = python_argv()  # `python -m steer_tui`, isolated from the folder it runs in

LINES = 10_000
BLOCKS = 60
NEW_LINES_PER_BLOCK = 40
SIZE = (120, 40)
# Esc is pressed half-way through a stream at this rate (a fast served model); at an unlimited
# rate the whole answer is in the socket buffer before a key could be read.
ESC_RATE = 5000
ESC_DELAYS = (0.0, 1 / 180, 2 / 180)  # Esc this long after the update that reaches half-way


def make_file(path: Path) -> None:
    out = []
    for i in range(LINES // 4):
        out += [f"def func_{i}(x):", f"    y = x + {i}", "    return y * 2", ""]
    path.write_text("\n".join(out) + "\n", encoding="utf-8")


def make_response() -> str:
    parts = ["I'll rewrite these functions with validation and logging.\n"]
    step = (LINES // 4) // BLOCKS
    for b in range(BLOCKS):
        i = b * step + 7
        new = [f"def func_{i}(x):", f'    """Add {i} and double, with checks (block {b})."""']
        for k in range(NEW_LINES_PER_BLOCK - 4):
            new.append(f"    if x == {k * 31 + i}:  # special case {k} of func_{i}")
        new += [f"    y = x + {i}", "    return y * 2"]
        parts.append("<<<<<<< SEARCH\n" + f"def func_{i}(x):\n    y = x + {i}\n    return y * 2\n"
                     + "=======\n" + "\n".join(new) + "\n>>>>>>> REPLACE\n")
    return "\n".join(parts)


class Probe:
    """Times every screen update: our flush plus the compositor's render of what changed."""

    def __init__(self, app) -> None:
        self.app = app
        self.updates: list[float] = []
        self.flush_s: list[float] = []
        self.paint_s: list[float] = []
        self._pending_flush = 0.0
        self.last_change = 0.0  # any screen output (footer and toasts included)
        self.view_change = 0.0  # the file view, its scrollbars, the status line or the keys drew something
        self.paints = 0
        # (start, drew the file view, its scrollbars, the status line or the keys) per paint
        self.paint_log: list[tuple[float, bool]] = []
        self._touched = False
        self.stop_pressed_at: float | None = None  # Esc's action started (the session was generating)
        self.stop_done_at: float | None = None  # Esc's events applied, its paint about to start

    def install(self) -> None:
        app = self.app
        screen = app.screen
        original_flush = app._apply_events
        original_stop = app.action_stop
        original_paint_now = app.paint_now
        original_paint = screen._on_timer_update
        original_display = app._display
        console = app.console

        def flush() -> None:
            t = time.perf_counter()
            original_flush()
            d = time.perf_counter() - t
            self.flush_s.append(d)
            self._pending_flush += d

        def paint() -> None:
            t = time.perf_counter()
            self._touched = False
            original_paint()
            d = time.perf_counter() - t
            self.paint_log.append((t, self._touched))
            self.paint_s.append(d)
            self.updates.append(self._pending_flush + d)
            self._pending_flush = 0.0

        def display(scr, renderable) -> None:
            # Headless Textual skips turning the update into terminal bytes; do it, as a terminal needs it.
            if renderable is not None and hasattr(renderable, "render_segments"):
                renderable.render_segments(console)
                self.last_change = time.perf_counter()
                self.paints += 1
            original_display(scr, renderable)

        async def stop() -> None:
            if app.session is not None and app.session.state == "generating":
                self.stop_pressed_at = time.perf_counter()
            await original_stop()

        def paint_now() -> None:
            # action_stop's only synchronous paint: the interrupted picture is final once it starts.
            if self.stop_pressed_at is not None and self.stop_done_at is None:
                self.stop_done_at = time.perf_counter()
            original_paint_now()

        app._apply_events = flush
        # Textual looks actions up on the instance at each key: these wrap the app's own.
        app.action_stop = stop
        app.paint_now = paint_now
        # The screen's update timer holds the bound method it was created with: swap its callback.
        timer = screen._update_timer
        timer._callback = paint
        screen._on_timer_update = paint  # the app's paint_now (Esc) calls it directly
        app._display = display
        code, status = app.code, app.status
        code_render, status_render = code.render_line, status.render

        def render_line(y):
            self.view_change = time.perf_counter()
            self._touched = True
            return code_render(y)

        def render_status():
            self.view_change = time.perf_counter()
            self._touched = True
            return status_render()

        code.render_line = render_line
        status.render = render_status
        # The keys and the scrollbar change on Esc too: count the paints they are drawn in.
        bars = [bar for bar in (code._vertical_scrollbar, code._horizontal_scrollbar) if bar is not None]
        for widget in (app.query_one("KeyBar"), *bars):
            def touched(original=widget.render):
                self.view_change = time.perf_counter()
                self._touched = True
                return original()

            widget.render = touched


async def run_stream(path: Path, response: str, *, esc_at: float | None = None, rate: float = 0,
                     esc_delay: float = 0.0) -> dict:
    from steer_tui.config import Settings
    from steer_tui.server.engines.replay import ReplayEngine
    from steer_tui.server.gateway import Gateway
    from steer_tui.transport.client import ResponsesClient
    from steer_tui.ui.app import make_app

    engine = ReplayEngine(response, rate=rate)
    gateway = Gateway(engine)
    url = await gateway.start("127.0.0.1", 0)
    client = ResponsesClient(url)
    await client.connect()
    # The whole 10,000-line file goes to the model (the bench's edit spans it), as with a backend whose
    # context holds it: with the default budget the turn is refused before anything streams.
    app = make_app(path, Settings(backend="replay", model="bench", file_tokens=200_000), watch=False, connect=False)
    result: dict = {}
    try:
        async with app.run_test(size=SIZE) as pilot:
            probe = Probe(app)
            probe.install()
            app.connect_client(client)
            # A user types after the file is on screen and highlighted (the lexer thread is done).
            # ... and the project's index is built (its thread parses the file once, after the open).
            while (app.session is None or app.status.connection != "ready" or not app.code.highlighted
                   or (app.session.context is not None and not app.session.context.ready)):
                await pilot.pause(0.01)
            halfway = asyncio.Event()
            if esc_at is not None:
                on_event = app.session.on_event

                def watch(ev) -> None:
                    on_event(ev)
                    if type(ev).__name__ == "ProposalUpdated" and ev.hunks >= esc_at * BLOCKS:
                        halfway.set()

                app.session.on_event = watch
            app.prompt.value = "add validation"
            t_send = time.perf_counter()
            await pilot.press("enter")
            first_delta = None
            t_esc = None
            while True:
                await asyncio.sleep(0.0005)
                if first_delta is None and engine.produced:
                    first_delta = time.perf_counter()
                if esc_at is not None and t_esc is None:
                    while not halfway.is_set():
                        if app.session._turn_task.done():
                            raise RuntimeError(f"the turn ended before Esc (state {app.session.state}): "
                                               f"{app.status.detail or 'see the notices'}")
                        await asyncio.sleep(0.0005)
                    if esc_delay:
                        await asyncio.sleep(esc_delay)  # a key comes at any point of a frame
                    mark = probe.paints  # before: press() waits for a paint
                    t_esc = time.perf_counter()
                    await pilot.press("escape")
                    result["esc_hunks"] = app.session.live.hunk_count
                if t_esc is not None and app.session.state == "interrupted":
                    break  # the turn's end (cancel acknowledged) is the engine's business, not the screen's
                if app.session.state in ("review", "idle", "interrupted") and app.session._turn_task.done():
                    break
                if time.perf_counter() - t_send > 120:
                    raise TimeoutError(f"the stream did not end (state {app.session.state})")
            # the final screen is on: wait until a frame with the final state was painted
            await pilot.pause(0.05)
            t_end = probe.view_change  # the final state drawn (file view / status line)
            if t_esc is not None:
                await pilot.pause(0.5)  # anything still changing after Esc would show up here
                result["esc_to_still_s"] = probe.view_change - t_esc
                result["esc_to_any_s"] = probe.last_change - t_esc
                result["esc_key_s"] = (probe.stop_pressed_at or t_esc) - t_esc
                result["esc_final_s"] = (probe.stop_done_at or t_esc) - (probe.stop_pressed_at or t_esc)
                result["paints_after_esc"] = probe.paints - mark
                # Paints that start after the Esc action ran (one may start between the key and the action).
                after = [(t, drew) for t, drew in probe.paint_log if t > (probe.stop_pressed_at or t_esc)]
                result["view_paints_after_esc"] = sum(drew for _t, drew in after)
                result["esc_to_paint_s"] = (after[0][0] if after else t_esc) - t_esc
            result.update(
                tokens=engine.produced,
                seconds=t_end - t_send,  # Enter -> final frame, time to first token included
                updates=probe.updates,
                flush=probe.flush_s,
                paint=probe.paint_s,
                hunks=app.session.live.hunk_count,
                rows=app.session.live.row_count,
                state=app.session.state,
            )
    finally:
        await client.close()
        await gateway.close()
    return result


STARTUP = r"""
import sys, time
t_start = time.time()
sys.path.insert(0, {root!r})
from steer_tui.config import Settings
from steer_tui.ui.app import make_app
t_imported = time.time()
app = make_app({path!r}, Settings(backend="replay", model="bench"), watch=False, connect=False)
t_built = time.time()
first = []
display = app._display
def first_display(screen, update):
    display(screen, update)
    # The first update that carries the file view's lines: what a terminal would show first.
    if not first and update is not None and app.code._drawn:
        first.append(time.time())
        if hasattr(update, "render_segments"):
            update.render_segments(app.console)  # headless skips writing the bytes; count that work
            first[0] = time.time()
app._display = first_display
async def auto(pilot):
    while not first:
        await pilot.pause(0.001)
    pilot.app.exit()
app.run(headless=True, size=(120, 40), auto_pilot=auto)
print(t_start, t_imported, t_built, first[0])
"""


def startup(path: Path, runs: int = 7) -> dict:
    """Process spawn -> first frame written, timed from the parent (interpreter start-up and imports
    included); medians over `runs` fresh processes."""
    root = str(Path(__file__).resolve().parents[1])
    script = STARTUP.format(root=root, path=str(path))
    spans: dict[str, list[float]] = {"interpreter": [], "imports": [], "build": [], "to_frame": [], "total": []}
    for _ in range(runs):
        t0 = time.time()
        out = subprocess.run(python_code_argv(script), capture_output=True, text=True, timeout=60)
        if out.returncode != 0:
            raise RuntimeError(out.stderr[-2000:])
        t_start, t_imported, t_built, t_frame = (float(x) for x in out.stdout.split()[-4:])
        spans["interpreter"].append(t_start - t0)
        spans["imports"].append(t_imported - t_start)
        spans["build"].append(t_built - t_imported)
        spans["to_frame"].append(t_frame - t_built)
        spans["total"].append(t_frame - t0)
    return {k: percentile(v, 50) for k, v in spans.items()}


def startup_pty(path: Path, runs: int = 7) -> float | None:
    """The real command in a pseudo-terminal: `python -m steer_tui FILE`, spawn -> the file's text on the
    terminal (argument parsing, config, the real terminal driver included). The backend is an
    unreachable gateway URL: connecting starts only after the first frame, so it costs nothing
    here and no model is loaded. None where there is no pty (not Unix)."""
    try:
        import fcntl
        import os
        import pty
        import select
        import signal
        import struct
        import termios
    except ImportError:
        return None
    root = str(Path(__file__).resolve().parents[1])
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        pid, fd = pty.fork()
        if pid == 0:  # the child: exec at once
            os.chdir(root)
            os.environ["TERM"] = "xterm-256color"
            os.execv(sys.executable, [*STEER, str(path),
                                      "--backend", "ws://127.0.0.1:9/v1/responses"])
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", SIZE[1], SIZE[0], 0, 0))
        seen, shown = b"", None
        try:
            while time.perf_counter() - t0 < 20:
                if select.select([fd], [], [], 0.05)[0]:
                    try:
                        seen += os.read(fd, 65536)
                    except OSError:
                        break
                    if b"func_0" in seen:  # a line of the file, drawn by the file view
                        shown = time.perf_counter() - t0
                        break
        finally:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            os.close(fd)
        if shown is None:
            raise RuntimeError(f"the file never showed on the terminal: {seen[-500:]!r}")
        times.append(shown)
    return percentile(times, 50)


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.py"
        make_file(path)
        response = make_response()
        full = asyncio.run(asyncio.wait_for(run_stream(path, response), 180))
        make_file(path)
        # Esc right after a screen update, and a third and two thirds of a frame later: how long the
        # screen takes to be still depends on where in Textual's 60 Hz paint cycle the key lands.
        trials = []
        for delay in ESC_DELAYS:
            make_file(path)
            trials.append(asyncio.run(asyncio.wait_for(
                run_stream(path, response, esc_at=0.5, rate=ESC_RATE, esc_delay=delay), 180)))
        esc = sorted(trials, key=lambda t: t["esc_to_still_s"])[len(trials) // 2]  # the median trial
        esc_worst = max(t["esc_to_still_s"] for t in trials)
        esc_paints = max(t["view_paints_after_esc"] for t in trials)
        start = startup(path)
        start_pty = startup_pty(path)

    if not full["tokens"]:
        raise RuntimeError("nothing streamed: the turn ended before its first token")
    rate = full["tokens"] / full["seconds"] if full["seconds"] > 0 else float("nan")
    ups = [u * 1000 for u in full["updates"]]
    rows = [
        ["file", f"{LINES:,} lines, {BLOCKS} blocks, {full['tokens']:,} tokens", "", ""],
        ["sustained rate, deltas -> screen", f"{rate:,.0f} tokens/s", ">= 10,000 tokens/s",
         "ok" if rate >= 10_000 else "MISSED"],
        ["screen updates during the stream", f"{len(ups)}", "", ""],
        ["screen update p50 (flush + render)", f"{percentile(ups, 50):.2f} ms", "", ""],
        ["screen update p99 (flush + render)", f"{percentile(ups, 99):.2f} ms", "<= 16 ms",
         "ok" if percentile(ups, 99) <= 16 else "MISSED"],
        [f"screen update p99 at {ESC_RATE:,} tok/s (until Esc)",
         f"{percentile([u * 1000 for u in esc['updates']], 99):.2f} ms", "<= 16 ms",
         "ok" if percentile([u * 1000 for u in esc['updates']], 99) <= 16 else "MISSED"],
        ["  of which flush p99", f"{percentile([f * 1000 for f in full['flush']], 99):.2f} ms", "", ""],
        ["  of which render p99", f"{percentile([p * 1000 for p in full['paint']], 99):.2f} ms", "", ""],
        ["Esc key -> action (Textual input queue)", f"{esc['esc_key_s'] * 1000:.1f} ms", "", ""],
        ["Esc action -> final picture set (stream cut, rows final)", f"{esc['esc_final_s'] * 1000:.1f} ms", "", ""],
        [f"Esc -> last screen change (file view, scrollbars, status, keys), {ESC_RATE:,} tok/s, median of {len(trials)}",
         f"{esc['esc_to_still_s'] * 1000:.1f} ms", "<= one 60 Hz frame (16.7 ms)",
         "ok" if esc["esc_to_still_s"] <= 0.0167 else "MISSED"],
        ["  worst of the Esc trials", f"{esc_worst * 1000:.1f} ms", "", ""],
        ["  of which waiting for the first paint after Esc (drawn in the Esc action)", f"{esc['esc_to_paint_s'] * 1000:.1f} ms", "", ""],
        ["paints after Esc that draw file view, scrollbar, status or keys (max)", f"{esc_paints}", "1",
         "ok" if esc_paints == 1 else "MISSED"],
        ["Esc -> last change anywhere (prompt cursor blink, toast)", f"{esc['esc_to_any_s'] * 1000:.1f} ms", "", ""],
        ["start-up: interpreter (python itself, site) median", f"{start['interpreter'] * 1000:.0f} ms", "", ""],
        ["start-up: imports median", f"{start['imports'] * 1000:.0f} ms", "", ""],
        ["start-up: app built -> first frame written, median", f"{(start['build'] + start['to_frame']) * 1000:.0f} ms", "", ""],
        ["start-up: process spawn -> first frame written, median of 7", f"{start['total'] * 1000:.0f} ms", "<= 300 ms",
         "ok" if start["total"] <= 0.3 else "MISSED"],
        ["start-up, the real command in a pty (python -m steer_tui FILE): spawn -> file on the terminal, median of 7",
         "no pty here" if start_pty is None else f"{start_pty * 1000:.0f} ms", "<= 300 ms",
         "" if start_pty is None else "ok" if start_pty <= 0.3 else "MISSED"],
        ["final state / hunks", f"{full['state']} / {full['hunks']}", f"review / {BLOCKS}",
         "ok" if full["hunks"] == BLOCKS else "MISSED"],
    ]
    print_table("pipeline: replay -> gateway -> client -> session -> headless app (10,000-line file)",
                ["what", "measured", "target", ""], rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
