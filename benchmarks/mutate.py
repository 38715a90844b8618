"""Mutation testing of the pure layers: plant one small fault at a time and see whether the tests notice.

    python benchmarks/mutate.py                      # every module below, a sample of each
    python benchmarks/mutate.py rules --max 0        # every mutant of the rules module
    python benchmarks/mutate.py validate --max 60 --seed 3

Each mutant changes one operator or constant in a copy of the project (`<` to `<=`, `+` to `-`, `and`
to `or`, `not x` to `x`, an int n to n + 1, True to False, `+=` to `-=`, ...; docstrings, messages and
type annotations are left alone), then runs that module's test files there with `pytest -x` and a
timeout. A mutant is killed when a test fails (or the run times out); it survives when every test
passes. The script prints each survivor (file:line, the original and the mutated code) and the kill
rate per module. A survivor is either a missing test or an equivalent mutant (one that cannot change
behaviour): kill the first with a test, explain the second. The working tree is never modified.
"""

from __future__ import annotations

import argparse
import ast
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# module -> the test files that guard it (run in this order, stopping at the first failure)
TARGETS: dict[str, list[str]] = {
    "rules": ["tests/rules/test_rules.py", "tests/rules/test_rules_coverage.py", "tests/formats/test_replay.py",
              "tests/formats/test_validate.py"],
    "validate": ["tests/formats/test_validate.py", "tests/formats/test_replay.py"],
    "logs": ["tests/formats/test_logs.py", "tests/formats/test_validate.py"],
    "replay": ["tests/formats/test_replay.py"],
    "position": ["tests/strategy/test_hint.py", "tests/solver/test_quality.py"],
}
# module -> its file in the package's layout
FILES = {"rules": "rules/engine.py", "validate": "formats/validate.py", "logs": "formats/logs.py",
         "replay": "formats/replay.py", "position": "strategy/turn.py"}
DEFAULT_MAX = {"rules": 150, "validate": 60, "logs": 40, "replay": 40, "position": 30}

SWAP: dict[type, type] = {
    ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq,
    ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
    ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Add, ast.FloorDiv: ast.Mult, ast.Div: ast.Mult,
    ast.Mod: ast.FloorDiv, ast.BitAnd: ast.BitOr, ast.BitOr: ast.BitAnd, ast.LShift: ast.RShift,
    ast.RShift: ast.LShift, ast.And: ast.Or, ast.Or: ast.And,
}


@dataclass(frozen=True)
class Mutant:
    module: str
    line: int
    span: tuple[int, int, int, int]  # lineno, col_offset, end_lineno, end_col_offset of the replaced node
    original: str
    mutated: str


def _skipped_nodes(tree: ast.AST) -> set[int]:
    """ids of nodes that cannot change behaviour worth testing: annotations, docstrings, f-strings."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        subtrees: list[ast.AST] = []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            subtrees += [a.annotation for a in (*node.args.args, *node.args.kwonlyargs, *node.args.posonlyargs)
                         if a.annotation is not None]
            if node.returns is not None:
                subtrees.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            subtrees.append(node.annotation)
        elif isinstance(node, ast.JoinedStr):
            subtrees.append(node)
        for sub in subtrees:
            skip.update(id(n) for n in ast.walk(sub))
    return skip


def _variants(node: ast.AST) -> Iterator[ast.AST]:
    """Mutated copies of one node (each differs from it in one place)."""
    if isinstance(node, ast.Compare):
        for i, op in enumerate(node.ops):
            if type(op) in SWAP:
                ops = list(node.ops)
                ops[i] = SWAP[type(op)]()
                yield ast.Compare(node.left, ops, node.comparators)
    elif isinstance(node, ast.BinOp) and type(node.op) in SWAP:
        yield ast.BinOp(node.left, SWAP[type(node.op)](), node.right)
    elif isinstance(node, ast.BoolOp) and type(node.op) in SWAP:
        yield ast.BoolOp(SWAP[type(node.op)](), node.values)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        yield node.operand
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        yield node.operand
    elif isinstance(node, ast.Constant) and type(node.value) is bool:
        yield ast.Constant(not node.value)
    elif isinstance(node, ast.Constant) and type(node.value) is int:
        yield ast.Constant(node.value + 1)
    elif isinstance(node, ast.AugAssign) and type(node.op) in SWAP:
        yield ast.AugAssign(node.target, SWAP[type(node.op)](), node.value)


def mutants(module: str) -> list[Mutant]:
    path = ROOT / "yahtzee_cli" / FILES[module]
    source = path.read_text()
    tree = ast.parse(source)
    skip = _skipped_nodes(tree)
    out: list[Mutant] = []
    for node in ast.walk(tree):
        if id(node) in skip or not hasattr(node, "lineno") or node.end_lineno is None:
            continue
        original = ast.get_source_segment(source, node)
        if original is None:
            continue
        for variant in _variants(node):
            mutated = ast.unparse(variant)
            if "\n" in original and not isinstance(node, ast.stmt):
                mutated = f"({mutated})"  # a multi-line expression may rely on brackets outside the node
            if mutated != ast.unparse(node):
                out.append(Mutant(module, node.lineno, (node.lineno, node.col_offset, node.end_lineno,
                                                        node.end_col_offset), original, mutated))
    return out


def apply(source: str, m: Mutant) -> str:
    """The source with the node at m.span replaced by m.mutated (offsets are UTF-8 byte columns)."""
    lines = source.encode().splitlines(keepends=True)
    l0, c0, l1, c1 = m.span
    head = b"".join(lines[: l0 - 1]) + lines[l0 - 1][:c0]
    tail = lines[l1 - 1][c1:] + b"".join(lines[l1:])
    return (head + m.mutated.encode() + tail).decode()


def copy_project(dest: Path) -> None:
    for name in ("yahtzee_cli", "tests", "fixtures", "completions"):
        shutil.copytree(ROOT / name, dest / name, ignore=shutil.ignore_patterns(".hypothesis", ".pytest_cache"))
    for name in ("README.md", "pyproject.toml"):
        shutil.copy2(ROOT / name, dest / name)


def run_tests(workdir: Path, tests: list[str], timeout: float, env: dict[str, str]) -> str:
    """'killed', 'survived' or 'timeout' (counted as killed)."""
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "--hypothesis-seed=0", *tests]
    try:
        p = subprocess.run(cmd, cwd=workdir, env=env, capture_output=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return "timeout"
    return "survived" if p.returncode == 0 else "killed"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("modules", nargs="*", default=list(TARGETS), help=f"modules of yahtzee_cli ({', '.join(TARGETS)})")
    ap.add_argument("--max", type=int, default=None, help="mutants per module, sampled (0: all; default per module)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the sample")
    ap.add_argument("--timeout", type=float, default=180.0, help="seconds per mutant before it counts as killed")
    ap.add_argument("--list", action="store_true", help="only list the mutants")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    totals: list[tuple[str, int, int]] = []
    with tempfile.TemporaryDirectory(prefix="yahtzee-mutants-") as tmp:
        work = Path(tmp)
        copy_project(work)
        env = {**os.environ, "PYTHONPATH": str(work), "YAHTZEE_CACHE_DIR": str(work / "cache"),
               "PYTHONDONTWRITEBYTECODE": "1"}
        for module in args.modules:
            if module not in TARGETS:
                print(f"unknown module {module!r}; choose from {', '.join(TARGETS)}", file=sys.stderr)
                return 2
            every = mutants(module)
            limit = DEFAULT_MAX[module] if args.max is None else args.max
            chosen = sorted(rng.sample(every, limit) if 0 < limit < len(every) else every, key=lambda m: m.span)
            if args.list:
                for m in chosen:
                    print(f"yahtzee_cli/{FILES[module]}:{m.line}: {m.original!r} -> {m.mutated!r}")
                continue
            target = work / "yahtzee_cli" / FILES[module]
            source = (ROOT / "yahtzee_cli" / FILES[module]).read_text()
            if run_tests(work, TARGETS[module], args.timeout * 3, env) != "survived":
                print(f"{module}: the tests fail without any mutant; fix them first", file=sys.stderr)
                return 1
            killed = 0
            start = time.perf_counter()
            print(f"{module}: {len(chosen)} of {len(every)} mutants, tests {' '.join(TARGETS[module])}", flush=True)
            for m in chosen:
                target.write_text(apply(source, m))
                try:
                    compile(target.read_text(), str(target), "exec")
                except SyntaxError:
                    killed += 1  # cannot even load: killed by the first import
                    continue
                outcome = run_tests(work, TARGETS[module], args.timeout, env)
                if outcome == "survived":
                    print(f"  survived  yahtzee_cli/{FILES[module]}:{m.line}: {m.original}  ->  {m.mutated}",
                          flush=True)
                else:
                    killed += 1
            target.write_text(source)
            n = len(chosen)
            print(f"{module}: killed {killed} of {n} ({100 * killed / max(n, 1):.1f}%) in "
                  f"{time.perf_counter() - start:.0f} s", flush=True)
            totals.append((module, killed, n))
    if totals:
        k = sum(t[1] for t in totals)
        n = sum(t[2] for t in totals)
        print("kill rate: " + ", ".join(f"{m} {100 * a / max(b, 1):.1f}% ({a}/{b})" for m, a, b in totals)
              + f"; all {100 * k / max(n, 1):.1f}% ({k}/{n})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
