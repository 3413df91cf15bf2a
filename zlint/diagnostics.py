"""What a rule reports, independent of how any front end prints it."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, order=True)
class Diagnostic:
    """One finding. Lines are 1-based, columns 0-based (front ends add 1 when printing)."""

    path: str
    line: int
    column: int
    code: str
    name: str = field(compare=False)
    message: str = field(compare=False)
    end_line: int = field(compare=False, default=0)
    end_column: int = field(compare=False, default=0)
    #: Qualified name of the enclosing function (``Pooler.forward``), None at module level.
    function: str | None = field(compare=False, default=None)

    def to_dict(self) -> dict:
        """The JSON shape, close to Ruff's: 1-based rows and columns."""
        return {
            "code": self.code,
            "name": self.name,
            "message": self.message,
            "filename": self.path,
            "location": {"row": self.line, "column": self.column + 1},
            "end_location": {"row": self.end_line, "column": self.end_column + 1},
            "function": self.function,
            "url": f"rules/{self.code}-{self.name}.md",
        }


@dataclass(frozen=True)
class FileError:
    """A file that could not be linted (or a rule that failed on it)."""

    path: str
    reason: str

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"
