"""A throwaway PostgreSQL server for the tests: started once per test run, then removed.

Where the server comes from, in order:

1. ``MESSAGES_TEST_POSTGRES_DSN``: a server that is already running (its database
   must be one the tests may create and drop tables in). Nothing is started.
   (``MESSAGES_TEST_POSTGRES_BIN`` names the directory of ``initdb`` and
   ``postgres`` to start instead of looking for them.)
2. A PostgreSQL installed on the machine: ``initdb`` and ``postgres`` found on PATH,
   or in the usual places (Debian's ``/usr/lib/postgresql/<version>/bin``, RHEL's
   ``/usr/pgsql-<version>/bin``, Homebrew's ``opt/postgresql@<version>/bin``).
3. The binaries shipped in the ``pgserver`` wheel (a dev-extra dependency), so a
   machine with no PostgreSQL at all still runs the suite without root. Only its
   binaries are used (``pgserver/pginstall``): pgserver's own launcher, run as root,
   adds a system user and widens the permissions of every parent directory.

The server gets a fresh cluster in a temporary directory (``initdb``), listens on
127.0.0.1 on a free port with its unix socket in that directory, runs without
fsync (the tests need no durability), and is stopped and deleted at the end.
PostgreSQL refuses to run as root; under root (CI, containers) the cluster and the
server belong to the unprivileged ``nobody`` user instead (the temporary directory
is handed to it, and the binaries are copied there when ``nobody`` cannot read
them where they are). A user who is not root needs no switch.
"""

from __future__ import annotations

import contextlib
import glob
import importlib.util
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

ENV_DSN = "MESSAGES_TEST_POSTGRES_DSN"
ENV_BIN = "MESSAGES_TEST_POSTGRES_BIN"
UNPRIVILEGED = "nobody"
_START_TIMEOUT = 60.0


class ServerError(RuntimeError):
    """The test server could not be found or started; the message says what to do."""


@dataclass
class Server:
    """A running server: its DSN, where its binaries came from, and how to stop it."""

    dsn: str
    origin: str
    stop: Callable[[], None]


def find_bindir() -> tuple[Path, str]:
    """The directory holding ``initdb`` and ``postgres``, and where it came from."""
    chosen = os.environ.get(ENV_BIN, "").strip()
    if chosen:
        bindir = Path(chosen)
        if not (bindir / "initdb").is_file() or not (bindir / "postgres").is_file():
            raise ServerError(f"{ENV_BIN}={chosen} holds no initdb and postgres")
        return bindir, f"PostgreSQL in {bindir} ({ENV_BIN})"
    for bindir in _system_bindirs():
        if (bindir / "initdb").is_file() and (bindir / "postgres").is_file():
            return bindir, f"system PostgreSQL in {bindir}"
    wheel = _pgserver_bindir()
    if wheel is not None:
        return wheel, f"the pgserver wheel's PostgreSQL in {wheel}"
    raise ServerError(
        "no PostgreSQL server binaries found: install PostgreSQL (e.g. Debian's "
        "postgresql package), or the dev extra (`pip install -e '.[dev]'`, which brings "
        f"the pgserver wheel), or set {ENV_DSN} to a running server"
    )


#: Where PostgreSQL's binaries are installed on Debian, RHEL and Homebrew.
SYSTEM_PATTERNS = (
    "/usr/lib/postgresql/*/bin",
    "/usr/pgsql-*/bin",
    "/opt/homebrew/opt/postgresql*/bin",
    "/usr/local/opt/postgresql*/bin",
)


def _system_bindirs() -> Iterator[Path]:
    found = shutil.which("initdb")
    if found is not None:
        yield Path(found).resolve().parent  # Debian links /usr/local/bin/initdb into its bindir
    for pattern in SYSTEM_PATTERNS:
        for path in sorted(glob.glob(pattern), key=_version_key, reverse=True):
            yield Path(path)


def _version_key(path: str) -> tuple[int, ...]:
    digits = "".join(c if c.isdigit() else " " for c in path).split()
    return tuple(int(d) for d in digits)


def _pgserver_bindir() -> Path | None:
    # Located without importing pgserver: its import creates run-time directories
    # and warns when XDG_RUNTIME_DIR is unset.
    spec = importlib.util.find_spec("pgserver")
    if spec is None or not spec.submodule_search_locations:
        return None
    bindir = Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"
    return bindir if (bindir / "postgres").is_file() else None


def start(*, durable: bool = False) -> Server:
    """The server for this run: the one named by the environment, or a new one.

    A new one runs without fsync unless ``durable`` (the benchmarks want commits
    that reach the disk, as SQLite's with ``synchronous=FULL`` do).
    """
    dsn = os.environ.get(ENV_DSN, "").strip()
    if dsn:
        _wait_ready(dsn, None, None)
        return Server(dsn, f"{ENV_DSN}", lambda: None)
    bindir, origin = find_bindir()
    return _start_cluster(bindir, origin, durable)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _start_cluster(bindir: Path, origin: str, durable: bool = False) -> Server:
    root = Path(tempfile.mkdtemp(prefix="messages-pg-"))
    try:
        run_as = _unprivileged_user()
        if run_as is not None:
            os.chmod(root, 0o755)
            os.chown(root, run_as[0], run_as[1])
            bindir = _readable_bindir(bindir, root, run_as)
        data = root / "data"
        log = root / "server.log"
        env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
        env["LC_ALL"] = "C"
        initdb = [
            str(bindir / "initdb"),
            "-D",
            str(data),
            "-U",
            "postgres",
            "--auth=trust",
            "--encoding=UTF8",
            "--no-locale",
            "--no-sync",
        ]
        done = _run(initdb, run_as, env)
        if done.returncode != 0:
            raise ServerError(f"initdb failed ({origin}):\n{done.stdout[-2000:]}")
        for _attempt in range(5):
            port = _free_port()
            proc = _spawn_server(bindir, data, root, port, log, run_as, env, durable)
            dsn = f"host=127.0.0.1 port={port} user=postgres dbname=postgres connect_timeout=5"
            try:
                _wait_ready(dsn, proc, log)
            except _PortTaken:
                continue
            except BaseException:
                _stop_process(proc)
                raise
            return Server(dsn, origin, _stopper(proc, root))
        raise ServerError("no free port found for the test server after 5 tries")
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)
        raise


def _unprivileged_user() -> tuple[int, int] | None:
    """(uid, gid) to run the server as when this process is root; None otherwise."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return None
    import pwd

    try:
        entry = pwd.getpwnam(UNPRIVILEGED)
    except KeyError:
        raise ServerError(
            "running as root, which PostgreSQL refuses, and there is no "
            f"{UNPRIVILEGED!r} user to run the test server as: create one, run the tests "
            f"as another user, or set {ENV_DSN} to a running server"
        ) from None
    return entry.pw_uid, entry.pw_gid


def _readable_bindir(bindir: Path, root: Path, run_as: tuple[int, int]) -> Path:
    """``bindir``, or a copy of its installation in ``root`` when the user cannot run it there."""
    if _run([str(bindir / "postgres"), "--version"], run_as, None).returncode == 0:
        return bindir
    # E.g. a virtual environment under /root: copy the installation (~35 MB), keeping
    # its place relative to the wheel's bundled libraries (pgserver's binaries find
    # libpq through the rpath $ORIGIN/../../../pgserver.libs).
    base = bindir.parents[2]
    copy = root / "copy"
    install = copy / bindir.parent.relative_to(base)
    for part in ("bin", "lib", "share"):
        source = bindir.parent / part
        if source.is_dir():
            shutil.copytree(source, install / part, symlinks=True)
    for libs in base.glob("*.libs"):
        shutil.copytree(libs, copy / libs.name, symlinks=True)
    for dirpath, _dirs, files in os.walk(copy):
        os.chown(dirpath, run_as[0], run_as[1])
        for name in files:
            os.lchown(os.path.join(dirpath, name), run_as[0], run_as[1])
    copied = install / "bin"
    done = _run([str(copied / "postgres"), "--version"], run_as, None)
    if done.returncode != 0:
        raise ServerError(
            f"the {UNPRIVILEGED!r} user cannot run the PostgreSQL binaries "
            f"from {bindir}, even copied to {copied}:\n{done.stdout[-2000:]}"
        )
    return copied


def _run(
    args: list[str], run_as: tuple[int, int] | None, env: dict[str, str] | None
) -> subprocess.CompletedProcess[str]:
    user, group, groups = _ids(run_as)
    try:
        return subprocess.run(
            args,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
            check=False,
            timeout=120,
            cwd="/",  # the user may not be able to enter the current directory
            user=user,
            group=group,
            extra_groups=groups,
        )
    except OSError as exc:  # e.g. the user may not execute the file
        return subprocess.CompletedProcess(args, 126, f"{type(exc).__name__}: {exc}")


def _ids(run_as: tuple[int, int] | None) -> tuple[int | None, int | None, list[int] | None]:
    """``user``, ``group`` and ``extra_groups`` for subprocess (None: stay who we are)."""
    if run_as is None:
        return None, None, None
    return run_as[0], run_as[1], []


def _spawn_server(
    bindir: Path,
    data: Path,
    root: Path,
    port: int,
    log: Path,
    run_as: tuple[int, int] | None,
    env: dict[str, str],
    durable: bool,
) -> subprocess.Popen[bytes]:
    args = [
        str(bindir / "postgres"),
        "-D",
        str(data),
        "-h",
        "127.0.0.1",
        "-p",
        str(port),
        "-k",
        str(root),
        "-c",
        "max_connections=60",
    ]
    if not durable:
        args += ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"]
    user, group, groups = _ids(run_as)
    with open(log, "ab") as out:
        return subprocess.Popen(
            args,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            cwd="/",
            start_new_session=True,  # a Ctrl-C of the test run reaches pytest, not the server
            user=user,
            group=group,
            extra_groups=groups,
        )


class _PortTaken(Exception):
    pass


def _wait_ready(dsn: str, proc: subprocess.Popen[bytes] | None, log: Path | None) -> None:
    import psycopg

    deadline = time.monotonic() + _START_TIMEOUT
    last = ""
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            text = log.read_text(errors="replace") if log is not None else ""
            if "Address already in use" in text or "could not bind" in text:
                raise _PortTaken
            raise ServerError(
                f"the test server exited with code {proc.returncode}:\n{text[-3000:]}"
            )
        try:
            with psycopg.connect(dsn, autocommit=True) as conn:
                conn.execute("SELECT 1")
            return
        except psycopg.OperationalError as exc:
            last = str(exc).strip()
        time.sleep(0.05)
    where = "" if log is None else f"\n{log.read_text(errors='replace')[-3000:]}"
    raise ServerError(
        f"the test server did not accept connections within {_START_TIMEOUT:.0f} s: {last}{where}"
    )


def _stop_process(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)  # fast shutdown: disconnect clients, then exit
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=20)


def _stopper(proc: subprocess.Popen[bytes], root: Path) -> Callable[[], None]:
    def stop() -> None:
        try:
            _stop_process(proc)
        finally:
            shutil.rmtree(root, ignore_errors=True)

    return stop


@contextlib.contextmanager
def running() -> Iterator[Server]:
    """A server for the duration of the block."""
    server = start()
    try:
        yield server
    finally:
        server.stop()


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


if __name__ == "__main__":  # pragma: no cover - by hand: start one and print its DSN
    signal.signal(signal.SIGTERM, _interrupt)  # stop the server on `kill` too
    with running() as srv:
        print(f"{srv.dsn}  ({srv.origin}); Ctrl-C stops it", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            signal.pause()
    sys.exit(0)
