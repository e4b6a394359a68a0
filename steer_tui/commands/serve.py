"""`steer serve`: run the Responses gateway (WebSocket + HTTP/SSE) in front of one engine.

When it is listening it prints one line to stdout, `steer serve ready: <ws-url> <http-url> ...`;
the client's subprocess launcher waits for that line. Start-up failures go to stderr
with exit status 2.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
import threading
import time
from pathlib import Path

from steer_tui.transport.serve_env import UPSTREAM_KEY_ENV, UPSTREAM_URL_ENV

READY_PREFIX = "steer serve ready:"
TOKEN_ENV = "STEER_GATEWAY_TOKEN"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to bind (default 127.0.0.1; anything else needs --token)")
    parser.add_argument("--port", type=int, default=8765, help="port (default 8765; 0 picks a free one)")
    parser.add_argument("--engine", choices=["local", "upstream", "replay"], default="local",
                        help="local: embedded llama.cpp model; upstream: an OpenAI-compatible Chat Completions "
                             "server; replay: plays a recorded text (demos/tests, not a model)")
    parser.add_argument("--model", help="local: a GGUF path (default: the embedded model); upstream: model name")
    parser.add_argument("--threads", type=int, help="local: CPU threads")
    parser.add_argument("--no-speculation", action="store_true",
                        help="local: decode one token per step (no speculative edits; also `speculation = false` "
                             "in the config file)")
    parser.add_argument("--upstream", metavar="URL",
                        help=f"upstream: base URL, e.g. http://127.0.0.1:8000/v1 (or set {UPSTREAM_URL_ENV}, "
                             "which keeps credentials in it out of the process list)")
    parser.add_argument("--upstream-key-env", metavar="VAR",
                        help=f"upstream: environment variable holding the API key (default {UPSTREAM_KEY_ENV}, "
                             "then the provider's usual variable)")
    parser.add_argument("--upstream-timeout", type=float, default=60.0,
                        help="upstream: seconds to wait for the next chunk (default 60)")
    parser.add_argument("--replay", metavar="FILE", help="replay: the recorded response text to play")
    parser.add_argument("--rate", default="200", help="replay: deltas per second (0 or 'max': unlimited)")
    parser.add_argument("--token", help=f"require 'Authorization: Bearer TOKEN' (or set {TOKEN_ENV})")
    parser.add_argument("--max-frame", type=int, default=16 * 1024 * 1024, help="largest frame/body in bytes")
    parser.add_argument("--max-in-flight", type=int, default=32, help="queued+running responses per connection")
    _add_limit_arguments(parser)
    parser.add_argument("--tls-cert", help="serve wss:// and https:// with this certificate (PEM)")
    parser.add_argument("--tls-key", help="private key for --tls-cert (PEM)")
    parser.add_argument("--exit-when-idle", type=_seconds, metavar="SECONDS",
                        help="exit once no connection has been open and no request made for this long "
                             "(the shared engine's idle limit)")
    parser.add_argument("--address-file", metavar="PATH",
                        help="once listening, write the address, token and pid here (mode 0600); removed on exit. "
                             "Used by the shared engine (steer_tui/transport/daemon.py)")
    parser.add_argument("--status", action="store_true",
                        help="show the shared engines started by steer edit/ask/the app for this user, and exit")
    parser.add_argument("--stop", action="store_true", help="stop this user's shared engines, and exit")
    parser.add_argument("--exit-with-stdin", action="store_true",
                        help="exit when standard input closes: a launcher holds the other end, so this "
                        "gateway never outlives the app that started it, even one that was killed")


def _seconds(value: str) -> float:
    seconds = float(value)
    if not seconds >= 0:
        raise argparse.ArgumentTypeError(f"must be a number of seconds >= 0, not {value!r}")
    return seconds


def _add_limit_arguments(parser: argparse.ArgumentParser) -> None:
    """The abuse limits: connections, time limits, the transcript store's byte budget."""
    from steer_tui.server import gateway as gw
    from steer_tui.server.transcripts import DEFAULT_MAX_BYTES

    parser.add_argument("--max-connections", type=int, default=gw.DEFAULT_MAX_CONNECTIONS,
                        help=f"connections served at once (default {gw.DEFAULT_MAX_CONNECTIONS}, and under the "
                             "open-file limit); more are answered 503, /health still 200")
    parser.add_argument("--head-timeout", type=_seconds, default=gw.DEFAULT_HEAD_TIMEOUT, metavar="SECONDS",
                        help=f"a request head must arrive within this (default {gw.DEFAULT_HEAD_TIMEOUT:g}; 0: none)")
    parser.add_argument("--body-timeout", type=_seconds, default=gw.DEFAULT_BODY_TIMEOUT, metavar="SECONDS",
                        help=f"an HTTP body must arrive within this (default {gw.DEFAULT_BODY_TIMEOUT:g}; 0: none)")
    parser.add_argument("--idle-timeout", type=_seconds, default=gw.DEFAULT_IDLE_TIMEOUT, metavar="SECONDS",
                        help="close a connection with no response in flight after this "
                             f"(default {gw.DEFAULT_IDLE_TIMEOUT:g}; 0: never)")
    parser.add_argument("--store-mb", type=float, default=DEFAULT_MAX_BYTES / 2**20, metavar="MB",
                        help="memory for finished transcripts (previous_response_id), oldest evicted first "
                             f"(default {DEFAULT_MAX_BYTES / 2**20:g})")


def build_engine(args):
    """The engine named by the flags; raises ValueError with a user-facing message."""
    if args.engine == "replay":
        from steer_tui.server.engines.replay import ReplayEngine, parse_rate

        if not args.replay:
            raise ValueError("--engine replay needs --replay FILE (a recorded response text)")
        try:
            rate = parse_rate(args.rate)
        except ValueError:
            raise ValueError(f"--rate must be a number >= 0 or 'max', not {args.rate!r}") from None
        return ReplayEngine(path=args.replay, rate=rate)
    if args.engine == "upstream":
        from steer_tui.server.engines.upstream import UpstreamEngine, key_from_env

        url = args.upstream or os.environ.get(UPSTREAM_URL_ENV)
        if not url or not args.model:
            raise ValueError(f"--engine upstream needs --upstream URL (or {UPSTREAM_URL_ENV}) and --model NAME")
        return UpstreamEngine(url, args.model, api_key=key_from_env(url, args.upstream_key_env),
                              timeout=args.upstream_timeout)
    try:
        from steer_tui.server.engines.local import LocalEngine
    except ImportError as exc:
        raise ValueError(f"the local engine is not available ({exc}); install the 'local' extra "
                         "(pip install 'steer-tui[local]') or use --engine upstream") from None
    return LocalEngine(model_path=args.model, n_threads=args.threads, speculation=_speculation(args))


def _speculation(args) -> bool:
    """Speculative edits unless --no-speculation or the config file's `speculation = false` says otherwise."""
    if getattr(args, "no_speculation", False):
        return False
    from steer_tui.config import ConfigError, load_settings

    try:
        return bool(load_settings().speculation)
    except ConfigError:
        return True  # the client reports a bad config file; the gateway keeps its default


async def _serve(args) -> int:
    import ssl

    from steer_tui.netutil import redact
    from steer_tui.server.engines.base import EngineError
    from steer_tui.server.gateway import Gateway, GatewayError

    token = args.token or os.environ.get(TOKEN_ENV) or None
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    serving = False
    if args.exit_with_stdin:
        def lifeline() -> None:
            # os.read on the descriptor, not sys.stdin: a daemon thread parked inside a buffered
            # reader aborts the interpreter at exit (it holds the reader's lock).
            try:
                while os.read(0, 65536):
                    pass
            except OSError:
                pass
            if not serving:
                # Still loading the model (a thread the loop waits on): nothing to close yet.
                os._exit(3)
            loop.call_soon_threadsafe(stop.set)

        threading.Thread(target=lifeline, name="stdin-lifeline", daemon=True).start()
    engine = build_engine(args)
    context = None
    if args.tls_cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.tls_cert, args.tls_key)
    gateway = Gateway(engine, token=token, max_frame=args.max_frame, max_in_flight=args.max_in_flight,
                      max_connections=args.max_connections, head_timeout=args.head_timeout,
                      body_timeout=args.body_timeout, idle_timeout=args.idle_timeout,
                      store_bytes=int(args.store_mb * 2**20))
    try:
        url = await gateway.start(args.host, args.port, ssl=context)
    except EngineError as exc:
        print(f"steer serve: error: {redact(exc.message)} [{exc.code}]", file=sys.stderr, flush=True)
        return 2
    except (GatewayError, OSError) as exc:
        print(f"steer serve: error: {redact(str(exc))}", file=sys.stderr, flush=True)
        return 2
    except Exception as exc:  # an engine that fails to load in its own way (e.g. a bad model file)
        print(f"steer serve: error: the {engine.name} engine did not start: {type(exc).__name__}: "
              f"{redact(str(exc))}", file=sys.stderr, flush=True)
        return 2
    serving = True
    if args.address_file:
        from steer_tui.transport.daemon import Address, build_id, write_address

        write_address(Path(args.address_file), Address(
            os.getpid(), url, gateway.http_url, token or "", build_id(), _shown_args(), time.time(),
            args.exit_when_idle))
    print(f"{READY_PREFIX} {url} {gateway.http_url} engine={engine.name} ({gateway.engine_label}) "
          f"model={redact(engine.model_name)}", flush=True)
    for sig in (signal.SIGTERM, signal.SIGINT):
        try:
            loop.add_signal_handler(sig, stop.set)
        except (NotImplementedError, RuntimeError):
            pass
    waits = [asyncio.ensure_future(stop.wait())]
    if args.exit_when_idle is not None:
        waits.append(asyncio.ensure_future(gateway.idle(args.exit_when_idle)))
    await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    for waiting in waits:
        waiting.cancel()
    if args.address_file:
        from steer_tui.transport.daemon import remove_address

        # First: from here on no command may connect to an engine that is going away.
        remove_address(Path(args.address_file), os.getpid())
    await gateway.close()
    return 0


def _shown_args() -> list[str]:
    """The engine's own flags, for `steer serve --status` (no token is ever on the command line)."""
    argv = sys.argv[1:]
    return argv[argv.index("serve") + 1:] if "serve" in argv else argv


async def _manage(args) -> int:
    """`steer serve --status` / `--stop`: the shared engines of this user."""
    from steer_tui.transport import daemon

    try:
        folder = daemon.runtime_dir()
    except daemon.DaemonError as exc:
        print(f"steer serve: error: {exc}", file=sys.stderr)
        return 2
    if args.stop:
        stopped = await daemon.stop_all(folder)
        print(f"stopped {len(stopped)} shared engine(s)" + (f" (pid {', '.join(map(str, stopped))})" if stopped else ""))
        return 0
    rows = await daemon.status(folder)
    if not rows:
        print(f"no shared engine running ({folder})")
        return 1
    for row in rows:
        if row["state"] == "unreadable":
            print(f"unreadable address file {row['file']}")
            continue
        idle = f", exits after {row['idle_s']:g}s idle" if row.get("idle_s") is not None else ""
        up = time.time() - row["started"]
        print(f"{row['state']}: pid {row['pid']} {row['url']} steer {row['version']} "
              f"[{' '.join(row['args'])}] up {up:.0f}s{idle}")
    return 0 if any(row["state"] == "running" for row in rows) else 1


def run(args) -> int:
    if args.stop or args.status:
        return asyncio.run(_manage(args))
    try:
        return asyncio.run(_serve(args))
    except ValueError as exc:
        print(f"steer serve: error: {exc}", file=sys.stderr, flush=True)
        return 2
