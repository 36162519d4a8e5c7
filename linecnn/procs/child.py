"""One child process, supervised: its own process group, its lines read on threads, ended as a whole.

A pipe left unread blocks the child once it is full, so stdout is read line by line into a queue
(``Lines``) and stderr, when kept, into its last lines only. ``Child.end`` closes stdin (a worker
exits when it ends), signals the group SIGTERM, waits ``grace`` seconds, then SIGKILLs whatever of the
group is left and reaps the child, so a cancel, a time cap or an error leaves no process behind.
"""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import subprocess
import threading
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import IO

from linecnn.procs.groups import signal_group

POLL_SECONDS = 0.1  # how often a follower of the lines runs its checks while no line comes
END_GRACE = 2.0  # default time a child has after SIGTERM before its group is SIGKILLed
PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])  # the folder that holds this copy of linecnn


class CannotStart(OSError):
    """The child could not be started (no interpreter, not executable, no process left)."""


class Lines(queue.Queue[str]):
    """Lines of one stream, read by a thread; ``finished`` is set at end of file.

    With ``keep`` the lines are not queued: only the last ``keep`` are kept, in ``tail``."""

    def __init__(self, keep: int | None = None) -> None:
        super().__init__()
        self.finished = threading.Event()
        self.keep = keep
        self.tail: deque[str] = deque(maxlen=keep)

    def text(self, wait: float = END_GRACE) -> str:
        """The last lines kept, joined, once the stream ended (or ``wait`` seconds passed)."""
        self.finished.wait(timeout=wait)
        return "".join(self.tail)

    def drained(self) -> bool:
        """True once the stream has ended and every queued line has been taken."""
        return self.finished.is_set() and self.empty()

    def follow(self, between: Callable[[], None], poll: float = POLL_SECONDS) -> Iterator[str]:
        """Each line as it comes until the stream ended and all were taken; ``between()`` runs before each
        wait of at most ``poll`` seconds, so a cancel, a deadline or a silence raised there lands in time."""
        while True:
            between()
            try:
                yield self.get(timeout=poll)
            except queue.Empty:
                if self.drained():
                    return


def reader(stream: IO[str], keep: int | None = None, name: str = "linecnn-child-reader") -> Lines:
    """Read ``stream`` in a daemon thread into Lines; the stream is closed at its end."""
    lines = Lines(keep)

    def pump() -> None:
        with stream:
            for line in stream:
                (lines.tail.append if keep is not None else lines.put)(line)
        lines.finished.set()

    threading.Thread(target=pump, name=name, daemon=True).start()
    return lines


class Child:
    """A started child: its process (the leader of its own group), its stdout's lines, its stderr's end."""

    def __init__(self, process: subprocess.Popen, grace: float, keep_errors: int | None, name: str) -> None:
        self.process = process
        self.grace = grace  # seconds between SIGTERM and SIGKILL when ended
        assert process.stdout is not None  # start_child always pipes stdout
        self.lines = reader(process.stdout, name=f"{name}-stdout")
        self.errors = Lines(0)  # stderr thrown away: nothing kept, already at its end
        self.errors.finished.set()
        if process.stderr is not None:
            self.errors = reader(process.stderr, keep=keep_errors, name=f"{name}-stderr")

    def __enter__(self) -> Child:
        return self

    def __exit__(self, *_: object) -> None:
        """However the block ends, the whole group is ended and reaped."""
        self.end()

    @property
    def pid(self) -> int:
        """The child's pid, also its process group's id."""
        return self.process.pid

    def send(self, line: str) -> None:
        """Write one line to the child's stdin; a child gone meanwhile is found by whoever reads its lines."""
        with contextlib.suppress(OSError, ValueError):
            assert self.process.stdin is not None, "the child was started without stdin"
            self.process.stdin.write(line + "\n")
            self.process.stdin.flush()

    def last_error(self) -> str:
        """The last non-empty line the child wrote to stderr, or "no message"."""
        return next((line.strip() for line in reversed(self.errors.tail) if line.strip()), "no message")

    def end(self) -> None:
        """End the whole group: close stdin, SIGTERM, ``grace`` s later SIGKILL what is left; reap."""
        with contextlib.suppress(OSError):
            if self.process.stdin is not None:
                self.process.stdin.close()
        if self.process.poll() is None:
            signal_group(self.pid, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=self.grace)
        signal_group(self.pid, signal.SIGKILL)  # anything the child started that outlived it
        self.process.wait()

    def kill(self) -> None:
        """SIGKILL the whole group at once and reap the child: a frozen one too, which SIGTERM would reach
        only once it ran again."""
        signal_group(self.pid, signal.SIGKILL)
        self.process.wait()


def start_child(
    command: list[str],
    env: Mapping[str, str] | None = None,
    *,
    stdin: bool = True,
    keep_errors: int | None = 20,
    grace: float = END_GRACE,
    name: str = "linecnn-child",
) -> Child:
    """Start ``command`` in a process group of its own, stdout read line by line; stdin a pipe (or none),
    stderr's last ``keep_errors`` lines kept (None: thrown away). CannotStart when no process starts.
    Used as a context manager, it ends and reaps the whole group on the way out."""
    try:
        process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE if keep_errors is not None else subprocess.DEVNULL,
            text=True,
            env=None if env is None else dict(env),
            start_new_session=True,  # its own process group: one signal reaches it and all it started
        )
    except OSError as error:
        what = " ".join(command[:3])
        raise CannotStart(error.errno, f"Could not start {what}: {error.strerror or error}") from error
    return Child(process, grace, keep_errors, name)


def python_env(**extra: str) -> dict[str, str]:
    """This process's environment with this copy of linecnn importable first, and ``extra`` set."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([PACKAGE_ROOT, *filter(None, [env.get("PYTHONPATH")])])
    env.update(extra)
    return env
