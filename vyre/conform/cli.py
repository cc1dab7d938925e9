"""`vyre-conform`: the command line of the conformance proof system.

    vyre-conform certify --backend wgpu --ops 'primitive.*' --strength standard \\
        --out cert.json [--shard I/N] [--resume]
    vyre-conform merge a.json b.json --out c.json
    vyre-conform verify-cert cert.json
    vyre-conform floats --ops add,mul --formats f16,bf16 --checkpoint floats.jsonl [--shard I/N]
    vyre-conform floats --ops fma --formats f32 --space adversarial --count 1000000000
    vyre-conform floats --ops exp2 --checkpoint floats.jsonl --dask [--gpus N] [--range FIRST:COUNT]
    vyre-conform floats --ops exp2 --save-truth truth.jsonl   # the oracle's checksums, stored
    vyre-conform floats --ops exp2 --truth truth.jsonl [--dask]    # a device against them
    vyre-conform floats-summary floats.jsonl
    vyre-conform approximate [--ops fsin_approx,fcos_approx] [--range FIRST:COUNT]

Exit status: 0 when everything passed, 1 when a violation was found (or a
certificate does not verify), 2 for bad arguments or errors, 130 when
interrupted (a certify run can then continue with --resume).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vyre.cli.pipes import quiet_on_closed_pipe
from vyre.conform.interrupt import interrupted, watching
from vyre.cli.suggest import ArgumentParser
from vyre.conform.cluster import LOCAL
from vyre.progress import report_to

if TYPE_CHECKING:
    from collections.abc import Callable

    from vyre.conform.float_campaign import Campaign, ChunkResult
    from vyre.conform.float_truth import Truth, TruthRecord

    TruthUse = tuple[Truth | None, Callable[[TruthRecord], None] | None]

__all__ = ["main"]

EXIT_OK = 0
EXIT_VIOLATION = 1
EXIT_ERROR = 2
EXIT_INTERRUPTED = 130

BACKEND_HELP = "wgpu: the GPU (needs vyre[gpu]); interp: the reference interpreter (default: wgpu)"
GPUS_HELP = (
    "with --dask on this host: N GPU workers, worker k on VYRE_ADAPTER=gpu:(k mod GPUs) (default: one per"
    " GPU; one on a host whose only adapter is a CPU one, such as lavapipe)"
)


def _parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(prog="vyre-conform", description="The vyre conformance proof system.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=ArgumentParser)
    _certify_parser(commands)

    merge = commands.add_parser("merge", help="merge shard certificates into one")
    merge.add_argument("shards", nargs="+", type=Path, help="the shard certificates (--shard I/N runs)")
    merge.add_argument("--out", type=Path, required=True, help="write the merged certificate here")
    merge.add_argument("--quiet", action="store_true", help="do not print the report")

    verify = commands.add_parser("verify-cert", help="check a certificate's digest and registry hash")
    verify.add_argument("certificate", type=Path, help="a certificate (JSON)")
    _float_parsers(commands)
    return parser


def _certify_parser(commands: argparse._SubParsersAction[ArgumentParser]) -> None:  # pyright: ignore[reportPrivateUsage]
    from vyre.conform.plan import CHECK_GROUPS
    from vyre.conform.strength import STRENGTHS

    certify = commands.add_parser("certify", help="run the proof suite and issue a certificate")
    certify.add_argument("--backend", default="wgpu", choices=("interp", "wgpu"), help=BACKEND_HELP)
    certify.add_argument(
        "--ops", action="append", metavar="PATTERN",
        help="op ids or globs, comma-separated or repeated (default: primitive.*, primitive.float.*"
        " on the float track, every kernel op on the kernel track, tensor.* on the tensor track)",
    )
    certify.add_argument(
        "--strength", default="standard", choices=tuple(STRENGTHS),
        help="witnesses per law: fast 1e4, standard 1e6, legendary 1e8 (default: standard)",
    )
    certify.add_argument(
        "--track", default="integer", choices=("integer", "float", "kernel", "tensor"),
        help="integer: u32 ops, levels L1/L2; float: strict F32 ops, levels L1f/L2f;"
        " kernel: kernel ops (reductions, scans, ...), levels L1k/L2k; tensor: vyre.tensor graphs,"
        " levels L3f (its ops) and L4f (--level L4: the composites and a transformer block)"
        " (default: integer)",
    )
    certify.add_argument("--out", type=Path, help="write the JSON certificate here")
    certify.add_argument("--shard", metavar="I/N", help="run shard I of N (0-based); merge them later")
    certify.add_argument("--resume", action="store_true", help="continue from the checkpoint file")
    certify.add_argument(
        "--checkpoint", type=Path, help="checkpoint file (default: OUT.checkpoint.jsonl)"
    )
    certify.add_argument("--seed", type=_int, help="base seed (default: the suite's fixed seed)")
    certify.add_argument("--witnesses", type=_int, help="override the witness count of the strength")
    certify.add_argument(
        "--checks", help=f"comma-separated subset of: {', '.join(CHECK_GROUPS)}"
    )
    certify.add_argument("--laws", help="comma-separated law names to check (default: all declared)")
    certify.add_argument(
        "--corpus", type=Path, metavar="DIR",
        help="the folder of the regression corpus (its regressions.jsonl, replayed and appended to,"
        " and its lock file; default: the user's cache, $VYRE_CACHE_DIR/conform, else"
        " $XDG_CACHE_HOME/vyre/conform or ~/.cache/vyre/conform); the counterexamples shipped with"
        " vyre are replayed too",
    )
    certify.add_argument("--no-corpus", action="store_true", help="replay and record no regression corpus")
    certify.add_argument(
        "--no-record", action="store_true", help="do not append new counterexamples to the corpus"
    )
    certify.add_argument("--jobs", type=_int, default=1, help="worker processes (interp backend; default: 1)")
    certify.add_argument(
        "--prove", action="store_true",
        help="prove every integer op's composition and declared laws for all inputs (SMT: z3, cvc5)",
    )
    certify.add_argument(
        "--dask", metavar="SCHEDULER", nargs="?", const=LOCAL,
        help="run the units on a Dask cluster (pip install 'vyre[dask]'): a scheduler address, or none"
        f" (or '{LOCAL}') for a cluster of this host: with --backend wgpu one worker per GPU, each on its"
        " own GPU (VYRE_ADAPTER=gpu:k), with interp --jobs workers",
    )
    certify.add_argument("--gpus", type=_int, metavar="N", help=GPUS_HELP)
    certify.add_argument(
        "--level", default="L2", choices=("L1", "L2", "L3", "L4"),
        help="L1 composition, L2 adds the laws; L3 adds the engine invariants over generated programs;"
        " L4 compositional proofs and perf baselines (default: L2)",
    )
    certify.add_argument(
        "--prove-timeout", type=float, metavar="S", help="seconds per solver attempt (default 10)"
    )
    certify.add_argument(
        "--campaigns", type=Path, metavar="FILE",
        help="float track: a float-campaign checkpoint (vyre-conform floats --laws); the float laws of"
        " the functions it covers completely on this backend's device are certified for every input",
    )
    progress = certify.add_mutually_exclusive_group()
    progress.add_argument(
        "--progress", dest="progress", action="store_const", const=True,
        help="show a progress bar on stderr (default: when stderr is a terminal)",
    )
    progress.add_argument(
        "--no-progress", dest="progress", action="store_const", const=False, help="show no progress bar"
    )
    certify.add_argument("--quiet", action="store_true", help="do not print the report")


def _float_parsers(commands: argparse._SubParsersAction[ArgumentParser]) -> None:  # pyright: ignore[reportPrivateUsage]
    from vyre.dialects.vyre import APPROXIMATE_OPS

    floats = commands.add_parser(
        "floats", help="float campaigns: strict float ops over whole input spaces (L1f)"
    )
    floats.add_argument(
        "--ops", action="append", required=True, metavar="OPS",
        help="comma-separated campaign ops: add, sub, mul, div, fma, sqrt, ..., to_f16, from_u32, ...",
    )
    floats.add_argument("--formats", default="f32", help="comma-separated: f32, f16, bf16 (default: f32)")
    floats.add_argument(
        "--space", default="exhaustive", choices=("exhaustive", "adversarial"),
        help="every input of the format, or --count adversarial ones (default: exhaustive)",
    )
    floats.add_argument("--count", type=_int, default=0, help="inputs of an adversarial space (default: 0)")
    floats.add_argument("--seed", type=_int, default=1, help="seed of an adversarial space (default: 1)")
    floats.add_argument("--backend", default="wgpu", choices=("interp", "wgpu"), help=BACKEND_HELP)
    floats.add_argument("--checkpoint", type=Path, help="append-only JSONL of finished chunks")
    floats.add_argument("--shard", metavar="I/N", help="run shard I of N (0-based)")
    floats.add_argument(
        "--range", metavar="FIRST:COUNT", type=_range,
        help="only the chunks (2**24 inputs each) that meet these inputs (hex or decimal; default: all)",
    )
    floats.add_argument(
        "--jobs", type=_int, default=0,
        help="oracle processes (default 0: all cores; with --dask, per GPU worker, 0: the host's cores"
        " shared among its workers; with --dask and interp, the workers, 0: 2)",
    )
    floats.add_argument(
        "--dask", metavar="SCHEDULER", nargs="?", const=LOCAL,
        help="spread the chunks over a Dask cluster (pip install 'vyre[dask]'): a scheduler address, or"
        f" none (or '{LOCAL}') for one worker per GPU of this host, each on its own GPU (VYRE_ADAPTER=gpu:k)",
    )
    floats.add_argument("--gpus", type=_int, metavar="N", help=GPUS_HELP)
    floats.add_argument(
        "--truth", type=Path, metavar="FILE",
        help="take each chunk's expected checksum from this truth file (--save-truth writes one) instead of"
        " computing the exact oracle on the host; a chunk the file lacks is computed by the oracle, and a"
        " chunk whose checksum differs is diffed against the oracle as without it; a file of another"
        " campaign or checksum scheme is refused (default: none, the oracle computes every chunk)",
    )
    floats.add_argument(
        "--save-truth", type=Path, metavar="FILE",
        help="append the oracle's checksum of every chunk this run computes to this truth file, created"
        " when missing; with --truth FILE too, the file gains the chunks it lacked (default: none)",
    )
    floats.add_argument("--quiet", action="store_true", help="do not print a line per chunk")
    laws = floats.add_mutually_exclusive_group()
    laws.add_argument(
        "--laws", action="store_const", const="also", dest="laws",
        help="also check each f32 function's declared float laws over every input on the exact oracle"
        " (campaign f32.OP.laws, host work; what certify --campaigns reads)",
    )
    laws.add_argument(
        "--laws-only", action="store_const", const="only", dest="laws",
        help="only the law campaigns (no device needed)",
    )

    approximate = commands.add_parser(
        "approximate", help="approximate float ops within their declared error bounds (L1a)"
    )
    approximate.add_argument(
        "--ops", default=",".join(op.SHORT_NAME for op in APPROXIMATE_OPS), metavar="OPS",
        help="comma-separated: fsqrt_approx, fexp2_approx, flog2_approx, fsin_approx, fcos_approx"
        " (the IR's vyre.fsqrt_approx... too; default: all)",
    )
    approximate.add_argument("--backend", default="wgpu", choices=("interp", "wgpu"), help=BACKEND_HELP)
    approximate.add_argument(
        "--range", action="append", metavar="FIRST:COUNT", type=_range,
        help="F32 patterns to run (hex or decimal; default: all 2**32)",
    )

    floats_summary = commands.add_parser("floats-summary", help="summarise a float-campaign checkpoint")
    floats_summary.add_argument("checkpoint", type=Path, help="a --checkpoint file of vyre-conform floats")


def _int(text: str) -> int:
    try:
        return int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None


def _range(text: str) -> tuple[int, int]:
    first, colon, count = text.partition(":")
    try:
        return int(first, 0), int(count, 0)
    except ValueError:
        if not colon:
            raise argparse.ArgumentTypeError(f"expected FIRST:COUNT, got {text!r}") from None
        raise argparse.ArgumentTypeError(f"expected integers in FIRST:COUNT, got {text!r}") from None


def _split(values: Sequence[str] | str | None) -> list[str] | None:
    if values is None:
        return None
    if isinstance(values, str):
        values = [values]
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


def _certify(args: argparse.Namespace) -> int:
    from vyre.conform.corpus import corpus_file, user_corpus_dir
    from vyre.conform.options import CertifyOptions
    from vyre.conform.suite import DEFAULT_SEED, certify_with
    from vyre.ops.registry import kernel_op_ids

    default_ops = {  # what a track certifies when --ops is not given
        "integer": ["primitive.*"],
        "float": ["primitive.float.*"],
        "kernel": list(kernel_op_ids()),
        "tensor": ["tensor.*"],
    }

    checkpoint = args.checkpoint
    if checkpoint is None and args.out is not None:
        checkpoint = args.out.with_name(args.out.name + ".checkpoint.jsonl")
    if args.resume and checkpoint is None:
        print("vyre-conform: error: --resume needs --out or --checkpoint", file=sys.stderr)
        return EXIT_ERROR
    corpus = None if args.no_corpus else corpus_file(args.corpus or user_corpus_dir())
    started = time.monotonic()
    options = CertifyOptions.parse(
        backend=args.backend,
        ops=_split(args.ops) or default_ops[args.track],
        strength=args.strength,
        seed=DEFAULT_SEED if args.seed is None else args.seed,
        witnesses=args.witnesses,
        checks=_split(args.checks),
        laws=_split(args.laws),
        shard=args.shard,
        checkpoint=checkpoint,
        resume=args.resume,
        corpus=corpus,
        record=not args.no_record and corpus is not None,
        jobs=args.jobs,
        progress=args.progress,
        track=args.track,
        prove=args.prove,
        prove_timeout=args.prove_timeout,
        level=args.level,
        dask=args.dask,
        gpus=args.gpus,
        campaigns=args.campaigns,
    )
    # the checkpoint stays until the certificate is on disk: a failed write
    # leaves the run to --resume
    cert = certify_with(dataclasses.replace(options, keep_checkpoint=True), started)
    if interrupted():  # an interrupt some code turned into an exception: not a finding
        raise KeyboardInterrupt
    if args.out is not None:
        cert.write(args.out)
    if checkpoint is not None:
        checkpoint.unlink(missing_ok=True)
    if not args.quiet:
        print(cert.to_human())
        if cert.partial:
            shard = cert.data["shard"]
            print(f"(shard {shard['index']}/{shard['count']}: merge all shards for the certificate)")
        if args.out is not None:
            print(f"certificate written to {args.out}")
    return EXIT_OK if cert.passed else EXIT_VIOLATION


def _merge(args: argparse.Namespace) -> int:
    from vyre.conform import load_certificate, merge

    cert = merge([load_certificate(path) for path in args.shards])
    cert.write(args.out)
    if not args.quiet:
        print(cert.to_human())
        print(f"certificate written to {args.out}")
    return EXIT_OK if cert.passed else EXIT_VIOLATION


def _verify(args: argparse.Namespace) -> int:
    from vyre.conform import load_certificate, verify_certificate

    cert = load_certificate(args.certificate)
    if cert.partial:
        print(f"{args.certificate}: a shard certificate; merge the shards first", file=sys.stderr)
        return EXIT_VIOLATION
    problems = verify_certificate(cert)
    if problems:
        for problem in problems:
            print(f"{args.certificate}: REJECTED: {problem}", file=sys.stderr)
        return EXIT_VIOLATION
    print(
        f"{args.certificate}: OK — level {cert.level} on {cert.data['backend'].get('id')},"
        f" content digest and registry hash verified"
    )
    return EXIT_OK


def _shard(text: str | None) -> tuple[int, int]:
    if text is None:
        return (0, 1)
    try:
        index, count = (int(part) for part in text.split("/"))
    except ValueError:
        raise ValueError(f"--shard expects I/N, got {text!r}") from None
    if not 0 <= index < count:
        raise ValueError(f"--shard I/N needs 0 <= I < N, got {text!r}")
    return (index, count)


def _floats(args: argparse.Namespace) -> int:
    from vyre.conform.float_campaign import Campaign

    campaigns = [
        Campaign(op, fmt, args.space, args.count, args.seed)
        for fmt in _split(args.formats) or ["f32"]
        for op in _split(args.ops) or []
    ]
    if args.laws is not None and (args.space != "exhaustive" or any(c.fmt != "f32" for c in campaigns)):
        print("vyre-conform: error: --laws and --laws-only are for f32 exhaustive campaigns", file=sys.stderr)
        return EXIT_ERROR
    if args.laws == "only":
        if args.truth is not None or args.save_truth is not None:
            print("vyre-conform: error: --truth and --save-truth are for device campaigns, not --laws-only",
                  file=sys.stderr)
            return EXIT_ERROR
        return _law_campaigns(args, [c.op for c in campaigns])
    truths = _truths(args, campaigns)
    if args.dask:
        mismatches = _floats_on_dask(args, campaigns, truths)
    else:
        mismatches = _floats_here(args, campaigns, truths)
    if args.laws == "also" and _law_campaigns(args, [c.op for c in campaigns]) != EXIT_OK:
        return EXIT_VIOLATION
    return EXIT_OK if mismatches == 0 else EXIT_VIOLATION


def _truths(args: argparse.Namespace, campaigns: Sequence[Campaign]) -> dict[str, TruthUse]:
    """Per campaign: its truth (--truth) and where the oracle's checksums go
    (--save-truth), each file checked before any campaign runs."""
    from vyre.conform.float_campaign import oracle_description, truth_identity
    from vyre.conform.float_truth import TruthWriter, load_truth

    read, saved = args.truth, args.save_truth
    building = read is not None and saved is not None and Path(read).resolve() == Path(saved).resolve()
    uses: dict[str, TruthUse] = {}
    for campaign in campaigns:
        identity = truth_identity(campaign)
        truth = None if args.truth is None else load_truth(args.truth, identity, building=building)
        writer = None
        if args.save_truth is not None:
            writer = TruthWriter(args.save_truth, identity, oracle_description(campaign))
        if truth is not None and not args.quiet:
            print(f"truth {args.truth}: {truth.describe()}", flush=True)
        uses[campaign.name] = (truth, None if writer is None else writer.add)
    return uses


def _report_chunk(args: argparse.Namespace, result: ChunkResult) -> None:
    if not args.quiet:
        print(
            f"{result.campaign} [{result.start:#x}, +{result.length:#x}):"
            f" {result.mismatches} mismatches, {result.seconds:.2f} s",
            flush=True,
        )


def _report_mismatches(campaign: Campaign, first: Sequence[Sequence[int]]) -> None:
    for row in first:
        print(f"  MISMATCH {campaign.name}: inputs {[hex(v) for v in row[:-2]]} got"
              f" {row[-2]:#x} want {row[-1]:#x}", file=sys.stderr)


def _floats_here(args: argparse.Namespace, campaigns: Sequence[Campaign], truths: dict[str, TruthUse]) -> int:
    from vyre.conform.float_campaign import run_campaign

    mismatches = 0
    for campaign in campaigns:
        truth, save_truth = truths[campaign.name]
        for result in run_campaign(
            campaign, args.backend, checkpoint=args.checkpoint, shard=_shard(args.shard), span=args.range,
            jobs=args.jobs or None, progress=lambda result: _report_chunk(args, result),
            truth=truth, save_truth=save_truth,
        ):
            mismatches += result.mismatches
            _report_mismatches(campaign, result.first)
    return mismatches


def _floats_on_dask(args: argparse.Namespace, campaigns: Sequence[Campaign], truths: dict[str, TruthUse]) -> int:
    from vyre.conform.float_campaign import ChunkResult
    from vyre.conform.float_dask import campaign_client, describe_workers, run_all_on_cluster

    def progress(record: dict[str, Any]) -> None:
        _report_chunk(args, ChunkResult(**{key: record[key] for key in ChunkResult.__dataclass_fields__ if key in record}))

    mismatches = 0
    with campaign_client(args.backend, args.dask, args.jobs, args.gpus) as client:
        if not args.quiet and args.backend != "interp":  # each GPU worker and its adapter
            for line in describe_workers(client):
                print(f"worker {line}", flush=True)
        runs = run_all_on_cluster(
            client, campaigns, args.backend, checkpoint=args.checkpoint, jobs=args.jobs,
            shard=_shard(args.shard), span=args.range, progress=progress, truths=truths,
        )  # fmt: skip
        for campaign in campaigns:
            for record in runs[campaign.name]:
                mismatches += int(record["mismatches"])
                _report_mismatches(campaign, record["first"])
    return mismatches


def _law_campaigns(args: argparse.Namespace, op_names: Sequence[str]) -> int:
    """The float law campaign of each op (`float_law_campaign`)."""
    from vyre.conform.float_law_campaign import checked_laws, run_law_campaign

    violations = 0
    for op in op_names:
        laws = dict(checked_laws(op))
        for result in run_law_campaign(
            op, checkpoint=args.checkpoint, shard=_shard(args.shard), span=args.range, jobs=args.jobs or None,
        ):
            violations += result.mismatches
            if not args.quiet:
                print(f"{result.campaign} [{result.start:#x}, +{result.length:#x}):"
                      f" {result.mismatches} violations, {result.seconds:.2f} s", flush=True)
            for a, index, value in result.first:
                print(f"  VIOLATION {result.campaign}: {laws[index]} at input {a:#010x},"
                      f" f(input) = {value:#010x}", file=sys.stderr)
    return EXIT_OK if violations == 0 else EXIT_VIOLATION


def _approximate(args: argparse.Namespace) -> int:
    from vyre.conform.approximate import APPROXIMATE, approximate_op, check_approximate, describe

    ranges: tuple[tuple[int, int], ...] = tuple(args.range or [(0, 1 << 32)])
    ops = [approximate_op(op) for op in _split(args.ops) or []]
    for first, count in ranges:
        if count <= 0 or first < 0 or first + count > 1 << 32:
            raise ValueError(f"--range {first:#x}:{count} must hold at least one pattern within 0..2**32")
    print("| op | tolerance | inputs judged | outside the domain | violations | max ulp | max absolute |")
    print("|---|---|---|---|---|---|---|")
    failed = False
    for op in ops:
        report = check_approximate(op, args.backend, ranges=ranges)
        bound = describe(APPROXIMATE[op].TOLERANCE)
        print(f"| {op} | {bound} | {report.checked:,} | {report.outside:,} | {report.violations}"
              f" | {report.max_ulp} | {report.max_absolute:.3g} |")
        for x, got, exact in report.first:
            print(f"  VIOLATION {op}({x:#010x}) = {got:#010x}, exact {exact:#010x}", file=sys.stderr)
        if report.checked == 0:
            print(f"  {op}: no input of the ranges lies in its domain; nothing was judged", file=sys.stderr)
        failed = failed or not report.passed
    print("level L1a (approximate track)" if not failed else "level none: an op exceeded its bound or judged nothing")
    return EXIT_VIOLATION if failed else EXIT_OK


def _floats_summary(args: argparse.Namespace) -> int:
    from vyre.conform.float_campaign import summary

    totals = summary(args.checkpoint)
    print("| campaign | inputs | mismatches | chunks | seconds |")
    print("|---|---|---|---|---|")
    for name, row in sorted(totals.items()):
        print(f"| {name} | {row['inputs']:,} | {row['mismatches']} | {row['chunks']} | {row['seconds']:.1f} |")
    return EXIT_OK if all(row["mismatches"] == 0 for row in totals.values()) else EXIT_VIOLATION


@quiet_on_closed_pipe
def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_ERROR
    from vyre.conform.certificate import CertificateError
    from vyre.conform.corpus import CorpusError
    from vyre.conform.independence import IndependenceError
    from vyre.conform.plan import PlanError

    handler = {
        "certify": _certify,
        "merge": _merge,
        "verify-cert": _verify,
        "floats": _floats,
        "approximate": _approximate,
        "floats-summary": _floats_summary,
    }[args.command]
    previous = report_to(sys.stderr)  # long compiles say what they are doing
    try:
        with watching():
            return handler(args)
    except KeyboardInterrupt:
        again = (
            "rerun the same command to continue (it skips them)"
            if args.command == "floats"
            else "continue with --resume"
        )
        print(
            f"\nvyre-conform: interrupted; finished units are in the checkpoint file, {again}",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        raise  # a closed stdout ends the run quietly (quiet_on_closed_pipe)
    except (PlanError, CertificateError, CorpusError, IndependenceError, ValueError, OSError) as error:
        print(f"vyre-conform: error: {error}", file=sys.stderr)
        return EXIT_ERROR
    except RuntimeError as error:
        print(f"vyre-conform: error: {error}", file=sys.stderr)
        return EXIT_ERROR
    finally:
        report_to(previous)


if __name__ == "__main__":
    sys.exit(main())
