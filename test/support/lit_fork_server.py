"""A fork server for the lit suite: a console script's module imported once,
each call of the script a fork.

A lit RUN line's `vyre-opt` was a new Python process that imported vyre and
xDSL first: about 0.75 s of CPU per call, a hundred calls, most of the suite's
time. With `VYRE_LIT_FORK_SERVER=1` in lit's environment (`test_lit.py` sets
it), `lit.cfg.py` starts `serve` once and puts a client named `vyre-opt` first
on the tests' PATH. The client hands its arguments, working directory,
environment and standard streams (the file descriptors themselves) to the
server, which forks a child: vyre already imported and nothing run yet, the
child takes the client's streams, directory, environment and arguments, runs the
console script's entry point as the script does (`sys.exit(main())`), ends as
the interpreter would (exit handlers, streams flushed) and sends its exit
status back, which the client exits with. Each call is its own process, in the
state a fresh `vyre-opt` has once vyre is imported.

`make lit` and a plain `lit test/lit` run the installed script itself, and so
does `make test-all` once more (`test_lit.py`'s slow test). A client that finds
no server runs the installed script too.

`python lit_fork_server.py serve SOCKET SCRIPT` serves console script SCRIPT on
the Unix socket SOCKET; it prints `ready` once it accepts calls, ends when the
process that started it does (or on SIGTERM), and then removes SOCKET's folder,
which is its own (lit.cfg.py makes a temporary one, with the client in it).
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import signal
import socket
import struct
import sys
from collections.abc import Callable
from types import FrameType
from typing import Any, NoReturn

__all__ = ["client", "serve"]

_LENGTH = struct.Struct("!I")
"""The length of a request's JSON, and a call's exit status."""
_STREAMS = 3
"""The client's stdin, stdout and stderr, passed as file descriptors."""
_POLL_S = 1.0
"""How often the server checks that the process that started it still runs."""


def serve(path: str, script: str) -> None:
    """Accept calls of console script `script` on the Unix socket `path`, one
    forked child each, until the parent process ends."""
    from importlib.metadata import entry_points

    (entry,) = entry_points(group="console_scripts", name=script)
    main = entry.load()
    parent = os.getppid()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    listener.settimeout(_POLL_S)
    signal.signal(signal.SIGTERM, _end)
    print("ready", flush=True)
    try:
        while os.getppid() == parent:
            _reap()
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                continue
            if os.fork() == 0:
                listener.close()
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                _call(connection, main)
            connection.close()
    finally:
        listener.close()
        _reap()
        shutil.rmtree(os.path.dirname(os.path.abspath(path)), ignore_errors=True)


def _end(signum: int, frame: FrameType | None) -> NoReturn:
    """SIGTERM: end the server through its `finally` (the socket's folder removed)."""
    sys.exit(0)


def _reap() -> None:
    """Wait for the children that ended (their CPU time counts as the server's
    children's, and so as lit's)."""
    try:
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    except ChildProcessError:
        pass


def _call(connection: socket.socket, main: Callable[[], Any]) -> NoReturn:
    """In the forked child: become the client's process, run `main`, report."""
    status = 1
    try:
        request, streams = _receive(connection)
        for target, stream in enumerate(streams):
            os.dup2(stream, target)
            os.close(stream)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        sys.argv = list(request["argv"])
        status = _run_script(main)
    except BaseException as error:  # noqa: BLE001 - the server's own failure, reported to the call
        sys.excepthook(type(error), error, error.__traceback__)
    finally:
        try:
            connection.sendall(_LENGTH.pack(status & 0xFF))
        finally:
            os._exit(status & 0xFF)


def _receive(connection: socket.socket) -> tuple[dict[str, Any], list[int]]:
    data, streams, _, _ = socket.recv_fds(connection, 1 << 16, _STREAMS)
    if len(streams) != _STREAMS or len(data) < _LENGTH.size:
        raise RuntimeError(f"a call without its {_STREAMS} streams")
    (length,) = _LENGTH.unpack_from(data)
    body = data[_LENGTH.size :]
    while len(body) < length:
        chunk = connection.recv(length - len(body))
        if not chunk:
            raise EOFError("the call's request ended early")
        body += chunk
    return json.loads(body), streams


def _run_script(main: Callable[[], Any]) -> int:
    """What the console script and the interpreter do: `sys.exit(main())`, an
    uncaught exception printed with exit status 1, then the exit handlers and
    a flush of the standard streams (a failed flush: status 120)."""
    sys.argv[0] = sys.argv[0].removesuffix(".exe")
    try:
        sys.exit(main())
    except SystemExit as end:
        status = _exit_status(end.code)
    except BaseException as error:  # noqa: BLE001 - printed as the interpreter prints it
        sys.excepthook(type(error), error, error.__traceback__)
        status = 1
    atexit._run_exitfuncs()  # pyright: ignore[reportPrivateUsage]
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - as the interpreter: status 120
            status = 120
    return status


def _exit_status(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def client(path: str, script: str) -> NoReturn:
    """Run this call (`sys.argv`, the working directory, the environment, the
    standard streams) in the server at `path`; without a server, exec the
    installed console script `script`."""
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        connection.connect(path)
    except OSError:
        os.execv(script, [script, *sys.argv[1:]])
    body = json.dumps({"argv": sys.argv, "cwd": os.getcwd(), "env": dict(os.environ)}).encode()
    message = _LENGTH.pack(len(body)) + body
    sent = socket.send_fds(connection, [message], list(range(_STREAMS)))
    connection.sendall(message[sent:])
    reply = b""
    while len(reply) < _LENGTH.size:
        chunk = connection.recv(_LENGTH.size - len(reply))
        if not chunk:
            os.write(2, f"{os.path.basename(script)}: the lit fork server's call ended without a status\n".encode())
            os._exit(1)
        reply += chunk
    os._exit(_LENGTH.unpack(reply)[0])


if __name__ == "__main__":
    if sys.argv[1:2] != ["serve"] or len(sys.argv) != 4:
        sys.exit("usage: lit_fork_server.py serve SOCKET SCRIPT")
    serve(sys.argv[2], sys.argv[3])
