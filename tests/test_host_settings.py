"""A host's environment settings: a bad value falls back with one readable line in the server's log."""

from __future__ import annotations

import logging

import pytest

from linecnn.classroom import settings, sharing
from linecnn.classroom.allowance import SESSION_SECONDS_ENV, WINDOW_SECONDS_ENV, Allowance
from linecnn.train.config import RunConfig
from linecnn.ui.bench.state import server_caps
from linecnn.ui.train.sharing import TRAIN_THREADS_ENV, training_threads

SETTINGS_LOG = "linecnn.classroom.settings"


@pytest.fixture(autouse=True)
def _fresh_log_memory(monkeypatch):
    """Each test sees every bad value as new, whatever an earlier test logged."""
    monkeypatch.setattr(settings, "_WARNED", set(), raising=False)


@pytest.mark.parametrize("value", ["0", "-1", "abc", "inf", "1.5"])
def test_a_bad_slot_or_thread_count_is_logged_not_silently_dropped(monkeypatch, caplog, value):
    """LINECNN_TRAIN_SLOTS and LINECNN_TRAIN_THREADS fall back as the docs say: with a warning in the log."""
    monkeypatch.setenv(sharing.SLOTS_ENV, value)
    monkeypatch.setenv(TRAIN_THREADS_ENV, value)
    with caplog.at_level(logging.WARNING, logger=SETTINGS_LOG):
        assert sharing.slots_from_env(sharing.SLOTS_ENV, 3) == 3
        assert training_threads(RunConfig(), "cpu") == 1  # the policy for a browser on this machine
    said = caplog.text
    assert f"Ignoring LINECNN_TRAIN_SLOTS={value!r}: it must be a whole number of at least 1; using 3." in (
        said
    )
    assert f"Ignoring LINECNN_TRAIN_THREADS={value!r}" in said and "using the default" in said


def test_each_bad_value_is_logged_once_and_its_numbers_read_as_written(monkeypatch, caplog):
    """Every page run reads the caps again: one line per bad value, with 1000002, not '1e+06'."""
    monkeypatch.setenv("LINECNN_BENCH_MAX_IMAGES", "abc")
    with caplog.at_level(logging.WARNING, logger=SETTINGS_LOG):
        for _ in range(3):
            server_caps()
    lines = [r.getMessage() for r in caplog.records if "LINECNN_BENCH_MAX_IMAGES" in r.getMessage()]
    expected = "Ignoring LINECNN_BENCH_MAX_IMAGES='abc': it must be a number of at least 360; using 1000002."
    assert lines == [expected]


def test_a_zero_time_cap_falls_back_and_the_log_says_how_to_lift_a_cap(monkeypatch, caplog):
    """LINECNN_BENCH_MAX_SECONDS=0 ended every benchmark at once; now it is a typo the log explains."""
    monkeypatch.setenv("LINECNN_BENCH_MAX_SECONDS", "0")
    with caplog.at_level(logging.WARNING, logger=SETTINGS_LOG):
        assert server_caps().max_seconds == 300.0
    assert "at least 0.001 (write inf for no cap); using 300." in caplog.text


def test_a_window_longer_than_a_day_counts_as_a_day_and_the_log_says_so(monkeypatch, caplog):
    """LINECNN_BENCH_WINDOW_SECONDS above a day was cut to a day without a word."""
    monkeypatch.setenv("LINECNN_BENCH_WINDOW_SECONDS", "1e9")
    with caplog.at_level(logging.WARNING, logger=SETTINGS_LOG):
        assert Allowance.from_env().window == 86_400
    assert "LINECNN_BENCH_WINDOW_SECONDS='1e9': it must be at most 86400; using 86400." in caplog.text



def test_a_share_as_long_as_its_window_is_logged_as_no_share_once(monkeypatch, caplog):
    """A share of 7200 s within a 3600 s window, silently no cap before, gets one log line however often
    it is read; a share below the window gets none."""
    monkeypatch.setenv(SESSION_SECONDS_ENV, "7200")
    monkeypatch.setenv(WINDOW_SECONDS_ENV, "3600")
    with caplog.at_level(logging.WARNING, logger=SETTINGS_LOG):
        for _ in range(3):
            assert Allowance.from_env() == Allowance(7200.0, 3600.0)
        monkeypatch.setenv(SESSION_SECONDS_ENV, "3599")
        Allowance.from_env()
    lines = [r.getMessage() for r in caplog.records if SESSION_SECONDS_ENV in r.getMessage()]
    assert len(lines) == 1
    assert lines[0].startswith(f"{SESSION_SECONDS_ENV}=7200 is not less than {WINDOW_SECONDS_ENV}=3600:")
    assert "in effect there is no per-session share" in lines[0]
