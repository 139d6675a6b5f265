"""The parent side: writes inputs into folders, feeds them to a limited child, saves what failed.

    python -m tests.model.fuzz.runner FORMAT SEED [SEED…]   rebuild inputs by seed and run them
    python -m tests.model.fuzz.runner PATH                   run a saved input (a case folder)
    python -m tests.model.fuzz.runner FORMAT --count N       run inputs 0..N-1 and print a summary

A case folder (a saved failure, or a file under `regressions/<format>/`) holds `case.json` (format,
seed, main file, links, FIFOs, what happened) and `files/` with the input's regular files, with
`@OUTSIDE@` standing for the folder a path trick aims at.
"""

from __future__ import annotations

import json
import os
import selectors
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from tests.model.fuzz.corpora_usd import SENTINEL_USDA
from tests.model.fuzz.engine import OUTSIDE, Fifo, Folder, Input, Link, mutate

PROJECT = Path(__file__).resolve().parents[3]
CPU_SECONDS = float(os.environ.get("BOSCAGE_FUZZ_CPU_S", "5"))  # per input
MEMORY_MIB = int(os.environ.get("BOSCAGE_FUZZ_MEMORY_MIB", "1024"))  # above the child's start
GOOD = ("ok", "error")


@dataclass
class Outcome:
    input: Input
    status: str  # ok | error | crash | violation | timeout | memory | died
    detail: str = ""
    signature: str = ""
    frames: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def good(self) -> bool:
        return self.status in GOOD


class Worker:
    """One child process at a time; restarted after a timeout, a memory fault or a death."""

    def __init__(
        self, cpu_s: float = CPU_SECONDS, memory_mib: int = MEMORY_MIB, wall_s: float | None = None
    ) -> None:
        self.cpu_s, self.memory_mib = cpu_s, memory_mib
        self.wall_s = wall_s if wall_s is not None else cpu_s * 3 + 5
        self.proc: subprocess.Popen | None = None
        self.stderr = tempfile.TemporaryFile()
        self.buffer = b""
        self.eof = False
        self.starts = 0
        self.next_id = 0

    def _start(self) -> None:
        env = dict(
            os.environ,
            PYTHONPATH=str(PROJECT),
            BOSCAGE_BLOCK_GUI="1",
            OPENBLAS_NUM_THREADS="1",
            OMP_NUM_THREADS="1",
            PXR_WORK_THREAD_LIMIT="1",  # one input at a time, on one core
            PYTHONDONTWRITEBYTECODE="1",
        )
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.model.fuzz.worker", str(self.cpu_s), str(self.memory_mib)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            cwd=PROJECT,
            env=env,
        )
        self.buffer = b""
        self.starts += 1
        ready = self._line(120.0)
        if ready is None or not json.loads(ready).get("ready"):
            raise RuntimeError(f"the fuzz worker did not start: {self._stderr_tail()}")

    def _stderr_tail(self) -> str:
        self.stderr.seek(0)
        return self.stderr.read().decode("utf-8", "replace")[-2000:]

    def _line(self, timeout: float) -> bytes | None:
        """The child's next answer line, or None (timeout or EOF)."""
        assert self.proc is not None and self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while b"\n" not in self.buffer:
                left = deadline - time.monotonic()
                if left <= 0 or not sel.select(left):
                    return None
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    self.eof = True
                    return None
                self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line

    def _stop(self) -> int | None:
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.kill()
        code = self.proc.wait()
        self.proc = None
        return code

    def run(self, reader: str, folder: Path, main: str) -> dict:
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        assert self.proc is not None and self.proc.stdin is not None
        self.next_id += 1
        job = {"id": self.next_id, "reader": reader, "folder": str(folder), "main": main}
        try:
            self.proc.stdin.write((json.dumps(job) + "\n").encode())
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass
        self.eof = False
        line = self._line(self.wall_s)
        if line is None:
            if self.eof:  # it closed its answers: it is dying, wait for how
                try:
                    self.proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    pass
            alive = self.proc.poll() is None
            code = self._stop()
            if alive:
                return {
                    "status": "timeout",
                    "detail": f"no answer within {self.wall_s:g} s of wall time",
                    "signature": "timeout",
                }
            how = f"signal {-code}" if code is not None and code < 0 else f"exit {code}"
            return {
                "status": "died",
                "detail": f"the worker died ({how}): {self._stderr_tail()[-300:]}",
                "signature": f"worker died ({how})",
            }
        answer = json.loads(line)
        if answer["status"] in ("timeout", "memory"):
            self._stop()
        return answer

    def close(self) -> None:
        if self.proc is not None and self.proc.stdin is not None:
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self._stop()
        self.stderr.close()


# ---- inputs on disk -----------------------------------------------------------------------------
def write_input(inp: Input, root: Path, seeds) -> Path:
    """The input as a folder `root/inputs/<format>-<seed>/`, its links aimed at `root/outside/`."""
    outside = root / "outside"
    if not outside.exists():
        outside.mkdir(parents=True)
        (outside / "secret.txt").write_text("outside the input's folder\n")
        (outside / "secret.usda").write_text(SENTINEL_USDA)  # a layer the USD inputs name
    folder = root / "inputs" / f"{inp.format}-{inp.seed}"
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    target_bytes = str(outside).encode()
    for name, entry in inp.files.items():
        path = folder / name
        if isinstance(entry, Link):
            target = outside / entry.target
            if not target.exists():
                target.parent.mkdir(parents=True, exist_ok=True)
                seed_name, file_name = entry.target.split("/", 1)
                found = next((s.files.get(file_name) for s in seeds if s.name == seed_name), None)
                target.write_bytes(found if isinstance(found, bytes) else b"outside\n")
            path.symlink_to(target)
        elif isinstance(entry, Fifo):
            os.mkfifo(path)
        elif isinstance(entry, Folder):
            path.mkdir()
        else:
            path.write_bytes(entry.replace(OUTSIDE, target_bytes))
    return folder


def save_case(inp: Input, outcome: Outcome | None, dest: Path) -> Path:
    """Keep an input as a case folder that `load_case` (and the regression test) replays."""
    if dest.exists():
        shutil.rmtree(dest)
    (dest / "files").mkdir(parents=True)
    links, fifos, folders = {}, [], []
    for name, entry in inp.files.items():
        if isinstance(entry, Link):
            links[name] = entry.target
        elif isinstance(entry, Fifo):
            fifos.append(name)
        elif isinstance(entry, Folder):
            folders.append(name)
        else:
            (dest / "files" / name).write_bytes(entry)
    meta = {
        "format": inp.format,
        "seed": inp.seed,
        "main": inp.main,
        "steps": inp.steps,
        "links": links,
        "fifos": fifos,
    }
    if folders:
        meta["folders"] = folders
    if outcome is not None:
        meta.update(status=outcome.status, signature=outcome.signature, detail=outcome.detail)
    (dest / "case.json").write_text(json.dumps(meta, indent=1) + "\n")
    return dest


def load_case(path: Path) -> Input:
    meta = json.loads((path / "case.json").read_text())
    stored = path / "files"  # absent for a case its builder makes (git keeps no empty folder)
    files: dict = {}
    if stored.is_dir():
        files = {p.name: p.read_bytes() for p in sorted(stored.iterdir()) if p.is_file()}
    files.update({n: Link(t) for n, t in meta.get("links", {}).items()})
    files.update({n: Fifo() for n in meta.get("fifos", [])})
    files.update({n: Folder() for n in meta.get("folders", [])})
    if "build" in meta:  # files too many to commit, made by a corpus builder
        from tests.model.fuzz.corpora import BUILDERS

        BUILDERS[meta["build"]["name"]](files, **meta["build"].get("args", {}))
    return Input(meta["format"], int(meta.get("seed", -1)), files, meta["main"], meta.get("steps", []))


# ---- running ------------------------------------------------------------------------------------
def run_inputs(worker: Worker, inputs: Iterable[Input], root: Path, seeds) -> list[Outcome]:
    """Each input written, read by the worker and removed; a passing input keeps only its name."""
    outcomes = []
    for inp in inputs:
        folder = write_input(inp, root, seeds)
        start = time.perf_counter()
        answer = worker.run(inp.format, folder, inp.main)
        outcomes.append(
            Outcome(
                inp,
                answer["status"],
                answer.get("detail", ""),
                answer.get("signature", ""),
                answer.get("frames", []),
                time.perf_counter() - start,
            )
        )
        shutil.rmtree(folder, ignore_errors=True)
        if outcomes[-1].good:  # thousands of inputs are not held in memory: a passing one is rebuilt by seed
            outcomes[-1].input = Input(inp.format, inp.seed, {}, inp.main, inp.steps)
    return outcomes


def fuzz(worker: Worker, fmt: str, numbers: range | list[int], root: Path) -> list[Outcome]:
    from tests.model.fuzz.corpora import SEEDS

    seeds = SEEDS[fmt]()
    return run_inputs(worker, (mutate(fmt, n, seeds) for n in numbers), root, seeds)


def failures_folder() -> Path:
    folder = os.environ.get("BOSCAGE_FUZZ_FAILURES")
    return Path(folder) if folder else Path(tempfile.gettempdir()) / "boscage-fuzz-failures"


def report(fmt: str, outcomes: list[Outcome], known: dict[str, str]) -> tuple[list[Outcome], str]:
    """The failures not already known, each saved for replay, and a summary to print."""
    bad = [o for o in outcomes if not o.good and f"{fmt}: {o.signature}" not in known]
    tolerated = Counter(o.signature for o in outcomes if not o.good and f"{fmt}: {o.signature}" in known)
    counts = Counter(o.status for o in outcomes)
    seconds = sum(o.seconds for o in outcomes)
    slowest = max(outcomes, key=lambda o: o.seconds, default=None)
    lines = [
        f"{fmt}: {len(outcomes)} inputs in {seconds:.1f} s of reading: "
        + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
        + (f"; slowest {slowest.seconds:.2f} s (seed {slowest.input.seed})" if slowest else "")
    ]
    for sig, n in tolerated.items():
        lines.append(f"  known ({n}x): {sig} -> {known[f'{fmt}: {sig}']}")
    for o in bad:
        dest = save_case(o.input, o, failures_folder() / fmt / str(o.input.seed))
        lines.append(
            f"  FAILED seed {o.input.seed}: {o.status}: {o.signature}: {o.detail[:240]}\n"
            f"    steps: {'; '.join(o.input.steps)[:300]}\n"
            f"    frames: {' < '.join(reversed(o.frames[-4:]))}\n"
            f"    saved: {dest}\n"
            f"    replay: python -m tests.model.fuzz.runner {fmt} {o.input.seed}"
        )
    return bad, "\n".join(lines)


def main(argv: list[str]) -> int:
    from tests.model.fuzz.corpora import FORMATS, SEEDS

    if not argv:
        print(__doc__)
        return 2
    worker = Worker()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            if Path(argv[0]).is_dir():
                inp = load_case(Path(argv[0]))
                outcomes = run_inputs(worker, [inp], Path(tmp), SEEDS[inp.format]())
                fmt = inp.format
            else:
                fmt = argv[0]
                if fmt not in FORMATS:
                    print(f"unknown format {fmt!r}; one of {', '.join(FORMATS)}")
                    return 2
                if argv[1:2] == ["--count"]:
                    numbers: range | list[int] = range(int(argv[2]))
                else:
                    numbers = [int(a) for a in argv[1:]]
                outcomes = fuzz(worker, fmt, numbers, Path(tmp))
            for o in outcomes if len(outcomes) <= 20 else []:
                print(
                    f"seed {o.input.seed}: {o.status} {o.signature} {o.detail[:300]}\n"
                    f"  {'; '.join(o.input.steps)}"
                )
            bad, text = report(fmt, outcomes, {})
            print(text)
            return 1 if bad else 0
    finally:
        worker.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
