"""Every path a problem names stays home: a ``.gen`` spec's sha256 is a key, never a
path; headers and generators are the folder's own regular files; a record's files
that cannot make a folder skip that record only.

Before: a ``tests/NAME.gen`` spec's ``sha256`` was joined unchecked into a cache path
(``cache/inputs/<sha256>.in``), so an absolute or ``../`` value read any host file
ending in ``.in`` — another problem's hidden input, a root-only file — as a visible
test (``mcp show_problem`` printed it; a check of a program echoing its input quoted
it in its verdict), and a valid digest of another problem's generated input was served
from the cache without this problem's generator ever drawing it. A record whose files
held both ``a`` and ``a/b`` aborted the whole ``dataset import`` (0 of 3 written).
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from pathlib import Path

import pytest

from supercoder.errors import UserError
from supercoder.problems.loading import load_problem
from supercoder.verify.mcp import McpConfig, Toolbox
from tests.conftest import make_sum_problem, sandbox_or_skip

CANARY = "PH-CANARY-51c2"


def _victim(root: Path) -> Path:
    """Another problem, whose hidden input holds the canary (root-only)."""
    other = make_sum_problem(root / "other")
    (other / "hidden" / "t0.in").write_text(f"1\n{CANARY}\n")
    (other / "hidden" / "t0.in").chmod(0o600)
    return other


@pytest.mark.parametrize("kind", ["absolute", "relative", "upper", "short"])
def test_gen_spec_sha256_is_a_key_not_a_path(tmp_path: Path, kind: str) -> None:
    root = tmp_path / "root"
    other = _victim(root)
    mine = make_sum_problem(root / "mine")
    value = {
        "absolute": str(other / "hidden" / "t0"),
        "relative": "../../../../../../.." + str(other / "hidden" / "t0"),
        "upper": hashlib.sha256(b"x").hexdigest().upper(),
        "short": "ab" * 16,
    }[kind]
    (mine / "tests" / "leak.gen").write_text(json.dumps({"seed": 1, "size": 1, "sha256": value}))
    (mine / "tests" / "leak.out").write_text("0\n")
    with pytest.raises(UserError, match="sha256 must be the input's SHA-256") as e:
        load_problem(mine)
    assert CANARY not in str(e.value) and "\n" not in str(e.value)
    box = Toolbox(McpConfig(allow_roots=(root,)))
    with pytest.raises(UserError) as e:
        box.show_problem(str(mine), tests=10)
    assert CANARY not in str(e.value)
    for ref in ("a" * 300, "/" + "b/" * 400, "\ud800"):  # no file system holds these
        with pytest.raises(UserError, match="not a problem folder under an allowed root"):
            box.show_problem(ref)


def test_a_digest_from_the_cache_is_only_what_this_generator_drew(tmp_path: Path) -> None:
    """A valid digest of another problem's generated hidden input, named by my spec:
    my generator draws its own input, which does not match: refused, never served."""
    sandbox_or_skip()
    root = Path(tempfile.mkdtemp())
    secret = f"1\n{CANARY}\n".encode()
    digest = hashlib.sha256(secret).hexdigest()
    other = make_sum_problem(root / "other")
    (other / "gen.py").write_text(f"def generate(seed, size):\n    return {secret.decode()!r}\n")
    (other / "hidden" / "g.gen").write_text(json.dumps({"seed": 1, "size": 1, "sha256": digest}))
    (other / "hidden" / "g.out").write_text("0\n")
    theirs = next(t for t in load_problem(other).tests if t.name == "hidden/g")
    assert theirs.read_input() == secret  # drawn by its own generator: now in the cache
    mine = make_sum_problem(root / "mine")
    (mine / "gen.py").write_text("def generate(seed, size):\n    return '1\\n5\\n'\n")
    (mine / "tests" / "g.gen").write_text(json.dumps({"seed": 1, "size": 1, "sha256": digest}))
    (mine / "tests" / "g.out").write_text("5\n")
    test = next(t for t in load_problem(mine).tests if t.name == "g")
    with pytest.raises(UserError, match="produced different input than recorded") as e:
        test.read_input()
    assert CANARY not in str(e.value)


@pytest.mark.parametrize("field", ["headers", "generator"])
def test_problem_json_paths_that_lead_out_are_refused(tmp_path: Path, field: str) -> None:
    outside = tmp_path / "host.h"
    outside.write_text(f"/* {CANARY} */\n")
    folder = make_sum_problem(tmp_path / "p")
    (folder / "inc.h").symlink_to(outside)
    value = ["inc.h"] if field == "headers" else "inc.h"
    (folder / "problem.json").write_text(json.dumps({field: value}))
    with pytest.raises(UserError, match=f"field '{field}' names 'inc.h', which leads outside") as e:
        load_problem(folder)
    assert CANARY not in str(e.value)
    for bad in ("../host.h", "/etc/passwd"):
        (folder / "problem.json").write_text(
            json.dumps({field: [bad] if field == "headers" else bad})
        )
        with pytest.raises(UserError, match="inside the problem folder"):
            load_problem(folder)


def test_record_holding_a_file_and_a_folder_of_one_name_is_skipped_alone(tmp_path: Path) -> None:
    sandbox_or_skip()
    from supercoder.dataset.importer import import_records
    from tests.integration.test_bad_input import record

    bundle = {
        "format": "supercoder-problem/1",
        "files": [{"path": "a", "text": "x"}, {"path": "a/b", "text": "y"}],
    }
    records = [
        record("first"),
        record("clash", index=1, problem_files=json.dumps(bundle)),
        record("third", index=2),
    ]
    report = import_records(records, tmp_path / "out", check_outputs=False)
    assert report.written == 2, report.reasons
    (reason,) = report.reasons
    assert reason.startswith("record #1: ") and "holds a file 'a' where a folder" in reason
    assert sorted(p.name for p in (tmp_path / "out" / "train").iterdir()) == ["first", "third"]
