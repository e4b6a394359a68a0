"""Experiment: for answers that come back unchanged, force the runner-up token at the answer's
least confident positions (smallest top-1/top-2 logit margin) and continue greedy. Does the
model's own doubt point at the bug?"""
import asyncio, json, sys, re
import numpy as np
sys.path.insert(0, ".")
from steer_tui import prompts
from steer_tui.server.engines.local import LocalEngine
from bench.editbench import load_set, judge

IDS = sys.argv[1].split(",")
K = int(sys.argv[2]) if len(sys.argv) > 2 else 3

def code_of(answer):
    m = re.search(r"```[^\n]*\n(.*?)```", answer, re.S)
    return m.group(1) if m else None

async def main():
    eng = LocalEngine(n_threads=2, n_ctx=4096)
    await eng.start()
    llm, cpp = eng._llm, eng._llama_cpp
    ctx = llm._ctx.ctx
    nv = llm.n_vocab()
    eos = llm.token_eos()
    tasks = {t["task_id"]: t for t in load_set("humanevalfix")}
    def logits():
        return np.ctypeslib.as_array(cpp.llama_get_logits_ith(ctx, -1), shape=(nv,)).copy()
    def greedy(max_new=600):
        out, margins = [], []
        for _ in range(max_new):
            lg = logits()
            top = np.argpartition(lg, -2)[-2:]
            a, b = (top[1], top[0]) if lg[top[1]] >= lg[top[0]] else (top[0], top[1])
            t = int(a)
            if t == eos:
                break
            out.append(t); margins.append((float(lg[a] - lg[b]), int(b)))
            llm.eval([t])
            text = llm.detokenize(out).decode(errors="replace")
            if text.count("```") >= 2:
                break
        return out, margins
    for tid in IDS:
        t = tasks[tid]
        text, ins = t["input"], t["instruction"]
        region = prompts.rewrite_region(text, ins)
        msgs = prompts.build_messages(prompts.REWRITE, t["file"], text, ins, region)
        prompt = eng.tokenize_messages(msgs)
        cpp.llama_memory_seq_rm(cpp.llama_get_memory(ctx), 0, 0, -1); llm.n_tokens = 0
        llm.eval(prompt)
        base_n = llm.n_tokens
        out, margins = greedy()
        ans = llm.detokenize(out).decode(errors="replace")
        lines = text.splitlines(keepends=True)
        def edited(answer):
            code = code_of(answer)
            if code is None: return None
            return "".join(lines[:region[0]]) + code + "".join(lines[region[1]:])
        e0 = edited(ans)
        same = e0 == text
        ok0 = judge(e0, t["test"])[0] if e0 else False
        # least confident positions inside the code (after the opening fence line)
        first_nl = next((i for i, tok in enumerate(out) if b"\n" in llm.detokenize([tok])), 0)
        cand = sorted(range(first_nl + 1, len(out)), key=lambda i: margins[i][0])[:K]
        res = []
        for i in cand:
            cpp.llama_memory_seq_rm(cpp.llama_get_memory(ctx), 0, base_n + i, -1); llm.n_tokens = base_n + i
            alt = margins[i][1]
            llm.eval([alt])
            rest, _ = greedy()
            a2 = llm.detokenize(out[:i] + [alt] + rest).decode(errors="replace")
            e2 = edited(a2)
            ok = judge(e2, t["test"])[0] if e2 else False
            changed_line = llm.detokenize(out[max(0,i-6):i]).decode(errors="replace") + "[" + llm.detokenize([out[i]]).decode(errors="replace") + "->" + llm.detokenize([alt]).decode(errors="replace") + "]"
            res.append((round(margins[i][0], 2), ok, e2 != text if e2 else None, changed_line.replace("\n", "\\n")))
        print(json.dumps({"task": tid, "greedy_unchanged": same, "greedy_passed": ok0, "alts": res}), flush=True)
    await eng.close()
asyncio.run(main())
