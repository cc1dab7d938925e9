"""Did you mean ...? The closest known names to a mistyped one.

`did_you_mean("canonicalise", passes)` is "; did you mean `canonicalize`?" (or
"" when nothing is close), the form the op registry's messages use.
`ArgumentParser` is argparse's parser whose errors add that hint for an unknown
option (`--inptu`) or an invalid choice (`--backend wgpux`);
`suggest_in_errors(parser)` gives a parser made elsewhere (xDSL's, in
vyre-opt) the same errors.
"""

from __future__ import annotations

import argparse
import difflib
import re
import sys
from collections.abc import Iterable
from typing import NoReturn

__all__ = ["ArgumentParser", "argparse_hint", "closest", "did_you_mean", "suggest_in_errors"]

_UNRECOGNIZED = re.compile(r"unrecognized arguments: (.*)$")
_INVALID_CHOICE = re.compile(r"invalid choice: '([^']*)' \(choose from (.*)\)$")


def closest(word: str, known: Iterable[str]) -> str | None:
    """The known name closest to `word`, if any is close (difflib's ratio >= 0.6)."""
    matches = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    return matches[0] if matches else None


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """"; did you mean `name`?" naming the known name closest to `word`, or ""."""
    match = closest(word, known)
    return f"; did you mean `{match}`?" if match is not None else ""


def argparse_hint(parser: argparse.ArgumentParser, message: str) -> str:
    """The did-you-mean hint for one of argparse's error messages ("" if none):
    an unknown option is matched against the options of the parser and of its
    subcommands, an invalid choice against the choices the message lists."""
    if (unknown := _UNRECOGNIZED.search(message)) is not None:
        options = sorted(_option_strings(parser))
        hints = [
            did_you_mean(argument.split("=", 1)[0], options)
            for argument in unknown.group(1).split()
            if argument.startswith("-")
        ]
        return "".join(hint for hint in hints if hint)
    if (invalid := _INVALID_CHOICE.search(message)) is not None:
        choices = [choice.strip().strip("'\"") for choice in invalid.group(2).split(",")]
        return did_you_mean(invalid.group(1), choices)
    return ""


def _option_strings(parser: argparse.ArgumentParser) -> set[str]:
    found: set[str] = set()
    for action in parser._actions:  # pyright: ignore[reportPrivateUsage]
        found.update(action.option_strings)
        if isinstance(action, argparse._SubParsersAction):  # pyright: ignore[reportPrivateUsage]
            for subparser in action.choices.values():  # pyright: ignore[reportUnknownVariableType, reportUnknownMemberType]
                found |= _option_strings(subparser)  # pyright: ignore[reportUnknownArgumentType]
    return found


def _fail(parser: argparse.ArgumentParser, message: str) -> NoReturn:
    parser.print_usage(sys.stderr)
    parser.exit(2, f"{parser.prog}: error: {message}{argparse_hint(parser, message)}\n")


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser (exit status 2 on a usage error, as argparse's), whose
    error messages name the closest option or choice."""

    def error(self, message: str) -> NoReturn:
        _fail(self, message)


def suggest_in_errors(parser: argparse.ArgumentParser) -> None:
    """Give an existing parser `ArgumentParser`'s error messages."""

    def error(message: str) -> NoReturn:
        _fail(parser, message)

    setattr(parser, "error", error)  # noqa: B010 - a parser another library made
