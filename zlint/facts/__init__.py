"""Shared per-file analysis, computed once and read by every rule."""

from zlint.facts.size_facts import Fact, Kind, SizeFactsProvider

__all__ = ["Fact", "Kind", "SizeFactsProvider"]
