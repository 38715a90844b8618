"""Start-up of `yahtzee` against Typer's own floor, same run, side by side.

    python benchmarks/bench_startup.py [--runs 20]

The floor is a bare Typer app this script writes (a `--version` callback and one command taking a
`list[str]` argument), run by the same interpreter. Each of our commands is timed alternately with
its reference, `--runs` times each; prints best and median wall time and the ratio of the medians:

  yahtzee --version, yahtzee --help        vs  bare --version               (bound: 1.3x)
  yahtzee score, yahtzee rules, yahtzee hint vs  bare command with a list    (bound: 1.15x)

`hint` runs with its strategy table already cached (built once beforehand, not timed), and the
package's bytecode is compiled first (as `pip install` does; an editable install gets it on its first
run, unless PYTHONDONTWRITEBYTECODE is set).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BARE = '''
from typing import Annotated

import typer

app = typer.Typer(no_args_is_help=True, add_completion=True, pretty_exceptions_enable=False, rich_markup_mode=None)


def _version(value: bool) -> None:
    if value:
        typer.echo("bare 0.1.0")
        raise typer.Exit()


@app.callback()
def _main(version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True)] = False) -> None:
    """A bare Typer app."""


@app.command()
def words(words: Annotated[list[str], typer.Argument()]) -> None:
    """Count the words."""
    typer.echo(len(words))


@app.command()
def other() -> None:
    """A second command, so the app is a group as yahtzee is."""


app()
'''


def timed(cmd: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=20)
    args = ap.parse_args()
    exe = shutil.which("yahtzee") or sys.exit("the yahtzee command is not on PATH (pip install -e .)")
    with tempfile.TemporaryDirectory() as tmp:
        bare = Path(tmp) / "bare.py"
        bare.write_text(BARE)
        env = {**os.environ, "YAHTZEE_CACHE_DIR": str(Path(tmp) / "cache"), "NO_COLOR": "1"}
        subprocess.run([exe, "solve"], env=env, check=True, capture_output=True)  # the hint's table, untimed
        # Bytecode, as a regular `pip install` compiles it and a first run writes it (an editable install
        # under PYTHONDONTWRITEBYTECODE would otherwise compile every module on every run)
        import yahtzee_cli

        compile_env = {k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"}
        subprocess.run([sys.executable, "-m", "compileall", "-q", os.path.dirname(yahtzee_cli.__file__)],
                       env=compile_env, check=True, capture_output=True)
        floor_version = [sys.executable, str(bare), "--version"]
        floor_list = [sys.executable, str(bare), "words", "1", "3", "3", "5", "6"]
        cases = [
            ("yahtzee --version", [exe, "--version"], floor_version, 1.3),
            ("yahtzee --help", [exe, "--help"], floor_version, 1.3),
            ("yahtzee score 1 2 3 4 5 --box chance", [exe, "score", "1", "2", "3", "4", "5", "--box", "chance"],
             floor_list, 1.15),
            ("yahtzee rules", [exe, "rules"], floor_list, 1.15),
            ("yahtzee hint 1 3 3 5 6", [exe, "hint", "1", "3", "3", "5", "6"], floor_list, 1.15),
        ]
        for _, ours, ref, _ in cases:  # warm the file cache
            timed(ours, env)
            timed(ref, env)
        print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}; best / median of {args.runs} runs, "
              "alternating with the bare Typer app")
        within = True
        for label, ours, ref, bound in cases:
            a: list[float] = []
            b: list[float] = []
            for _ in range(args.runs):
                a.append(timed(ours, env))
                b.append(timed(ref, env))
            ratio = statistics.median(a) / statistics.median(b)
            ok = ratio <= bound
            within &= ok
            what = "bare --version" if ref is floor_version else "bare list[str] command"
            print(f"  {label:<38} {min(a) * 1000:5.0f} / {statistics.median(a) * 1000:5.0f} ms   "
                  f"{what:<22} {min(b) * 1000:5.0f} / {statistics.median(b) * 1000:5.0f} ms   "
                  f"ratio {ratio:4.2f} (bound {bound}){'' if ok else '  OVER'}")
        print("all within bounds" if within else "some over their bound")


if __name__ == "__main__":
    main()
