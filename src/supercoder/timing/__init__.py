"""Timing: the paired, interleaved meter, its statistics and the machine's noise calibration."""

from supercoder.timing.meter import Meter, MeterConfig

__all__ = ["Meter", "MeterConfig"]
