"""`vyre-opt`: parse, validate, transform and print vyre IR (xdsl-opt style).

Knows the `builtin`, `vyre` and `vtensor` (the tensor level) dialects and, for modules that mix vyre with
the IR of an embedding compiler (or that `convert-to-vyre` turns into vyre),
xDSL's `arith`, `func`, `scf` and `memref`; the passes of
`vyre.transforms.get_all_passes` (vyre's own and the upstream `canonicalize`,
`cse` and `dce`) and the targets `mlir` and `wgsl` (vyre/targets.py: every
`vyre.kernel` of the module, other ops left alone). `--print-op-generic` prints
the generic form MLIR's own tools read (vyre/dialects/mlir_generic.py:
properties as attributes, standard integer attributes), and both generic forms
parse back. `--version` names vyre's version and xDSL's. Every user error is reported as
`file:line:col: error: message` (or `vyre-opt: error: message`) with exit
status 1 and no Python traceback; `--verify-diagnostics` prints the messages
and exits 0, so that lit tests can check them.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from importlib.metadata import PackageNotFoundError, version
from typing import IO, ClassVar, NoReturn

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Dialect
from xdsl.passes import ModulePass, PassPipeline
from xdsl.utils.exceptions import (
    ArgSpecParseError,
    DiagnosticException,
    ParseError,
)
from xdsl.targets.mlir import MLIRTarget
from xdsl.utils.target import Target
from xdsl.xdsl_opt_main import xDSLOptMain

from vyre.cli.pipes import quiet_on_closed_pipe
from vyre.cli.suggest import suggest_in_errors
from vyre.dialects.mlir_generic import MLIRGenericPrinter
from vyre.ops.admission import AdmissionError
from vyre.targets import WGSLTarget
from vyre.text import LocatingParser, format_parse_error
from vyre.tools.findings import DiagnosticsError, check_module, located, one_line
from vyre.tools.pipeline_names import check_pipeline, check_target
from vyre.transforms import get_all_passes
from vyre.transforms.convert_to_vyre import ConversionError
from vyre.validate import ValidationError


class ToolError(Exception):
    """A user error that ends the run: reported as `vyre-opt: error: ...`."""


def vyre_version() -> str:
    """The installed vyre distribution's version."""
    try:
        return version("vyre")
    except PackageNotFoundError:  # run from a source tree that is not installed
        return "(not installed)"


class VyreOptMain(xDSLOptMain):
    """The vyre modular optimizer driver."""

    version_format: ClassVar[str] = f"vyre-opt {vyre_version()} (xdsl {{xdsl_version}})"
    line_offset: int = 0

    def __init__(self, args: Sequence[str] | None = None):
        try:
            super().__init__("vyre modular optimizer driver", args)
        except (ValueError, ArgSpecParseError, ToolError) as error:
            _fail(f"vyre-opt: error: {error}")

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        suggest_in_errors(arg_parser)  # did you mean ...? for options and -t names
        arg_parser.add_argument(
            "--load-ops",
            action="append",
            default=[],
            metavar="FILE.py",
            help="run a Python file that registers user ops (vyre.ops.register) before"
            " parsing; may be given several times",
        )

    def register_all_dialects(self) -> None:
        for name, factory in get_all_dialects().items():
            self.ctx.register_dialect(name, factory)

    def register_all_frontends(self) -> None:
        def parse(stream: IO[bytes]) -> ModuleOp:
            parser = LocatingParser(
                self.ctx, stream.read(), self.get_input_name(), self.line_offset
            )
            return parser.parse_module(not self.args.no_implicit_module)

        self.available_frontends = {"mlir": parse, "vyre": parse}

    def register_all_passes(self) -> None:
        for name, factory in get_all_passes().items():
            self.register_pass(name, factory)

    def register_all_targets(self) -> None:
        self.available_targets = dict(_targets())

    def get_input_name(self) -> str:
        path = self.args.input_file
        return "<stdin>" if path in (None, "-") else path

    def get_input_stream(self) -> tuple[IO[bytes], str]:
        path = self.args.input_file
        if path in (None, "-"):
            return sys.stdin.buffer, "mlir"
        try:
            stream = open(path, "rb")  # noqa: SIM115 (closed by run)
        except OSError as error:
            raise ToolError(f"cannot read '{path}': {error.strerror}") from None
        extension = os.path.splitext(path)[1].removeprefix(".")
        return stream, extension if extension in self.available_frontends else "mlir"

    def parse_chunk(
        self, chunk: IO[bytes], file_extension: str, start_offset: int = 0
    ) -> ModuleOp | None:
        self.line_offset = start_offset
        return super().parse_chunk(chunk, file_extension, start_offset)

    def setup_pipeline(self) -> None:
        check_pipeline(self.available_passes, self.args.passes)  # did you mean ...?
        check_target(_targets(), self.args.target)
        start = time.perf_counter()

        def callback(
            previous: ModulePass | None, module: ModuleOp, following: ModulePass | None
        ) -> None:
            nonlocal start
            if self.args.time_passes and previous is not None:
                print(f"Pass {previous.name} took {time.perf_counter() - start} seconds")
            if not self.args.disable_verify:
                check_module(module, self.get_input_name())
            if previous and following and self.args.print_between_passes:
                print(f"IR after {previous.name}:\n{module}\n\n\n")
            start = time.perf_counter()

        self.pipeline = PassPipeline.parse_spec(
            self.available_passes, self.args.passes, callback
        )

    def run(self) -> None:
        """Process every chunk; report each error; exit 1 when any chunk failed."""
        failed = False
        try:
            for path in self.args.load_ops:
                load_user_ops(path)
            chunks, extension = self.prepare_input()
            output = self.prepare_output()
        except (ToolError, OSError, ValueError) as error:
            _fail(f"vyre-opt: error: {error}")
        try:
            for index, (chunk, offset) in enumerate(chunks):
                if index > 0:
                    output.write("// -----\n")
                lines = self._process(chunk, extension, offset, output)
                if lines:
                    expected = self.args.verify_diagnostics or self.args.parsing_diagnostics
                    print("\n".join(lines), file=sys.stdout if expected else sys.stderr)
                    failed = failed or not expected
                output.flush()
        except ToolError as error:
            _fail(f"vyre-opt: error: {error}")
        finally:
            if output is not sys.stdout:
                output.close()
        if failed:
            raise SystemExit(1)

    def _process(
        self, chunk: IO[bytes], extension: str, offset: int, output: IO[str]
    ) -> list[str]:
        """Run one chunk; return its error lines (none on success)."""
        try:
            module = self.parse_chunk(chunk, extension, offset)
            if module is not None:
                self.apply_passes(module)
                output.write(self.output_resulting_program(module))
        except ParseError as error:
            error.span = replace(error.span, line_offset=offset)
            return format_parse_error(error).splitlines()
        except RecursionError:
            return [f"{self.get_input_name()}: error: the input is nested too deeply"]
        except DiagnosticsError as error:
            return list(error.lines)
        except ConversionError as error:
            return [located(error.op, self.get_input_name(), error.reason)]
        except DiagnosticException as error:
            return [f"{self.get_input_name()}: error: {one_line(str(error))}"]
        except ValidationError as error:
            name = self.get_input_name()
            return [located(d.op, name, d.message) for d in error.diagnostics]
        except (ValueError, NotImplementedError) as error:
            # raised by a pass or a target on input it cannot handle
            return [f"{self.get_input_name()}: error: {one_line(str(error))}"]
        finally:
            chunk.close()
        return []


# ---------------------------------------------------------------------------
# Dialects and targets
# ---------------------------------------------------------------------------


def get_all_dialects() -> dict[str, Callable[[], Dialect]]:
    """The dialects vyre-opt reads: builtin and vyre, and the standard dialects
    of the programs around vyre kernels (and of convert-to-vyre's input)."""

    def get_arith() -> Dialect:
        from xdsl.dialects.arith import Arith

        return Arith

    def get_builtin() -> Dialect:
        from xdsl.dialects.builtin import Builtin

        return Builtin

    def get_func() -> Dialect:
        from xdsl.dialects.func import Func

        return Func

    def get_memref() -> Dialect:
        from xdsl.dialects.memref import MemRef

        return MemRef

    def get_scf() -> Dialect:
        from xdsl.dialects.scf import Scf

        return Scf

    def get_vyre() -> Dialect:
        from vyre.dialects.vyre import Vyre

        return Vyre

    def get_vtensor() -> Dialect:
        from vyre.dialects.tensor import VTensor

        return VTensor

    return {
        "arith": get_arith,
        "builtin": get_builtin,
        "func": get_func,
        "memref": get_memref,
        "scf": get_scf,
        "vyre": get_vyre,
        "vtensor": get_vtensor,
    }


@dataclass(frozen=True)
class VyreMLIRTarget(MLIRTarget):
    """xDSL's `mlir` target, whose generic form is the one MLIR reads
    (vyre/dialects/mlir_generic.py); the custom form is xDSL's."""

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        if not self.print_generic_format:
            super().emit(ctx, module, output)
            return
        printer = MLIRGenericPrinter(stream=output, print_debuginfo=self.print_debuginfo)
        printer.print_op(module)
        printer.print_metadata(ctx.loaded_dialects)
        print("\n", file=output)


def _mlir_target() -> type[Target]:
    return VyreMLIRTarget


def _wgsl_target() -> type[Target]:
    return WGSLTarget


def _targets() -> dict[str, Callable[[], type[Target]]]:
    return {"mlir": _mlir_target, "wgsl": _wgsl_target}


# ---------------------------------------------------------------------------
# Verification with located diagnostics
# ---------------------------------------------------------------------------


def load_user_ops(path: str) -> None:
    """Run the Python file `path`, which registers user ops with `vyre.ops.register`."""
    try:
        source = Path(path).read_text()
    except OSError as error:
        raise ToolError(f"cannot read --load-ops file '{path}': {error.strerror}") from None
    try:
        exec(compile(source, path, "exec"), {"__name__": "__vyre_user_ops__", "__file__": path})  # noqa: S102
    except AdmissionError as error:
        raise ToolError(f"--load-ops {path}: {error}") from None
    except Exception as error:  # noqa: BLE001 - a user file's failure is reported, not raised
        raise ToolError(f"--load-ops {path} failed: {type(error).__name__}: {error}") from None


def _fail(message: str) -> NoReturn:
    print(message, file=sys.stderr)
    raise SystemExit(1)


@quiet_on_closed_pipe
def main(argv: Sequence[str] | None = None) -> None:
    VyreOptMain(args=argv).run()


if __name__ == "__main__":
    main()
