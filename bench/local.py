"""Embedded engine vs llama-cpp-python's own server: time to first token (cold, prewarmed, steer) and decode speed.

Ours: steer_tui.server.engines.local.LocalEngine driven in-process through the Engine API (the
gateway adds a loopback WebSocket hop, measured in bench/transport.py). Baseline:
`python -m llama_cpp.server` with the same GGUF, threads and context, streamed over HTTP
SSE; its cold prompts are prompts it has never seen. Each file gets a fresh nonce per
scenario so nothing is cached by accident. The baseline server needs uvicorn, fastapi,
sse-starlette, starlette-context and pydantic-settings (bench-only; not project deps).

Targets (DESIGN.md): TTFT after prewarm <= 10% of the baseline's cold TTFT; decode >= baseline.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
import uuid

from bench.table import print_table

MAX_TOKENS = 64
INSTRUCTION = "Make `{name}` raise ValueError when `items` is empty, with a clear message."
FOLLOW_UP = "Also add a one-line docstring to `{name}`."
STEER_WORDS = "Use TypeError instead of ValueError."


def make_file(lines: int, nonce: str) -> tuple[str, str]:
    """A plausible Python module of about `lines` lines; returns (text, name of a function to edit)."""
    out = [f'"""Order utilities ({nonce})."""', "", "from dataclasses import dataclass", "", ""]
    out += ["@dataclass", "class Order:", "    sku: str", "    price: float", "    qty: int = 1", "", ""]
    i = 0
    names = []
    while len(out) + 9 <= lines - 1:
        name = f"summarize_{['totals', 'prices', 'counts', 'discounts', 'taxes', 'returns'][i % 6]}_{i}"
        names.append(name)
        out += [
            f"def {name}(items, rate={1 + i % 7}):",
            f'    """Combine orders for report {i}."""',
            "    total = 0",
            "    for order in items:",
            f"        if order.qty > {i % 5}:",
            "            total += order.price * order.qty * rate",
            "    return round(total, 2)",
            "",
            "",
        ]
        i += 1
    k = 0
    while len(out) < lines:
        out.append(f"LIMIT_{k} = {k * 10}")
        k += 1
    text = "\n".join(out) + "\n"
    target = names[len(names) // 2]
    return text, target


def _messages(text: str, target: str, extra: list[dict] | None = None) -> list[dict]:
    """The local default format's turn; for a region rewrite the region is the function being edited."""
    from steer_tui import prompts

    fmt = prompts.default_format("local")
    instruction = INSTRUCTION.format(name=target)
    region = prompts.rewrite_region(text, instruction) if fmt == prompts.REWRITE else None
    msgs = prompts.build_messages(fmt, "orders.py", text, instruction, region=region)
    return msgs + (extra or [])


def _prewarm_messages(text: str, target: str) -> list[dict]:
    """What the session prewarms while the user types: system + file (+ the cursor's region)."""
    from steer_tui import prompts

    fmt = prompts.default_format("local")
    region = prompts.rewrite_region(text, INSTRUCTION.format(name=target)) if fmt == prompts.REWRITE else None
    return [{"role": "system", "content": prompts.system_prompt(fmt)}, *prompts.prewarm_input(fmt, "orders.py", text, region)]


# ---------------------------------------------------------------- ours


class _Ours:
    def __init__(self, engine):
        self.engine = engine

    async def run(self, messages, session, *, generate=True, max_tokens=MAX_TOKENS, stop_after=None, temperature=None):
        """Returns (ttft_s, decode_tok_s, text, request, cancel_time)."""
        from steer_tui.server.engines.base import EngineRequest

        req = EngineRequest(f"resp_{uuid.uuid4().hex[:8]}", messages, session, max_output_tokens=max_tokens, generate=generate,
                            temperature=temperature)
        cancel = threading.Event()
        t0 = time.perf_counter()
        first = last = None
        parts = []
        cancel_at = None
        async for delta in self.engine.stream(req, cancel):
            now = time.perf_counter()
            first = first or now
            last = now
            parts.append(delta)
            if stop_after and len(parts) >= stop_after and not cancel.is_set():
                cancel_at = time.perf_counter()
                cancel.set()
        ttft = (first - t0) if first else time.perf_counter() - t0
        n = req.usage.output_tokens
        tps = (n - 1) / (last - first) if first and last and last > first and n > 1 else float("nan")
        return ttft, tps, "".join(parts), req, cancel_at


async def _bench(sizes: list[int], n_threads: int, n_ctx: int, baseline: "_Baseline") -> dict:
    from steer_tui.server.engines.local import LocalEngine

    engine = LocalEngine(n_threads=n_threads, n_ctx=n_ctx)
    t = time.perf_counter()
    await engine.start()
    load_s = time.perf_counter() - t
    ours = _Ours(engine)
    results: dict = {"load_s": load_s}
    try:
        for lines in sizes:
            r = results[lines] = {}
            # Cold: a file the engine has never seen, in a new session.
            text, target = make_file(lines, uuid.uuid4().hex)
            ttft, tps, answer, req, _ = await ours.run(_messages(text, target), f"cold-{lines}")
            r["cold"], r["decode"], r["prompt_tokens"] = ttft, tps, req.usage.input_tokens
            # Follow-up on the same session: the transcript grows, the prefix is cached.
            follow = [{"role": "assistant", "content": answer}, {"role": "user", "content": FOLLOW_UP.format(name=target)}]
            r["follow_up"], tps2, _, _, _ = await ours.run(_messages(text, target, follow), f"cold-{lines}")
            r["decode2"] = tps2
            # Prewarm: the file is opened (prewarmed) while the user types, then Enter.
            text, target = make_file(lines, uuid.uuid4().hex)
            session = f"warm-{lines}"
            t = time.perf_counter()
            await ours.run(_prewarm_messages(text, target), session, generate=False)
            r["prewarm_s"] = time.perf_counter() - t
            r["warm"], _, answer, req, _ = await ours.run(_messages(text, target), session)
            r["warm_evaluated"] = req.usage.evaluated_tokens
            # Steer, in the same (warm) session: a new turn is interrupted after a few tokens and
            # continued with the partial answer + new words, as the gateway's response.steer does.
            follow = [{"role": "assistant", "content": answer}, {"role": "user", "content": FOLLOW_UP.format(name=target)}]
            msgs = _messages(text, target, follow)
            _, _, partial, first, cancel_at = await ours.run(msgs, session, stop_after=8)
            steer = [{"role": "assistant", "content": partial}, {"role": "user", "content": STEER_WORDS}]
            t = time.perf_counter()
            ttft, _, _, req, _ = await ours.run(msgs + steer, session)
            # From the moment of the cancel: that is when the user pressed Enter.
            r["steer"] = (t - cancel_at) + ttft if cancel_at else ttft
            r["steer_evaluated"] = req.usage.evaluated_tokens
            # The baseline right after, on new files of the same size: both see the same machine load.
            results[("base", lines)] = await asyncio.to_thread(baseline.measure, lines)
    finally:
        await engine.close()
    return results


# ---------------------------------------------------------------- baseline: llama_cpp.server


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _baseline_missing() -> str | None:
    import importlib.util

    missing = [m for m in ("uvicorn", "fastapi", "sse_starlette", "starlette_context", "pydantic_settings") if importlib.util.find_spec(m) is None]
    if missing:
        return "llama_cpp.server needs " + ", ".join(missing) + " (pip install 'llama-cpp-python[server]')"
    return None


class _Baseline:
    """llama_cpp.server in a subprocess; started before our engine loads, measured per file size."""

    def __init__(self, model_path: str, n_threads: int, n_ctx: int):
        self.cmd = [sys.executable, "-m", "llama_cpp.server", "--model", model_path, "--n_threads", str(n_threads),
                    "--n_threads_batch", str(n_threads), "--n_ctx", str(n_ctx), "--host", "127.0.0.1"]
        self.proc = None
        self.error: str | None = _baseline_missing()
        self.load_s = float("nan")

    def start(self) -> None:
        import tempfile

        import httpx

        if self.error:
            return
        port = _free_port()
        self.base = f"http://127.0.0.1:{port}"
        # stderr to a file: the server logs the whole chat template, enough to fill a pipe and block it.
        self.log = tempfile.TemporaryFile("w+")
        self.proc = subprocess.Popen(self.cmd + ["--port", str(port)], stdout=subprocess.DEVNULL, stderr=self.log, text=True)
        t = time.perf_counter()
        while True:
            if self.proc.poll() is not None:
                self.log.seek(0)
                self.error = f"llama_cpp.server exited: {self.log.read()[-500:]}"
                return
            try:
                if httpx.get(f"{self.base}/v1/models", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.perf_counter() - t > 300:
                self.error = "llama_cpp.server did not start in 300 s"
                self.stop()
                return
            time.sleep(0.25)
        self.load_s = time.perf_counter() - t
        self.client = httpx.Client(timeout=900)

    def measure(self, lines: int) -> dict:
        if self.error:
            return {}
        r: dict = {}
        text, target = make_file(lines, uuid.uuid4().hex)
        r["cold"], r["decode"], answer = _sse_chat(self.client, self.base, _messages(text, target))
        follow = [{"role": "assistant", "content": answer}, {"role": "user", "content": FOLLOW_UP.format(name=target)}]
        r["follow_up"], r["decode2"], _ = _sse_chat(self.client, self.base, _messages(text, target, follow))
        return r

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
            self.proc = None


def _sse_chat(client, base: str, messages: list[dict]) -> tuple[float, float, str]:
    body = {"messages": messages, "max_tokens": MAX_TOKENS, "temperature": 0.0, "stream": True}
    t0 = time.perf_counter()
    first = last = None
    chunks = 0
    text = []
    with client.stream("POST", f"{base}/v1/chat/completions", json=body) as resp:
        resp.raise_for_status()
        for line in resp.iter_lines():
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            delta = json.loads(line[6:])["choices"][0].get("delta", {}).get("content")
            if delta:
                now = time.perf_counter()
                first = first or now
                last = now
                chunks += 1  # llama_cpp.server streams one chunk per token
                text.append(delta)
    ttft = (first or time.perf_counter()) - t0
    tps = (chunks - 1) / (last - first) if first and last and last > first and chunks > 1 else float("nan")
    return ttft, tps, "".join(text)


# ---------------------------------------------------------------- main


async def _decode_rounds(baseline: "_Baseline", n_threads: int, n_ctx: int, rounds: int) -> tuple[list[float], list[float]]:
    """Decode speed only, ours and the baseline alternating on the same prompt (cached after round 1),
    so both see the same machine load; prefill is excluded from tokens/s."""
    from steer_tui.server.engines.local import LocalEngine

    engine = LocalEngine(n_threads=n_threads, n_ctx=n_ctx)
    await engine.start()
    ours, base = [], []
    text, target = make_file(40, "decode")
    msgs = _messages(text, target)
    try:
        for _ in range(rounds):
            _, tps, _, _, _ = await _Ours(engine).run(msgs, "decode")
            ours.append(tps)
            if not baseline.error:
                _, btps, _ = await asyncio.to_thread(_sse_chat, baseline.client, baseline.base, msgs)
                base.append(btps)
    finally:
        await engine.close()
    return ours, base


# ---------------------------------------------------------------- speculative edits: plain vs speculative


def make_function(lines: int = 40) -> str:
    """A `lines`-line function (the rewrite's region); SPEC_INSTRUCTION changes one line near its middle."""
    body = ['def settle_accounts(ledger, fees, limit=100):', '    """Settle every account in the ledger, in order."""',
            "    rate = 2", "    settled = []", "    skipped = 0"]
    i = 0
    while len(body) < lines - 2:
        body += [f"    for entry in ledger.get('batch_{i}', []):",
                 f"        if entry.amount > limit * {i + 1}:",
                 "            skipped += 1",
                 "            continue",
                 f"        settled.append((entry.account, entry.amount * rate - fees.get('batch_{i}', 0)))"]
        i += 1
    body = body[: lines - 2] + ["    settled.sort()", "    return settled, skipped"]
    return "\n".join(body) + "\n"


SPEC_INSTRUCTION = "In `settle_accounts`, change `limit * 4` to `limit * 5`. Change nothing else."


def _spec_messages(fmt: str, nonce: str) -> tuple[list[dict], list[dict]]:
    """(prewarm messages, turn messages) for a one-line change in a 40-line function, as the app sends them."""
    text = f'"""Ledger ({nonce})."""\n\nimport math\n\n\n' + make_function(40) + "\n\nLIMIT = 10\n"
    return _edit_messages(fmt, text, SPEC_INSTRUCTION)


def _edit_messages(fmt: str, text: str, instruction: str) -> tuple[list[dict], list[dict]]:
    """(prewarm messages, turn messages) of `instruction` on ledger.py holding `text`, as the app sends
    them (a rewrite's region is the one the instruction names)."""
    from steer_tui import prompts

    region = prompts.rewrite_region(text, instruction) if fmt == prompts.REWRITE else None
    warm = [{"role": "system", "content": prompts.system_prompt(fmt)}, *prompts.prewarm_input(fmt, "ledger.py", text, region)]
    return warm, prompts.build_messages(fmt, "ledger.py", text, instruction, region=region)


MANY_CLASS = '''class Ledger:
    def __init__(self, owner, limit):
        self.owner = owner
        self.limit = limit
        self.entries = []

    def add(self, amount, note):
        if len(self.entries) >= self.limit:
            raise OverflowError("ledger is full")
        self.entries.append((amount, note))

    def total(self):
        return sum(amount for amount, _ in self.entries)

    def notes(self):
        return [note for _, note in self.entries]

    def largest(self):
        if not self.entries:
            return None
        return max(self.entries)[0]

    def clear(self):
        self.entries = []
'''
MANY_INSTRUCTION = "add type hints to every method of Ledger"
MANY = "rewrite, many changes"  # a rewrite that departs from its region at every method (scenario key)


def _many_messages(nonce: str) -> tuple[list[dict], list[dict]]:
    """(prewarm messages, turn messages) for type hints on every method of a class: the copy is
    broken at each signature, so re-sync drafts are tried many times and often miss."""
    from steer_tui import prompts

    return _edit_messages(prompts.REWRITE, f'"""Ledger ({nonce})."""\n\n\n' + MANY_CLASS, MANY_INSTRUCTION)


async def _timed_edit(engine, warm: list[dict], msgs: list[dict], session: str, speculation: bool, max_tokens: int,
                      temperature: float = 0.0) -> dict:
    """Prewarm (not timed, as the app does while the user types), then Enter -> edit done (sampled
    at `temperature` where it is above 0)."""
    ours = _Ours(engine)
    await ours.run(warm, session, generate=False)
    engine.speculation = speculation
    steps = engine.counters.spec_steps
    t0 = time.perf_counter()
    ttft, tps, text, req, _ = await ours.run(msgs, session, max_tokens=max_tokens, temperature=temperature)
    whole = time.perf_counter() - t0
    engine.speculation = True
    n = req.usage.output_tokens
    # Plain decoding evaluates one token per step; speculative counts its verify batches.
    steps = engine.counters.spec_steps - steps if speculation else n
    return {"whole": whole, "ttft": ttft, "tps": n / (whole - ttft) if whole > ttft else float("nan"), "tokens": n,
            "text": text, "accepted": req.usage.draft_accepted, "drafted": req.usage.draft_tokens, "finish": req.finish_reason,
            "steps": steps}


async def _stop_mid_verify(engine, msgs: list[dict], session: str) -> float | None:
    """Seconds from a stop set while a multi-token verify is running to the end of the stream."""
    from steer_tui.server.engines.base import EngineRequest

    req = EngineRequest(f"resp_{uuid.uuid4().hex[:8]}", msgs, session, max_output_tokens=512, temperature=0.0)
    cancel = threading.Event()
    fired: dict = {}

    def watch() -> None:
        while not cancel.is_set():
            spec = engine.spec_active
            started = spec.verify_started if spec is not None else None
            # Well inside a verify (a 32-row batch takes ~0.5 s on two cores), not at its first node.
            if started is not None and time.perf_counter() - started > 0.05 and engine.counters.draft_accepted:
                fired["t"] = time.perf_counter()
                cancel.set()
                return
            time.sleep(0.001)

    engine.speculation = True
    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    async for _ in engine.stream(req, cancel):
        pass
    ended = time.perf_counter()
    cancel.set()
    watcher.join()
    return ended - fired["t"] if "t" in fired and req.finish_reason == "cancelled" else None


def _decode_costs(engine, sizes=(1, 9, 17, 33), reps: int = 3) -> dict[int, float]:
    """Median seconds of one llama_decode of N rows with logits for every row (a verify of N-1 drafts),
    on the engine's own context before it serves anything (its worker is idle)."""
    llm, cpp = engine._llm, engine._llama_cpp
    mem = cpp.llama_get_memory(llm._ctx.ctx)
    base = llm.tokenize(("def f(x):\n    return x * 2\n" * 8).encode(), add_bos=False)[:64]
    llm.eval(base)
    out = {}
    for n in sizes:
        times = []
        for _ in range(reps):
            llm._batch.set_batch(batch=(base * 2)[:n], n_past=len(base), logits_all=True)
            t = time.perf_counter()
            cpp.llama_decode(llm._ctx.ctx, llm._batch.batch)
            cpp.llama_get_logits(llm._ctx.ctx)
            times.append(time.perf_counter() - t)
            cpp.llama_memory_seq_rm(mem, 0, len(base), -1)
        out[n] = statistics.median(times)
    cpp.llama_memory_seq_rm(mem, 0, 0, -1)
    llm.n_tokens = 0
    return out


async def _bench_speculation(n_threads: int, rounds: int) -> dict:
    from steer_tui import prompts
    from steer_tui.server.engines.local import LocalEngine

    engine = LocalEngine(n_threads=n_threads, n_ctx=8192)
    await engine.start()
    out: dict = {fmt: {"plain": [], "spec": []} for fmt in (prompts.REWRITE, prompts.SEARCH_REPLACE, MANY)}
    try:
        out["costs"] = await asyncio.to_thread(_decode_costs, engine)
        for r in range(rounds):
            for fmt in (prompts.REWRITE, prompts.SEARCH_REPLACE, MANY):
                # Alternating order, each on a file it has never seen: both see the same load.
                order = (False, True) if r % 2 == 0 else (True, False)
                for spec in order:
                    warm, msgs = _many_messages(uuid.uuid4().hex) if fmt == MANY else _spec_messages(fmt, uuid.uuid4().hex)
                    res = await _timed_edit(engine, warm, msgs, f"spec-{fmt}-{r}-{spec}", spec, 512)
                    print(f"  {fmt:15} {'speculative' if spec else 'plain':11} {res['whole']:6.2f} s {res['tokens']:4d} tokens "
                          f"{res['tps']:5.1f} tok/s, {res['accepted']} accepted; load {os.getloadavg()[0]:.2f}",
                          file=sys.stderr, flush=True)
                    if os.environ.get("STEER_BENCH_SHOW") and r == 0:
                        print(res["text"], file=sys.stderr, flush=True)
                    out[fmt]["spec" if spec else "plain"].append(res)
        stops = []
        for r in range(3):
            _, msgs = _spec_messages(prompts.REWRITE, uuid.uuid4().hex)
            stops.append(await _stop_mid_verify(engine, msgs, f"spec-stop-{r}"))
        out["stops"] = [s for s in stops if s is not None]
        out["spec_counters"] = engine.counters.snapshot()
    finally:
        await engine.close()
    return out


def _main_speculation(n_threads: int, rounds: int) -> int:
    load = os.getloadavg()
    print(f"\nbench local --speculation: 40-line function, one-line change (and `{MANY}`: {MANY_INSTRUCTION}, "
          f"a 6-method class), {n_threads} threads, greedy, "
          f"{rounds} rounds (plain and speculative alternating); load average at start {load[0]:.2f} {load[1]:.2f}")
    res = asyncio.run(_bench_speculation(n_threads, rounds))
    rows = []
    flips = []
    for fmt in ("rewrite", "search_replace", MANY):
        plain, spec = res[fmt]["plain"], res[fmt]["spec"]
        pw, sw = statistics.median(x["whole"] for x in plain), statistics.median(x["whole"] for x in spec)
        pt, st = statistics.median(x["tps"] for x in plain), statistics.median(x["tps"] for x in spec)
        acc = sum(x["accepted"] for x in spec) / max(1, sum(x["tokens"] for x in spec))
        same = sum(p["text"] == q["text"] for p, q in zip(plain, spec))
        flips += [(fmt, p["text"], q["text"]) for p, q in zip(plain, spec) if p["text"] != q["text"]]
        rows.append([fmt, "output tokens (median)", statistics.median(x["tokens"] for x in plain),
                     statistics.median(x["tokens"] for x in spec), ""])
        rows.append([fmt, "Enter -> edit done (s)", pw, sw, f"{pw / sw:.2f}x faster" + (" (target >= 1.8x)" if fmt == "rewrite" else "")])
        rows.append([fmt, "decode tokens/s (after first token)", pt, st, f"{st / pt:.2f}x" + (" (target >= 2x)" if fmt == "rewrite" else "")])
        rows.append([fmt, "TTFT (s)", statistics.median(x["ttft"] for x in plain), statistics.median(x["ttft"] for x in spec), ""])
        rows.append([fmt, "decode steps (median)", statistics.median(x["steps"] for x in plain),
                     statistics.median(x["steps"] for x in spec), ""])
        rows.append([fmt, "draft tokens accepted / proposed", "",
                     f"{sum(x['accepted'] for x in spec)}/{sum(x['drafted'] for x in spec)}", ""])
        rows.append([fmt, "output tokens from accepted drafts", "", f"{acc:.0%}", ""])
        rows.append([fmt, "answers equal to plain greedy", "", f"{same}/{len(plain)}", ""])
    stops = res["stops"]
    rows.append(["rewrite", "stop mid-verify -> engine stopped (ms)", "", 1000 * max(stops) if stops else "n/a",
                 f"max of {len(stops)}; plain decode step ~{1000 / statistics.median(x['tps'] for x in res['rewrite']['plain']):.0f} ms"])
    print_table("speculative edits vs plain greedy decoding (same engine, same process)",
                ["format", "measure", "plain", "speculative", "ratio"], rows)
    costs = res["costs"]
    print_table("one decode of N rows, logits for every row (measured at the start of this run)",
                ["rows", "ms", "ms per row", "one-row steps"],
                [[n, 1000 * t, 1000 * t / n, t / costs[1]] for n, t in costs.items()])
    print(f"\nload average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for fmt, a, b in flips:
        print(f"\nFLIP ({fmt}):\n--- plain\n{a}\n--- speculative\n{b}")
    return 0


async def _bench_task_equality(n_threads: int, limit: int, only: str, temperature: float = 0.0) -> list[list]:
    """Every catalog task (bench/tasks) in both local formats, plain and speculative: same answer? how fast?
    Sampled (`temperature` above 0, as an alternative's lane is): how fast a token, the answers being draws."""
    from steer_tui import prompts
    from steer_tui.server.engines.local import LocalEngine
    from bench.formats import MAX_TOKENS, function_region
    from bench.tasks import load_tasks

    engine = LocalEngine(n_threads=n_threads, n_ctx=4096)
    await engine.start()
    rows = []
    try:
        for task in load_tasks(only, limit):
            for fmt in (prompts.REWRITE, prompts.SEARCH_REPLACE):
                path = f"{task.name.split('_')[0]}.py"
                region = function_region(task.source, task.region) if fmt == prompts.REWRITE else None
                warm = [{"role": "system", "content": prompts.system_prompt(fmt)},
                        *prompts.prewarm_input(fmt, path, task.source, region)]
                msgs = prompts.build_messages(fmt, path, task.source, task.instruction, region=region)
                res = {}
                # Alternating order across tasks: neither side always runs on the warmer machine.
                for spec in ((False, True) if len(rows) % 2 == 0 else (True, False)):
                    res[spec] = await _timed_edit(engine, warm, msgs, f"task-{task.name}-{fmt}-{spec}", spec, MAX_TOKENS,
                                                  temperature)
                p, q = res[False], res[True]
                if temperature > 0:
                    pt, qt = p["whole"] / max(1, p["tokens"]), q["whole"] / max(1, q["tokens"])
                    rows.append([task.name, fmt, f"{p['tokens']}/{q['tokens']}", p["whole"], q["whole"],
                                 1000 * pt, 1000 * qt, f"{pt / qt:.2f}x", f"{q['accepted']}/{q['drafted']}"])
                    print(" | ".join(str(x) for x in rows[-1]), file=sys.stderr, flush=True)
                    continue
                rows.append([task.name, fmt, p["tokens"], p["whole"], q["whole"], f"{p['whole'] / q['whole']:.2f}x",
                             f"{q['accepted']}/{q['drafted']}", "yes" if p["text"] == q["text"] else "NO (flip)"])
                print(" | ".join(str(x) for x in rows[-1]), file=sys.stderr, flush=True)
                if p["text"] != q["text"]:
                    print(f"--- plain\n{p['text']}\n--- speculative\n{q['text']}", file=sys.stderr, flush=True)
    finally:
        await engine.close()
    return rows


async def _bench_editbench_decode(n_threads: int, name: str, start: int, limit: int, temperature: float) -> list[list]:
    """An editbench set's rewrites (the region the instruction names, prewarmed), each answered plain
    and through drafts in the same engine, alternating which goes first: decode time a token."""
    from steer_tui import prompts
    from steer_tui.server.engines.local import LocalEngine
    from bench.editbench import load_set

    engine = LocalEngine(n_threads=n_threads, n_ctx=8192)
    await engine.start()
    rows = []
    try:
        for i, task in enumerate(load_set(name)[start : start + limit]):
            text, instruction, path = task["input"], task["instruction"], task.get("file") or "task.py"
            region = prompts.rewrite_region(text, instruction)
            warm = [{"role": "system", "content": prompts.system_prompt(prompts.REWRITE)},
                    *prompts.prewarm_input(prompts.REWRITE, path, text, region)]
            msgs = prompts.build_messages(prompts.REWRITE, path, text, instruction, region=region)
            res = {}
            for spec in ((False, True) if i % 2 == 0 else (True, False)):
                res[spec] = await _timed_edit(engine, warm, msgs, f"eb-{i}-{spec}", spec, 1024, temperature)
            p, q = res[False], res[True]
            pd, qd = p["whole"] - p["ttft"], q["whole"] - q["ttft"]
            rows.append([task["task_id"], p["tokens"], q["tokens"], pd, qd, 1000 * pd / max(1, p["tokens"]),
                         1000 * qd / max(1, q["tokens"]), f"{q['accepted']}/{q['drafted']}"])
            print(" | ".join(str(x) for x in rows[-1]), file=sys.stderr, flush=True)
    finally:
        await engine.close()
    return rows


async def _bench_departure(n_threads: int, name: str, start: int, limit: int) -> list[list]:
    """An editbench set's rewrites: the greedy answer, then a departure from it (what a no-change
    retry and an alternative's second lane ask) with the rows the answer's decoding kept, and with
    the answer read again; each departure right after its answer, alternating which goes first."""
    from steer_tui import prompts
    from steer_tui.server.engines.base import EngineRequest
    from steer_tui.server.engines.local import LocalEngine
    from bench.editbench import load_set

    engine = LocalEngine(n_threads=n_threads, n_ctx=8192)
    await engine.start()
    ours = _Ours(engine)
    rows = []
    try:
        for i, task in enumerate(load_set(name)[start : start + limit]):
            text, instruction, path = task["input"], task["instruction"], task.get("file") or "task.py"
            region = prompts.rewrite_region(text, instruction)
            msgs = prompts.build_messages(prompts.REWRITE, path, text, instruction, region=region)
            session = f"dep-{i}"
            res = {}
            for keep in ((True, False) if i % 2 == 0 else (False, True)):
                _, _, first, _, _ = await ours.run(msgs, session, max_tokens=1024, temperature=0.0)
                after = len(first.split("\n", 1)[0].encode()) + 1  # past the opening fence, as steer asks
                engine.keep_rows = keep
                req = EngineRequest(f"resp_{uuid.uuid4().hex[:8]}", msgs, session, max_output_tokens=1024,
                                    temperature=0.0, avoid=(first, after, False))
                t0 = time.perf_counter()
                ttft, parts = None, []
                async for delta in engine.stream(req, threading.Event()):
                    ttft = ttft or time.perf_counter() - t0
                    parts.append(delta)
                res[keep] = (ttft or float("nan"), time.perf_counter() - t0, "".join(parts), req.usage.output_tokens)
                engine.keep_rows = True
            k, r = res[True], res[False]
            rows.append([task["task_id"], k[3], r[0], k[0], r[1], k[1], "yes" if k[2] == r[2] else "NO"])
            print(" | ".join(str(x) for x in rows[-1]), file=sys.stderr, flush=True)
    finally:
        await engine.close()
    return rows


def _editbench_decode_table(rows: list[list], name: str, temperature: float, load) -> None:
    plain_n, spec_n = sum(r[1] for r in rows), sum(r[2] for r in rows)
    plain_s, spec_s = sum(r[3] for r in rows), sum(r[4] for r in rows)
    per = [r[5] / r[6] for r in rows if r[6]]
    total = ["all", plain_n, spec_n, plain_s, spec_s, 1000 * plain_s / max(1, plain_n), 1000 * spec_s / max(1, spec_n),
             f"{sum(int(r[7].split('/')[0]) for r in rows)}/{sum(int(r[7].split('/')[1]) for r in rows)}"]
    how = "greedy" if temperature == 0 else f"sampled at temperature {temperature}"
    print_table(f"{name} rewrites, {how}: plain decoding vs through drafts, decode after the first token "
                f"(load average {load[0]:.2f} at start, {os.getloadavg()[0]:.2f} at end); a token: "
                f"{(plain_s / plain_n) / (spec_s / spec_n):.2f}x faster through drafts (per task median "
                f"{statistics.median(per):.2f}x)",
                ["task", "tokens plain", "tokens drafts", "plain decode s", "drafts decode s", "plain ms/token",
                 "drafts ms/token", "drafts accepted"], [*rows, total])


def _sampled_table(rows: list[list], temperature: float, load) -> None:
    """The catalog's tasks sampled plain against sampled through drafts, with totals."""
    plain_s, spec_s = sum(r[3] for r in rows), sum(r[4] for r in rows)
    tokens = [tuple(int(x) for x in r[2].split("/")) for r in rows]
    plain_n, spec_n = sum(t[0] for t in tokens), sum(t[1] for t in tokens)
    per = [float(r[7].rstrip("x")) for r in rows]
    rows = rows + [["all", "", f"{plain_n}/{spec_n}", plain_s, spec_s, 1000 * plain_s / max(1, plain_n),
                    1000 * spec_s / max(1, spec_n), f"{(plain_s / plain_n) / (spec_s / spec_n):.2f}x (per task median "
                    f"{statistics.median(per):.2f}x)", ""]]
    print_table(f"bench tasks sampled at temperature {temperature}: plain (a step a token) vs through drafts "
                f"(speculative sampling); load average {load[0]:.2f} at start, {os.getloadavg()[0]:.2f} at end",
                ["task", "format", "tokens plain/drafts", "plain (s)", "drafts (s)", "plain ms/token",
                 "drafts ms/token", "speed-up a token", "drafts accepted"], rows)


def main(argv: list[str] | None = None) -> int:
    from steer_tui.server import model_store
    from steer_tui.server.engines.local import default_threads

    argv = list(argv or [])
    if "-h" in argv or "--help" in argv:
        print("usage: python -m bench.local [--decode-only | --speculation [--tasks [N] [--only a,b] [--temperature T]"
              " | --editbench SET [--start I] [--limit N] [--temperature T | --departure]]]  "
              "(env: STEER_BENCH_THREADS, STEER_BENCH_ROUNDS)\n"
              + (__doc__ or ""))
        return 0
    if "--decode-only" in argv:
        return _main_decode(int(os.environ.get("STEER_BENCH_ROUNDS") or 3))
    if "--speculation" in argv:
        try:
            model_store.require_llama_cpp()
            model_store.ensure_model(progress=True)
        except model_store.ModelStoreError as exc:
            print(f"bench local: skipped: {exc}", file=sys.stderr)
            return 0
        n_threads = int(os.environ.get("STEER_BENCH_THREADS") or default_threads())
        if "--editbench" in argv and "--departure" in argv:
            # `--editbench SET --departure [--start I] [--limit N]`: a departure with the kept rows vs reading the answer.
            name = argv[argv.index("--editbench") + 1]
            start = int(argv[argv.index("--start") + 1]) if "--start" in argv else 0
            limit = int(argv[argv.index("--limit") + 1]) if "--limit" in argv else 20
            load = os.getloadavg()
            rows = asyncio.run(_bench_departure(n_threads, name, start, limit))
            total = ["all", sum(r[1] for r in rows), statistics.median(r[2] for r in rows),
                     statistics.median(r[3] for r in rows), sum(r[4] for r in rows), sum(r[5] for r in rows),
                     f"{sum(r[6] == 'yes' for r in rows)}/{len(rows)}"]
            print_table(f"{name}: a departure from the greedy answer, reading the answer again vs the rows its decoding "
                        f"kept (load average {load[0]:.2f} at start, {os.getloadavg()[0]:.2f} at end; the total row: "
                        f"medians of first tokens, sums of wall times)",
                        ["task", "tokens (kept rows)", "first token s, read again", "first token s, kept rows",
                         "whole s, read again", "whole s, kept rows", "same answer"], [*rows, total])
            return 0
        if "--editbench" in argv:
            # `--editbench SET [--start I] [--limit N] [--temperature T]`: its rewrites, plain vs through drafts.
            name = argv[argv.index("--editbench") + 1]
            start = int(argv[argv.index("--start") + 1]) if "--start" in argv else 0
            limit = int(argv[argv.index("--limit") + 1]) if "--limit" in argv else 20
            temperature = float(argv[argv.index("--temperature") + 1]) if "--temperature" in argv else 0.0
            load = os.getloadavg()
            rows = asyncio.run(_bench_editbench_decode(n_threads, name, start, limit, temperature))
            _editbench_decode_table(rows, name, temperature, load)
            return 0
        if "--tasks" in argv:
            # `--tasks [N] [--only a,b]`: the catalog's tasks, plain vs speculative, answers compared.
            i = argv.index("--tasks")
            limit = int(argv[i + 1]) if i + 1 < len(argv) and argv[i + 1].isdigit() else 0
            only = argv[argv.index("--only") + 1] if "--only" in argv else ""
            temperature = float(argv[argv.index("--temperature") + 1]) if "--temperature" in argv else 0.0
            load = os.getloadavg()
            rows = asyncio.run(_bench_task_equality(n_threads, limit, only, temperature))
            if temperature > 0:
                _sampled_table(rows, temperature, load)
                return 0
            print_table(f"bench tasks, plain vs speculative greedy (load average {load[0]:.2f} at start, "
                        f"{os.getloadavg()[0]:.2f} at end)",
                        ["task", "format", "tokens", "plain (s)", "speculative (s)", "speed-up", "drafts accepted", "same answer"],
                        rows)
            return 0
        return _main_speculation(n_threads, int(os.environ.get("STEER_BENCH_ROUNDS") or 2))

    try:
        model_store.require_llama_cpp()
        model_path = str(model_store.ensure_model(progress=True))
    except model_store.ModelStoreError as exc:
        print(f"bench local: skipped: {exc}", file=sys.stderr)
        return 0
    sizes = [40, 300]
    n_threads = int(os.environ.get("STEER_BENCH_THREADS") or default_threads())
    n_ctx = 8192
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"\nbench local: {os.path.basename(model_path)}, {n_threads} threads, n_ctx {n_ctx}, max {MAX_TOKENS} tokens, "
          f"greedy; load average at start {load:.1f} on {os.cpu_count()} cores")
    baseline = _Baseline(model_path, n_threads, n_ctx)
    baseline.start()  # loaded before ours, idle while ours runs
    try:
        ours = asyncio.run(_bench(sizes, n_threads, n_ctx, baseline))
    finally:
        baseline.stop()
    base = {"load_s": baseline.load_s, **{lines: ours[("base", lines)] for lines in sizes}} if not baseline.error else baseline.error
    rows = []
    for lines in sizes:
        o = ours[lines]
        b = base[lines] if isinstance(base, dict) else {}
        rows.append([f"{lines}-line file", "prompt tokens", o["prompt_tokens"], "", ""])
        rows.append([f"{lines}-line file", "TTFT cold (s)", o["cold"], b.get("cold", "n/a"), ""])
        rows.append([f"{lines}-line file", "prewarm, no generation (s)", o["prewarm_s"], "n/a", ""])
        ratio = o["warm"] / b["cold"] if b.get("cold") else None
        verdict = f"{ratio:.1%} of baseline cold ({'meets' if ratio <= 0.10 else 'misses'} <= 10%)" if ratio else ""
        rows.append([f"{lines}-line file", f"TTFT after prewarm (s), {o['warm_evaluated']} tokens evaluated", o["warm"], "n/a", verdict])
        rows.append([f"{lines}-line file", "TTFT follow-up turn (s)", o["follow_up"], b.get("follow_up", "n/a"), ""])
        rows.append([f"{lines}-line file", f"TTFT steer, Enter to first token (s), {o['steer_evaluated']} evaluated", o["steer"], "n/a", ""])
        d_ours = statistics.fmean([x for x in (o["decode"], o["decode2"]) if x == x])
        d_base = statistics.fmean([x for x in (b.get("decode", float("nan")), b.get("decode2", float("nan"))) if x == x] or [float("nan")])
        rows.append([f"{lines}-line file", "decode tokens/s", d_ours, d_base if d_base == d_base else "n/a",
                     f"{'meets' if d_ours >= d_base * 0.97 else 'misses'} >= baseline (3% noise)" if d_base == d_base else ""])
    rows.append(["model", "load (s)", ours["load_s"], base.get("load_s", "n/a") if isinstance(base, dict) else "n/a", ""])
    print_table("embedded engine vs llama_cpp.server (same model, threads, context)", ["prompt", "measure", "steer (ours)", "llama_cpp.server", "target"], rows)
    if not isinstance(base, dict):
        print(f"\nbaseline not run: {base}")
    return 0


def _main_decode(rounds: int) -> int:
    from steer_tui.server import model_store
    from steer_tui.server.engines.local import default_threads

    model_path = str(model_store.ensure_model(progress=True))
    n_threads = int(os.environ.get("STEER_BENCH_THREADS") or default_threads())
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"\nbench local --decode-only: {n_threads} threads, {rounds} alternating rounds of {MAX_TOKENS} tokens; "
          f"load average at start {load:.1f} on {os.cpu_count()} cores")
    baseline = _Baseline(model_path, n_threads, 8192)
    baseline.start()
    try:
        ours, base = asyncio.run(_decode_rounds(baseline, n_threads, 8192, rounds))
    finally:
        baseline.stop()
    rows = [[i + 1, o, b] for i, (o, b) in enumerate(zip(ours, base or [float("nan")] * len(ours)))]
    rows.append(["median", statistics.median(ours), statistics.median(base) if base else "n/a"])
    print_table("decode tokens/s, alternating rounds", ["round", "steer (ours)", "llama_cpp.server"], rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
