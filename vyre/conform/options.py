"""The options of a certification run: `CertifyOptions`, and the parsing of
`conform.certify`'s keywords into it.

Strings are accepted at this boundary ("wgpu", "fast", "L3", "integer",
["laws", "parity"], "0/4") and become the typed values here; an invalid value
is a `PlanError` (a `ValueError`) naming the parameter and what it may be.
Past this point the suite works on the typed record only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from vyre import ops as registry
from vyre.conform import corpus as corpus_mod
from vyre.conform.backends import ConformBackend, backend_named
from vyre.conform.kernel_track import KERNEL_CHECKS
from vyre.conform.kinds import REQUESTABLE_LEVELS, CheckGroup, Level, Track, parse
from vyre.conform.plan import PlanError, in_track, select_ops
from vyre.conform.strength import Strength, strength_named
from vyre.conform.tensor_track import TENSOR_CHECKS, select_tensor_ops

__all__ = ["DEFAULT_SEED", "CertifyOptions", "check_names", "parse_shard"]

DEFAULT_SEED = 0x7679_7265
"""The base seed of every certificate unless one is given ("vyre")."""

DEFAULT_PROVE_TIMEOUT = 10.0


@dataclass(frozen=True)
class CertifyOptions:
    """A validated certification run (the keywords of `conform.certify`).

    `op_ids`: the selected ops of `track`; `checks`: the check groups;
    `laws`: the law filter (None: every declared law); `shard`: (index,
    count); `corpus`: the regression corpus replayed (None: none), appended to
    when `record`; `prove_timeout`: seconds per solver attempt of the SMT
    obligations, None without `prove`; `level`: what the run aims for;
    `dask`: a scheduler address or "local"; `gpus`: the workers of a local
    cluster for the wgpu backend (None: one per GPU); `keep_checkpoint`: leave the
    checkpoint in place once the run is done (the CLI removes it only after the
    certificate is on disk; `certify` removes it when it returns);
    `campaigns`: a float-campaign checkpoint whose exhaustive and law
    campaigns the float track reads (`campaign_evidence`)."""

    backend: ConformBackend
    op_ids: tuple[str, ...]
    strength: Strength
    track: Track = Track.INTEGER
    seed: int = DEFAULT_SEED
    checks: tuple[CheckGroup, ...] = tuple(CheckGroup)
    laws: tuple[str, ...] | None = None
    shard: tuple[int, int] | None = None
    checkpoint: Path | None = None
    resume: bool = False
    corpus: Path | None = None
    record: bool = False
    oracles: Mapping[str, Callable[..., Any]] = field(default_factory=lambda: {})
    jobs: int = 1
    progress: bool | None = False
    prove_timeout: float | None = None
    level: Level = Level.L2
    dask: str | None = None
    gpus: int | None = None
    keep_checkpoint: bool = False
    campaigns: Path | None = None

    @classmethod
    def parse(
        cls,
        backend: str | ConformBackend = "wgpu",
        ops: Iterable[str] | str = ("primitive.*",),
        strength: str | Strength = "standard",
        *,
        seed: int = DEFAULT_SEED,
        witnesses: int | None = None,
        checks: Iterable[str] | str | None = None,
        laws: Iterable[str] | str | None = None,
        shard: str | tuple[int, int] | None = None,
        checkpoint: str | Path | None = None,
        resume: bool = False,
        corpus: str | Path | None = corpus_mod.DEFAULT_CORPUS,
        record: bool = False,
        oracles: Mapping[str, Callable[..., Any]] | None = None,
        jobs: int = 1,
        progress: bool | None = False,
        track: str | Track = Track.INTEGER,
        prove: bool = False,
        prove_timeout: float | None = None,
        level: str | Level = Level.L2,
        dask: str | None = None,
        gpus: int | None = None,
        campaigns: str | Path | None = None,
    ) -> CertifyOptions:
        """The options of `conform.certify`'s keywords, checked in the order
        the suite has always checked them."""
        chosen_backend = _backend(backend)
        chosen_strength = _strength(strength, witnesses)
        _check_seed(seed)
        _check_jobs(jobs)
        chosen_track = _track(track)
        if chosen_track is Track.TENSOR:
            return _tensor_options(cls, chosen_backend, ops, chosen_strength, seed, checks, shard, checkpoint, resume,
                               oracles, jobs, progress, prove, level, dask)
        op_ids = _op_ids(ops, chosen_track)
        _check_dask(dask)
        _check_gpus(gpus)
        kernel = chosen_track is Track.KERNEL
        if kernel and oracles:
            raise PlanError("the kernel track takes no oracles: the CPU reference and the laws are its oracles")
        groups = KERNEL_CHECKS if kernel else tuple(CheckGroup)
        chosen_checks = check_names(checks, groups, " for the kernel track" if kernel else "")
        law_filter = None if laws is None else (laws,) if isinstance(laws, str) else tuple(laws)
        shard_spec = parse_shard(shard)
        timeout = None if kernel else _proof_timeout(prove, prove_timeout, chosen_track)
        aim = Level.L2 if kernel else parse(Level, level, "level", REQUESTABLE_LEVELS, PlanError)
        evidence = _campaigns(campaigns, chosen_track)
        return cls(
            backend=chosen_backend, op_ids=op_ids, strength=chosen_strength, track=chosen_track, seed=seed,
            checks=chosen_checks, laws=law_filter, shard=shard_spec,
            checkpoint=Path(checkpoint) if checkpoint is not None else None, resume=resume,
            corpus=Path(corpus) if corpus is not None and not kernel else None, record=record,
            oracles=dict(oracles or {}), jobs=jobs, progress=progress, prove_timeout=timeout, level=aim, dask=dask,
            gpus=gpus, campaigns=evidence,
        )


def _tensor_options(
    cls: type[CertifyOptions],
    backend: ConformBackend,
    ops: Iterable[str] | str,
    strength: Strength,
    seed: int,
    checks: Iterable[str] | str | None,
    shard: str | tuple[int, int] | None,
    checkpoint: str | Path | None,
    resume: bool,
    oracles: Mapping[str, Callable[..., Any]] | None,
    jobs: int,
    progress: bool | None,
    prove: bool,
    level: str | Level,
    dask: str | None,
) -> CertifyOptions:
    """The options of a tensor-track run: L3 (the elementary ops) or L4 (the
    composites too); no laws, oracles, proofs or regression corpus."""
    aim = parse(Level, level, "level", REQUESTABLE_LEVELS, PlanError)
    aim = Level.L4 if aim is Level.L4 else Level.L3
    if oracles:
        raise PlanError("the tensor track takes no oracles: its independent reference is the oracle")
    if prove:
        raise PlanError("prove=True proves integer ops; the tensor track has no SMT obligations")
    _check_dask(dask)
    return cls(
        backend=backend, op_ids=select_tensor_ops(ops, aim), strength=strength, track=Track.TENSOR, seed=seed,
        checks=check_names(checks, TENSOR_CHECKS, " for the tensor track"), shard=parse_shard(shard),
        checkpoint=Path(checkpoint) if checkpoint is not None else None, resume=resume, corpus=None,
        jobs=jobs, progress=progress, level=aim, dask=dask,
    )


def _backend(value: object) -> ConformBackend:
    backend = backend_named(value) if isinstance(value, str) else value
    if not isinstance(backend, ConformBackend):
        raise TypeError(f"backend must be a name or a ConformBackend, got {type(value).__name__}")
    return backend


def _strength(value: object, witnesses: object) -> Strength:
    strength = strength_named(value)
    if witnesses is None:
        return strength
    if isinstance(witnesses, bool) or not isinstance(witnesses, int) or witnesses < 0:
        raise PlanError(f"witnesses must be a non-negative int, got {witnesses!r}")
    return strength.with_witnesses(witnesses)


def _check_seed(seed: object) -> None:
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise PlanError(f"seed must be an int in [0, 2**64), got {seed!r}")


def _check_jobs(jobs: object) -> None:
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise PlanError(f"jobs must be a positive int, got {jobs!r}")


def _track(value: object) -> Track:
    for track in Track:
        if isinstance(value, str) and value == track.value:
            return track
    raise PlanError(f"unknown track {value!r}; choose one of: {', '.join(Track)}")


def _op_ids(patterns: Iterable[str] | str, track: Track) -> tuple[str, ...]:
    op_ids = tuple(op_id for op_id in select_ops(patterns) if in_track(registry.get(op_id), track))
    if not op_ids:
        raise PlanError(f"no op of the {track} track among the selected ops")
    return op_ids


def _campaigns(value: object, track: Track) -> Path | None:
    if value is None:
        return None
    if not isinstance(value, (str, Path)):
        raise PlanError(f"campaigns must be the path of a float-campaign checkpoint, got {value!r}")
    if track is not Track.FLOAT:
        raise PlanError(f"campaigns are float-campaign evidence for the float track, not the {track} track")
    if not Path(value).is_file():
        raise PlanError(f"campaigns: no float-campaign checkpoint at {str(value)!r}")
    return Path(value)


def _check_dask(dask: object) -> None:
    if dask is not None and (not isinstance(dask, str) or not dask.strip()):
        raise PlanError(f"dask must be a scheduler address or 'local', got {dask!r}")


def _check_gpus(gpus: object) -> None:
    if gpus is not None and (isinstance(gpus, bool) or not isinstance(gpus, int) or gpus < 1):
        raise PlanError(f"gpus must be a positive int (the GPU workers of a local Dask cluster), got {gpus!r}")


def check_names(
    checks: Iterable[str] | str | None, groups: tuple[CheckGroup, ...], where: str = ""
) -> tuple[CheckGroup, ...]:
    """The check groups named by `checks` (a list or a comma-separated string; None: all of `groups`)."""
    if checks is None:
        return groups
    if isinstance(checks, str):
        checks = [c for c in checks.split(",") if c.strip()]
    chosen = [c.strip() for c in checks if c.strip()]
    unknown = [c for c in chosen if c not in groups]
    if unknown or not chosen:
        raise PlanError(f"unknown check(s) {unknown or chosen!r}{where}; choose among: {', '.join(groups)}")
    return tuple(CheckGroup(c) for c in chosen)


def _proof_timeout(prove: object, timeout: object, track: Track) -> float | None:
    if not isinstance(prove, bool):
        raise PlanError(f"prove must be True or False, got {prove!r}")
    if timeout is not None and (
        isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout <= 3600
    ):
        raise PlanError(f"prove_timeout must be a number of seconds in (0, 3600], got {timeout!r}")
    if not prove:
        return None
    if track is not Track.INTEGER:
        raise PlanError(f"prove=True proves integer ops; the {track} track has no SMT obligations")
    return float(cast("float", timeout)) if timeout is not None else DEFAULT_PROVE_TIMEOUT


def parse_shard(value: object) -> tuple[int, int] | None:
    """`"I/N"` or `(I, N)` with 0 <= I < N; None for no sharding."""
    if value is None:
        return None
    if isinstance(value, str):
        parts = value.split("/")
        if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
            raise PlanError(f"shard must be I/N with 0 <= I < N (e.g. 0/4), got {value!r}")
        index, count = int(parts[0]), int(parts[1])
    elif (
        isinstance(value, tuple)
        and len(cast("tuple[object, ...]", value)) == 2
        and all(isinstance(v, int) for v in cast("tuple[object, ...]", value))
    ):
        index, count = cast("tuple[int, int]", value)
    else:
        raise PlanError(f"shard must be I/N or a tuple (I, N), got {value!r}")
    if count < 1 or not 0 <= index < count:
        raise PlanError(f"shard must be I/N with 0 <= I < N, got {index}/{count}")
    return index, count
