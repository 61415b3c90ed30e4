"""``builds``: the build search, a strategy that asks no model (``--strategy builds``).

- ``strategy.py``: the strategy (``BuildSearch``, its ``BuildsConfig``, the older
  ``--model compiler:OPTS`` spelling), its answers (the chosen build, the -O3 fallback,
  fixed builds), the untimed search, the seed it proposes to evolve;
- ``halving.py``: the timed search (``search_builds``): build, screen, successive
  halving, the fresh re-measure, within a CPU budget;
- ``records.py``: its records (``BuildProvenance`` with each answer, its
  ``SearchRecord`` of ``BuildRecord``s, ``SearchConfig``, ``Trial``, ``SearchResult``,
  ``CpuBudget``).
"""

from supercoder.runs.buildsearch.halving import search_builds
from supercoder.runs.buildsearch.records import (
    BuildProvenance,
    BuildRecord,
    SearchConfig,
    SearchRecord,
    SearchResult,
    Trial,
)
from supercoder.runs.buildsearch.strategy import (
    BuildsConfig,
    BuildSearch,
    answer_fixed,
    build_of,
    build_search,
    builds_settings,
    fixed_builds,
    legacy_options,
    select_builds,
)

__all__ = [
    "BuildProvenance",
    "BuildRecord",
    "BuildSearch",
    "BuildsConfig",
    "SearchConfig",
    "SearchRecord",
    "SearchResult",
    "Trial",
    "answer_fixed",
    "build_of",
    "build_search",
    "builds_settings",
    "fixed_builds",
    "legacy_options",
    "search_builds",
    "select_builds",
]
