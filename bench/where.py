"""bench where: `?where` questions on real projects, and how many answers point at the right line.

Each question was written, with the lines that answer it, before any answer was read. A run asks
each with `steer ask FILE -m QUESTION` (the shared embedded engine unless `--backend`) in a clone
of its project and reads stdout: the answer, then the places steer cites after it
(steer_tui.project.where.cited). Two columns from the same answers: the `path:line` the answer
writes (all an answer had before steer cited places) and those together with the ones steer adds.
A place is right when its file is the truth's and its line within a truth span.

    python -m bench where --project requests=DIR --project microblog=DIR --project morgan=DIR [--out FILE]
    python -m bench where --project ... --search    # the search alone, no model: ranks of the right lines

The projects: psf/requests at 1f6589e, miguelgrinberg/microblog at a975ef6, expressjs/morgan at 203c758.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import time
from pathlib import Path

from bench.table import print_table, write_report

# (project, the open file, the question, [(path, first line, last line)] that answer it)
QUESTIONS = [
    ("requests", "src/requests/api.py", "where is the redirect limit set",
     [("src/requests/models.py", 103, 103), ("src/requests/sessions.py", 488, 488)]),
    ("requests", "src/requests/api.py", "where is the default pool size set", [("src/requests/adapters.py", 80, 80)]),
    ("requests", "src/requests/api.py", "where is the default user agent built", [("src/requests/utils.py", 942, 949)]),
    ("requests", "src/requests/api.py", "where are proxies read from the environment",
     [("src/requests/utils.py", 873, 884)]),
    ("requests", "src/requests/api.py", "where is the Authorization header stripped on redirects",
     [("src/requests/sessions.py", 154, 185), ("src/requests/sessions.py", 309, 333)]),
    ("microblog", "app/main/routes.py", "where is the number of posts per page set", [("config.py", 25, 25)]),
    ("microblog", "app/main/routes.py", "where is the mail server configured", [("config.py", 15, 15)]),
    ("microblog", "app/main/routes.py", "where are passwords hashed", [("app/models.py", 134, 136)]),
    ("microblog", "app/main/routes.py", "where is the language of a post detected", [("app/main/routes.py", 31, 34)]),
    ("microblog", "app/main/routes.py", "where are API tokens checked",
     [("app/api/auth.py", 24, 25), ("app/models.py", 274, 279)]),
    ("morgan", "index.js", "where is the skip option checked", [("index.js", 117, 117)]),
    ("morgan", "index.js", "where is the default format chosen", [("index.js", 65, 65)]),
    ("morgan", "index.js", "where is the combined format defined", [("index.js", 152, 152)]),
    ("morgan", "index.js", "where is the response time token computed", [("index.js", 228, 240)]),
    ("morgan", "index.js", "where is the remote address of a request read", [("index.js", 493, 498)]),
]

# Written after the first run of QUESTIONS had been read and steer_tui.project.where.cited changed
# for it, and before any answer to these was seen: the set that says whether those changes hold.
HELD_OUT = [
    ("requests", "src/requests/api.py", "where are session cookies merged into a request",
     [("src/requests/sessions.py", 530, 533), ("src/requests/cookies.py", 604, 606)]),
    ("requests", "src/requests/api.py", "where is a response body decoded as json", [("src/requests/models.py", 1091, 1093)]),
    ("requests", "src/requests/api.py", "where is the encoding guessed from the content", [("src/requests/models.py", 896, 898)]),
    ("requests", "src/requests/api.py", "where is the netrc file read for authentication", [("src/requests/utils.py", 231, 234)]),
    ("requests", "src/requests/api.py", "where are hooks dispatched", [("src/requests/hooks.py", 32, 35)]),
    ("microblog", "app/main/routes.py", "where is the elasticsearch client created", [("app/__init__.py", 41, 42)]),
    ("microblog", "app/main/routes.py", "where are user avatars built", [("app/models.py", 140, 142)]),
    ("microblog", "app/main/routes.py", "where is a password reset token verified", [("app/models.py", 187, 193)]),
    ("microblog", "app/main/routes.py", "where is text sent to the translation service", [("app/translate.py", 6, 20)]),
    ("microblog", "app/main/routes.py", "where does login send an already logged in user away",
     [("app/auth/routes.py", 16, 17)]),
    ("morgan", "index.js", "where is the buffer option handled", [("index.js", 87, 99)]),
    ("morgan", "index.js", "where is the date token formatted", [("index.js", 266, 277)]),
    ("morgan", "index.js", "where is the status color chosen in the dev format", [("index.js", 190, 194)]),
    ("morgan", "index.js", "where is a format string compiled into a function", [("index.js", 401, 420)]),
    ("morgan", "index.js", "where is a request logged immediately", [("index.js", 133, 135)]),
]

# Written after the held-out run had been read and the citing changed again for what it showed
# (names inside a path, an export taken for a definition), before any answer to these was seen.
FRESH = [
    ("requests", "src/requests/api.py", "where is the default number of connection retries set",
     [("src/requests/adapters.py", 81, 81), ("src/requests/adapters.py", 205, 211)]),
    ("requests", "src/requests/api.py", "where is a prepared request's body encoded", [("src/requests/models.py", 576, 580)]),
    ("requests", "src/requests/api.py", "where is a relative redirect location joined to the old url",
     [("src/requests/sessions.py", 240, 241)]),
    ("requests", "src/requests/api.py", "where is the default CA bundle path chosen", [("src/requests/utils.py", 82, 82)]),
    ("microblog", "app/main/routes.py", "where is the secret key configured", [("config.py", 9, 9)]),
    ("microblog", "app/main/routes.py", "where does a user start following another",
     [("app/models.py", 144, 146), ("app/main/routes.py", 116, 118)]),
    ("microblog", "app/main/routes.py", "where is a user's last seen time updated", [("app/main/routes.py", 19, 19)]),
    ("morgan", "index.js", "where is the status token computed", [("index.js", 283, 287)]),
    ("morgan", "index.js", "where is the url token computed", [("index.js", 212, 214)]),
    ("morgan", "index.js", "where is the output stream chosen", [("index.js", 88, 88)]),
]

# Written after the fresh run had been read and the citing changed a last time (a span of code names
# nothing, a file given a line gets no other place), before any answer to these was seen.
LAST = [
    ("requests", "src/requests/api.py", "where is the Content-Length header set for a body",
     [("src/requests/models.py", 654, 669)]),
    ("requests", "src/requests/api.py", "where are the default headers built", [("src/requests/utils.py", 951, 962)]),
    ("requests", "src/requests/api.py", "where is a 4xx or 5xx status turned into an exception",
     [("src/requests/models.py", 1144, 1170)]),
    ("microblog", "app/main/routes.py", "where is the database url configured", [("config.py", 11, 13)]),
    ("microblog", "app/main/routes.py", "where are log files rotated", [("app/__init__.py", 85, 86)]),
    ("microblog", "app/main/routes.py", "where is the search form created for each request",
     [("app/main/routes.py", 21, 21)]),
    ("morgan", "index.js", "where is the referrer token computed", [("index.js", 293, 296)]),
    ("morgan", "index.js", "where is the http version token computed", [("index.js", 329, 331)]),
    ("morgan", "index.js", "where is the user agent token computed", [("index.js", 337, 339)]),
    ("morgan", "index.js", "where is the request method token computed", [("index.js", 220, 222)]),
]


def _right(place: tuple[str, int], truth: list[tuple[str, int, int]]) -> bool:
    path, line = place
    return any(path == p and lo <= line <= hi for p, lo, hi in truth)


def split_output(out: str) -> tuple[str, list[tuple[str, int]]]:
    """stdout of `steer ask`: the answer, and the places printed after it (`path:line: code` lines
    after the last blank line, where every line after it is one)."""
    from steer_tui.project.where import REFERENCE

    head, sep, tail = out.rstrip("\n").rpartition("\n\n")
    lines = tail.splitlines()
    places = []
    for line in lines:
        m = REFERENCE.match(line)
        if not m or not m.group(2):
            return out, []
        places.append((m.group(1), int(m.group(2))))
    return (head, places) if sep else (out, [])


def ask(steer: list[str], root: Path, file: str, question: str, backend: str | None) -> dict:
    cmd = [*steer, "ask", file, "-m", question, *(["--backend", backend] if backend else [])]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=root, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "NO_COLOR": "1"})
    return {"seconds": time.perf_counter() - t0, "code": proc.returncode, "out": proc.stdout, "err": proc.stderr}


def _search_only(roots: dict[str, str]) -> int:
    """Each set's questions through the search alone (steer_tui.project.where.where, the 12 places
    a question shows): how many show a right line, in the first 3, and the mean reciprocal rank of
    the first right one (0 where none is shown)."""
    from steer_tui.project.where import where

    rows = []
    for name, questions in (("tune", QUESTIONS), ("held out", HELD_OUT), ("fresh", FRESH), ("last", LAST)):
        ranks = []
        for project, _file, question, truth in questions:
            if project not in roots:
                continue
            hits = where(Path(roots[project]), question)
            ranks.append(next((i for i, h in enumerate(hits, 1) if _right((h.path, h.line), truth)), None))
        if ranks:
            rows.append([name, len(ranks), sum(r is not None for r in ranks), sum(r is not None and r <= 3 for r in ranks),
                         round(sum(1 / r for r in ranks if r) / len(ranks), 3)])
    print_table("where search: the right line among the places shown",
                ["set", "questions", "a right line shown", "in the first 3", "mean reciprocal rank"], rows)
    return 0


def main(argv: list[str] | None = None) -> int:
    from steer_tui.project.where import references

    ap = argparse.ArgumentParser(prog="python -m bench where")
    ap.add_argument("--project", action="append", default=[], metavar="NAME=DIR", help="where a project's clone is")
    ap.add_argument("--backend", help="passed to steer ask (default: the shared embedded engine)")
    ap.add_argument("--set", choices=("tune", "held_out", "fresh", "last", "all"), default="all",
                    help="tune, held_out, fresh: sets the citing was changed for in turn; last: written after")
    ap.add_argument("--out", type=Path, help="also write the report here (markdown)")
    ap.add_argument("--search", action="store_true",
                    help="no model: where the right line ranks among the places the search shows each question")
    args = ap.parse_args(argv)
    roots = dict(p.split("=", 1) for p in args.project)
    if args.search:
        return _search_only(roots)
    from steer_tui.spawn import python_argv

    steer = python_argv()  # `python -m steer_tui`, isolated from the project folder it runs in
    rows, log = [], []
    sets = {"tune": QUESTIONS, "held_out": HELD_OUT, "fresh": FRESH, "last": LAST}
    chosen = sets[args.set] if args.set != "all" else [q for qs in sets.values() for q in qs]
    for project, file, question, truth in chosen:
        if project not in roots:
            continue
        r = ask(steer, Path(roots[project]), file, question, args.backend)
        answer, printed = split_output(r["out"])
        written = references(answer)
        w_ok = any(_right(p, truth) for p in written)
        c_ok = w_ok or any(_right(p, truth) for p in printed)
        wrong = sum(1 for p in printed if not _right(p, truth))
        written_wrong = sum(1 for p in written if not _right(p, truth))
        looped = "repeat itself" in r["err"]
        rows.append([project, question, len(written), written_wrong, "yes" if w_ok else "no", len(printed),
                     "yes" if c_ok else "no", wrong, "cut" if looped else "", r["seconds"]])
        split = next(name.replace("_", " ") for name, qs in sets.items() if (project, file, question, truth) in qs)
        rows[-1].insert(0, split)
        failed = f"\n  exit {r['code']}: {r['err'].strip()[-300:]!r}" if r["code"] or not answer.strip() else ""
        log.append(f"{project} ({split}): {question}\n  answer: {answer.strip()[:600]!r}\n  printed after it: {printed}{failed}")
        print(log[-1], flush=True)
    headers = ["set", "project", "question", "path:line written", "written, not right", "right", "places steer added",
               "right with them", "added, not right", "loop", "s"]
    totals = []
    for split in ("tune", "held out", "fresh", "last"):
        mine = [r for r in rows if r[0] == split]
        if mine:
            totals.append([split, len(mine), sum(r[5] == "yes" for r in mine), sum(r[4] for r in mine),
                           sum(r[7] == "yes" for r in mine), sum(r[8] for r in mine), sum(r[9] == "cut" for r in mine)])
    total_headers = ["set", "questions", "a right place, written only (before)", "written, not right",
                     "a right place, with the places steer adds", "added, not right", "stopped for repeating"]
    print_table("where questions", headers, rows)
    print_table("totals", total_headers, totals)
    if args.out:
        write_report(args.out, "# bench where: `?where` questions on real projects", [
            "`python -m bench where` (bench/where.py): each question asked with `steer ask` in a clone of its project; "
            "the truth lines were written before any answer was read.", "```\n" + "\n".join(log) + "\n```"],
            [("where questions", headers, rows), ("totals", total_headers, totals)])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
