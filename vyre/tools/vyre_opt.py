"""`vyre-opt`: parse, validate, transform and print vyre IR (xdsl-opt style).

Knows only the `builtin` and `vyre` dialects, the passes of
`vyre.transforms.get_all_passes` (vyre's own and the upstream `canonicalize`,
`cse` and `dce`) and the targets `mlir` and `wgsl`. Every user error is reported as
`file:line:col: error: message` (or `vyre-opt: error: message`) with exit
status 1 and no Python traceback; `--verify-diagnostics` prints the messages
and exits 0, so that lit tests can check them.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import IO, NoReturn

from xdsl.dialects.builtin import FileLineColLoc, ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass, PassPipeline
from xdsl.utils.exceptions import (
    ArgSpecParseError,
    DiagnosticException,
    ParseError,
    VerifyException,
)
from xdsl.utils.target import Target
from xdsl.xdsl_opt_main import xDSLOptMain

from vyre.dialects.vyre import KernelOp
from vyre.ops.admission import AdmissionError
from vyre.targets import WGSLTarget
from vyre.text import LocatingParser, format_parse_error
from vyre.transforms import get_all_passes
from vyre.validate import ValidationError, validate


class ToolError(Exception):
    """A user error that ends the run: reported as `vyre-opt: error: ...`."""


class DiagnosticsError(DiagnosticException):
    """Located findings of verification or validation, one line each."""

    def __init__(self, lines: Sequence[str]):
        super().__init__("\n".join(lines))
        self.lines = tuple(lines)


class VyreOptMain(xDSLOptMain):
    """The vyre modular optimizer driver."""

    version_format = "vyre-opt (xdsl {xdsl_version})"
    line_offset: int = 0

    def __init__(self, args: Sequence[str] | None = None):
        try:
            super().__init__("vyre modular optimizer driver", args)
        except (ValueError, ArgSpecParseError, ToolError) as error:
            _fail(f"vyre-opt: error: {error}")

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        arg_parser.add_argument(
            "--load-ops",
            action="append",
            default=[],
            metavar="FILE.py",
            help="run a Python file that registers user ops (vyre.ops.register) before"
            " parsing; may be given several times",
        )

    def register_all_dialects(self) -> None:
        from xdsl.dialects.builtin import Builtin

        from vyre.dialects.vyre import Vyre

        self.ctx.register_dialect("builtin", lambda: Builtin)
        self.ctx.register_dialect("vyre", lambda: Vyre)

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
        self.available_targets = {"mlir": _mlir_target, "wgsl": _wgsl_target}

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
        except DiagnosticException as error:
            return [f"{self.get_input_name()}: error: {_one_line(str(error))}"]
        except ValidationError as error:
            name = self.get_input_name()
            return [_located(d.op, name, d.message) for d in error.diagnostics]
        except (ValueError, NotImplementedError) as error:
            # raised by a pass or a target on input it cannot handle
            return [f"{self.get_input_name()}: error: {_one_line(str(error))}"]
        finally:
            chunk.close()
        return []


# ---------------------------------------------------------------------------
# Targets
# ---------------------------------------------------------------------------


def _mlir_target() -> type[Target]:
    from xdsl.targets.mlir import MLIRTarget

    return MLIRTarget


def _wgsl_target() -> type[Target]:
    return WGSLTarget


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


def check_module(module: ModuleOp, input_name: str) -> None:
    """Raise `DiagnosticsError` listing what is wrong with `module`, if anything.

    Structural (IRDL) errors of single ops come first and stop the check, since
    the spec validator expects well-formed ops; then every finding of
    `vyre.validate` on each kernel, one line per diagnostic."""
    for op in module.walk(region_first=True):
        if isinstance(op, ModuleOp | KernelOp):
            continue
        if isinstance(op.parent_op(), ModuleOp):
            message = f"'{op.name}' must be inside a vyre.kernel"
            raise DiagnosticsError([_located(op, input_name, message)])
        if (message := _verify_one(op)) is not None:
            raise DiagnosticsError([_located(op, input_name, message)])
    lines: list[str] = []
    for kernel in module.ops:
        if not isinstance(kernel, KernelOp):
            continue
        try:
            diagnostics = validate(kernel)
        except ValueError as malformed:  # structure the validator cannot read
            raise DiagnosticsError([_located(kernel, input_name, str(malformed))]) from None
        for diagnostic in diagnostics:
            op = diagnostic.op if diagnostic.op is not None else kernel
            lines.append(_located(op, input_name, diagnostic.message))
        if not diagnostics and (message := _verify_one(kernel)) is not None:
            lines.append(_located(kernel, input_name, message))
    if not lines and (message := _verify_one(module)) is not None:
        lines.append(_located(module, input_name, message))
    if lines:
        raise DiagnosticsError(tuple(lines))


def _verify_one(op: Operation) -> str | None:
    try:
        op.verify(verify_nested_ops=False)
    except VerifyException as error:
        return _one_line(str(error))
    return None


def _located(op: Operation | None, input_name: str, message: str) -> str:
    """`file:line:col: error: message`, using the nearest located ancestor."""
    node = op
    while node is not None:
        loc = node.location
        if isinstance(loc, FileLineColLoc):
            where = f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"
            return f"{where}: error: {message}"
        node = node.parent_op()
    return f"{input_name}: error: {message}"


def _one_line(message: str) -> str:
    return " ".join(part.strip() for part in message.splitlines() if part.strip())


def _fail(message: str) -> NoReturn:
    print(message, file=sys.stderr)
    raise SystemExit(1)


def main(argv: Sequence[str] | None = None) -> None:
    VyreOptMain(args=argv).run()


if __name__ == "__main__":
    main()
