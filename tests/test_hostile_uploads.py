"""AppTest: hostile text in every field of an uploaded model or history is shown inert, cut and printable."""

from __future__ import annotations

import json
import re
import tomllib
import tracemalloc

import pytest

import linecnn.device
import linecnn.ui.format
import linecnn.ui.sidebar
from linecnn.checkpoint.history import MAX_HISTORY_BYTES, MAX_HISTORY_VALUES, history_json, load_history
from linecnn.checkpoint.model_file import MAX_MODEL_BYTES, load_model, save_model
from linecnn.device import DeviceInfo, cpu_threads
from linecnn.train.config import RunConfig
from linecnn.train.trainer import fit
from linecnn.ui import state
from linecnn.ui.format import device_text
from linecnn.ui.i18n import say
from linecnn.untrusted import value_bound
from tests.helpers import ROOT, app_test
from tests.test_checkpoint import with_metadata
from tests.test_draw_page import TIMEOUT, as_session_run
from tests.test_restore_page import BINARY, DRAW, JSON, TRAIN, upload

CORPUS = {  # what an attacker writes into a field, by what it would do if rendered
    "image": "![x](http://127.0.0.1:9/loss.png)",
    "link": "[click](javascript:alert(1))",
    "html": '<img src="http://127.0.0.1:9/x.png"><a href="http://127.0.0.1:9">a</a>',
    "bold": "**bold** # heading\n| a | b |\n|---|---|",
    "icon": ":material/warning: :red[red] $x^2$",
    "long": "A" * 10_000,
    "control": "cpu\x00\x1b[31m\u202eevil\u200f",
    "surrogate": "1\ud800",
}
# Markdown that would act, unescaped: images, links, tags, bold, icon codes, raw autolinks
ACTIVE = re.compile(r"(?<!\\)(!\[|\]\(|<img|<a |\*\*|:material/|:red\[)|https?://|\u202e|\x00")


def assert_inert(text: str) -> None:
    """``text`` encodes, is bounded, and holds nothing Markdown or HTML would act on."""
    text.encode("utf-8")  # a lone surrogate would fail here, as it does in Streamlit's protobuf
    assert len(text) < 1_500, len(text)
    assert not ACTIVE.search(text), text


@pytest.fixture(scope="module")
def files() -> tuple[bytes, dict]:
    """A 2-epoch run's model file and its history as a dict, to poison field by field."""
    with cpu_threads("cpu", 1):
        run = as_session_run(fit(RunConfig.from_flat(epochs=2, per_class=10, seed=3)))
    return save_model(run), json.loads(history_json([run]))


def hostile_models(model: bytes, value: str) -> list[bytes]:
    """The model file with ``value`` in each metadata field a refusal can quote."""
    config = json.loads(with_metadata_json(model, "config"))
    final = json.loads(with_metadata_json(model, "final_metrics"))
    raw = value.encode("utf-8", "surrogatepass").decode("utf-8", "replace")  # safetensors wants UTF-8
    return [
        with_metadata(model, device=raw),
        with_metadata(model, created=raw),
        with_metadata(model, format_version=raw),
        with_metadata(model, config=json.dumps({**config, value: 1})),
        with_metadata(model, config=json.dumps({**config, "data_mode": value})),
        with_metadata(model, final_metrics=json.dumps({**final, "train_loss": value})),
    ]


def with_metadata_json(model: bytes, key: str) -> str:
    from tests.test_checkpoint import parts

    return parts(model)[1][key]


def hostile_histories(history: dict, value: str) -> list[bytes]:
    """The history with ``value`` in each field a refusal can quote."""
    run = history["runs"][0]
    cases = [
        {**history, "created": value},
        {**history, "format_version": value},
        {**history, value: 1},
        {**history, "runs": [{**run, "device": value}]},
        {**history, "runs": [{**run, "config": {**run["config"], "data_mode": value}}]},
        {**history, "runs": [{**run, "epochs": [{**run["epochs"][0], "train_loss": value}]}]},
    ]
    return [json.dumps(case).encode("utf-8", "surrogatepass") for case in cases]


@pytest.mark.parametrize("kind", list(CORPUS))
def test_every_quoted_field_of_a_hostile_file_is_refused_with_an_inert_sentence(files, kind):
    """Each poisoned field of a model file or a history is refused with a sentence that stays inert,
    bounded and printable in both languages, as the pages say it (``i18n.say``)."""
    model, history = files
    cases = [(load_model, data) for data in hostile_models(model, CORPUS[kind])]
    cases += [(load_history, data) for data in hostile_histories(history, CORPUS[kind])]
    for reader, data in cases:
        with pytest.raises(ValueError) as caught:
            reader(data)
        for language in ("en", "es"):
            assert_inert(say(caught.value, language))


@pytest.mark.parametrize("kind", ["html", "surrogate"])
def test_hostile_files_are_refused_inertly_on_the_pages_which_keep_working(files, kind):
    """On Train and Draw a model file with a poisoned device name, and on Train a history with a poisoned
    format version (where a lone surrogate once crashed the page), get one inert error; nothing is
    restored and the uploader is still there for the next try."""
    model, history = files
    device_case = hostile_models(model, CORPUS[kind])[0]
    version_case = hostile_histories(history, CORPUS[kind])[1]
    model_upload = [("m.safetensors", device_case, BINARY)]
    uploads = [(TRAIN, model_upload), (DRAW, model_upload)]
    uploads.append((TRAIN, [("m.safetensors", model, BINARY), ("h.json", version_case, JSON)]))
    for page, sent in uploads:
        at = upload(app_test(page), *sent)
        assert not at.exception, at.exception
        [error] = at.error
        assert_inert(error.value)
        assert not at.session_state[state.RUNS]
        assert at.get("file_uploader")


def test_a_history_of_tiny_objects_is_refused_before_parsing():
    """Seven megabytes of empty objects are refused by their count, with a sentence."""
    data = b'{"runs": [' + b"{}," * 2_300_000 + b"{}]}"
    at = upload(app_test(TRAIN), ("h.json", data, JSON))
    assert not at.exception
    [error] = at.error
    assert "values; at most" in error.value


def test_a_device_name_its_driver_reports_is_shown_inert(monkeypatch):
    """A CPU or GPU name from the driver is escaped where a page names the device: the sidebar's
    device switch and every sentence that says where a run ran."""
    hostile = DeviceInfo("cpu", "cpu", CORPUS["image"] + " " + CORPUS["bold"], None)
    for module in (linecnn.device, linecnn.ui.format, linecnn.ui.sidebar):
        monkeypatch.setattr(module, "list_devices", lambda: (hostile,))
    assert_inert(device_text("cpu"))
    at = app_test(TRAIN)
    assert not at.exception
    for option in at.sidebar.radio(key="device").options:
        assert_inert(option)


def test_an_upload_over_its_own_limit_is_refused_before_its_bytes_are_read(monkeypatch):
    """Streamlit's server takes any file up to its one maxUploadSize, whatever the browser checked: a model
    over 3 MB on Draw, or a history over 8 MB on Train, is refused from its size alone."""
    from streamlit.runtime.uploaded_file_manager import UploadedFile

    def unread(file: UploadedFile) -> bytes:
        raise AssertionError(f"{file.name} was read")

    monkeypatch.setattr(UploadedFile, "getvalue", unread)
    model, history = b"\0" * (MAX_MODEL_BYTES + 1), b" " * (MAX_HISTORY_BYTES + 1)
    for page, name, data, limit in ((DRAW, "m.safetensors", model, "3.0"), (TRAIN, "h.json", history, "8.0")):
        at = upload(app_test(page), (name, data, BINARY))
        assert not at.exception, at.exception
        [error] = at.error
        assert f"at most {limit} MB is accepted" in error.value


def test_each_uploader_gives_the_browser_the_limit_the_app_checks(tmp_path, monkeypatch):
    """A browser refuses what the app would: each uploader's limit, in MB of 10**6 bytes as browsers count
    them, is its files' own limit; the server's maxUploadSize, in MiB, holds the largest."""
    from linecnn.bench.jsonfields import MAX_FILE_BYTES

    monkeypatch.setenv("LINECNN_DATA_DIR", str(tmp_path))  # a benchmark history of its own, readable

    def browser_limit(page: str, timeout: float = 30) -> int:
        [uploader] = app_test(page, timeout).get("file_uploader")
        return uploader.proto.max_upload_size_mb * 10**6

    assert browser_limit(TRAIN) == max(MAX_MODEL_BYTES, MAX_HISTORY_BYTES)  # one uploader takes both
    assert browser_limit(DRAW, TIMEOUT) == MAX_MODEL_BYTES
    assert browser_limit("pages/2_Benchmark.py") == MAX_FILE_BYTES
    server = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())["server"]["maxUploadSize"]
    assert server * 2**20 >= max(MAX_HISTORY_BYTES, MAX_MODEL_BYTES, MAX_FILE_BYTES)


def test_a_history_with_text_other_than_ascii_is_refused_before_parsing(files):
    """linecnn writes histories in ASCII; other text would cost Python up to four bytes a character."""
    _, history = files
    accented = json.dumps({**history, "created": "2026-01-01T00:00:00+00:00 é"}, ensure_ascii=False)
    with pytest.raises(ValueError, match="other than ASCII"):
        load_history(accented.encode())
    assert load_history(json.dumps(history).encode())  # what linecnn writes still loads


def peak_bytes(read, data: bytes) -> int:  # noqa: ANN001 - read: a reader that may refuse
    """Python's peak allocation while ``read`` takes or refuses ``data``."""
    tracemalloc.start()
    try:
        read(data)
    except ValueError:
        pass
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak


def test_parsing_a_file_within_its_limits_costs_a_bounded_multiple_of_the_limit():
    """The costliest shapes a file can take within its value count (one-key objects, short strings) cost
    at most a few times the upload's size limit to parse (a 7.5 MB history of tiny objects once cost
    about 190 MB)."""
    from linecnn.bench.document import BenchDocument
    from linecnn.bench.jsonfields import MAX_FILE_BYTES, MAX_VALUES

    def within(values: int, item: bytes) -> bytes:
        return b'{"runs": [' + b",".join([item] * ((values - 2) // value_bound(item + b","))) + b"]}"

    history_strings = b'{"runs": [' + b",".join(b'"%05d"' % n for n in range(MAX_HISTORY_VALUES - 2)) + b"]}"
    assert peak_bytes(load_history, within(MAX_HISTORY_VALUES, b'{"a":1}')) < 3 * MAX_HISTORY_BYTES
    assert peak_bytes(load_history, history_strings) < 3 * MAX_HISTORY_BYTES
    assert peak_bytes(BenchDocument.from_json, within(MAX_VALUES, b'{"a":1}')) < 5 * MAX_FILE_BYTES
