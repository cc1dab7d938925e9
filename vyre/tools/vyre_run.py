"""vyre-run: run a vyre kernel file on numpy inputs.

    vyre-run k.mlir --input a=a.npy --input b=b.npy --output out=1024 \\
        --dispatch 16,1,1 [--backend wgpu|interp] [--save out=out.npy] [--print]
        [--kernel NAME] [--load-ops FILE.py] [--interp-budget UNITS|unlimited]
    vyre-opt k.mlir -p inline-calls | vyre-run - --dispatch 16 ...

Parses the kernel (the dialect's textual form; `-` reads standard input),
validates it, runs it through `vyre.run` and prints the final contents of the
read_write buffers (numpy's printing, long arrays summarised) or saves them as
.npy files. Every read_write buffer not saved with --save is printed; --print
prints all. A module of several kernels (or a mixed module, whose host ops are
left alone) runs the kernel --kernel names (vyre/tools/kernel_file.py);
--load-ops registers user ops first, as vyre-opt's does.

Inputs are .npy files; a `Bytes` buffer may also be given a raw file (any
other extension), read as its bytes. --output NAME=COUNT sizes a read_write
buffer that has no input (COUNT elements; bytes for a `Bytes` buffer).
--dispatch takes 1 to 3 workgroup counts (missing ones are 1). The interp
backend refuses work beyond its budget (vyre/runtime/interp/budget.py); set it
with --interp-budget or VYRE_INTERP_BUDGET.

Exit status: 0 success; 1 the kernel does not parse or is invalid (messages
on stderr, with file:line:col); 2 bad command line or input files; 3 the
backend failed (for instance, no Vulkan adapter).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from vyre.cli.pipes import quiet_on_closed_pipe
from vyre.cli.suggest import ArgumentParser
from vyre.ir import DataType
from vyre.progress import report_to
from vyre.runtime.api import BACKENDS, run
from vyre.runtime.interp.budget import DEFAULT_BUDGET, ENV_VAR, resolve_budget
from vyre.tools.kernel_file import KernelFileError, UnreadableKernelFile, load_kernel
from vyre.tools.vyre_opt import ToolError, load_user_ops

EXIT_INVALID = 1
EXIT_USAGE = 2
EXIT_BACKEND = 3


class UsageError(Exception):
    """A bad command line or input file: printed, exit status 2."""


def _split_pair(option: str, value: str) -> tuple[str, str]:
    name, sep, rest = value.partition("=")
    if not sep or not name or not rest:
        raise UsageError(f"{option} expects NAME=VALUE, got {value!r}")
    return name, rest


def _load_input(name: str, path: str, dtype: DataType | None) -> object:
    file = Path(path)
    if file.suffix != ".npy":
        if dtype is not DataType.BYTES:
            raise UsageError(
                f"input `{name}`: {path} is not a .npy file (raw files are read only "
                "for bytes buffers)"
            )
        try:
            return file.read_bytes()
        except OSError as error:
            raise UsageError(f"input `{name}`: cannot read {path}: {error}") from None
    try:
        return np.load(file, allow_pickle=False)
    except (OSError, ValueError, EOFError) as error:
        raise UsageError(f"input `{name}`: cannot load {path}: {error}") from None


def _parse_dispatch(value: str) -> tuple[int, int, int]:
    try:
        counts = [int(part) for part in value.split(",")]
    except ValueError:
        counts = []
    if not 1 <= len(counts) <= 3 or min(counts) < 1:
        raise UsageError(f"--dispatch expects 1 to 3 positive integers X[,Y[,Z]], got {value!r}")
    x, y, z = counts + [1] * (3 - len(counts))
    return (x, y, z)


def _parse_count(name: str, value: str) -> int:
    try:
        count = int(value)
    except ValueError:
        raise UsageError(f"--output {name}: the size must be an integer, got {value!r}") from None
    if count < 0:
        raise UsageError(f"--output {name}: the size must not be negative, got {count}")
    return count


def _argument_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog="vyre-run",
        description="Run a vyre kernel file on numpy inputs and print or save its outputs.",
        epilog="exit status: 0 ok, 1 invalid kernel, 2 bad arguments, 3 backend failure",
    )
    parser.add_argument(
        "kernel", help="kernel file in vyre's textual form (.mlir), or - for standard input"
    )
    parser.add_argument(
        "--kernel", dest="kernel_name", metavar="NAME",
        help="the kernel to run when the module holds several (default: the module's only one)",
    )
    parser.add_argument(
        "--input", action="append", default=[], metavar="NAME=FILE",
        help="initial content of a buffer (.npy; a raw file for a bytes buffer)",
    )
    parser.add_argument(
        "--output", action="append", default=[], metavar="NAME=COUNT",
        help="element count of a read_write buffer with no input (bytes for bytes buffers)",
    )
    parser.add_argument(
        "--dispatch", required=True, metavar="X[,Y[,Z]]", help="workgroup counts",
    )
    parser.add_argument(
        "--backend", choices=sorted(BACKENDS), default="wgpu",
        help="wgpu: the GPU (needs vyre[gpu]: pip install 'vyre[gpu]'); interp: the reference"
        " interpreter, always there (default: wgpu)",
    )
    parser.add_argument(
        "--interp-budget", metavar="UNITS|unlimited",
        help=f"work budget of the interp backend (default: ${ENV_VAR}, else {DEFAULT_BUDGET:.2g}"
        " units, about 15 s); more work is refused",
    )
    parser.add_argument(
        "--save", action="append", default=[], metavar="NAME=FILE.npy",
        help="save a read_write buffer's final content as .npy",
    )
    parser.add_argument(
        "--print", action="store_true", dest="print_all",
        help="print every read_write buffer, saved ones included",
    )
    parser.add_argument(
        "--load-ops", action="append", default=[], metavar="FILE.py",
        help="run a Python file that registers user ops (vyre.ops.register) before parsing;"
        " may be given several times",
    )
    return parser


def _execute(args: argparse.Namespace) -> int:
    dispatch = _parse_dispatch(args.dispatch)
    if args.interp_budget is not None:
        os.environ[ENV_VAR] = args.interp_budget
        try:
            resolve_budget(None)
        except ValueError as error:
            raise UsageError(f"--interp-budget: {error}") from None
    try:
        for path in args.load_ops:
            load_user_ops(path)
        program = load_kernel(args.kernel, args.kernel_name)
    except (ToolError, UnreadableKernelFile) as error:
        raise UsageError(str(error)) from None
    except KernelFileError as error:
        print("\n".join(error.lines), file=sys.stderr)
        return EXIT_INVALID

    types = {decl.name: decl.dtype for decl in program.buffers}
    inputs: dict[str, object] = {}
    for value in args.input:
        name, path = _split_pair("--input", value)
        inputs[name] = _load_input(name, path, types.get(name))
    outputs: dict[str, int] = {}
    for value in args.output:
        name, count = _split_pair("--output", value)
        outputs[name] = _parse_count(name, count)
    saves: dict[str, str] = {}
    for value in args.save:
        name, path = _split_pair("--save", value)
        saves[name] = path

    try:
        results = run(program, inputs, dispatch=dispatch, outputs=outputs, backend=args.backend)
    except (ValueError, TypeError) as error:
        raise UsageError(str(error)) from None
    except Exception as error:  # noqa: BLE001 - a backend failure is reported, not raised
        hint = " (--backend interp runs the reference interpreter)" if args.backend == "wgpu" else ""
        print(f"vyre-run: backend {args.backend} failed: {error}{hint}", file=sys.stderr)
        return EXIT_BACKEND

    unknown = [name for name in saves if name not in results]
    if unknown:
        raise UsageError(
            f"--save names {', '.join(f'`{n}`' for n in unknown)}, not read_write buffers "
            f"(have: {', '.join(f'`{n}`' for n in results) or 'none'})"
        )
    for name, path in saves.items():
        try:
            np.save(path, results[name], allow_pickle=False)
        except OSError as error:
            raise UsageError(f"--save {name}: cannot write {path}: {error}") from None
    for name, array in results.items():
        if args.print_all or name not in saves:
            print(f"{name} = {np.array2string(array, prefix=f'{name} = ')}")
    return 0


@quiet_on_closed_pipe
def main(argv: Sequence[str] | None = None) -> int:
    args = _argument_parser().parse_args(argv)
    previous = report_to(sys.stderr)  # long compiles say what they are doing
    try:
        return _execute(args)
    except UsageError as error:
        print(f"vyre-run: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    finally:
        report_to(previous)


if __name__ == "__main__":
    sys.exit(main())
