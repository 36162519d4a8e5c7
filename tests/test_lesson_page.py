"""AppTest: the Lesson page in both languages, its Run buttons, and the mismatch section."""

import re

import pytest
import torch

from linecnn.device import DeviceInfo, cuda_available
from linecnn.lesson import run as lesson_run
from linecnn.lesson import snippets as core
from linecnn.ui.lesson import snippets as view
from tests.test_i18n import page_in

LESSON = "pages/4_Lesson.py"


def on_cpu(language: str):
    """The Lesson page in ``language`` with the CPU picked in the sidebar, whatever else is here."""
    at = page_in(language, LESSON)
    if at.sidebar.radio(key="device").value != "cpu":
        at.sidebar.radio(key="device").set_value("cpu").run()
    return at


def run_button(at, snippet_key: str):
    return next(button for button in at.button if button.key == f"lesson.run.{snippet_key}")


def texts(elements) -> str:
    return "\n".join(element.value for element in elements)


@pytest.mark.parametrize(
    ("language", "run", "fix", "heading"),
    [
        ("en", "Run section", "the fix", "The device"),
        ("es", "Ejecutar la sección", "la solución", "El dispositivo"),
    ],
)
def test_the_page_renders_every_section_in_both_languages(language, run, fix, heading):
    """Seven sections and the recap, their Run buttons each named after its section, and a link per
    section, in the page's language."""
    at = on_cpu(language)
    assert not at.exception
    assert len(at.header) == 8 and at.header[0].value == heading
    runs = [b for b in at.button if b.key and b.key.startswith("lesson.run.")]
    names = [f"{run} {number}" for number in (1, 2, 3)] + [f"{run} 4: {fix}"]
    assert [b.label for b in runs] == names + [f"{run} {number}" for number in (5, 6, 7)]
    # The mistake has no Run button on the CPU: everything else does.
    assert [b.key for b in runs] == [
        f"lesson.run.{s.key}" for sec in core.SECTIONS for s in sec.snippets if s.key != "mismatch.mistake"
    ]
    links = [link.proto.page for link in at.main.get("page_link")]
    assert links == ["", "", "Train", "Draw", "Train", "Train", "Benchmark"]  # "" is Home


def test_run_shows_the_real_output_of_the_code_shown(monkeypatch):
    """In Spanish, Run executes the very text on screen and shows what it printed."""
    seen: list[str] = []

    def recording_run(code, device, *how):
        seen.append(code)
        return lesson_run.run(code, device, *how)

    monkeypatch.setattr(view, "run", recording_run)
    at = on_cpu("es")
    shown = [c.value for c in at.code]
    run_button(at, "move").click().run()
    assert not at.exception
    assert len(seen) == 1 and seen[0].strip() in shown
    assert "# los datos al dispositivo" in seen[0]
    ran = r"Salida real de la última ejecución, en CPU[^,]*, en \d+(,\d)? (ms|s), con los números escritos"
    assert re.search(ran, texts(at.caption))  # it says the numbers are the page's way, not Python's print
    assert "después: cpu cpu cpu" in texts(at.code) and "after:" not in texts(at.code)


def test_an_output_survives_a_run_clicked_elsewhere_while_it_ran(monkeypatch):
    """A Run clicked in a later section as the first one's code finishes stops the first script at its next
    Streamlit call: the first output is still shown after that rerun, and beside the later section's."""
    from streamlit.runtime.scriptrunner import RerunData, get_script_run_ctx

    calls: list[str] = []

    def interrupted_run(code, device, *how):
        outcome = lesson_run.run(code, device, *how)
        calls.append(code)
        if len(calls) == 1:  # what a click elsewhere does to the script still running
            ctx = get_script_run_ctx()
            again = RerunData(query_string=ctx.query_string, page_script_hash=ctx.page_script_hash)
            ctx.script_requests.request_rerun(again)
        return outcome

    monkeypatch.setattr(view, "run", interrupted_run)
    at = on_cpu("en")
    run_button(at, "device").click().run()
    assert not at.exception and len(calls) == 1
    assert "x lives on: cpu" in texts(at.code)
    run_button(at, "detect").click().run()
    assert len(calls) == 2 and "x lives on: cpu" in texts(at.code) and "CUDA available:" in texts(at.code)


@pytest.mark.skipif(cuda_available(), reason="the mistake's section has no Run only without a GPU")
def test_a_run_whose_script_a_second_click_stopped_early_still_runs(monkeypatch):
    """A second click that stops the script before it reaches the clicked Run's section (a student
    pressing two Runs in a row) does not lose the first: its output shows after the rerun."""
    from streamlit.proto.WidgetStates_pb2 import WidgetStates
    from streamlit.runtime.scriptrunner import RerunData, get_script_run_ctx

    stopped: list[bool] = []
    shown_first = view.show_not_run  # drawn in the mistake's section, before the evaluation's Run

    def stop_once() -> None:
        if not stopped:  # what a click elsewhere does to the script, here before it reaches the Run
            stopped.append(True)
            ctx = get_script_run_ctx()
            # The browser's rerun carries the widgets' values but no earlier click: it clears a
            # button's trigger as soon as it has sent it.
            sent = WidgetStates()
            sent.widgets.extend(
                w for w in ctx.session_state.get_widget_states() if w.WhichOneof("value") != "trigger_value"
            )
            again = RerunData(
                query_string=ctx.query_string, page_script_hash=ctx.page_script_hash, widget_states=sent
            )
            ctx.script_requests.request_rerun(again)
        shown_first()

    at = on_cpu("en")
    monkeypatch.setattr(view, "show_not_run", stop_once)
    run_button(at, "evaluate").click().run()
    assert not at.exception and stopped
    assert "gradients tracked: False" in texts(at.code)  # printed by the run, not in the code shown


def test_a_failing_snippet_shows_a_message_not_a_traceback(monkeypatch):
    """A snippet that fails (e.g. the GPU runs out of memory) gets a clear message and the page goes on."""
    failing = "raise RuntimeError('out of memory')"
    monkeypatch.setattr(view, "run", lambda code, device, *how: lesson_run.run(failing, device, *how))
    at = on_cpu("en")
    run_button(at, "evaluate").click().run()
    assert not at.exception
    assert "This code failed on CPU" in texts(at.error)
    assert "RuntimeError: out of memory" in texts(at.code)
    assert len(at.header) == 8


@pytest.mark.skipif(cuda_available(), reason="about a machine without a GPU")
def test_without_a_gpu_the_mistake_says_so_and_what_would_happen():
    """No GPU: the page says the real error needs one, labels the error it shows as not run, runs the fix."""
    at = page_in("en", LESSON)
    text = texts(at.warning)
    assert "Not run here: this mistake needs a GPU" in text
    assert "What would happen (not run here)" in text
    run_button(at, "mismatch.fix").click().run()
    assert "logits on cpu with shape (4, 3)" in texts(at.code)


def fake_gpu(monkeypatch, device: str):
    """A GPU in the device list; its runs really execute on ``device`` instead (a CPU-side stand-in)."""
    from linecnn.ui import sidebar

    devices = (DeviceInfo("cpu", "cpu", "Test CPU", None), DeviceInfo("cuda:0", "cuda", "Test GPU", 8 << 30))
    for module in (sidebar, view):
        monkeypatch.setattr(module, "list_devices", lambda: devices)
    monkeypatch.setattr(sidebar, "resolve", lambda choice: torch.device("cuda:0"))
    monkeypatch.setattr(sidebar, "cuda_unavailable_reason", lambda: None)
    monkeypatch.setattr(view, "run", lambda code, _, *how: lesson_run.run(code, device, *how))


def test_with_a_gpu_on_the_cpu_the_page_asks_to_pick_it(monkeypatch):
    """A GPU is here but the sidebar says CPU: the mistake asks for the GPU instead of running."""
    fake_gpu(monkeypatch, "cpu")
    at = on_cpu("en")
    assert "Pick the GPU in the sidebar" in texts(at.warning)
    assert "lesson.run.mismatch.mistake" not in [b.key for b in at.button]


def test_on_a_second_device_the_mistake_shows_the_error_pytorch_raised(monkeypatch):
    """With another device picked, Run on the mistake shows PyTorch's own error as the real output."""
    fake_gpu(monkeypatch, "meta")  # a real second device on any machine: the model goes there, data stays
    at = page_in("en", LESSON)
    names = [b.label for b in at.button if b.key and b.key.startswith("lesson.run.")]
    assert "Run section 4: the mistake" in names and len(set(names)) == len(names) == 8  # a name each
    run_button(at, "mismatch.mistake").click().run()
    assert not at.exception
    assert "PyTorch really raised this error" in texts(at.error)
    assert "RuntimeError: Tensor on device meta is not on the expected device cpu" in texts(at.code)


@pytest.mark.cuda
@pytest.mark.skipif(not cuda_available(), reason="needs an NVIDIA GPU with a CUDA build of PyTorch")
def test_on_a_real_gpu_the_mistake_shows_the_real_runtime_error():
    """On CUDA the page runs the mistake and shows PyTorch's RuntimeError, then the fix runs there."""
    at = page_in("es", LESSON)
    at.sidebar.radio(key="device").set_value("cuda:0").run()
    run_button(at, "mismatch.mistake").click().run()
    assert not at.exception
    assert "PyTorch lanzó de verdad este error en CUDA:0" in texts(at.error)
    assert any(c.value.startswith("RuntimeError: ") and "cuda" in c.value for c in at.code)
    run_button(at, "mismatch.fix").click().run()
    assert "logits en cuda:0" in texts(at.code)
