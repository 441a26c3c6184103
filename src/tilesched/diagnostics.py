"""Located diagnostics shared by the parser, the verifier, passes and the CLI.

Every error a user can cause is a :class:`TileschedError` carrying an optional
``file:line:col`` location; the CLI prints it and exits with status 2, never a
traceback (DESIGN.md §5).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Location:
    """A position in a source file (1-based line and column)."""

    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


class TileschedError(Exception):
    """An error caused by the user's input: printed as ``loc: error: message``."""

    def __init__(self, message: str, loc: Location | str | None = None, note: str | None = None):
        super().__init__(message)
        self.message = message
        self.loc = loc
        self.note = note

    def __str__(self) -> str:
        text = f"{self.loc}: error: {self.message}" if self.loc else f"error: {self.message}"
        if self.note:
            text += f"\n{self.note}"
        return text


class TileschedErrors(TileschedError):
    """Several located errors found in one run (e.g. by the verifier), printed one per line."""

    def __init__(self, errors: list[TileschedError]):
        super().__init__(errors[0].message, errors[0].loc)
        self.errors = errors

    def __str__(self) -> str:
        return "\n".join(str(e) for e in self.errors)


@dataclass
class Diagnostic:
    """A non-fatal message (warning or remark) a pass wants the user to see."""

    severity: str
    message: str
    loc: Location | str | None = None

    def __str__(self) -> str:
        prefix = f"{self.loc}: " if self.loc else ""
        return f"{prefix}{self.severity}: {self.message}"
