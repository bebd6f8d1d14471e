"""What the file commands share: reading a TRF file (UTF-8, Windows-1252, Latin-1), with the exit codes of bad ones."""

from __future__ import annotations

import sys

from bot.cli.exit_codes import ExitCode
from pairing import trf
from pairing.model import Tournament


class TrfFileError(Exception):
    """A TRF file a command cannot use: a message naming the file (and the line), and the command's exit code."""

    def __init__(self, message: str, exit_code: ExitCode) -> None:
        super().__init__(message)
        self.exit_code = exit_code

    def report(self, prefix: str = "") -> ExitCode:
        """Print the message on standard error (after `prefix`, e.g. 'swissbot pair: '); the exit code."""
        print(f"{prefix}{self}", file=sys.stderr)
        return self.exit_code


def read_bytes(path: str) -> bytes:
    """A file's bytes; TrfFileError: UNREADABLE when the file cannot be read."""
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as error:
        raise TrfFileError(f"{path}: cannot read the file: {error}", ExitCode.UNREADABLE) from None


def read_text(path: str) -> str:
    """A file's text, UTF-8 or else Windows-1252/Latin-1 (`trf.decode`); TrfFileError: UNREADABLE when the
    file cannot be read, BAD_INPUT when a byte is text in none of them (the message names the line)."""
    data = read_bytes(path)
    try:
        return trf.decode(data)
    except trf.TrfError as error:
        raise TrfFileError(f"{path}: {error}", ExitCode.BAD_INPUT) from None


def parse_trf(path: str, text: str, *, require_rounds: bool) -> Tournament:
    """The tournament in a TRF file's text; TrfFileError (BAD_INPUT) naming the file and the line on bad input."""
    try:
        return trf.parse(text, require_rounds=require_rounds)
    except trf.TrfError as error:
        raise TrfFileError(f"{path}: {error}", ExitCode.BAD_INPUT) from None


def read_trf(path: str, *, require_rounds: bool) -> Tournament:
    """The tournament in a TRF file; TrfFileError with UNREADABLE or BAD_INPUT."""
    return parse_trf(path, read_text(path), require_rounds=require_rounds)
