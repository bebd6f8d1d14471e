"""`swissbot sandbox`: run the local Lichess until Ctrl-C or SIGTERM."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys

from bot.cli import COMMANDS
from bot.cli.exit_codes import ExitCode, describe
from bot.cli.listening import LICHESS_SANDBOX_PORT, cannot_listen
from sandbox.lichess import run_sandbox

EXITS = {
    ExitCode.OK: "stopped",
    ExitCode.USAGE: "an invalid port",
    ExitCode.CANNOT_LISTEN: "it cannot listen on the address",
}


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `sandbox` subcommand."""
    parser = sub.add_parser(
        "sandbox",
        help=COMMANDS["sandbox"],
        description="Serve the Lichess endpoints the bot uses, plus the /sandbox/ control API (docs/sandbox.md). "
        + describe(EXITS),
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)")
    parser.add_argument(
        "--port",
        type=int,
        default=LICHESS_SANDBOX_PORT,
        help=f"port (default: {LICHESS_SANDBOX_PORT}; 0 picks a free one)",
    )
    parser.add_argument("--seed", type=int, default=None, help="make every game's course reproducible")
    parser.add_argument(
        "--autoplay", action="store_true", help="simulated players play every game they are challenged to"
    )
    parser.add_argument(
        "--autoplay-delay",
        type=float,
        default=1.5,
        help="seconds from a challenge to the end of its game with --autoplay (default: 1.5)",
    )
    parser.set_defaults(handler=run)


async def serve(args: argparse.Namespace) -> None:
    """Serve until a stop signal arrives."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):  # not on Windows
            loop.add_signal_handler(signum, stop.set)
    async with run_sandbox(
        host=args.host, port=args.port, seed=args.seed, autoplay=args.autoplay, autoplay_delay=args.autoplay_delay
    ) as sandbox:
        print(f"Sandbox listening on {sandbox.url}", flush=True)
        print(f"Bot account: {sandbox.bot_username} (token {sandbox.bot_token})", flush=True)
        mode = f"on (seed {args.seed})" if args.seed is not None else "on (unseeded)"
        print(f"Autoplay: {mode if args.autoplay else 'off'}. Ctrl-C stops.", flush=True)
        await stop.wait()
    print("Sandbox stopped.", flush=True)


def run(args: argparse.Namespace) -> ExitCode:
    """Run the sandbox until it is stopped; the exit code."""
    if args.port < 0 or args.port > 65535:
        print(f"swissbot sandbox: invalid port {args.port}", file=sys.stderr)
        return ExitCode.USAGE
    try:
        asyncio.run(serve(args))
    except OSError as exc:
        print(cannot_listen("sandbox", args.host, args.port, exc, "start it with another --port"), file=sys.stderr)
        return ExitCode.CANNOT_LISTEN
    except KeyboardInterrupt:
        pass
    return ExitCode.OK


def main() -> int:
    """Entry point for `python -m bot.cli.sandbox`."""
    parser = argparse.ArgumentParser(prog="swissbot")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["sandbox", *sys.argv[1:]])
    code: int = args.handler(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
