"""Where does the departing retry depart? Run from the repository root: python bench/results/levers/where_departed.py HumanEvalFix/10,HumanEvalFix/20 (greedy answer, then the departure, through the embedded engine; one JSON line a task)."""
import asyncio, sys, re, threading, json
sys.path.insert(0, ".")
from steer_tui import prompts
from steer_tui.edits.judge import departure_point
from steer_tui.server.engines.local import LocalEngine
from steer_tui.server.engines.base import EngineRequest
from bench.editbench import load_set

IDS = sys.argv[1].split(",")

async def run(eng, msgs, avoid=None):
    req = EngineRequest(response_id="r", messages=msgs, session_key="s", max_output_tokens=1024, temperature=0.0, avoid=avoid)
    out = []
    async for piece in eng.stream(req, threading.Event()):
        out.append(piece)
    return "".join(out)

async def main():
    eng = LocalEngine(n_threads=2)
    await eng.start()
    tasks = {t["task_id"]: t for s in ("humanevalfix",) for t in load_set(s)}
    for tid in IDS:
        t = tasks[tid]
        text, ins = t["input"], t["instruction"]
        region = prompts.rewrite_region(text, ins)
        msgs = prompts.build_messages(prompts.REWRITE, t["file"], text, ins, region)
        a1 = await run(eng, msgs)
        a2 = await run(eng, msgs, (a1, departure_point("rewrite", a1)))
        i = next((k for k in range(min(len(a1), len(a2))) if a1[k] != a2[k]), min(len(a1), len(a2)))
        print(json.dumps({"task": tid, "region": region, "at": i, "len1": len(a1), "before": a1[max(0, i-60):i],
                          "was": a1[i:i+40], "now": a2[i:i+60]}), flush=True)
    await eng.close()

asyncio.run(main())
