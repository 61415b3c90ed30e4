"""This machine's measurement noise, and each problem's timed-test set: both cached.

**Noise floor.** Two checks of the *same* candidate differ by more than one check's
bootstrap interval says: a fresh sandbox, other binary copies in memory, the machine's
load and frequency state all change between checks and stay put within one. The meter
adds that between-check spread (``noise_floor``: a standard deviation of the log
speedup) to its interval. ``supercoder calibrate`` measures it on this machine:
identical-program checks (truth: exactly 1.00) on bundled problems; the floor is what
their point estimates spread beyond their own sampling error,

    floor^2 = mean(log(estimate)^2) - mean(sampling sd^2)   (at least ``MIN_FLOOR``)

and the practical band ``margin`` is the 95th percentile of |estimate - 1| (at least
1%). The checks run with every timing slot busy (``timing.slots``: concurrent timings
add their own noise), and the slot count is stored with the figures. Stored with the
machine context in ``<cache>/calibration.json``; used only on a machine with the same
CPU model and core count and at most as many slots as it was measured with; without it
the built-in defaults hold.

**The default floor** (0.5%) is what an uncalibrated machine gets. Measured on a shared
2-core machine at load 5 (8 bundled problems x 5 identical-program checks, both slots
busy): the between-check spread was 1.2-1.6% and the meter's own interval (round
bootstrap, small-sample scaled) already covered all of it (calibrated excess 0 at 2 to
5 rounds); with a 0.5% floor 0 of 40 intervals excluded 1.0 at 4 rounds. The earlier
1.5% default was 3x that machine's excess noise and 3x the quiet machine's whole
between-check spread (0.46%): every interval paid for it.

**Load.** The floor holds for the load it was measured at (stored with it; the built-in
default's is 2.5 per CPU). A check timed on a busier machine adds ``LOAD_NOISE`` (0.4%)
per unit of load per CPU above it, in quadrature (``floor_at_load``), and the verdict
keeps both loads (``Provenance.floor_load``, ``Measurement.load``) so a figure from a
busier machine is read as such. What is known behind it: identical programs do not
spread further on a busier machine (``supercoder calibrate --checks 3`` at load 6.06 per
CPU on the shared 2-core machine: floor 0.2%, the minimum; the total between-check
spread was 0.46% quiet and 1.2-1.6% at 2.5 per CPU, all of it inside the meter's own
interval); a program unlike its baseline does, its speedup moving with the machine's
state (nbody's answer: eval 1.222x [1.207, 1.248], four fresh checks on a loaded machine
1.098-1.171x). 0.4% a unit is the identical programs' total spread per unit of load,
taken as a prior for that shift; it is not fitted to programs unlike their baseline
(measuring it needs checks of such programs at controlled loads).

**Timed-test set.** Which tests are timed (baseline at least ``min_test_seconds``) is
decided once per (baseline binary, test set) and cached next to the baseline binary,
so repeated checks time the same tests and the aggregate cannot flip with them.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from supercoder.codec import FormatError, JsonObject, decode, encode
from supercoder.paths import atomic_write_text, cache_dir
from supercoder.timing.slots import slot_count
from supercoder.toolchain.gcc import machine
from supercoder.types import MIN_PRACTICAL_MARGIN, Machine

DEFAULT_FLOOR = 0.005  # log-space sd beyond the meter's own interval (see module docstring)
MIN_FLOOR = 0.002
# the load per CPU the built-in floor stands for (measured at load 5 on 2 cores)
DEFAULT_FLOOR_LOAD = 2.5
# log-space sd a check adds between checks per unit of load per CPU above the load its
# floor was measured at: a prior, not a fit (module docstring, "Load")
LOAD_NOISE = 0.004


@dataclass(frozen=True)
class Calibration:
    """The noise floor (log-space sd) and practical margin measured on one machine."""

    noise_floor: float = DEFAULT_FLOOR
    margin: float = MIN_PRACTICAL_MARGIN
    checks: int = 0  # identical-program checks it was estimated from (0: built-in default)
    problems: tuple[str, ...] = ()
    context: Machine = field(default_factory=Machine)  # where it was measured
    created: float = 0.0
    slots: int = 1  # timing slots busy while it was measured
    load: float | None = None  # the load per CPU while it was measured (None: not read)

    @property
    def measured(self) -> bool:
        return self.checks > 0

    def to_json(self) -> JsonObject:
        """The stored calibration (the codec's ``encode``)."""
        return encode(self)  # type: ignore[return-value]


def floor_at_load(floor: float, floor_load: float, load: float | None) -> float:
    """The between-check floor for a check timed at ``load`` (per CPU): the floor measured
    at ``floor_load``, and where the machine is busier now, ``LOAD_NOISE`` per unit of
    load above it in quadrature (a busier machine spreads checks further apart; a
    quieter one keeps the floor: never narrower than what was measured)."""
    if load is None or load <= floor_load:
        return floor
    return math.hypot(floor, LOAD_NOISE * (load - floor_load))


def calibration_path() -> Path:
    return cache_dir() / "calibration.json"


def _same_machine(stored: Machine, now: Machine) -> bool:
    return (stored.cpu, stored.cores) == (now.cpu, now.cores)


def load_calibration() -> Calibration:
    """This machine's stored calibration, or the built-in defaults."""
    try:
        stored = decode(Calibration, json.loads(calibration_path().read_text()))
    except (OSError, ValueError, FormatError):
        return Calibration()
    cal = replace(
        stored,
        noise_floor=max(MIN_FLOOR, stored.noise_floor),
        margin=max(MIN_PRACTICAL_MARGIN, stored.margin),
        slots=max(1, stored.slots),
    )
    if not cal.measured or not _same_machine(cal.context, machine()):
        return Calibration()
    # measured with fewer slots busy than timings now run at once: it says too little
    return cal if cal.slots >= slot_count() else Calibration()


def save_calibration(cal: Calibration) -> Path:
    path = calibration_path()
    atomic_write_text(path, json.dumps(cal.to_json(), indent=2) + "\n")
    return path


def estimate_calibration(
    checks: Sequence[tuple[str, float, float]],
    context: Machine | Mapping[str, object],
    slots: int = 1,
    load: float | None = None,
) -> Calibration:
    """From identical-program checks ``(problem, estimate, sampling sd of its log)``,
    measured with ``slots`` timing slots busy at ``load`` per CPU."""
    if not checks:
        raise ValueError("no checks to calibrate from")
    logs = [math.log(est) for _, est, _ in checks]
    excess = sum(x * x for x in logs) / len(logs) - sum(s * s for *_, s in checks) / len(checks)
    floor = max(MIN_FLOOR, math.sqrt(max(0.0, excess)))
    devs = sorted(abs(est - 1.0) for _, est, _ in checks)
    p95 = devs[min(len(devs) - 1, math.ceil(0.95 * len(devs)) - 1)]
    return Calibration(
        noise_floor=round(floor, 5),
        margin=round(max(MIN_PRACTICAL_MARGIN, p95), 5),
        checks=len(checks),
        problems=tuple(sorted({p for p, *_ in checks})),
        context=context if isinstance(context, Machine) else decode(Machine, dict(context)),
        created=time.time(),
        slots=max(1, slots),
        load=load,
    )


# --- the timed-test set -------------------------------------------------------------


def tests_key(
    baseline_digest: str, tests: Sequence[tuple[str, bytes, bytes]], cutoff: float
) -> str:
    """What the timed set depends on: the baseline binary, each test's name and input."""
    h = hashlib.sha256(f"{baseline_digest}\n{cutoff!r}\n".encode())
    for name, data, _ in tests:
        h.update(f"{name}\n{hashlib.sha256(data).hexdigest()}\n".encode())
    return h.hexdigest()[:32]


def cached_timed_set(
    baseline_digest: str, key: str, decide: Callable[[], tuple[str, ...]]
) -> tuple[str, ...]:
    """The timed-test set stored beside the baseline binary, decided once by ``decide``."""
    path = cache_dir() / "bin" / f"{baseline_digest}.timed.json"
    stored = _read_sets(path).get(key)
    if stored is not None:
        return stored
    chosen = decide()
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_suffix(".lock"), "w") as lock:  # first decision wins
        fcntl.flock(lock, fcntl.LOCK_EX)
        known = _read_sets(path)
        if key in known:
            return known[key]
        known[key] = chosen
        atomic_write_text(path, json.dumps({k: list(v) for k, v in known.items()}, indent=1))
    return chosen


def _read_sets(path: Path) -> dict[str, tuple[str, ...]]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): tuple(str(n) for n in v) for k, v in data.items() if isinstance(v, list)}
