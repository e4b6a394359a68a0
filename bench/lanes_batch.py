"""What decoding N alternative lanes together as llama.cpp sequences would save on this machine.

The embedded engine writes `steer edit --attempts N`'s lanes one after another (each shares the
request's cached prefix). This bench times, on the embedded model, STEPS one-token decode steps
per lane, lane after lane (today), against STEPS decodes of one batch holding the next token of
every lane, each in its own sequence over a shared 300-token prefix (what batching would do), and
prints the ratio. Plain decoding only: a lane copying text is verified in drafts already batched.

`python -m bench lanes_batch [--lanes N] [--steps S] [--threads T]`; wrap it in `flock
/tmp/steer-model.lock` on a shared machine.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from bench.table import print_table

PREFIX = 300


def run(lanes: int, steps: int, threads: int) -> tuple[float, float]:
    """(seconds lane after lane, seconds batched) for `steps` tokens of each of `lanes` lanes."""
    import llama_cpp as L

    from steer_tui.server import model_store

    path = str(model_store.ensure_model())
    L.llama_backend_init()
    model = L.llama_model_load_from_file(path.encode(), L.llama_model_default_params())
    params = L.llama_context_default_params()
    params.n_ctx, params.n_batch, params.n_ubatch = 4096, 512, 512
    params.n_threads = params.n_threads_batch = threads
    params.n_seq_max, params.kv_unified = lanes, True
    ctx = L.llama_init_from_model(model, params)
    vocab = L.llama_model_get_vocab(model)
    text = Path(__file__).resolve().parents[1].joinpath("steer_tui", "prompts.py").read_bytes()[:8000]
    buf = (L.llama_token * 4096)()
    L.llama_tokenize(vocab, text, len(text), buf, 4096, True, False)
    tokens = list(buf[: PREFIX + steps])
    batch = L.llama_batch_init(512, 0, lanes)
    try:
        def decode(items: list[tuple[int, int, int]]) -> None:  # (token, position, sequence)
            batch.n_tokens = len(items)
            for i, (tok, pos, seq) in enumerate(items):
                batch.token[i], batch.pos[i], batch.n_seq_id[i], batch.logits[i] = tok, pos, 1, True
                batch.seq_id[i][0] = seq
            if L.llama_decode(ctx, batch) != 0:
                raise RuntimeError("llama_decode failed")

        decode([(t, i, 0) for i, t in enumerate(tokens[:PREFIX])])
        memory = L.llama_get_memory(ctx)
        for seq in range(1, lanes):
            L.llama_memory_seq_cp(memory, 0, seq, -1, -1)
        t0 = time.perf_counter()
        for seq in range(lanes):
            for k in range(steps):
                decode([(tokens[PREFIX + k], PREFIX + k, seq)])
        one_after_another = time.perf_counter() - t0
        for seq in range(lanes):
            L.llama_memory_seq_rm(memory, seq, PREFIX, -1)
        t0 = time.perf_counter()
        for k in range(steps):
            decode([(tokens[PREFIX + k], PREFIX + k, seq) for seq in range(lanes)])
        batched = time.perf_counter() - t0
    finally:
        L.llama_batch_free(batch)
        L.llama_free(ctx)
        L.llama_model_free(model)
    return one_after_another, batched


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench lanes_batch", description=__doc__.splitlines()[0])
    parser.add_argument("--lanes", type=int, default=3)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv or [])
    seq, bat = run(args.lanes, args.steps, args.threads)
    n = args.lanes * args.steps
    print_table(f"{args.lanes} lanes x {args.steps} tokens, plain decoding, {args.threads} threads",
                ["lanes", "seconds", "ms per token", "x one after another"],
                [["one after another (today)", seq, 1000 * seq / n, 1.0],
                 ["batched as sequences", bat, 1000 * bat / n, bat / seq]])
    return 0
