"""``hotplex serve``: bind the socket, say where, run uvicorn until SIGTERM or Ctrl-C.

The socket is bound here, before uvicorn starts, so a port of 0 is known (and printed) at once,
a bind error is a hotplex error (exit 2), and a client may connect as soon as the line is out:
the connection waits in the listen queue until a worker takes it. With ``--workers N`` uvicorn's
supervisor starts N processes that share the socket; each builds the application (``app.create``)
from the settings this process puts in the environment, and writes its metrics to a folder made
here and removed at exit.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import shutil
import signal
import socket
import stat
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from hotplex.errors import HotplexError

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
DEFAULT_BODY_LIMIT = 1 << 20  # 1 MiB
MAX_UNIX_PATH = 107  # bytes of a socket's path: sockaddr_un's 108, less the terminating NUL


def serve(
    root: Path,
    manifest: Path | None,
    *,
    host: str | None = None,
    port: int | None = None,
    unix: str | None = None,
    token_file: str | None = None,
    workers: int = 1,
    body_limit: int = DEFAULT_BODY_LIMIT,
) -> None:
    _require_packages()
    from hotplex.serve.app import SETTINGS_VARIABLE, Settings, read_token

    if unix is not None and (host is not None or port is not None):
        given = " and ".join(f"--{n}" for n, v in (("host", host), ("port", port)) if v is not None)
        raise HotplexError.single(
            f"--unix {unix} listens on a Unix socket, not at an address: {given} would be ignored",
            hint="give --unix or --host/--port, not both",
        )
    host = DEFAULT_HOST if host is None else host
    port = DEFAULT_PORT if port is None else port
    if token_file is not None:
        read_token(token_file)  # a missing or empty token file fails now, not in each worker
    elif unix is None and not _loopback(host):
        raise HotplexError.single(
            f"--host {host} is reachable from other machines: it needs a bearer token",
            hint="--token-file FILE (clients send 'Authorization: Bearer <token>'), or --unix"
            " PATH for a sidecar",
        )
    settings = Settings(
        str(root),
        str(manifest) if manifest else None,
        os.path.abspath(token_file) if token_file else None,
        body_limit,
        None if unix is not None or token_file is not None else host,
    )
    os.environ[SETTINGS_VARIABLE] = settings.to_env()
    _say_if_broken(root, manifest)
    with _bound(host, port, unix) as (sock, where), _metrics_folder(workers):
        print(
            f"hotplex serve: listening on {where} ({workers} worker{'s' * (workers > 1)});"
            " Ctrl-C or SIGTERM stops",
            flush=True,
        )
        _run(sock, workers)
    print("hotplex serve: stopped", flush=True)


def _require_packages() -> None:
    try:
        import prometheus_client  # noqa: F401
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
        import watchfiles  # noqa: F401
    except ModuleNotFoundError as exc:
        raise HotplexError.single(
            f"hotplex serve needs the {exc.name} package, which is not installed",
            hint="pip install 'hotplex[serve]'",
        ) from None


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _say_if_broken(root: Path, manifest: Path | None) -> None:
    """A project that does not build is served anyway (/readyz says 503 until it is fixed, and
    the fix is picked up without a restart), but said at once."""
    from hotplex import Project

    try:
        Project.load(root, manifest)
    except HotplexError as exc:
        sys.stderr.write(
            "hotplex serve: the project does not build yet; /readyz answers 503 until it does:\n"
            f"{exc.render()}\n"
        )


@contextlib.contextmanager
def _bound(host: str, port: int, unix: str | None) -> Iterator[tuple[socket.socket, str]]:
    if unix is not None:
        sock = _unix_socket(unix)
        where = f"unix:{unix}"
    else:
        sock = _tcp_socket(host, port)
        bound = sock.getsockname()
        shown = f"[{bound[0]}]" if sock.family == socket.AF_INET6 else bound[0]
        where = f"http://{shown}:{bound[1]}"
    try:
        yield sock, where
    finally:
        sock.close()
        if unix is not None:
            with contextlib.suppress(OSError):
                os.unlink(unix)


def _tcp_socket(host: str, port: int) -> socket.socket:
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise HotplexError.single(f"cannot bind --host {host}: {_reason(exc)}") from None
    family, kind, proto, _name, address = infos[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        raise HotplexError.single(
            f"cannot listen on {host} port {port}: {_reason(exc)}",
            hint="--port 0 takes a free port (the line printed names it)"
            if exc.errno == 98  # EADDRINUSE
            else None,
        ) from None
    sock.set_inheritable(True)
    return sock


def _unix_socket(path: str) -> socket.socket:
    """A socket at ``path``, readable and writable by its owner and group; a socket file left
    by a server that is gone is replaced, anything else there is refused. An empty path, or one
    starting with NUL or '@', is refused: Linux would listen on an abstract socket, which has no
    file and no mode, so any local user could connect."""
    if not path or path[0] in "\0@":
        raise HotplexError.single(
            f"--unix {path!r}: not a file path (an abstract socket has no mode: any local user"
            " could connect)",
            hint="--unix PATH, e.g. --unix ./hotplex.sock",
        )
    size = len(os.fsencode(path))
    if size > MAX_UNIX_PATH:
        raise HotplexError.single(
            f"--unix {path}: {size} bytes, longer than a Unix socket's address holds (at most"
            f" {MAX_UNIX_PATH} bytes)",
            hint="a shorter path: a relative one, or a folder nearer the root",
        )
    with contextlib.suppress(FileNotFoundError):
        mode = os.lstat(path).st_mode
        if not stat.S_ISSOCK(mode):
            raise HotplexError.single(f"--unix {path}: a file that is not a socket is there")
        if _answers(path):
            raise HotplexError.single(f"--unix {path}: another server listens there")
        os.unlink(path)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o117)
    try:
        sock.bind(path)
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        raise HotplexError.single(f"cannot listen on --unix {path}: {_reason(exc)}") from None
    finally:
        os.umask(old)
    sock.set_inheritable(True)
    return sock


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)  # an OSError Python raises itself may have no strerror


def _answers(path: str) -> bool:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(path)
    except OSError:
        return False
    finally:
        probe.close()
    return True


@contextlib.contextmanager
def _metrics_folder(workers: int) -> Iterator[None]:
    """With several processes, prometheus_client's multiprocess mode: each process writes its
    figures into this folder, /metrics reads them all."""
    if workers == 1:
        yield
        return
    folder = tempfile.mkdtemp(prefix="hotplex-serve-metrics-")
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = folder
    try:
        yield
    finally:
        del os.environ["PROMETHEUS_MULTIPROC_DIR"]
        shutil.rmtree(folder, ignore_errors=True)


def _run(sock: socket.socket, workers: int) -> None:
    import uvicorn

    config = uvicorn.Config(
        "hotplex.serve.app:create",
        factory=True,
        workers=workers,
        log_level="warning",
        access_log=False,
        lifespan="on",
        server_header=False,
    )
    # After a graceful stop uvicorn raises the signal again for the handler it found: this one
    # (not the default, which would end the process before the socket and folders are removed).
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda number, frame: None)
    if workers == 1:
        uvicorn.Server(config).run(sockets=[sock])
    else:
        from uvicorn.supervisors import Multiprocess

        Multiprocess(config, sockets=[sock]).run()
