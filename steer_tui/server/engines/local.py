"""The embedded engine: one llama.cpp model on the CPU, prefix-cached per session, stoppable per token.

How it stays fast on a CPU:
- One worker thread owns the model; the event loop only moves deltas. Requests wait in a
  round-robin queue keyed by `session_key`, so one busy session cannot starve another.
- The KV cache holds the live session's tokens. A request is tokenized, compared with the
  cached tokens, the common prefix is kept and only the rest is evaluated: a turn that
  shares system prompt + file (prewarmed by a `generate: false` request) evaluates only
  its instruction. Generated tokens stay in the cache too, so a steer's successor (same
  transcript + partial answer + new words) starts almost at once.
- When another session takes the model, the leaving session's KV sequence is copied out
  (llama_state_seq_get_data) and restored when it comes back, within a memory budget.
- Answers are decoded speculatively (speculative.py): the text the edit copies (the region,
  the file) is the draft, and one forward pass verifies up to 32 of its tokens; a sampled answer
  keeps a draft token with the probability its sampler gives it (sampling.py).
  `speculation=False` (`steer serve --no-speculation`) decodes one token per step.
- Cancellation is checked before every decode step (each prompt chunk and each token), and a
  stop aborts a speculative verify in flight (llama.cpp's abort callback).
- A prompt that does not fit the context window is an EngineError, never truncated.
"""

from __future__ import annotations

import asyncio
import codecs
import ctypes
import os
import threading
from collections import Counter, OrderedDict, deque
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import AsyncIterator

from steer_tui.server import model_store
from steer_tui.server.engines import llama_internals as llama
from steer_tui.server.engines.base import Engine, EngineError, EngineRequest
from steer_tui.server.engines.depart import (ROWS, Departure, RowRecord, least_confident, least_confident_of, no_departure,
                                             start_index)
from steer_tui.server.engines.stops import StopCut
from steer_tui.server.engines.sampling import DraftSampler, SamplerChain
from steer_tui.server.engines.speculative import DecodeCosts, Drafter, SpeculativeDecoder, abort_when, last_block_end, region_anchor, system_end

DEFAULT_CTX = 16384
DEFAULT_MAX_OUTPUT = 1024
PREFILL_CHUNK = 256  # prompt tokens per decode call (a stop aborts a chunk in flight)
RESTORE_MIN_GAIN = 4  # a restore is a memcpy (~30 KB a token); evaluating one token costs far more


def default_threads() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


@dataclass
class EngineCounters:
    """Cumulative counters, for tests and benchmarks (timings are not counters: see bench/local.py)."""

    requests: int = 0
    prewarms: int = 0
    prompt_tokens: int = 0  # prompt tokens seen in requests
    prompt_tokens_evaluated: int = 0  # prompt tokens actually run through the model
    prompt_tokens_reused: int = 0  # prompt tokens served from the KV cache
    tokens_generated: int = 0
    tokens_after_cancel: int = 0  # tokens emitted while the request's cancel was already set
    cancelled: int = 0
    state_saves: int = 0
    state_restores: int = 0
    spec_steps: int = 0  # speculative verify batches decoded
    draft_tokens: int = 0  # draft tokens proposed for verification
    draft_accepted: int = 0  # draft tokens the model agreed with
    departures: int = 0  # answers that departed from a rejected one at its least confident token
    departures_from_rows: int = 0  # ... found in the rows the rejected answer's own decoding kept

    def snapshot(self) -> dict:
        return asdict(self)


@dataclass
class _SavedSeq:
    tokens: list[int]
    data: object  # ctypes uint8 array holding sequence 0's KV state
    size: int


@dataclass
class _Job:
    request: EngineRequest
    cancel: threading.Event
    loop: asyncio.AbstractEventLoop
    queue: asyncio.Queue
    abandoned: bool = False  # the consumer stopped iterating: stop as if cancelled
    cut: StopCut = field(default_factory=lambda: StopCut(None))  # the request's stop strings (stops.py)

    def stopped(self) -> bool:
        return self.abandoned or self.cancel.is_set()

    def send(self, item) -> None:
        try:
            self.loop.call_soon_threadsafe(self.queue.put_nowait, item)
        except RuntimeError:  # the loop is closed: nobody is listening any more
            self.abandoned = True


_DONE = object()


class _FairQueue:
    """Round-robin over session keys: each session's requests run in order, sessions take turns."""

    def __init__(self) -> None:
        self._cv = threading.Condition()
        self._queues: OrderedDict[str, deque] = OrderedDict()
        self._closed = False
        self._prewarms: Counter[str] = Counter()  # client -> its prewarms waiting (read at every graph node)

    def put(self, job: _Job) -> None:
        with self._cv:
            self._queues.setdefault(job.request.session_key, deque()).append(job)
            self._count(job, 1)
            self._cv.notify()

    def _count(self, job: _Job, n: int) -> None:
        req = job.request
        if not req.generate and req.client is not None:
            self._prewarms[req.client] += n
            if self._prewarms[req.client] <= 0:
                del self._prewarms[req.client]

    def get(self) -> _Job | None:
        with self._cv:
            while not self._queues and not self._closed:
                self._cv.wait()
            if self._closed:
                return None
            key, jobs = next(iter(self._queues.items()))
            job = jobs.popleft()
            del self._queues[key]
            if jobs:
                self._queues[key] = jobs  # back of the line
            self._count(job, -1)
            return job

    def has_prewarm(self, client: str) -> bool:
        """A prewarm from `client` is waiting (read without the lock: a stale answer costs one step)."""
        return self._prewarms.get(client, 0) > 0

    def take_prewarms(self, client: str) -> list[_Job]:
        """Remove and return the waiting prewarms from `client`, oldest first within each key."""
        with self._cv:
            taken = []
            for key in list(self._queues):
                jobs = self._queues[key]
                mine = [j for j in jobs if not j.request.generate and j.request.client == client]
                if not mine:
                    continue
                taken += mine
                for j in mine:
                    self._count(j, -1)
                rest = deque(j for j in jobs if j not in mine)
                if rest:
                    self._queues[key] = rest
                else:
                    del self._queues[key]
            return taken

    def close(self) -> list[_Job]:
        with self._cv:
            self._closed = True
            left = [job for jobs in self._queues.values() for job in jobs]
            self._queues.clear()
            self._prewarms.clear()
            self._cv.notify_all()
            return left


class LocalEngine(Engine):
    """Engine over llama-cpp-python. `model_path=None` uses the embedded model (model_store)."""

    name = "local"
    features = frozenset({"avoid", "prefix", "stop"})

    @property
    def context_tokens(self) -> int | None:
        return self.n_ctx

    def __init__(
        self,
        model_path: str | os.PathLike | None = None,
        *,
        n_threads: int | None = None,
        n_ctx: int = DEFAULT_CTX,
        n_batch: int = 512,
        state_budget_bytes: int = 768 << 20,
        progress: bool = True,
        verbose: bool = False,
        speculation: bool = True,
    ):
        self._model_arg = model_path
        self.n_threads = n_threads or default_threads()
        self.n_ctx = n_ctx
        self.n_batch = n_batch
        self.state_budget_bytes = state_budget_bytes
        self._progress = progress
        self._verbose = verbose
        self.speculation = speculation  # greedy requests decode with drafts (speculative.py)
        self.spec_active: SpeculativeDecoder | None = None  # the request decoding now, if speculative
        self._markers: tuple[list[int], list[int]] | None = None  # _block_markers, tokenized once
        self.decode_costs = DecodeCosts()  # measured by every speculative request, used by the next
        self._rows: RowRecord | None = None  # the last greedy answer's rows, for a departure from it
        self.keep_rows = True  # False: a departure reads its answer again (benchmarks, tests)
        self.counters = EngineCounters()
        self.model_path: Path | None = None
        self._llm = None
        self._fmt_gen = None
        self._fmt_prefix = None
        self._owner: str | None = None  # session whose tokens are in the live KV cache
        self._saved: OrderedDict[str, _SavedSeq] = OrderedDict()
        self._saved_bytes = 0
        self._queue = _FairQueue()
        self._worker: threading.Thread | None = None
        self._running: list[_Job] = []  # the job the worker runs, and a prewarm let in between its steps
        self._closed = False
        self._start_lock = asyncio.Lock()
        self._model_name = model_store.MODEL_NAME if model_path is None else Path(model_path).stem

    # ---- lifecycle -------------------------------------------------------------------------

    @property
    def model_name(self) -> str:
        return self._model_name

    @property
    def label(self) -> str:
        return f"local {self._model_name} (llama.cpp, CPU, {self.n_threads} threads)"

    @property
    def loaded(self) -> bool:
        return self._llm is not None

    async def start(self) -> None:
        if self._closed:
            raise EngineError("engine_closed", "the local engine has been closed")
        async with self._start_lock:
            if self._llm is None:
                await asyncio.to_thread(self.load)

    def load(self) -> None:
        """Locate/verify the model and load it (blocking; `start()` runs it in a thread)."""
        if self._llm is not None:
            return
        try:
            llama_cpp = model_store.require_llama_cpp()
            if self._model_arg is None:
                path = model_store.ensure_model(progress=self._progress)
            else:
                path = model_store.check_gguf(self._model_arg)
        except model_store.ModelStoreError as exc:
            raise EngineError("model_not_found", str(exc)) from exc
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        try:
            llm = llama_cpp.Llama(
                model_path=str(path),
                n_ctx=self.n_ctx,
                n_batch=self.n_batch,
                n_threads=self.n_threads,
                n_threads_batch=self.n_threads,
                verbose=self._verbose,
            )
        except (ValueError, RuntimeError) as exc:
            raise EngineError("model_load_failed", f"llama.cpp could not load {path}: {exc}") from exc
        template = llm.metadata.get("tokenizer.chat_template")
        if not template:
            llm.close()
            raise EngineError("model_load_failed", f"{path} has no chat template in its GGUF metadata")
        eos_id, bos_id = llm.token_eos(), llm.token_bos()
        eos = llama.model(llm).token_get_text(eos_id) if eos_id != -1 else ""
        bos = llama.model(llm).token_get_text(bos_id) if bos_id != -1 else ""
        self._fmt_gen = Jinja2ChatFormatter(template, eos, bos, add_generation_prompt=True)
        self._fmt_prefix = Jinja2ChatFormatter(template, eos, bos, add_generation_prompt=False)
        self._llama_cpp = llama_cpp
        self._vocab = llama.model(llm).vocab
        self.n_ctx = llm.n_ctx()
        self.model_path = path
        if self._model_arg is not None:
            self._model_name = llm.metadata.get("general.name") or path.stem
        self._llm = llm
        self._worker = threading.Thread(target=self._run, name="steer-local-engine", daemon=True)
        self._worker.start()

    async def close(self) -> None:
        self._closed = True
        for current in list(self._running):
            current.abandoned = True  # stop at the next decode step
        for job in self._queue.close():
            job.request.finish_reason = "cancelled"
            job.send(_DONE)
        if self._worker is not None:
            await asyncio.to_thread(self._worker.join)
            self._worker = None
        if self._llm is not None:
            self._llm.close()
            self._llm = None
        self._saved.clear()
        self._saved_bytes = 0

    # ---- the async face ---------------------------------------------------------------------

    async def stream(self, request: EngineRequest, cancel: threading.Event) -> AsyncIterator[str]:
        await self.start()
        if self._worker is None:
            raise EngineError("engine_closed", "the local engine has been closed")
        job = _Job(request, cancel, asyncio.get_running_loop(), asyncio.Queue())
        self._queue.put(job)
        finished = False
        try:
            while True:
                item = await job.queue.get()
                if item is _DONE:
                    finished = True
                    return
                if isinstance(item, BaseException):
                    finished = True
                    raise item
                # Tokens the worker sent before it saw the stop (an accepted draft goes out in one
                # burst) are still queued: once stopped, nothing more reaches the client.
                if not cancel.is_set():
                    yield item
        finally:
            if not finished:
                job.abandoned = True

    # ---- the worker thread ------------------------------------------------------------------

    def _run(self) -> None:
        while (job := self._queue.get()) is not None:
            self._run_job(job)

    def _run_job(self, job: _Job) -> None:
        self._running.append(job)
        try:
            self._process(job)
        except EngineError as exc:
            job.send(exc)
            return
        except Exception as exc:  # llama.cpp failures must reach the client, not kill the worker
            job.send(EngineError("engine_error", f"local engine failed: {exc}"))
            return
        finally:
            self._running.pop()
        job.send(_DONE)

    def _let_prewarms_in(self, job: _Job) -> bool:
        """Between two steps of `job`'s answer: evaluate the prewarms its client sent meanwhile.

        What the user types while the model writes is the redirect that will replace this answer
        (Session.prewarm_redirect): evaluated now, in the time the typing takes, it leaves Enter only
        its last words to evaluate. The answer's cache is set aside and put back (two memcpys),
        so the answer goes on exactly as it would have; the prewarm's cache is kept for the request
        that shares it (_switch_session). Only the same client's prewarms get in: another
        session's must not stall this answer. False when some wait and could not be let in."""
        client = job.request.client
        if client is None or job.stopped() or not self._queue.has_prewarm(client):
            return True
        llm, key = self._llm, job.request.session_key
        self._save(key)
        held = self._saved.get(key)
        if held is None or held.tokens != [int(t) for t in llm.input_ids[: llm.n_tokens]]:
            return False  # the answer's cache could not be set aside (over the memory budget): they wait
        for prewarm in self._queue.take_prewarms(client):
            self._run_job(prewarm)
        if self._owner != key:
            self._save(self._owner, keep=key)
            self._owner = key
            if not self._restore(key):
                raise EngineError("engine_error", "the local engine could not restore the answer's cache")
        return True

    def render(self, messages: list[dict], add_generation_prompt: bool = True) -> str:
        """The chat-template text for `messages` (the GGUF's own template)."""
        fmt = self._fmt_gen if add_generation_prompt else self._fmt_prefix
        msgs = [{"role": _ROLE.get(m.get("role"), m.get("role")), "content": m.get("content") or ""} for m in messages]
        return fmt(messages=msgs).prompt

    def tokenize_messages(self, messages: list[dict], add_generation_prompt: bool = True) -> list[int]:
        return self._tokenize(self.render(messages, add_generation_prompt))

    def _block_markers(self) -> tuple[list[int], list[int]]:
        """The tokens of a SEARCH/REPLACE block's opening and closing lines, as the model writes them."""
        if self._markers is None:
            self._markers = (self._tokenize("<<<<<<< SEARCH\n"), self._tokenize(">>>>>>> REPLACE"))
        return self._markers

    def _tokenize(self, text: str) -> list[int]:
        try:
            return self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=True)
        except RuntimeError as exc:  # llama.cpp refuses more tokens than the model was trained on
            raise EngineError("context_length_exceeded", f"the prompt is too long for the local model ({exc})") from exc

    def _prewarm_tokens(self, messages: list[dict]) -> list[int]:
        """A prewarm's tokens: the messages, plus the next user turn's header when the template has one.

        The turn that follows a prewarm is a user message, so its header ("<|im_start|>user\n" for
        ChatML) can be evaluated ahead of time too. It is found by rendering an empty user message
        and keeping only what precedes its (empty) content; prefix matching is token-exact, so a
        template where this guess is wrong just reuses less."""
        base = self.render(messages, add_generation_prompt=False)
        probe = self.render([*messages, {"role": "user", "content": "\x00"}], add_generation_prompt=False)
        cut = probe.find("\x00")
        return self._tokenize(probe[:cut] if cut >= len(base) and probe.startswith(base) else base)

    def _process(self, job: _Job) -> None:
        req = job.request
        usage = req.usage
        c = self.counters
        c.requests += 1
        if not req.generate:
            c.prewarms += 1
        if job.stopped():
            req.finish_reason = "cancelled"
            c.cancelled += 1
            return
        text, prompt = self._prompt(req)
        n_prompt = len(prompt)
        max_out = req.max_output_tokens or DEFAULT_MAX_OUTPUT
        usage.input_tokens = n_prompt
        c.prompt_tokens += n_prompt

        llm = self._llm
        temp = req.temperature if req.temperature is not None else 0.0
        rows = self._rows_of(req.avoid, prompt) if req.avoid is not None and temp == 0.0 else None
        # A departure from the answer this engine last wrote to the same prompt keeps that answer's
        # cache too: it goes on from inside it.
        target = prompt + rows.tokens if rows is not None else prompt
        self._switch_session(req.session_key, target)
        keep = _common_prefix(llm.input_ids, llm.n_tokens, target)
        if req.generate and keep == n_prompt:
            keep -= 1  # sampling needs fresh logits from evaluating at least the last prompt token
        if keep < llm.n_tokens and not self._seq_rm(keep):
            keep = 0  # this model cannot drop a suffix (recurrent): start over
            llm.reset()
        llm.n_tokens = keep
        usage.cached_tokens = min(keep, n_prompt)
        c.prompt_tokens_reused += min(keep, n_prompt)

        self._prefill(job, prompt, keep)
        if job.stopped():
            req.finish_reason = "cancelled"
            c.cancelled += 1
            return
        if not req.generate:
            req.finish_reason = "stop"
            return
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        job.cut = StopCut(req.stop)
        answered: list[int] = []
        if req.avoid is not None and temp == 0.0:
            answered = self._depart(job, decoder, req.avoid, max_out, n_prompt, rows)
            if answered is None:
                return
        if self.speculation:
            if req.prefix:  # drafting goes on from where the prefix leaves the answer
                head = self._tokenize(text)
                answered = (prompt[len(head):] if prompt[: len(head)] == head else []) + answered
            self._generate_speculative(job, max_out, prompt, text, decoder, answered,
                                       DraftSampler(SamplerChain(temp)) if temp > 0.0 else None)
        else:
            self._generate(job, max_out, temp, decoder)

    def _prompt(self, req) -> tuple[str | None, list[int]]:
        """(the rendered text of an answer's messages, or None for a prewarm; the prompt's tokens),
        refused with context_length_exceeded where the prompt and room for the answer do not fit."""
        text = None
        if req.generate:
            text = self.render(req.messages, add_generation_prompt=True)
            # A `prefix` is the start of the answer: the model goes on from it (it is not sent back).
            prompt = self._tokenize(text + req.prefix) if req.prefix else self._tokenize(text)
        else:
            prompt = self._prewarm_tokens(req.messages)
        n_prompt = len(prompt)
        max_out = req.max_output_tokens or DEFAULT_MAX_OUTPUT
        reserve = min(max_out, 256) if req.generate else 0
        if n_prompt + reserve > self.n_ctx:
            raise EngineError(
                "context_length_exceeded",
                f"the prompt is {n_prompt:,} tokens but the local model's context window is {self.n_ctx:,}"
                + (f" (keeping {reserve} for the answer)" if reserve else "")
                + "; edit a smaller file or a selected region, or use a backend with a larger context",
            )
        return text, prompt

    def _prefill(self, job: _Job, prompt: list[int], pos: int) -> None:
        """Evaluate prompt[pos:] in chunks; a stop aborts the chunk in flight (a superseded prewarm
        must not hold up the turn that replaced it for a whole chunk: seconds on two cores)."""
        usage, c, llm = job.request.usage, self.counters, self._llm
        n_prompt = len(prompt)
        with abort_when(self._llama_cpp, llama.context_ptr(llm), job.stopped):
            while pos < n_prompt:
                if job.stopped():
                    break
                chunk = prompt[pos : pos + PREFILL_CHUNK]
                try:
                    llm.eval(chunk)
                except RuntimeError:
                    if not job.stopped():
                        raise
                    self._seq_rm(llm.n_tokens)  # rows of the aborted chunk
                    break
                pos += len(chunk)
                usage.evaluated_tokens += len(chunk)
                c.prompt_tokens_evaluated += len(chunk)

    def _seq_rm(self, p0: int) -> bool:
        """Drop the KV cache from position p0 on; False when the model cannot (recurrent memory).

        Through llama_memory_seq_rm, not Llama._ctx.kv_cache_seq_rm: llama-cpp-python 0.3.16's
        wrapper returns None, which read as a failure and reset the cache on every turn."""
        cpp = self._llama_cpp
        return bool(cpp.llama_memory_seq_rm(cpp.llama_get_memory(llama.context_ptr(self._llm)), 0, p0, -1))

    def _emit(self, job: _Job, decoder, token: int, max_out: int) -> bool:
        """Count and send one generated token; False when generation must end here."""
        req, c, llm = job.request, self.counters, self._llm
        req.usage.output_tokens += 1
        c.tokens_generated += 1
        if job.stopped():
            c.tokens_after_cancel += 1  # counted, never sent: the stop wins
            req.finish_reason = "cancelled"
            c.cancelled += 1
            return False
        text = decoder.decode(llama.model(llm).detokenize([token], special=False))
        if text:
            sent, ended = job.cut.feed(text)
            if sent:
                job.send(sent)
            if ended:  # a stop string: the answer ends before it
                req.finish_reason = "stop"
                return False
        if req.usage.output_tokens >= max_out or llm.n_tokens >= self.n_ctx:
            req.finish_reason = "length"
            return False
        return True

    @staticmethod
    def _send_tail(job: _Job, decoder) -> None:
        """Send what the answer's last bytes and its stop strings held back, unless it was cancelled."""
        sent, ended = job.cut.feed(decoder.decode(b"", final=True))
        tail = sent if ended else sent + job.cut.flush()
        if tail and job.request.finish_reason != "cancelled":
            job.send(tail)

    def _rows_of(self, avoid: tuple[str, int, bool], prompt: list[int]) -> RowRecord | None:
        """The rows of the answer `avoid` rejects, where this engine kept them while writing it to
        `prompt` (trimmed to the rejected text's tokens), else None."""
        rows = self._rows
        if rows is None or not self.keep_rows:
            return None
        tokens = self._llm.tokenize(avoid[0].encode("utf-8"), add_bos=False, special=False)
        if not tokens or not rows.serves(prompt, tokens):
            return None
        return rows.head(len(tokens))

    def _depart(self, job: _Job, decoder, avoid: tuple[str, int, bool], max_out: int, base: int,
                rows: RowRecord | None = None) -> list[int] | None:
        """Write the rejected answer `avoid` (its text, the byte from which it may be departed
        from, and whether the departure may skip to a later line of it) up to its least confident
        token past that byte, then the runner-up there (depart.py): the tokens the answer starts
        with. None when the answer ends before it goes on (stopped, or its length limit); [] (a
        plain greedy answer) when no token of it can be departed from. `base`: the prompt's length;
        `rows`: the answer's rows as its own decoding kept them (the answer is not read again)."""
        req, llm = job.request, self._llm
        text, after, skips = avoid
        tokens = rows.tokens if rows is not None else llm.tokenize(text.encode("utf-8"), add_bos=False, special=False)
        piece = lambda t: llama.model(llm).detokenize([t], special=False)
        pieces = [piece(t) for t in tokens]
        first = start_index(pieces, after)
        same = no_departure(pieces, piece, skips)
        room = self.n_ctx - base
        if first >= len(tokens) or len(tokens) > room:
            if llm.n_tokens > base:  # inside the kept answer: back to the prompt, its last row fresh
                self._back_to_prompt(base)
            return []
        is_eog = lambda t: bool(self._llama_cpp.llama_vocab_is_eog(self._vocab, t))
        if rows is not None:
            n = len(tokens)
            found = least_confident_of(rows.best[first:n], rows.second[first:n], rows.margin[first:n], tokens, first,
                                       is_eog, same)
            self.counters.departures_from_rows += 1
        else:
            found = self._read_least_confident(job, tokens, first, is_eog, same)
        if job.stopped():
            req.finish_reason = "cancelled"
            self.counters.cancelled += 1
            return None
        if found is None:
            self._back_to_prompt(base)
            return []
        if llm.n_tokens < base + found.at:  # the kept answer's cache ends before the departure
            llm.eval(tokens[llm.n_tokens - base : found.at])
        self._seq_rm(base + found.at)
        llm.n_tokens = base + found.at
        self.counters.departures += 1
        answered = [*tokens[: found.at], found.token]
        for t in answered:
            if not self._emit(job, decoder, t, max_out):
                return None  # stopped, or the length limit came first: the answer ends here
        llm.eval([found.token])
        return answered

    def _read_least_confident(self, job: _Job, tokens: list[int], first: int, is_eog, same) -> Departure | None:
        """Evaluate the answer `tokens` after the prompt, ROWS rows at a time with logits for each,
        and find its least confident token from index `first` on (depart.least_confident)."""
        import numpy as np

        llm, cpp, n_vocab = self._llm, self._llama_cpp, self._llm.n_vocab()
        found: Departure | None = None
        if first > 1:
            llm.eval(tokens[: first - 1])  # the opening line: its rows predict nothing we depart from
        for lo in range(first - 1, len(tokens) - 1, ROWS):
            if job.stopped():
                break
            chunk = tokens[lo : min(lo + ROWS, len(tokens) - 1)]
            n_past = llm.n_tokens
            llama.batch(llm).set_batch(batch=chunk, n_past=n_past, logits_all=True)
            with abort_when(cpp, llama.context_ptr(llm), job.stopped):
                rc = cpp.llama_decode(llama.context_ptr(llm), llama.batch(llm).batch)
            if rc != 0:
                self._seq_rm(n_past)
                if job.stopped():
                    break
                raise EngineError("engine_error", f"llama_decode returned {rc}")
            llm.input_ids[n_past : n_past + len(chunk)] = chunk
            llm.n_tokens = n_past + len(chunk)
            logits = np.ctypeslib.as_array(cpp.llama_get_logits(llama.context_ptr(llm)), shape=(len(chunk), n_vocab))
            best = least_confident(logits, tokens, lo + 1, is_eog, same)
            if best is not None and (found is None or best.margin < found.margin):
                found = best
        return found

    def _back_to_prompt(self, base: int) -> None:
        """The cache back to the prompt alone, its last token evaluated again: the first token needs its row."""
        llm = self._llm
        self._seq_rm(base - 1)
        llm.n_tokens = base - 1
        llm.eval(llm.input_ids[base - 1 : base].tolist())

    def _generate_speculative(self, job: _Job, max_out: int, prompt: list[int], text: str, decoder,
                              answered: list[int], sampler: DraftSampler | None = None) -> None:
        """Decoding that verifies drafts copied from the prompt (speculative.py), greedy or, with a
        `sampler`, sampled; `answered`: the tokens the answer already holds (a departure, a prefix),
        followed as if copied."""
        req, c, llm = job.request, self.counters, self._llm
        model, vocab, is_eog = llama.model(llm), self._vocab, self._llama_cpp.llama_vocab_is_eog
        drafter = Drafter(prompt, lambda: region_anchor(text, self._tokenize, prompt),
                          ends_line=lambda t: model.detokenize([t], special=False).endswith(b"\n"),
                          floor=lambda: system_end(text, self._tokenize, prompt),
                          ceiling=lambda: last_block_end(text, self._tokenize, prompt),
                          piece=lambda t: model.detokenize([t], special=False), markers=self._block_markers())
        # A greedy answer of its own (no departure or prefix before it) keeps its rows for a departure.
        record = RowRecord(list(prompt)) if sampler is None and not answered and self.keep_rows else None
        spec = SpeculativeDecoder(llm, self._llama_cpp, drafter, is_eog=lambda t: is_eog(vocab, t), stopped=job.stopped,
                                  costs=self.decode_costs, between=lambda: self._let_prewarms_in(job),
                                  interrupt=(lambda: self._queue.has_prewarm(job.request.client))
                                  if job.request.client is not None else None, sampler=sampler, record=record)
        drafter.replay(answered)
        tokens = spec.run(lambda: max_out - req.usage.output_tokens)
        self.spec_active = spec
        try:
            for token in tokens:
                if not self._emit(job, decoder, token, max_out):
                    break
            else:
                if job.stopped():
                    req.finish_reason = "cancelled"
                    c.cancelled += 1
                elif req.usage.output_tokens >= max_out or llm.n_tokens >= self.n_ctx:
                    req.finish_reason = "length"
                else:
                    req.finish_reason = "stop"
        finally:
            tokens.close()  # trims the cache to the tokens the answer holds
            self.spec_active = None
            if record is not None:
                self._rows = record
        self._send_tail(job, decoder)
        s = spec.stats
        c.spec_steps += s.steps
        c.draft_tokens += s.drafted
        c.draft_accepted += s.accepted
        req.usage.draft_tokens = s.drafted
        req.usage.draft_accepted = s.accepted

    def _generate(self, job: _Job, max_out: int, temp: float, decoder) -> None:
        req, c, llm = job.request, self.counters, self._llm
        chain = SamplerChain(temp)  # the settings the drafts' sampled path (sampling.py) draws with too
        sampler = llama.init_sampler(llm, temp=chain.temp, top_k=chain.top_k, top_p=chain.top_p, min_p=chain.min_p,
                                     repeat_penalty=1.0)
        is_eog = self._llama_cpp.llama_vocab_is_eog
        try:
            while True:
                if job.stopped():
                    req.finish_reason = "cancelled"
                    c.cancelled += 1
                    break
                token = sampler.sample(llama.context(llm), -1)
                if is_eog(self._vocab, token):
                    req.finish_reason = "stop"
                    break
                if not self._emit(job, decoder, token, max_out):
                    break
                if job.stopped():
                    req.finish_reason = "cancelled"
                    c.cancelled += 1
                    break
                self._let_prewarms_in(job)
                # Evaluate the token so the cache holds the answer too (follow-ups, steering).
                llm.eval([token])
            self._send_tail(job, decoder)
        finally:
            sampler.close()

    # ---- per-session KV sequences -----------------------------------------------------------

    def _switch_session(self, key: str, prompt: list[int]) -> None:
        """Make `key` the live session, swapping KV sequences when that saves evaluation."""
        llm = self._llm
        live = _common_prefix(llm.input_ids, llm.n_tokens, prompt)
        # Another key's cache may serve better even for the live session: a redirect prewarmed on
        # its own lane while the answer it replaces was written (_let_prewarms_in).
        best_key, best = None, live + RESTORE_MIN_GAIN
        for k, saved in self._saved.items():
            if k == key and key == self._owner:
                continue  # an older copy of the live session
            common = _common_prefix(saved.tokens, len(saved.tokens), prompt)
            if common > best:
                best_key, best = k, common
        if key == self._owner and best_key is None:
            return
        if self._owner is not None and llm.n_tokens > 0:
            self._save(self._owner, keep=best_key)  # making room must not drop the cache about to be used
        if best_key is not None:
            self._restore(best_key)
        self._owner = key

    def _save(self, key: str, keep: str | None = None) -> None:
        """Set the live cache aside as `key`'s, dropping the least recently used others (never
        `keep`) while the saved caches are over their budget."""
        llm, cpp = self._llm, self._llama_cpp
        tokens = [int(t) for t in llm.input_ids[: llm.n_tokens]]
        old = self._saved.get(key)
        if old is not None and old.tokens == tokens:
            self._saved.move_to_end(key)
            return
        size = cpp.llama_state_seq_get_size(llama.context_ptr(llm), 0)
        if size > self.state_budget_bytes:
            return
        buf = (ctypes.c_uint8 * size)()
        n = cpp.llama_state_seq_get_data(llama.context_ptr(llm), buf, size, 0)
        if n == 0:
            return
        if old is not None:
            self._saved_bytes -= old.size
        self._saved[key] = _SavedSeq(tokens, buf, n)
        self._saved.move_to_end(key)
        self._saved_bytes += n
        self.counters.state_saves += 1
        for old_key in [k for k in self._saved if k != keep]:
            if self._saved_bytes <= self.state_budget_bytes or len(self._saved) <= 1:
                break
            self._saved_bytes -= self._saved.pop(old_key).size

    def _restore(self, key: str) -> bool:
        """Make `key`'s saved sequence the live cache; False when none is saved (the cache is left as it
        is) or llama.cpp refused it (the cache is then empty)."""
        llm, cpp = self._llm, self._llama_cpp
        saved = self._saved.get(key)
        if saved is None:
            return False
        self._seq_rm(0)
        if cpp.llama_state_seq_set_data(llama.context_ptr(llm), saved.data, saved.size, 0) == 0:
            self._seq_rm(0)
            llm.n_tokens = 0
            return False
        llm.input_ids[: len(saved.tokens)] = saved.tokens
        llm.n_tokens = len(saved.tokens)
        self._saved.move_to_end(key)
        self.counters.state_restores += 1
        return True


_ROLE = {"developer": "system"}


def _common_prefix(cached, n_cached: int, tokens: list[int]) -> int:
    """Length of the common prefix of cached[:n_cached] and tokens (vectorized: prompts run to thousands)."""
    import numpy as np

    n = min(n_cached, len(tokens))
    if n == 0:
        return 0
    diff = np.flatnonzero(np.asarray(cached[:n], dtype=np.int64) != np.asarray(tokens[:n], dtype=np.int64))
    return int(diff[0]) if diff.size else n
