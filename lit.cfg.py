"""lit configuration of vyre's FileCheck tests (run: `lit test/lit`, or `lit -v .`)."""

import os
import shutil
import sys

import lit.formats

config.name = "vyre"  # noqa: F821 (lit provides `config`)
config.test_format = lit.formats.ShTest()  # noqa: F821
config.suffixes = [".mlir"]  # noqa: F821
# The suite is rooted at the repository root, so that `lit test/lit`, `lit .` and
# `lit test/lit/dialect/ops.mlir` all work; the tests themselves live under
# test/lit, and every other top-level entry is excluded from discovery.
repo_root = os.path.dirname(os.path.abspath(__file__))
config.test_source_root = repo_root  # noqa: F821
config.test_exec_root = repo_root  # noqa: F821
config.excludes = sorted(  # noqa: F821
    {entry for entry in os.listdir(repo_root) if entry != "test"} | {"unit", "Inputs"}
)

# vyre-opt and filecheck live next to the interpreter that runs lit (the venv's bin).
bin_dirs = [os.path.dirname(sys.executable), os.path.dirname(os.path.realpath(sys.executable))]
root_venv_bin = os.path.join(repo_root, ".venv", "bin")
if os.path.isdir(root_venv_bin):
    bin_dirs.insert(0, root_venv_bin)
config.environment["PATH"] = os.pathsep.join(  # noqa: F821
    [*bin_dirs, config.environment.get("PATH", os.environ.get("PATH", ""))]  # noqa: F821
)
for name in ("HOME", "XDG_RUNTIME_DIR", "CI"):
    if name in os.environ:
        config.environment[name] = os.environ[name]  # noqa: F821

# With VYRE_LIT_FORK_SERVER=1 (test/unit/test_lit.py), `vyre-opt` is a client of a
# fork server that imported vyre once (test/support/lit_fork_server.py): each call
# is a fork of it, not a new interpreter importing vyre and xDSL (0.75 s of CPU).
if os.environ.get("VYRE_LIT_FORK_SERVER") == "1":
    import atexit
    import subprocess
    import tempfile

    installed = shutil.which("vyre-opt", path=config.environment["PATH"])  # noqa: F821
    if installed is None:
        raise RuntimeError("lit: no vyre-opt on PATH (make setup installs it)")
    server_dir = tempfile.mkdtemp(prefix="vyre-lit-")
    socket_path = os.path.join(server_dir, "vyre-opt.socket")
    support = os.path.join(repo_root, "test", "support")
    server = subprocess.Popen(
        [sys.executable, os.path.join(support, "lit_fork_server.py"), "serve", socket_path, "vyre-opt"],
        env=config.environment,  # noqa: F821 (what the RUN lines' processes get)
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        text=True,
    )

    def _stop_server() -> None:
        server.terminate()
        server.wait()
        shutil.rmtree(server_dir, ignore_errors=True)

    atexit.register(_stop_server)
    if server.stdout is None or server.stdout.readline().strip() != "ready":
        raise RuntimeError(f"lit: the vyre-opt fork server did not start (exit {server.poll()})")
    client_path = os.path.join(server_dir, "vyre-opt")
    with open(client_path, "w") as client_file:
        client_file.write(
            f"#!{sys.executable} -S\n"
            f"import sys\nsys.path.insert(0, {support!r})\n"
            f"from lit_fork_server import client\nclient({socket_path!r}, {installed!r})\n"
        )
    os.chmod(client_path, 0o755)
    config.environment["PATH"] = os.pathsep.join([server_dir, config.environment["PATH"]])  # noqa: F821

# MLIR's own mlir-opt (Debian's mlir-16-tools), for the round trips of the generic
# form through MLIR: tests marked `REQUIRES: mlir-opt-16` are unsupported without it.
if shutil.which("mlir-opt-16", path=config.environment["PATH"]):  # noqa: F821
    config.available_features.add("mlir-opt-16")  # noqa: F821

config.substitutions.append(  # noqa: F821
    (
        "VYRE_ROUNDTRIP",
        "vyre-opt %s --print-op-generic --split-input-file"
        " | vyre-opt --split-input-file | filecheck %s",
    )
)
config.substitutions.append(  # noqa: F821
    (
        "VYRE_GENERIC_ROUNDTRIP",
        "vyre-opt %s --print-op-generic --split-input-file"
        " | filecheck %s --check-prefix=CHECK-GENERIC",
    )
)
config.substitutions.append(  # noqa: F821
    (
        "VYRE_VERIFY_DIAG",
        "vyre-opt %s --split-input-file --verify-diagnostics 2>&1 | filecheck %s",
    )
)

