"""The exit codes of every `swissbot` command: one table, each code with one meaning (README, *Exit codes*)."""

from __future__ import annotations

import enum
from collections.abc import Mapping


class ExitCode(enum.IntEnum):
    """A `swissbot` command's exit code; `MEANINGS` says what each one means."""

    OK = 0
    FAILED = 1
    USAGE = 2
    BAD_INPUT = 3
    ENGINE_MISSING = 4
    UNREADABLE = 5
    UNWRITABLE = 6
    NO_DATABASE = 7
    ENGINE_GAVE_UP = 8
    CONFIG = 9
    UNREACHABLE = 10
    CANNOT_LISTEN = 11
    INTERRUPTED = 130


MEANINGS: dict[ExitCode, str] = {
    ExitCode.OK: "done",
    ExitCode.FAILED: "the command ran and its verdict is no: no valid pairing exists, discrepancies were found, "
    "an expectation failed, the event did not finish",
    ExitCode.USAGE: "the command line is wrong: an unknown option, or a value the command cannot use (argparse's own "
    "code)",
    ExitCode.BAD_INPUT: "the input is not usable: a malformed file (the message names the line), or it does not hold "
    "what was asked (every round already paired, no such event)",
    ExitCode.ENGINE_MISSING: "the pairing engine to compare with could not be loaded",
    ExitCode.UNREADABLE: "an input file cannot be read",
    ExitCode.UNWRITABLE: "an output file cannot be written",
    ExitCode.NO_DATABASE: "the database cannot be opened or used",
    ExitCode.ENGINE_GAVE_UP: "the pairing engine gave up (not a proof that no pairing exists)",
    ExitCode.CONFIG: "the configuration or a token is missing or wrong, or a configured channel is unusable",
    ExitCode.UNREACHABLE: "a service (Discord) cannot be reached or refused the request",
    ExitCode.CANNOT_LISTEN: "a local service cannot listen on the address",
    ExitCode.INTERRUPTED: "stopped by Ctrl-C before the end",
}


def describe(cases: Mapping[ExitCode, str]) -> str:
    """A command's exit codes for its help, its own words for each case: 'Exit codes: 0 paired, 1 no valid ...'.

    Every command exits USAGE (2) when argparse rejects the command line, so it is always listed; a command's
    own words for it name what else it refuses."""
    usage = "a bad command line" + (f" ({cases[ExitCode.USAGE]})" if ExitCode.USAGE in cases else "")
    cases = {**cases, ExitCode.USAGE: usage}
    return "Exit codes: " + ", ".join(f"{int(code)} {cases[code]}" for code in sorted(cases)) + "."
