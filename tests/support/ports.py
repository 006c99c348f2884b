"""Servers on port 0: the system picks a free port, and the test reads back the one the server got.

Never "bind port 0, close, then hope the port is still free when the server starts": two test processes
(pytest-xdist) or any other program can take it in between. Instead:

- a server in the test process binds ``("127.0.0.1", 0)`` and reads ``getsockname()`` (see LocalServer);
- a child process is handed a socket the test bound (:func:`bound_socket`, ``pass_fds``; uvicorn ``--fd``),
  or told port 0 and the test reads the port it bound from its output (:func:`read_port`) or from the
  system's table of listening sockets (:func:`wait_listening`).
"""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO


def bound_socket(host: str = "127.0.0.1") -> socket.socket:
    """A TCP socket bound to a free port on ``host``, not yet listening (connections are refused until the
    server that inherits it listens). Pass ``sock.fileno()`` to a child with ``pass_fds``, then close it."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, 0))
    sock.set_inheritable(True)
    return sock


def port_of(sock: socket.socket) -> int:
    return int(sock.getsockname()[1])


def read_port(stream: IO[str], pattern: str, timeout: float = 30.0) -> tuple[int, list[str]]:
    """Read lines of a child's output until one matches ``pattern`` (its first group is the port).

    Returns the port and the lines read. Raises AssertionError with those lines if the output ends or the
    time is up first."""
    lines: list[str] = []
    found: list[int] = []
    done = threading.Event()

    def reader() -> None:
        for line in stream:
            lines.append(line)
            m = re.search(pattern, line)
            if m:
                found.append(int(m.group(1)))
                break
        done.set()

    threading.Thread(target=reader, daemon=True).start()
    done.wait(timeout)
    assert found, f"no line matching {pattern!r} within {timeout} s; output: {''.join(lines)!r}"
    return found[0], lines


def listening_ports(pid: int) -> set[int]:
    """The TCP ports on which process ``pid`` (or one of its children) listens, from the system's tables."""
    import psutil

    try:
        root = psutil.Process(pid)
        procs = [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return set()
    ports: set[int] = set()
    for proc in procs:
        try:
            conns = proc.net_connections(kind="tcp")
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
        ports.update(c.laddr.port for c in conns if c.status == psutil.CONN_LISTEN)
    return ports


def wait_listening(proc: subprocess.Popen[str] | subprocess.Popen[bytes], accept: Callable[[int], bool],
                   timeout: float = 30.0) -> int:
    """Wait until the child listens on a port that ``accept(port)`` takes (e.g. answers a probe), and return
    it. Fails if the child exits first."""
    deadline = time.monotonic() + timeout
    tried: set[int] = set()
    while True:
        assert proc.poll() is None, f"the server process exited with {proc.returncode}"
        for port in sorted(listening_ports(proc.pid)):
            if accept(port):
                return port
            tried.add(port)
        assert time.monotonic() < deadline, f"no accepted listening port after {timeout} s (tried {tried})"
        time.sleep(0.1)


@contextmanager
def uvicorn_on(sock: socket.socket, app: str, app_dir: Path, *args: str,
               stop_timeout: float = 20.0) -> Iterator[subprocess.Popen[bytes]]:
    """A real uvicorn process serving ``app`` (``module:attribute`` in ``app_dir``) on the socket the test bound
    (:func:`bound_socket`, handed over with ``--fd``; the test's copy is closed once the child has it). ``args``
    are more uvicorn options (``--workers 2``). On exit the process is terminated, killed after
    ``stop_timeout`` seconds. The caller waits for it to listen (``tests.serve.conftest.wait_for_port``)."""
    with sock:
        proc = subprocess.Popen([sys.executable, "-m", "uvicorn", app, "--app-dir", str(app_dir),
                                 "--fd", str(sock.fileno()), *args, "--log-level", "warning"],
                                cwd=app_dir, pass_fds=(sock.fileno(),))
    try:
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=stop_timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
