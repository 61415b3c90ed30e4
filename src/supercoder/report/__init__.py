"""Reports: a stored run as a Page (page.py) and as one self-contained HTML file (html.py)."""

from supercoder.report.page import build_page, load_run, write_report

__all__ = ["build_page", "load_run", "write_report"]
