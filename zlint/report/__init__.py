"""Writers that turn lint results into text for people and machines."""

from zlint.report.writers import FORMATS, write_report

__all__ = ["FORMATS", "write_report"]
