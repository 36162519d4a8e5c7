"""A benchmark worker beats every second; a parent that hears nothing past the host's bound ends the wait
with a sentence naming the silence, never blaming the time cap (fake clocks and fake streams: fast)."""

from __future__ import annotations

import io
import json
import threading

import pytest

from linecnn.bench import in_worker, profile_worker
from linecnn.bench.heartbeat import BEAT, TIMEOUT_ENV, Replies, worker_timeout
from linecnn.errors import Message
from linecnn.procs.beat import START_SECONDS, Silence
from linecnn.procs.child import Lines
from linecnn.stop import Stopped, StopReason
from linecnn.ui.i18n import say
from tests.helpers import ManualClock


def test_a_worker_heard_from_is_stopped_once_silent_past_the_bound_with_a_sentence_saying_so():
    """Within the bound nothing happens; past it Stopped (no progress) names the silence in both languages."""
    clock = ManualClock(500.0)
    silence = Silence(20.0, clock)
    silence.heard()
    clock.now += 19.5
    silence.check()
    clock.now += 1.0
    with pytest.raises(Stopped) as stopped:
        silence.check()
    assert stopped.value.reason is StopReason.NO_PROGRESS
    message = stopped.value.args[0]
    assert message == Message("worker_silent", seconds=20)
    assert "made no progress for 20 s" in say(message, "en")
    assert "no avanzó en 20 s" in say(message, "es")


def test_a_worker_gets_the_start_bound_before_its_first_line():
    """A worker still importing torch is not silent until START_SECONDS, and then it did not start."""
    clock = ManualClock(500.0)
    silence = Silence(2.0, clock)
    clock.now += START_SECONDS - 1
    silence.check()
    clock.now += 2
    with pytest.raises(Stopped) as stopped:
        silence.check()
    assert stopped.value.args[0] == Message("worker_no_start", seconds=int(START_SECONDS))


def test_the_host_sets_the_bound_and_a_value_too_short_falls_back(monkeypatch):
    """$LINECNN_WORKER_TIMEOUT sets the bound; one under two beats would end healthy workers: ignored."""
    monkeypatch.setenv(TIMEOUT_ENV, "7")
    assert worker_timeout() == 7
    monkeypatch.setenv(TIMEOUT_ENV, "0.5")
    assert worker_timeout() == 20


def test_replies_are_whole_lines_with_beats_among_them_until_closed():
    """The beat thread and the main thread write whole JSON lines; close stops the beats."""
    out = io.StringIO()
    replies = Replies(out)
    replies.start()
    replies.send({"result": 1})
    replies.close()
    count = out.getvalue().count("\n")
    replies.send({"end": True})
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert {BEAT: True} in lines and {"result": 1} in lines
    assert lines[-1] == {"end": True} and len(lines) == count + 1


def test_the_sweep_reader_skips_beats_and_ends_on_silence():
    """Beats keep a worker alive without being results; a worker silent past the bound raises Stopped."""
    clock, lines = ManualClock(500.0), Lines()
    silence = Silence(5.0, clock)
    for message in ({BEAT: True}, {BEAT: True}, {"progress": [1, "timed", 1, 3]}):
        lines.put(json.dumps(message) + "\n")
    assert in_worker._next(lines, threading.Event(), None, silence) == {"progress": [1, "timed", 1, 3]}
    clock.now += 6
    with pytest.raises(Stopped) as stopped:
        in_worker._next(lines, threading.Event(), None, silence)
    assert stopped.value.reason is StopReason.NO_PROGRESS


def test_the_profile_reader_ends_on_a_worker_that_beat_once_and_froze(monkeypatch):
    """A profile worker that fell silent after its first beat ends the wait with the silence's sentence."""
    monkeypatch.setattr(profile_worker, "worker_timeout", lambda: 0.3)
    stdout = Lines()  # a stopped process: one line, then no line and no end of file
    stdout.put(json.dumps({BEAT: True}) + "\n")
    with pytest.raises(Stopped) as stopped:
        for line in profile_worker._lines(stdout, lambda: None, None, None):
            assert BEAT in json.loads(line)
    assert stopped.value.args[0] == Message("worker_silent", seconds=0.3)
