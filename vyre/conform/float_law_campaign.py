"""Float laws over every F32 input: a float law campaign.

The declared float laws of a unary `primitive.float` op (`vyre.ops.float_laws`)
are checked on the exact oracle's result of each of the 2**32 inputs (the
oracle of the float campaigns, `float_campaign.oracle_words`: the
interpreter's exact floats), chunk by chunk, through the same relations the
certificate checks (`float_relations`). Together with the op's exhaustive
float campaign on a backend (the backend's result equal to that oracle's on
every input), this establishes the laws on that backend for every input: the
`exhaustive` strength a float-track certificate then claims for them
(`certify(campaigns=...)`, `campaign_evidence`).

- odd and even laws are checked over the positive half of the patterns, the
  negative ones being their mirror images (the statement at -a follows from
  the one at a, NaN rules included); monotonicity compares each input with
  its successor in totalOrder; ranges look at each result. Exact cases are
  not repeated here: the certificate checks every one of them anyway.
- each piece of a chunk computes the oracle over its inputs, and over the
  few other points its relations name (the mirror piece, the successor past
  its end) on demand.

Chunks are recorded in a float-campaign checkpoint (`float_checkpoint`) as
campaign `f32.<op>.laws`: `mismatches` counts law violations and `first`
holds up to 8 of them as [input, law index, f(input)]; sharding, resumption
and `floats-summary` work as for the float campaigns. Host work only: on 16
cores about 1.5 times the oracle work of the op's exhaustive campaign.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from vyre.conform.algebra import NumpyAlgebra, violations_numpy
from vyre.conform.float_campaign import PIECE, Campaign, ChunkResult, chunks_of, oracle_words, worker_pool
from vyre.conform.float_checkpoint import append_chunk, finished_starts
from vyre.conform.float_relations import float_law_relations
from vyre.ops import float_laws as FL
from vyre.ops import registry

__all__ = ["LAW_CAMPAIGN_SUFFIX", "checked_laws", "law_campaign_name", "law_chunk", "run_law_campaign"]

U32 = npt.NDArray[np.uint32]
LAW_CAMPAIGN_SUFFIX = "laws"
_HALF = 1 << 31
_FIRST = 8


def law_campaign_name(op: str) -> str:
    """The checkpoint name of the law campaign of campaign op `op` ("exp")."""
    return f"f32.{op}.{LAW_CAMPAIGN_SUFFIX}"


def checked_laws(op: str) -> list[tuple[int, FL.FloatLaw]]:
    """(index in the op's declared laws, law) of the laws a law campaign of the
    unary op `primitive.float.<op>` checks: its float laws but exact cases.
    ValueError for an op that is not a unary library op with such laws."""
    spec = registry.resolve(f"primitive.float.{op}")
    if spec is None or spec.signature.arity != 1:
        raise ValueError(f"a float law campaign checks a unary primitive.float op, not {op!r}")
    laws = [
        (index, law) for index, law in enumerate(spec.laws)
        if isinstance(law, FL.FloatLaw) and not isinstance(law, FL.FloatExactCases)
    ]
    if not laws:
        raise ValueError(f"primitive.float.{op} declares no float law a campaign checks")
    return laws


def _evaluator(
    campaign: Campaign, start: int, words: U32, results: U32
) -> Callable[[str, list[np.ndarray]], np.ndarray]:
    """The op's oracle, reading the piece's results where it has them."""

    def evaluate(op_id: str, columns: list[np.ndarray]) -> np.ndarray:
        x = np.asarray(columns[0], dtype=np.uint32)
        offset = x.astype(np.int64) - start
        inside = (offset >= 0) & (offset < len(words))
        out = np.empty(len(x), dtype=np.uint32)
        out[inside] = results[offset[inside]]
        if not np.all(inside):
            out[~inside] = oracle_words(campaign, [np.ascontiguousarray(x[~inside])])
        return out

    return evaluate


def _law_piece(task: tuple[str, int, int]) -> tuple[int, list[list[int]]]:
    """(violations, up to 8 [input, law index, f(input)]) of the laws over
    inputs start..start+length (one worker task)."""
    op, start, length = task
    campaign = Campaign(op, "f32")
    words = np.arange(start, start + length, dtype=np.uint64).astype(np.uint32)
    results = oracle_words(campaign, [words])
    algebra = NumpyAlgebra(_evaluator(campaign, start, words, results))
    violations = 0
    rows: list[list[list[int]]] = []
    for index, law in checked_laws(op):
        if isinstance(law, (FL.FloatOdd, FL.FloatEven)) and start >= _HALF:
            continue  # the mirror images of the positive half's relations
        bad = violations_numpy(float_law_relations(law, f"primitive.float.{op}", algebra, [words]), words.shape)
        hits = np.flatnonzero(bad)
        violations += len(hits)
        rows.append([[int(words[i]), index, int(results[i])] for i in hits[:_FIRST]])
    return violations, _first_rows(rows)


def _first_rows(groups: Sequence[Sequence[list[int]]]) -> list[list[int]]:
    """Up to 8 violations, the first of each violated law before the others
    (so every violated law is named in a chunk's record)."""
    heads = [group[0] for group in groups if group]
    rest = [row for group in groups for row in group[1:]]
    return (heads + rest)[:_FIRST]


def _pieces(start: int, length: int) -> list[tuple[int, int]]:
    return [(s, min(PIECE, start + length - s)) for s in range(start, start + length, PIECE)]


def law_chunk(op: str, start: int, length: int, pool: Any = None) -> ChunkResult:
    """The laws over one chunk of inputs (its pieces on `pool`, else here)."""
    began = time.perf_counter()
    tasks = [(op, s, n) for s, n in _pieces(start, length)]
    found = pool.map(_law_piece, tasks, chunksize=1) if pool is not None else [_law_piece(t) for t in tasks]
    violations = sum(count for count, _ in found)
    by_law: dict[int, list[list[int]]] = {}
    for _, rows in found:
        for row in rows:
            by_law.setdefault(row[1], []).append(row)
    first = _first_rows([by_law[index] for index in sorted(by_law)])
    return ChunkResult(law_campaign_name(op), start, length, violations, first, time.perf_counter() - began)


def run_law_campaign(
    op: str,
    *,
    checkpoint: Any = None,
    shard: tuple[int, int] = (0, 1),
    span: tuple[int, int] | None = None,
    jobs: int | None = None,
    progress: Callable[[ChunkResult], None] | None = None,
    chunks: Sequence[tuple[int, int]] | None = None,
) -> Iterator[ChunkResult]:
    """Run the law campaign of `op` over its chunks not yet in `checkpoint`,
    each recorded as it completes: the chunks of the exhaustive campaign
    (`CHUNK` inputs) of shard I of N that meet `span` (`float_campaign.chunks_of`),
    or the given `chunks`; `jobs` worker processes (default: every core)."""
    checked_laws(op)  # refuse an op without laws before any work
    done = finished_starts(checkpoint, law_campaign_name(op))
    if chunks is None:
        todo = chunks_of(Campaign(op, "f32"), shard=shard, span=span, done=done)
    else:
        index, count = shard
        todo = [c for n, c in enumerate(chunks) if n % count == index and c[0] not in done]
    if not todo:
        return
    jobs = jobs or os.cpu_count() or 1
    with worker_pool(jobs) if jobs > 1 else _Inline() as pool:
        for start, length in todo:
            result = law_chunk(op, start, length, pool)
            if checkpoint is not None:
                append_chunk(checkpoint, result.to_json())
            if progress is not None:
                progress(result)
            yield result


class _Inline:
    """No pool: pieces run in this process."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None
