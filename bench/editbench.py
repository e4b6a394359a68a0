"""Edit quality on public task sets with hidden tests: `steer edit` vs Aider driving the same model.

Every task runs in a temp dir of its own: its `input` is written to a file, a real `steer edit`
process (one `steer serve --engine local` child serves the whole run, reached through
`--backend ws://...`, so the model loads once) or a real Aider process (against llama-cpp-python's
own `llama_cpp.server` on the same GGUF, threads and context) edits it with the task's
instruction, and the edited file plus "\\n\\n" plus the task's test runs as a script (20 s limit,
its own temp dir): exit status 0 is a pass (../shared/editbench/README.md).

Aider (aider-chat 0.86, Apache-2.0) is never a dependency of steer: the bench installs it into a
venv of its own under the user cache dir (`~/.cache/steer/bench/aider-venv`), and the server's
web dependencies into another (`llama-server-venv`, which sees llama-cpp-python through a .pth).

Both tools run under the same limits: at most MAX_OUTPUT_TOKENS output tokens per model answer
(steer's through a config file of the run's own; Aider's as `max_tokens` through its `aider/extra_params` model setting) and
TOOL_TIMEOUT_S per task (then the task is an error).

Outcomes: passed; failed (the file changed, the test fails); refused (steer exit 1 with the file
untouched, or Aider reported an edit it could not apply); unchanged (the answer changed nothing);
error (backend error, timeout); wrote-other (cross-file sets: a file other than the target changed,
appeared or went; a failure whatever the test says).

Cross-file sets (`crossfile`: bench/crossfile/tune.jsonl, `crossfile_heldout`: heldout.jsonl): each
task's project (2-4 files) is written to the temp dir, which is made a git repository with the files
committed, so each tool sees a project; steer edits the target (`steer edit TARGET`, cwd = the
project; `--steer-args` adds a steer run with more flags, e.g. `--no-context`, on the same server),
Aider gets the target as its file and every other file as `--read`; the task's hidden test runs in a
copy of the edited project (bench/crossfile's run_test). One JSON line per task goes to --out so two runs compare task by task
(`--compare A.jsonl B.jsonl`).

`python -m bench editbench [--set humanevalfix|humanevalfix_big|humanevalfix_java|humanevalfix_cpp|polyglot|usertasks|constants|constants_heldout|imports_heldout|names_heldout|crossfile|
 crossfile_heldout|crossfile_fresh|node_imports|crossfile_langs|crossfile_blind2|all] [--limit N] [--only IDS] [--tool steer|aider|both|none] [--threads T] [--out FILE.jsonl]
 [--compare A B] [--steer-root NAME=DIR] [--steer-args ARGS]`
Wrap it in `flock /tmp/steer-model.lock` on a shared machine.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.checkout import steer_argv
from bench.table import percentile, print_table

ROOT = Path(__file__).resolve().parents[1]
SETS = {"humanevalfix": "humanevalfix_python.jsonl", "polyglot": "polyglot_python.jsonl",
        "humanevalfix_java": "humanevalfix_java.jsonl", "humanevalfix_cpp": "humanevalfix_cpp.jsonl"}
ALL_SETS = ("humanevalfix", "polyglot", "usertasks")  # `--set all`: the Python sets
CROSSFILE_SETS = {"crossfile": "tune", "crossfile_heldout": "heldout", "crossfile_fresh": "fresh",
                  "node_imports": "nodeimports", "crossfile_langs": "langs", "crossfile_blind2": "blind2"}  # set -> split of bench/crossfile
USER_SETS = ("constants", "constants_heldout", "imports_heldout", "names_heldout")  # bench/usertasks/NAME.py's TASKS
# What a tool writes for itself in a project (Aider's chat and input history, its tags cache): not an
# edit of the project, so not a write to another file.
TOOL_FILES = re.compile(r"^\.aider|(^|/)__pycache__(/|$)")
# The file a task's input is edited as, by the row's `lang` (the extension tells each tool the
# language); Python rows name theirs in `meta`.
LANG_FILE = {"java": "Solution.java", "cpp": "solution.cpp"}
AIDER_SPEC = "aider-chat==0.86.*"
SERVER_DEPS = ["uvicorn", "fastapi", "sse-starlette", "starlette-context", "pydantic-settings"]
MODEL_ALIAS = "qwen2.5-coder-1.5b-instruct"
N_CTX = 16384  # the embedded engine's context window (steer_tui/server/engines/local.py DEFAULT_CTX)
TEST_TIMEOUT_S = 20
# Per task and tool, the same for both: an answer the model never ends (Aider with no output cap ran
# every polyglot task into a 600 s limit) is an error, not a wait that starves the run.
TOOL_TIMEOUT_S = 300
# Output tokens per model answer for both tools: the embedded engine's default (steer_tui/server/engines/
# local.py DEFAULT_MAX_OUTPUT), which steer gets as `max_output_tokens` in a config file of the run's
# own (by itself it gives a long rewrite region more: steer_tui.turn.output_cap); Aider as `max_tokens`
# through its `aider/extra_params` model setting, which adds to Aider's settings for the model and
# changes nothing else.
MAX_OUTPUT_TOKENS = 1024
OUTCOMES = ("passed", "failed", "refused", "unchanged", "error", "wrote-other")
# Aider's own words when an answer's edits could not be applied (it exits 0 either way).
_AIDER_REFUSED = re.compile(r"did not conform to the edit format|SearchReplaceNoExactMatch|Failed to apply edit|"
                            r"malformed|UnifiedDiffNoMatch|doesn't match|Only \d+ reflections allowed", re.I)
_AIDER_ERROR = re.compile(r"litellm\.\w*Error|APIConnectionError|Traceback \(most recent call last\)", re.I)


# ------------------------------------------------------------------ tasks


def _in_a_big_file(tasks: list[dict]) -> list[dict]:
    """Each task's code put halfway into the standard library's argparse.py (2,600 lines, at the
    first top-level definition past the middle): the same bug in a file far over the embedded
    model's view budget, judged by the same test (argparse runs as a script without side effects)."""
    import argparse as argparse_module

    pad = Path(argparse_module.__file__).read_text(encoding="utf-8").splitlines(keepends=True)
    middle = len(pad) // 2
    at = next(i for i in range(middle, len(pad)) if pad[i].startswith(("class ", "def ")))
    head, tail = "".join(pad[:at]), "".join(pad[at:])
    return [dict(t, task_id=t["task_id"].replace("HumanEvalFix/", "HumanEvalFixBig/"),
                 input=head + t["input"].strip("\n") + "\n\n\n" + tail) for t in tasks]


def editbench_dir() -> Path:
    """`STEER_EDITBENCH_DIR`, else `../shared/editbench` beside this checkout or, from a git
    worktree elsewhere, beside the main checkout the worktree belongs to."""
    if os.environ.get("STEER_EDITBENCH_DIR"):
        return Path(os.environ["STEER_EDITBENCH_DIR"])
    beside = ROOT.parent / "shared" / "editbench"
    if beside.is_dir():
        return beside
    try:
        common = subprocess.run(["git", "rev-parse", "--path-format=absolute", "--git-common-dir"], cwd=ROOT,
                                capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return beside
    main = Path(common).parent if common else None  # the main checkout holds the common .git
    if main is not None and (main.parent / "shared" / "editbench").is_dir():
        return main.parent / "shared" / "editbench"
    return beside


def load_set(name: str) -> list[dict]:
    """The tasks of one set: task_id, instruction, input, test, file (the name the file gets)."""
    if name == "humanevalfix_big":
        return _in_a_big_file(load_set("humanevalfix"))
    if name == "usertasks":
        from bench.usertasks import load

        return load()
    if name in USER_SETS:
        import importlib

        tasks = importlib.import_module(f"bench.usertasks.{name}").TASKS
        return [dict(t, task_id=f"{name}/{t['name']}") for t in tasks]
    if name in CROSSFILE_SETS:
        from bench.crossfile import load as load_crossfile

        return [{"task_id": f"crossfile/{t['id']}", "instruction": t["instruction"], "input": t["files"][t["target"]],
                 "test": t["test"], "file": t["target"], "lang": t["lang"], "files": t["files"],
                 "test_file": t["test_file"], "crossfile": t} for t in load_crossfile(CROSSFILE_SETS[name])]
    path = editbench_dir() / SETS[name]
    tasks = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        t = json.loads(line)
        meta = t.get("meta") or {}
        lang = t.get("lang", "python")
        fname = LANG_FILE.get(lang) or meta.get("file_name") or f"{meta.get('entry_point') or 'solution'}.py"
        tasks.append({"task_id": t["task_id"], "instruction": t["instruction"], "input": t["input"],
                      "test": t["test"], "file": fname, "lang": lang})
    return tasks


# How a task's program is built and run, by language (../shared/editbench/README.md): the file the
# edited code plus the test is written to, the compile step (None: none), and the run.
JUDGES = {
    "python": ("prog.py", None, [sys.executable, "prog.py"]),
    "java": ("Main.java", ["javac", "Main.java"], ["java", "-ea", "Main"]),
    "cpp": ("prog.cpp", ["g++", "-std=c++17", "-o", "prog", "prog.cpp"], ["./prog"]),
}


def judge(edited: str, test: str, lang: str = "python") -> tuple[bool, str]:
    """Build and run edited + "\\n\\n" + test in its own temp dir: (passed, last line of its error).
    A compile error is a failure."""
    name, build, run = JUDGES[lang]
    with tempfile.TemporaryDirectory(prefix="editbench-judge-") as tmp:
        Path(tmp, name).write_text(edited + "\n\n" + test, encoding="utf-8")
        try:
            if build is not None:
                made = subprocess.run(build, cwd=tmp, capture_output=True, text=True, timeout=120,
                                      stdin=subprocess.DEVNULL)
                if made.returncode != 0:
                    lines = (made.stderr or made.stdout).strip().splitlines()
                    return False, ("compile error: " + (lines[0] if lines else f"exit {made.returncode}"))[:160]
            proc = subprocess.run(run, cwd=tmp, capture_output=True, text=True,
                                  timeout=TEST_TIMEOUT_S, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return False, f"test timed out ({TEST_TIMEOUT_S} s)"
    if proc.returncode == 0:
        return True, ""
    lines = (proc.stderr or proc.stdout).strip().splitlines()
    return False, (lines[-1] if lines else f"exit {proc.returncode}")[:160]


def _diff(old: str, new: str, name: str) -> str:
    return "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True), f"a/{name}", f"b/{name}"))


# ------------------------------------------------------------------ steer


class Steer:
    """One `steer serve --engine local` child for the run; a `steer edit` process per task.

    `root`: the checkout whose steer runs (default: this one); another checkout (an older
    commit, say) runs as its own tool, named `steer@NAME`, in the same run."""

    def __init__(self, threads: int, root: Path = ROOT, name: str = "steer", extra_args: tuple[str, ...] = (),
                 server: "Steer | None" = None):
        self.threads = threads
        self.root = root
        self.name = name
        self.proc = None
        self.url = ""
        self._config: str | None = None
        self.argv = steer_argv(root)  # that checkout's own package, started from that checkout
        self.extra_args = tuple(extra_args)  # more `steer edit` flags (--no-context, ...)
        self.server = server  # another Steer of the same checkout whose `steer serve` this one uses

    def _env(self) -> dict:
        env = dict(os.environ, NO_COLOR="1")
        for k in ("STEER_BACKEND", "STEER_FORMAT", "STEER_MODEL"):
            env.pop(k, None)
        # A config file of the run's own: the cap both tools get, and nothing from the user's config.
        if self._config is None:
            with tempfile.NamedTemporaryFile("w", suffix=".steer.toml", delete=False) as f:
                f.write(f"max_output_tokens = {MAX_OUTPUT_TOKENS}\n")
            self._config = f.name
        env["STEER_CONFIG"] = self._config
        return env

    def start(self) -> None:
        import threading

        if self.server is not None:  # started before this one (tools start in order)
            self.url = self.server.url
            return
        # `steer serve` of that checkout; it exits when its stdin (held here) closes.
        cmd = [*self.argv, "serve", "--engine", "local", "--threads", str(self.threads),
               "--host", "127.0.0.1", "--port", "0", "--exit-with-stdin"]
        self.log = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen(cmd, cwd=self.root, env=self._env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.log, text=True)
        for line in self.proc.stdout:
            if line.startswith("steer serve ready:"):
                self.url = line.split()[3]
                break
        else:
            self.log.seek(0)
            raise RuntimeError(f"{self.name}: steer serve exited: {self.log.read()[-800:]}")
        threading.Thread(target=self.proc.stdout.read, daemon=True).start()  # keep its stdout drained

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        if self._config is not None:
            Path(self._config).unlink(missing_ok=True)
            self._config = None

    def run(self, task: dict, workdir: Path) -> dict:
        target = workdir / task["file"]
        cmd = [*self.argv, "edit", task["file"], "-m", task["instruction"], "--json",
               "--backend", self.url, *self.extra_args]
        env = self._env()
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=workdir, timeout=TOOL_TIMEOUT_S,
                                  stdin=subprocess.DEVNULL)
            code, stdout, stderr = proc.returncode, proc.stdout, proc.stderr
        except subprocess.TimeoutExpired:
            code, stdout, stderr = None, "", "timed out"
        seconds = time.perf_counter() - t0
        owner = self.server or self
        if owner.proc is not None and owner.proc.poll() is not None:
            # Every later task would only fail to connect: stop the run with why the server died.
            from steer_tui.transport.launcher import exit_description

            owner.log.seek(0)
            raise RuntimeError(f"{self.name}: {exit_description(owner.proc.returncode)} during "
                               f"{task['task_id']}: {owner.log.read()[-400:]}")
        try:
            res = json.loads(stdout)
        except json.JSONDecodeError:
            res = {"reason": (stderr.strip().splitlines() or ["no output"])[-1]}
        edited = target.read_text(encoding="utf-8")
        changed = edited != task["input"]
        status = res.get("status")
        if changed:
            outcome = None  # the judge decides
        elif code == 1 and status == "no_change":
            outcome = "unchanged"
        elif code == 1:
            outcome = "refused"
        elif code == 0:
            outcome = "unchanged"
        else:
            outcome = "error"
        return {"outcome": outcome, "edited": edited, "seconds": seconds, "exit": code, "status": status,
                "attempts": res.get("attempts"), "tokens": res.get("tokens"), "ttft_s": res.get("ttft_s"),
                "format": res.get("format"), "reason": (res.get("reason") or "")[:300],
                "answer": (res.get("answer") or "")[-4000:]}


# ------------------------------------------------------------------ aider


def _bench_cache() -> Path:
    from steer_tui.config import cache_dir

    return cache_dir() / "bench"


def _venv_python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def _base_python() -> str:
    # A venv made from inside a venv should start from the real interpreter, not the venv's.
    return getattr(sys, "_base_executable", None) or sys.executable


def ensure_aider() -> Path:
    """Aider in its own venv under the cache dir (installed on first use: minutes)."""
    venv = _bench_cache() / "aider-venv"
    exe = venv / "bin" / "aider"
    if exe.exists():
        return exe
    print(f"editbench: installing {AIDER_SPEC} into {venv} (first run only)", file=sys.stderr, flush=True)
    subprocess.run([_base_python(), "-m", "venv", str(venv)], check=True)
    subprocess.run([str(_venv_python(venv)), "-m", "pip", "install", "-q", AIDER_SPEC], check=True)
    return exe


def ensure_llama_server() -> Path:
    """A python that can run `-m llama_cpp.server`: llama-cpp-python from this interpreter (through a
    .pth file) plus the server's web dependencies in a venv of the bench's own."""
    import llama_cpp

    site = Path(llama_cpp.__file__).resolve().parents[1]
    venv = _bench_cache() / "llama-server-venv"
    py = _venv_python(venv)
    probe = "import uvicorn, fastapi, sse_starlette, starlette_context, pydantic_settings, llama_cpp.server.app"
    if py.exists() and subprocess.run([str(py), "-c", probe], capture_output=True).returncode == 0:
        return py
    print(f"editbench: installing llama_cpp.server's dependencies into {venv}", file=sys.stderr, flush=True)
    subprocess.run([_base_python(), "-m", "venv", str(venv)], check=True)
    own = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                         capture_output=True, text=True, check=True).stdout.strip()
    # Appended after the venv's own site-packages: its web packages win, llama_cpp comes from here.
    Path(own, "_steer_llama_cpp.pth").write_text(str(site) + "\n", encoding="utf-8")
    subprocess.run([str(py), "-m", "pip", "install", "-q", *SERVER_DEPS], check=True)
    subprocess.run([str(py), "-c", probe], check=True)
    return py


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Aider:
    """llama_cpp.server on the same GGUF and threads for the run; an `aider --message` process per task."""

    name = "aider"

    def __init__(self, threads: int, model_path: str):
        self.threads = threads
        self.model_path = model_path
        self.proc = None
        self.base = ""
        self.exe = None
        self.version = ""

    def start(self) -> None:
        self.exe = ensure_aider()
        self.version = subprocess.run([str(self.exe), "--version"], capture_output=True, text=True).stdout.strip()
        py = ensure_llama_server()
        port = _free_port()
        self.settings = tempfile.NamedTemporaryFile("w", suffix=".aider.model.settings.yml", delete=False)
        self.settings.write(f"- name: aider/extra_params\n  extra_params:\n    max_tokens: {MAX_OUTPUT_TOKENS}\n")
        self.settings.close()
        self.log = tempfile.TemporaryFile(mode="w+")
        cmd = [str(py), "-m", "llama_cpp.server", "--model", self.model_path, "--model_alias", MODEL_ALIAS,
               "--n_threads", str(self.threads), "--n_threads_batch", str(self.threads), "--n_ctx", str(N_CTX),
               "--host", "127.0.0.1", "--port", str(port)]
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        self.base = f"http://127.0.0.1:{port}/v1"
        import urllib.request

        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                self.log.seek(0)
                raise RuntimeError(f"llama_cpp.server exited: {self.log.read()[-800:]}")
            try:
                with urllib.request.urlopen(self.base + "/models", timeout=2):
                    return
            except OSError:
                time.sleep(0.5)
        raise RuntimeError("llama_cpp.server did not start in 300 s")

    def stop(self) -> None:
        if getattr(self, "settings", None) is not None:
            Path(self.settings.name).unlink(missing_ok=True)
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()

    def run(self, task: dict, workdir: Path) -> dict:
        target = workdir / task["file"]
        # Aider's defaults (edit format, lint, prompts) for this model; the flags only make it
        # non-interactive and offline (no git, no update check, no URL scraping, no analytics).
        cmd = [str(self.exe), "--model", f"openai/{MODEL_ALIAS}", "--openai-api-base", self.base,
               "--openai-api-key", "sk-local", "--yes-always", "--no-git", "--no-auto-commits",
               "--analytics-disable", "--no-check-update", "--no-show-model-warnings", "--no-pretty",
               "--no-show-release-notes", "--no-detect-urls", "--no-suggest-shell-commands", "--no-fancy-input",
               "--model-settings-file", self.settings.name,
               "--message", task["instruction"], task["file"]]
        for other in task.get("files") or ():
            if other != task["file"]:
                cmd[-1:-1] = ["--read", other]  # the project's other files, read-only, before the file it edits
        env = dict(os.environ, LITELLM_LOCAL_MODEL_COST_MAP="True", NO_COLOR="1", TERM="dumb")
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=workdir, timeout=TOOL_TIMEOUT_S,
                                  stdin=subprocess.DEVNULL)
            code, out = proc.returncode, proc.stdout + proc.stderr
        except subprocess.TimeoutExpired as exc:
            code, out = None, (exc.stdout or b"").decode("utf-8", "replace") if isinstance(exc.stdout, bytes) else ""
        seconds = time.perf_counter() - t0
        edited = target.read_text(encoding="utf-8") if target.exists() else ""
        m = re.search(r"with (\S+) edit format", out)
        fmt = m.group(1) if m else None
        changed = edited != task["input"]
        if changed:
            outcome = None
        elif code is None or code != 0 or _AIDER_ERROR.search(out):
            outcome = "error"
        elif _AIDER_REFUSED.search(out):
            outcome = "refused"
        else:
            outcome = "unchanged"
        return {"outcome": outcome, "edited": edited, "seconds": seconds, "exit": code, "status": None,
                "attempts": None, "tokens": None, "ttft_s": None, "format": fmt, "reason": "",
                "answer": out[-4000:]}


# ------------------------------------------------------------------ run


def make_project(files: dict[str, str], workdir: Path) -> None:
    """The task's files in workdir, made a git repository with them committed (a project, as a user has one)."""
    from bench.crossfile import write_project

    write_project(files, workdir)
    git = ["git", "-c", "user.name=editbench", "-c", "user.email=editbench@localhost", "-c", "commit.gpgsign=false"]
    for step in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "the task's project"]):
        subprocess.run([*git, *step], cwd=workdir, check=True, capture_output=True, stdin=subprocess.DEVNULL)


def other_writes(files: dict[str, str], target: str, workdir: Path) -> list[str]:
    """The project's files other than target that changed, went, or appeared (tools' own files aside)."""
    now = {p.relative_to(workdir).as_posix() for p in workdir.rglob("*")
           if p.is_file() and ".git" not in p.relative_to(workdir).parts[:1]}
    now = {p for p in now if not TOOL_FILES.search(p)}
    changed = []
    for rel in sorted(now | set(files)):
        if rel == target:
            continue
        path = workdir / rel
        if rel not in files:
            changed.append(f"{rel} (new)")
        elif rel not in now:
            changed.append(f"{rel} (gone)")
        elif path.read_text(encoding="utf-8", errors="replace") != files[rel]:
            changed.append(rel)
    return changed


def run_one(tool, task: dict, set_name: str) -> dict:
    others: list[str] = []
    with tempfile.TemporaryDirectory(prefix="editbench-") as tmp:
        workdir = Path(tmp)
        if task.get("files"):
            make_project(task["files"], workdir)
        else:
            (workdir / task["file"]).write_text(task["input"], encoding="utf-8")
        r = tool.run(task, workdir)
        if task.get("files"):
            from bench.crossfile import run_test

            others = other_writes(task["files"], task["file"], workdir)
            if others:
                r["outcome"], r["test_error"] = "wrote-other", "wrote " + ", ".join(others)
            elif r["outcome"] is None:
                ok, why = run_test(task["crossfile"], workdir)
                r["outcome"] = "passed" if ok else "failed"
                r["test_error"] = why
    if r["outcome"] is None:
        ok, why = judge(r["edited"], task["test"], task.get("lang", "python"))
        r["outcome"] = "passed" if ok else "failed"
        r["test_error"] = why
    row = {"set": set_name, "task_id": task["task_id"], "tool": tool.name, "outcome": r["outcome"],
           "seconds": round(r["seconds"], 2), "exit": r["exit"], "attempts": r["attempts"], "status": r["status"],
           "format": r["format"], "tokens": r["tokens"], "ttft_s": r["ttft_s"], "reason": r["reason"],
           "test_error": r.get("test_error", ""), "diff": _diff(task["input"], r["edited"], task["file"])[:6000],
           "answer": r["answer"]}
    if task.get("files"):
        row["wrote_other"] = others
    return row


def summarize(rows: list[dict], set_name: str, tools: list[str]) -> None:
    table = []
    for tool in tools:
        mine = [r for r in rows if r["tool"] == tool and r["set"] == set_name]
        if not mine:
            continue
        secs = [r["seconds"] for r in mine]
        counts = {k: sum(r["outcome"] == k for r in mine) for k in OUTCOMES}
        fmts = sorted({r["format"] or "?" for r in mine})
        row = [tool, len(mine), counts["passed"], f"{100 * counts['passed'] / len(mine):.0f}%", counts["failed"],
               counts["refused"], counts["unchanged"], counts["error"], statistics.median(secs),
               percentile(secs, 90), ",".join(fmts)]
        if set_name in CROSSFILE_SETS:
            row[8:8] = [counts["wrote-other"], max(secs)]
        table.append(row)
    headers = ["tool", "tasks", "passed", "pass %", "applied, failing", "refused", "unchanged", "error",
               "median s", "p90 s", "format"]
    if set_name in CROSSFILE_SETS:
        headers[8:8] = ["wrote other", "max s"]
    print_table(f"editbench {set_name}", headers, table)


def compare(a_path: str, b_path: str) -> int:
    """Task by task: which outcomes differ between two JSONL runs (per tool)."""
    def load(p):
        return {(r["set"], r["task_id"], r["tool"]): r for r in map(json.loads, Path(p).read_text().splitlines()) if r}

    a, b = load(a_path), load(b_path)
    rows = []
    for key in sorted(set(a) & set(b), key=lambda k: (k[0], k[2], k[1])):
        if a[key]["outcome"] != b[key]["outcome"]:
            rows.append([key[0], key[2], key[1], a[key]["outcome"], b[key]["outcome"]])
    print_table(f"outcomes that differ: {a_path} -> {b_path}", ["set", "tool", "task", "A", "B"], rows)
    for tool in sorted({k[2] for k in set(a) & set(b)}):
        common = [k for k in set(a) & set(b) if k[2] == tool]
        pa = sum(a[k]["outcome"] == "passed" for k in common)
        pb = sum(b[k]["outcome"] == "passed" for k in common)
        print(f"{tool}: {len(common)} common tasks, passed {pa} -> {pb}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench editbench", description=__doc__.splitlines()[0])
    parser.add_argument("--set", default="humanevalfix", choices=(*SETS, "humanevalfix_big", "usertasks", *USER_SETS, *CROSSFILE_SETS, "all"))
    parser.add_argument("--limit", type=int, help="the first N tasks of each set")
    parser.add_argument("--only", help="comma-separated task ids")
    parser.add_argument("--tool", default="steer", choices=("steer", "aider", "both", "none"),
                        help="none: only the --steer-root checkouts")
    parser.add_argument("--threads", type=int, default=2, help="model threads, the same for both tools")
    parser.add_argument("--out", help="JSONL file, one line per task (default: under the cache dir)")
    parser.add_argument("--compare", nargs=2, metavar=("A", "B"), help="compare two JSONL runs and exit")
    parser.add_argument("--tables", nargs="+", metavar="FILE", help="print the tables of earlier JSONL runs and exit")
    parser.add_argument("--steer-root", action="append", default=[], metavar="NAME=DIR",
                        help="also run the steer of another checkout (e.g. the previous commit) as tool steer@NAME")
    parser.add_argument("--steer-args", action="append", default=[], metavar="ARGS",
                        help="also run this checkout's steer with these `steer edit` flags (e.g. --steer-args=--no-context)"
                             " as tool steer[ARGS], on the same server; with --tool none only these run")
    args = parser.parse_args(argv if argv is not None else [])
    if args.compare:
        return compare(*args.compare)
    if args.tables:
        rows = [json.loads(line) for f in args.tables for line in Path(f).read_text().splitlines() if line.strip()]
        tools = list(dict.fromkeys(r["tool"] for r in rows))
        for set_name in dict.fromkeys(r["set"] for r in rows):
            # Only tasks every tool finished (a run cut short leaves the last task half done).
            ids = set.intersection(*({r["task_id"] for r in rows if r["set"] == set_name and r["tool"] == t}
                                     for t in tools))
            summarize([r for r in rows if r["task_id"] in ids], set_name, tools)
        return 0
    try:
        import llama_cpp  # noqa: F401
    except ImportError:
        print("bench editbench: the local extra is missing (pip install 'steer-tui[local]')", file=sys.stderr)
        return 2
    from steer_tui.server import model_store

    sets = list(ALL_SETS) if args.set == "all" else [args.set]
    work = {s: load_set(s) for s in sets}
    if args.only:
        wanted = set(args.only.split(","))
        work = {s: [t for t in ts if t["task_id"] in wanted] for s, ts in work.items()}
    if args.limit:
        work = {s: ts[: args.limit] for s, ts in work.items()}
    out_path = Path(args.out) if args.out else _bench_cache() / f"editbench-{time.strftime('%Y%m%d-%H%M%S')}.jsonl"
    out_path.parent.mkdir(parents=True, exist_ok=True)

    model_path = str(model_store.ensure_model(progress=True))
    import signal

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # `kill` still stops the servers below
    tools = []
    for spec in args.steer_root:
        name, _, root = spec.partition("=")
        tools.append(Steer(args.threads, Path(root).resolve(), f"steer@{name}"))
    if args.tool in ("steer", "both") or args.steer_args:
        base = Steer(args.threads)
        if args.tool in ("steer", "both"):
            tools.append(base)
        for extra in args.steer_args:
            import shlex

            variant = Steer(args.threads, name=f"steer[{extra}]", extra_args=tuple(shlex.split(extra)),
                            server=base if base in tools else None)
            tools.append(variant)
            if base not in tools:
                base = variant  # the first variant starts the server the others use
    if args.tool in ("aider", "both"):
        tools.append(Aider(args.threads, model_path))
    rows: list[dict] = []
    try:
        for tool in tools:
            tool.start()
        if any(isinstance(t, Aider) for t in tools):
            aider = next(t for t in tools if isinstance(t, Aider))
            print(f"editbench: {aider.version} on llama_cpp.server {aider.base}", file=sys.stderr)
        print(f"editbench: model {os.path.basename(model_path)}, {args.threads} threads, loadavg "
              f"{open('/proc/loadavg').read().split()[:3] if os.path.exists('/proc/loadavg') else '?'}",
              file=sys.stderr, flush=True)
        with out_path.open("a", encoding="utf-8") as out:
            for set_name, tasks in work.items():
                for task in tasks:
                    # Interleaved: each task through every tool back to back, so load hits them alike.
                    for tool in tools:
                        row = run_one(tool, task, set_name)
                        rows.append(row)
                        out.write(json.dumps(row) + "\n")
                        out.flush()
                        print(f"{set_name} {task['task_id']} {tool.name}: {row['outcome']} {row['seconds']:.1f}s "
                              f"exit={row['exit']} {row['format'] or ''} {(row['reason'] or row['test_error'])[:80]}",
                              file=sys.stderr, flush=True)
    finally:
        for tool in tools:
            tool.stop()
    for set_name in work:
        summarize(rows, set_name, [t.name for t in tools])
    if any(t.name.startswith("steer@") for t in tools):
        print("steer@NAME: " + ", ".join(f"{t.name} = {t.root}" for t in tools if t.name.startswith("steer@")))
    load = open("/proc/loadavg").read().split()[:3] if os.path.exists("/proc/loadavg") else "?"
    print(f"\nper-task results: {out_path}; loadavg at the end {load}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
