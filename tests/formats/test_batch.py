"""Inputs cut into jobs (formats.batch): read piece by piece, they give exactly the games, numbers,
lines and problems of one reading of the inputs in order, wherever the cuts fall."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from yahtzee_cli.formats import batch as B
from yahtzee_cli.formats.inputs import Game, expand, read_all
from yahtzee_cli.formats.logs import MAX_LINE

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
GAMES = (FIXTURES / "logs" / "batch.ndjson").read_bytes().splitlines(keepends=True)
# lines an NDJSON file may hold besides games: blank ones (skipped, still counted as lines), broken
# JSON (a game with a problem), a long blank line (skipped after a failed parse), a long junk line
LINES = [*GAMES, b"\n", b"  \t\r\n", b"{bad json}\n", b"[1, 2\n", b" " * 300 + b"\n", b"x" * 5000 + b"\n",
         b'{"format": "yahtzee-log/1"}\n']


def _key(item: Any) -> Any:
    if isinstance(item, Game):
        d = item.doc
        return (item.file, d.index, d.line, str(d.problem), d.data, d.trusted)
    return (item.source.name, item.message, item.code)


def _pieces(sources: list[Any], chunk_bytes: int) -> list[Any]:
    """Every job read on its own (as a worker would), put back in order."""
    jobs = list(B.plan(sources, chunk_bytes))
    return [_key(i) for items in B.in_order(B.run_job(job, list) for job in jobs) for i in items]


def _whole(sources: list[Any]) -> list[Any]:
    return [_key(i) for i in read_all(sources)]


@settings(max_examples=40, deadline=None)
@given(lines=st.lists(st.sampled_from(LINES), min_size=1, max_size=60), chunk=st.integers(50, 20_000),
       lead=st.sampled_from([b"", b"\n\n", b"\xef\xbb\xbf", b" \n"]), tail=st.booleans())
def test_pieces_read_as_one_reading(tmp_path_factory: Any, lines: list[bytes], chunk: int, lead: bytes,
                                    tail: bool) -> None:
    path = tmp_path_factory.mktemp("batch") / "games.ndjson"
    body = lead + b"".join(lines)
    if tail:  # a last line without its newline
        body = body.rstrip(b"\n")
    path.write_bytes(body)
    sources = expand([str(path)])
    assert _pieces(sources, chunk) == _whole(sources)


def test_a_big_file_is_cut_at_line_boundaries_with_its_numbers(tmp_path: Path) -> None:
    path = tmp_path / "big.ndjson"
    lines = [GAMES[i % len(GAMES)] if i % 7 else b"\n" for i in range(200)]
    path.write_bytes(b"".join(lines))
    jobs = list(B.plan(expand([str(path)]), 4000))
    pieces = [p for j in jobs for p in j.pieces]
    assert len(pieces) > 10
    data = path.read_bytes()
    for p in pieces[1:]:
        assert data[p.start - 1:p.start] == b"\n"  # each cut is just after a newline
        # the line number counted before the cut: newlines before it, plus one
        assert p.first_line == data.count(b"\n", 0, p.start) + 1
        # the game number: the non-blank lines before it (blank lines hold no game), plus one
        assert p.first_index == sum(1 for ln in data[:p.start].split(b"\n")[:-1] if ln.strip()) + 1
    assert _pieces(expand([str(path)]), 4000) == _whole(expand([str(path)]))


def test_the_pieces_of_a_big_file_shrink_towards_its_end(tmp_path: Path) -> None:
    """Workers finish together: pieces of chunk_bytes while much is left, then an eighth of what is
    left, down to a sixteenth of chunk_bytes (cut at line ends, so sizes are about that)."""
    path = tmp_path / "big.ndjson"
    path.write_bytes(b"".join(GAMES[i % len(GAMES)] for i in range(1300)))
    line = max(len(g) for g in GAMES)
    chunk = 32 * line  # its sixteenth holds two lines
    pieces = [p for j in B.plan(expand([str(path)]), chunk) for p in j.pieces]
    size = path.stat().st_size
    sizes = [(p.end if p.end >= 0 else size) - p.start for p in pieces]
    assert size > 20 * chunk and sizes[0] > chunk - line
    assert all(s <= chunk for s in sizes)
    lefts = [size - p.start for p in pieces]
    for s, left in zip(sizes[:-1], lefts[:-1], strict=True):
        want = min(chunk, max(left // 8, chunk // 16))
        assert want - line < s <= want
    assert sizes[-2] < chunk // 8
    assert _pieces(expand([str(path)]), chunk) == _whole(expand([str(path)]))


def test_many_files_single_documents_and_errors_in_order(tmp_path: Path) -> None:
    many = tmp_path / "many"
    many.mkdir()
    for i, line in enumerate(GAMES * 4):
        (many / f"g{i:03}.json").write_bytes(line)
    (tmp_path / "empty.json").write_bytes(b"")
    sources = expand([str(FIXTURES / "logs"), str(FIXTURES / "invalid"), str(many), str(tmp_path / "empty.json"),
                      str(tmp_path / "missing.json")])
    for chunk in (100, 3000, 1 << 20):
        assert _pieces(sources, chunk) == _whole(sources)
    # small files are grouped, so a worker's task is not one tiny file
    assert len(list(B.plan(sources, 1 << 20))) == 1


def test_an_input_that_turns_unreadable_ends_there(tmp_path: Path) -> None:
    """Binary data in a line too long for a game stops the reading of that input (as one reading
    stops): the later pieces of it are dropped, the next input is read."""
    path = tmp_path / "broken.ndjson"
    path.write_bytes(b"".join(GAMES * 5) + b"\x00" + b"x" * (MAX_LINE + 10) + b"\n" + b"".join(GAMES * 5))
    sources = expand([str(path), str(FIXTURES / "logs" / "yatzy.json")])
    whole = _whole(sources)
    assert ("input is binary data (NUL bytes), not text" in [k[1] for k in whole if len(k) == 3])
    assert _pieces(sources, 2000) == whole


def test_a_single_document_is_never_cut(tmp_path: Path) -> None:
    path = tmp_path / "pretty.json"
    path.write_bytes((FIXTURES / "logs" / "kniffel-columns.json").read_bytes() * 3)  # three documents
    jobs = list(B.plan(expand([str(path)]), 100))
    assert [len(j.pieces) for j in jobs] == [1] and jobs[0].pieces[0].end == -1
    assert _pieces(expand([str(path)]), 100) == _whole(expand([str(path)]))


def test_blank_lines_counts_what_the_reader_skips() -> None:
    block = b"{}\n\n  \n\t\r\n" + b" " * 100 + b"\n{}\nx\n"
    assert B.blank_lines(block, len(block)) == 4
    assert B.blank_lines(b"\xef\xbb\xbf\n{}\n", 6, first=True) == 1
    assert B.blank_lines(b"\n\n", 1) == 1  # only whole lines before `end` count


def test_validation_of_pieces_keeps_only_what_is_reported() -> None:
    sources = expand([str(FIXTURES / "logs"), str(FIXTURES / "invalid" / "bad-face.json")])
    results = [c for d in B.check_job(B.Job(tuple(B.Piece(s, n) for n, s in enumerate(sources)))) for c in [d.items]]
    games = sum(r.games for r in results)
    assert games == len(_whole(sources))
    found = [f for r in results for f in r.found]
    assert [type(f).__name__ for f in found].count("Invalid") == 1
    assert str(FIXTURES / "logs" / "in-progress.json") in {f.file for f in found if isinstance(f, B.Unfinished)}
