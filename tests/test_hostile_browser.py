"""In Chromium: a hostile corpus in every field of every upload and import path is shown as plain text.

Model files and histories on Train's "Save and restore", model files on Draw's "Use a model file",
benchmark JSON on the Benchmark page (refused, then one taken and shown), the uploaded files' names and
the URL's parameters all carry payloads (tests/hostile_corpus.py). After each one the page must have
asked nothing of another address, built nothing from a payload, and still work.
"""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest

from linecnn.checkpoint.history import history_json
from linecnn.checkpoint.model_file import save_model
from linecnn.device import cpu_threads
from linecnn.train.config import RunConfig
from linecnn.train.trainer import fit
from tests.helpers import StreamlitServer, wait_for_app
from tests.hostile_corpus import (
    HISTORY_FIELDS,
    MODEL_FIELDS,
    Listener,
    bench_accepted,
    bench_refusals,
    hostile_history,
    hostile_model,
    mixed,
    page_problems,
    value,
)
from tests.test_draw_page import as_session_run

pytestmark = pytest.mark.browser

WAIT_MS = 120_000  # a first visit to Draw trains its default model; a busy 2-core machine is slow
BINARY, JSON = "application/octet-stream", "application/json"
# How each uploaded file's name starts. The page keeps letters, digits and . _ ( ) - of a name, so
# what would act if it were rendered is emphasis: "**zqs**.case2.json" is shown as "__zqs__.case2.json".
NAMES = ("__zqname__", "![zqn](zq.png)", "**zqs**", "_zqi_", "$zq$", ":material/pets:")
DROPZONE = "[data-testid='stFileUploaderDropzoneInput']"


@pytest.fixture(scope="module")
def listener():
    """The address every payload's link and image points at."""
    instance = Listener()
    yield instance
    instance.close()


@pytest.fixture(scope="module")
def own_server(tmp_path_factory):
    """A server of this module's own: the benchmark JSON it imports stays out of other tests' history."""
    instance = StreamlitServer({"LINECNN_DATA_DIR": str(tmp_path_factory.mktemp("hostile"))}).start()
    yield instance
    instance.stop()


@pytest.fixture(scope="module")
def files() -> tuple[bytes, dict]:
    """A 2-epoch run's model file and its history as a dict, to poison field by field."""
    with cpu_threads("cpu", 1):
        run = as_session_run(fit(RunConfig.from_flat(epochs=2, per_class=10, seed=3)))
    return save_model(run), json.loads(history_json([run]))


@pytest.fixture
def watched(page, own_server):
    """The tab, and the list of every request it makes to an address other than the app's."""
    foreign: list[str] = []

    def record(request) -> None:  # noqa: ANN001 - Playwright's Request
        if not request.url.startswith((own_server.url, "data:", "blob:", "about:")):
            foreign.append(request.url)

    page.on("request", record)
    page.set_default_timeout(WAIT_MS)
    yield page, foreign
    page.remove_listener("request", record)


def assert_inert(watched, listener: Listener, where: str) -> None:
    """Nothing on the page was built from a payload, and nothing was fetched from elsewhere."""
    tab, foreign = watched
    problems = page_problems(tab, listener.url)
    assert not problems, f"{where}: {problems}"
    assert not foreign, f"{where}: the page requested {foreign}"
    assert not listener.hits, f"{where}: the listener was called for {listener.hits}"


def file_name(number: int, suffix: str) -> str:
    """The name of upload ``number``, e.g. '**zqs**.case2.json'."""
    return f"{NAMES[number % len(NAMES)]}.case{number}.{suffix}"


def upload(tab, name: str, data: bytes, mime: str) -> None:
    """Drop one file on the page's uploader."""
    tab.locator(DROPZONE).set_input_files({"name": name, "mimeType": mime, "buffer": data})


def open_page(watched, url: str) -> None:
    """Go to ``url`` and wait until the app is idle."""
    watched[0].goto(url)
    wait_for_app(watched[0], WAIT_MS)


def said_on_screen(tab, number: int) -> None:
    """Wait for the sentence on upload ``number`` (refused or restored), which names its file."""
    tab.locator("[data-testid='stAlert']", has_text=f".case{number}.").wait_for()
    wait_for_app(tab)


def test_train_and_draw_show_every_hostile_field_of_a_model_or_history_as_text(
    watched, own_server, listener, files
):
    """Each poisoned field of a model file and of a history is refused on Train, and each of a model file
    on Draw, with a sentence that builds nothing; a good file with a hostile name restores as text."""
    tab, url = watched[0], listener.url
    model, history = files
    cases = [
        (f"model {field}", hostile_model(model, field, value(url, kinds)), "safetensors", BINARY)
        for field, kinds in MODEL_FIELDS.items()
    ]
    cases += [
        (f"history {field}", hostile_history(history, field, value(url, kinds)), "json", JSON)
        for field, kinds in HISTORY_FIELDS.items()
    ]
    open_page(watched, f"{own_server.url}/Train")
    for number, (what, data, suffix, mime) in enumerate(cases):
        upload(tab, file_name(number, suffix), data, mime)
        said_on_screen(tab, number)
        assert_inert(watched, listener, f"Train, {what}")
    good = len(cases)
    upload(tab, file_name(good, "safetensors"), model, BINARY)
    said_on_screen(tab, good)  # restored, and said so with the file's name
    assert_inert(watched, listener, "Train, a good model with a hostile name")

    tab.locator("[data-testid='stSidebar']").get_by_role("link", name="Draw").click()
    tab.get_by_text(f".case{good}.safetensors").first.wait_for(timeout=WAIT_MS)
    wait_for_app(tab)
    assert_inert(watched, listener, "Draw, the restored run's file name")
    for number, (field, kinds) in enumerate(MODEL_FIELDS.items(), start=good + 1):
        if not tab.locator(DROPZONE).count():
            tab.get_by_role("button", name="Use a model file").click()
        upload(tab, file_name(number, "safetensors"), hostile_model(model, field, value(url, kinds)), BINARY)
        said_on_screen(tab, number)
        assert_inert(watched, listener, f"Draw, model {field}")


def test_benchmark_imports_show_every_hostile_field_as_text(watched, own_server, listener):
    """Each poisoned benchmark JSON is refused with a sentence that builds nothing; one the page takes
    shows its names, notes, statuses and machine (cards, charts, environment, history) only as text."""
    tab, url = watched[0], listener.url
    open_page(watched, f"{own_server.url}/Benchmark")
    for number, (field, data, fragment) in enumerate(bench_refusals(url)):
        upload(tab, file_name(number, "json"), data, JSON)
        tab.locator("[data-testid='stAlert']", has_text=fragment).wait_for()
        wait_for_app(tab)
        assert_inert(watched, listener, f"Benchmark, {field}")
    upload(tab, file_name(9, "json"), bench_accepted(url), JSON)
    tab.get_by_text("median per epoch").first.wait_for()
    wait_for_app(tab)
    tab.locator(".legendtext").first.wait_for()  # Plotly draws its legends after the page is idle
    tab.get_by_text("Environment of each run").click()
    tab.get_by_text("logical CPUs").first.wait_for()
    assert_inert(watched, listener, "Benchmark, an imported run on screen")


def test_url_parameters_are_never_shown_as_markup(watched, own_server, listener):
    """A page opened with payloads in ?lang= (the one parameter the app reads, in the frame every page
    shares) and in a parameter of its own shows none of them. Draw and Lesson share that frame: they are
    left out, since a first visit to Draw trains its default model."""
    url = listener.url
    link = quote(mixed(url, "image", "html", "bold"))
    other = f"{quote(mixed(url, 'link'))}={quote(mixed(url, 'anchor', 'icon', 'heading'))}"
    for page in ("", "Train", "Benchmark"):
        open_page(watched, f"{own_server.url}/{page}?lang={link}&{other}")
        assert_inert(watched, listener, f"the {page or 'Home'} page's address")
