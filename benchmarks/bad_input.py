"""Bad inputs and faults through the real CLI: one row per case, side by side.

    python benchmarks/bad_input.py

Each case runs ``python -m supercoder.cli ...`` in a fresh folder and reports the exit
code, how many lines went to stderr, whether a traceback appeared, whether anything was
written outside the folders named, and whether a planted host "secret" leaked into any
output. A good row: exit 2 or 3 (or 0 with a correct result), 1 stderr line, no
traceback, nothing outside, no leak.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SECRET = "HOST-SECRET-5f2c"
SUM = (
    '#include <stdio.h>\nint main(void){long n,x,s=0;scanf("%ld",&n);'
    'for(long i=0;i<n;i++){scanf("%ld",&x);s+=x;}printf("%ld\\n",s);return 0;}\n'
)


def problem(folder: Path, name: str | None = None) -> Path:
    (folder / "tests").mkdir(parents=True)
    (folder / "source.c").write_text(SUM)
    (folder / "tests" / "a.in").write_text("3\n1 2 3\n")
    (folder / "tests" / "a.out").write_text("6\n")
    if name is not None:
        (folder / "problem.json").write_text(json.dumps({"name": name}))
    return folder


def hung_server() -> str:
    class Hang(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802
            time.sleep(600)

        def log_message(self, *a):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Hang)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/v1"


def cases(w: Path, secret: Path) -> dict[str, list[str]]:
    (w / "junk.sqlite").write_bytes(os.urandom(4096))
    sym = problem(w / "sym")
    (sym / "tests" / "a.out").unlink()
    (sym / "tests" / "a.out").symlink_to(secret)
    lst = problem(w / "lst")
    (lst / "problem.json").write_text("[1, 2]")
    bad8 = problem(w / "bad8")
    (bad8 / "source.c").write_bytes(b"\xff\xfeint main(){}")
    for d in ("d1", "d2"):
        problem(w / "dup" / d, "same")
    problem(w / "markup", "x[/][bold]y")
    recs = [
        {
            "extra_info": {
                "name": n,
                "split": "train",
                "index": i,
                "c_code": SUM,
                "inputs": ["2\n3 4\n"],
                "outputs": ["7\n"],
            }
        }
        for i, n in enumerate(["../../escaped", "/tmp/abs-escape", "good", "good"])
    ]
    (w / "recs.jsonl").write_text("\n".join(map(json.dumps, recs)) + "\n\xff\n")
    inject = '"><script>alert(1)</script>'
    run = {"runs": [{"name": "r", "records": [{"problem": inject, "speedup": inject}]}]}
    (w / "run.json").write_text(json.dumps(run))
    cand = str(w / "sym" / "source.c")
    return {
        "leaderboard on random bytes": ["leaderboard", "--db", str(w / "junk.sqlite")],
        "report on random bytes": ["report", "r", "--db", str(w / "junk.sqlite")],
        "check: symlinked .out": ["check", str(sym), cand, "--json", "--no-time"],
        "check: problem.json a list": ["check", str(lst), cand, "--no-time"],
        "check: non-UTF-8 source.c": ["check", str(bad8), cand, "--no-time"],
        "check --cpu-limit -1": ["check", str(w / "markup"), cand, "--cpu-limit", "-1"],
        "eval: duplicate names": ["eval", "-b", str(w / "dup"), "--db", str(w / "o" / "r.sqlite")],
        "eval: --json unwritable": ["eval", "-b", str(w / "markup"), "--json", "/proc/x/s.json"],
        "eval: markup in a name": [
            "eval",
            "-b",
            str(w / "markup"),
            "--no-time",
            "--db",
            str(w / "o" / "m.sqlite"),
        ],
        "import: ../ names, dup": [
            "dataset",
            "import",
            str(w / "recs.jsonl"),
            "--out",
            str(w / "o" / "imp"),
            "--workers",
            "1",
        ],
        "report: injected run JSON": [
            "report",
            "r",
            "--db",
            str(w / "run.json"),
            "-o",
            str(w / "o" / "r.html"),
        ],
        "eval: hung server --timeout 1": [
            "eval",
            "-m",
            "openai:m",
            "--base-url",
            hung_server(),
            "-b",
            str(w / "markup"),
            "--timeout",
            "1",
            "--db",
            str(w / "o" / "h.sqlite"),
        ],
    }


def snapshot(root: Path) -> set[str]:
    return {str(p) for p in root.rglob("*")}


def main() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    print(
        f"{'case':32} {'exit':>4} {'stderr lines':>12} {'traceback':>9} {'outside':>7} {'leak':>4}  {'seconds':>7}"
    )
    with tempfile.TemporaryDirectory(prefix="bad-input-") as tmp:
        base = Path(tmp)
        secret = base / "secret.txt"
        secret.write_text(SECRET + "\n")
        work = base / "w"
        work.mkdir()
        for name, args in cases(work, secret).items():
            before = snapshot(base)
            start = time.monotonic()
            proc = subprocess.run(
                [sys.executable, "-m", "supercoder.cli", *args],
                cwd=work / "o" if (work / "o").is_dir() else work,
                env=env,
                capture_output=True,
                text=True,
                timeout=300,
            )
            took = time.monotonic() - start
            new = snapshot(base) - before
            outside = [p for p in new if not p.startswith(str(work / "o"))]
            outside += [p for p in ("/tmp/abs-escape", str(base / "escaped")) if os.path.exists(p)]
            files = "".join(Path(p).read_text(errors="replace") for p in new if Path(p).is_file())
            leak = SECRET in proc.stdout + proc.stderr + files
            (work / "o").mkdir(exist_ok=True)
            lines = len(proc.stderr.strip().splitlines())
            tb = "Traceback" in proc.stdout + proc.stderr
            print(
                f"{name:32} {proc.returncode:>4} {lines:>12} {'yes' if tb else 'no':>9} "
                f"{len(outside):>7} {'YES' if leak else 'no':>4}  {took:7.1f}"
            )


if __name__ == "__main__":
    main()
