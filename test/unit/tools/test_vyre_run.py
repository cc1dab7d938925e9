"""vyre-run: runs a kernel file; every user error is a message and an exit status.

Most cases call `main` in-process (an escaping exception would fail the test);
a few run the real console entry point and check that no traceback appears."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from vyre.runtime import api
from vyre.tools import vyre_run
from vyre.tools.vyre_run import main

XOR = """\
builtin.module {
  vyre.kernel @xor workgroup_size(4, 1, 1) buffers(@a : read_only u32 binding(0), @b : read_only u32 binding(1), @out : read_write u32 binding(2)) {
    %i = vyre.invocation_id x
    %x = vyre.load @a[%i] : u32
    %y = vyre.load @b[%i] : u32
    %z = vyre.binop bit_xor %x, %y
    vyre.store @out[%i] = %z
  }
}
"""

INVALID = """\
builtin.module {
  vyre.kernel @bad workgroup_size(4, 1, 1) buffers(@a : read_only u32 binding(0)) {
    %i = vyre.invocation_id x
    %v = vyre.var "nowhere" : u32
    vyre.store @a[%i] = %v
  }
}
"""

BYTES = """\
builtin.module {
  vyre.kernel @len workgroup_size(1, 1, 1) buffers(@blob : read_only bytes binding(0), @n : read_write u32 binding(1)) {
    %z = vyre.lit_u32 0
    %l = vyre.buf_len @blob
    vyre.store @n[%z] = %l
  }
}
"""

A = np.array([1, 2, 3, 4, 5, 6, 7, 8], dtype=np.uint32)
B = np.array([0xFF, 0, 0xFFFF_FFFF, 3, 3, 3, 3, 3], dtype=np.uint32)


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    paths = {
        "xor": tmp_path / "xor.mlir",
        "bad": tmp_path / "bad.mlir",
        "bytes": tmp_path / "bytes.mlir",
        "a": tmp_path / "a.npy",
        "b": tmp_path / "b.npy",
        "wide": tmp_path / "wide.npy",
        "raw": tmp_path / "data.bin",
        "junk": tmp_path / "junk.npy",
    }
    paths["xor"].write_text(XOR)
    paths["bad"].write_text(INVALID)
    paths["bytes"].write_text(BYTES)
    np.save(paths["a"], A)
    np.save(paths["b"], B)
    np.save(paths["wide"], A.astype(np.int64))
    paths["raw"].write_bytes(b"123456789")
    paths["junk"].write_bytes(b"not a numpy file")
    return {key: str(path) for key, path in paths.items()}


def xor_args(files: dict[str, str], *extra: str) -> list[str]:
    return [files["xor"], "--input", f"a={files['a']}", "--input", f"b={files['b']}", "--output", "out=8",
            "--dispatch", "2,1,1", "--backend", "interp", *extra]


def test_prints_outputs(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(xor_args(files)) == 0
    captured = capsys.readouterr()
    assert captured.out == f"out = {np.array2string(A ^ B, prefix='out = ')}\n"
    assert captured.err == ""


def test_wgpu_backend(files: dict[str, str], capsys: pytest.CaptureFixture[str], gpu_adapter: object) -> None:
    args = xor_args(files)
    args[args.index("interp")] = "wgpu"
    assert main(args) == 0
    assert capsys.readouterr().out == f"out = {np.array2string(A ^ B, prefix='out = ')}\n"


def test_save_and_print(files: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "result.npy"
    assert main(xor_args(files, "--save", f"out={target}")) == 0
    assert capsys.readouterr().out == ""  # saved buffers are not printed ...
    saved = np.load(target)
    assert saved.dtype == np.uint32 and np.array_equal(saved, A ^ B)
    assert main(xor_args(files, "--save", f"out={target}", "--print")) == 0
    assert capsys.readouterr().out.startswith("out = [")  # ... unless --print


def test_dispatch_shorthand(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    args = xor_args(files)
    args[args.index("2,1,1")] = "1"
    assert main(args) == 0  # one workgroup of 4: the last 4 outputs stay 0
    expected = np.concatenate([(A ^ B)[:4], np.zeros(4, dtype=np.uint32)])
    assert capsys.readouterr().out == f"out = {np.array2string(expected, prefix='out = ')}\n"


def test_raw_file_for_bytes_buffer(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    code = main([files["bytes"], "--input", f"blob={files['raw']}", "--output", "n=1", "--dispatch", "1",
                 "--backend", "interp"])
    assert code == 0
    assert capsys.readouterr().out == "n = [3]\n"  # 9 bytes = 3 words


def test_invalid_kernel_is_located(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    code = main([files["bad"], "--input", f"a={files['a']}", "--dispatch", "1", "--backend", "interp"])
    assert code == 1
    err = capsys.readouterr().err
    bad = files["bad"]
    assert f"{bad}:4:5: error: vyre IR validation: reference to undeclared variable `nowhere`." in err
    assert f"{bad}:5:5: error: vyre IR validation: store to non-writable buffer `a`." in err


def test_parse_error_is_located(files: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken.mlir"
    broken.write_text(XOR.replace("bit_xor", "bit_xxor"))
    assert main([str(broken), "--dispatch", "1"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{broken}:6:") and "error: expected a binary operator" in err


def test_two_kernels_need_a_choice(files: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    two = tmp_path / "two.mlir"
    inner = XOR.split("\n", 1)[1].rsplit("}", 1)[0]
    two.write_text("builtin.module {\n" + inner + inner.replace("@xor", "@xor2").replace("bit_xor", "add") + "}\n")
    assert main([str(two), "--dispatch", "1"]) == 1
    assert capsys.readouterr().err == (
        f"{two}: error: the module holds 2 kernels (@xor, @xor2). Fix: pick one with --kernel NAME\n"
    )
    args = ["--input", f"a={files['a']}", "--input", f"b={files['b']}", "--output", "out=8", "--dispatch", "2",
            "--backend", "interp"]
    assert main([str(two), "--kernel", "xor2", *args]) == 0
    assert capsys.readouterr().out.startswith(f"out = {np.array2string(A + B, prefix='out = ')}")
    assert main([str(two), "--kernel", "@xor", *args]) == 0
    assert capsys.readouterr().out.startswith(f"out = {np.array2string(A ^ B, prefix='out = ')}")
    assert main([str(two), "--kernel", "xr", *args]) == 1
    assert "no kernel @xr; did you mean `xor`? (kernels: @xor, @xor2)" in capsys.readouterr().err


def test_a_mixed_module_runs_its_kernel(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    mixed = str(Path(__file__).resolve().parents[3] / "examples" / "mixed.mlir")
    assert main([mixed, "--kernel", "popcounts", "--input", f"a={files['a']}", "--output", "out=8",
                 "--dispatch", "1", "--backend", "interp"]) == 0
    assert capsys.readouterr().out == "out = [1 1 2 1 2 2 3 1]\n"


def test_mlir_functions_point_at_convert_to_vyre(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    saxpy = str(Path(__file__).resolve().parents[3] / "examples" / "saxpy.mlir")
    assert main([saxpy, "--dispatch", "1", "--backend", "interp"]) == 1
    err = capsys.readouterr().err
    assert err == (
        f"{saxpy}: error: the module holds MLIR functions and no vyre.kernel. Fix: convert them first:"
        f" vyre-opt {saxpy} -p convert-to-vyre | vyre-run - ...\n"
    )


def test_the_kernel_comes_from_stdin(
    files: dict[str, str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(Path(files["xor"]).read_text()))
    args = xor_args(files)
    args[0] = "-"
    assert main(args) == 0
    assert capsys.readouterr().out.startswith(f"out = {np.array2string(A ^ B, prefix='out = ')}")
    monkeypatch.setattr(sys, "stdin", io.StringIO(INVALID))
    assert main(["-", "--dispatch", "1", "--backend", "interp"]) == 1
    assert "<stdin>:4:5: error: vyre IR validation: reference to undeclared variable `nowhere`." in capsys.readouterr().err


def test_vyre_opt_pipes_into_vyre_run(files: dict[str, str]) -> None:
    bin_dir = Path(sys.executable).parent
    script = f"{bin_dir / 'vyre-opt'} {files['xor']} -p canonicalize | {bin_dir / 'vyre-run'} - " + " ".join(xor_args(files)[1:])
    done = subprocess.run(["bash", "-o", "pipefail", "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"out = {np.array2string(A ^ B, prefix='out = ')}")


def test_load_ops_registers_user_ops_first(files: dict[str, str], tmp_path: Path) -> None:
    """In a process of its own: registering an op lasts for the process."""
    ops = tmp_path / "my_ops.py"
    ops.write_text(
        "import numpy as np\n"
        "from vyre import ops\n"
        "from vyre.ir import DataType, Expr as E\n"
        "from vyre.ops import OpSignature, OpSpec\n"
        "ops.register(OpSpec(id='user.run.twice', version=1,\n"
        "    signature=OpSignature(inputs=[DataType.U32], output=DataType.U32), category='A',\n"
        "    reference=lambda a: a * np.uint32(2), composition=lambda a: E.add(a, a), laws=[],\n"
        "    boundaries=[0, 1, 0xFFFFFFFF]))\n"
    )
    kernel = tmp_path / "twice.mlir"
    kernel.write_text(XOR.replace("%z = vyre.binop bit_xor %x, %y", '%z = vyre.call "user.run.twice"(%x) : u32'))
    args = [str(kernel), "--input", f"a={files['a']}", "--input", f"b={files['b']}", "--output", "out=8",
            "--dispatch", "2", "--backend", "interp"]
    unknown = run_cli(*args)
    assert unknown.returncode == 1 and "user.run.twice" in unknown.stderr
    loaded = run_cli(*args, "--load-ops", str(ops))
    assert loaded.returncode == 0, loaded.stderr
    assert loaded.stdout.startswith(f"out = {np.array2string(A * 2, prefix='out = ')}")
    missing = run_cli(*args, "--load-ops", str(tmp_path / "none.py"))
    assert missing.returncode == 2 and "cannot read --load-ops file" in missing.stderr


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("--dispatch", "0,1,1"), "--dispatch expects 1 to 3 positive integers X[,Y[,Z]], got '0,1,1'"),
        (("--dispatch", "a,b"), "--dispatch expects 1 to 3 positive integers"),
        (("--dispatch", "1,1,1,1"), "--dispatch expects 1 to 3 positive integers"),
        (("--output", "out=-3"), "--output out: the size must not be negative, got -3"),
        (("--output", "out=many"), "--output out: the size must be an integer, got 'many'"),
        (("--output", "out"), "--output expects NAME=VALUE, got 'out'"),
        (("--input", "a"), "--input expects NAME=VALUE, got 'a'"),
        (("--input", "a=/no/such/file.npy"), "input `a`: cannot load /no/such/file.npy"),
        (("--input", "a=junk"), "input `a`: cannot load "),
        (("--input", "a=data.bin"), "is not a .npy file (raw files are read only for bytes buffers)"),
        (("--input", "a=wide"), "input `a` (u32) must be a 1-D numpy array of dtype uint32, got a numpy array of dtype int64"),
        (("--input", "zz=a"), "input `zz` is not a buffer of this program"),
        (("--output", "ghost=3"), "output `ghost` is not a buffer of this program"),
        (("--output", "a=3"), "output `a` is a read_only buffer"),
    ],
)
def test_usage_errors(
    files: dict[str, str], capsys: pytest.CaptureFixture[str], change: tuple[str, str], message: str
) -> None:
    option, value = change
    for key in ("junk", "wide", "a"):
        value = value.replace(f"={key}", f"={files[key]}")
    value = value.replace("=data.bin", f"={files['raw']}")
    args = xor_args(files)
    if option in ("--dispatch",):
        args[args.index(option) + 1] = value
    elif option == "--output" and value.startswith("out"):
        args[args.index("out=8")] = value
    elif option == "--input" and value.split("=")[0] == "a":
        args[args.index(f"a={files['a']}")] = value
    else:
        args += [option, value]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("vyre-run: error: ")
    assert message in err


def test_missing_output_size(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    args = xor_args(files)
    del args[args.index("--output"): args.index("--output") + 2]
    assert main(args) == 2
    assert "read_write buffer `out` has no size" in capsys.readouterr().err


def test_save_errors(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(xor_args(files, "--save", "a=x.npy")) == 2
    assert "--save names `a`, not read_write buffers (have: `out`)" in capsys.readouterr().err
    assert main(xor_args(files, "--save", "out=/no/such/dir/x.npy")) == 2
    assert "--save out: cannot write /no/such/dir/x.npy" in capsys.readouterr().err


def test_missing_kernel_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["/no/such/kernel.mlir", "--dispatch", "1"]) == 2
    assert "vyre-run: error: cannot read kernel file /no/such/kernel.mlir" in capsys.readouterr().err


def test_backend_failure(
    files: dict[str, str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object) -> dict[str, np.ndarray]:
        raise RuntimeError("no Vulkan adapter found")

    monkeypatch.setitem(api.BACKENDS, "interp", broken)
    assert main(xor_args(files)) == 3
    assert capsys.readouterr().err == "vyre-run: backend interp failed: no Vulkan adapter found\n"
    def broken_run(*args: object, **kwargs: object) -> dict[str, np.ndarray]:
        raise RuntimeError("no Vulkan adapter found")

    monkeypatch.setattr(vyre_run, "run", broken_run)  # the default backend points at the one always there
    assert main([*xor_args(files)[:-2], "--backend", "wgpu"]) == 3
    assert capsys.readouterr().err == (
        "vyre-run: backend wgpu failed: no Vulkan adapter found (--backend interp runs the reference interpreter)\n"
    )


@pytest.mark.parametrize("args", [["--backend", "cuda"], []])
def test_argparse_errors_exit_2(files: dict[str, str], args: list[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main([files["xor"], *args])
    assert info.value.code == 2


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "vyre.tools.vyre_run", *args], capture_output=True, text=True, timeout=120
    )


def test_console_entry_point_never_shows_tracebacks(files: dict[str, str]) -> None:
    ok = run_cli(*xor_args(files))
    assert ok.returncode == 0 and ok.stdout.startswith("out = [")
    for args, code in [
        ([files["bad"], "--dispatch", "1"], 1),
        (xor_args(files, "--input", "zz=/nope.npy"), 2),
        ([files["xor"], "--dispatch", "1", "--backend", "cuda"], 2),
        ([files["xor"]], 2),
    ]:
        result = run_cli(*args)
        assert result.returncode == code, result.stderr
        assert "Traceback" not in result.stderr and result.stderr.strip()
