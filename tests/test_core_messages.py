"""Core notes and refusals carry keys: English for the CLI, the reader's language on a page."""

from __future__ import annotations

import copy
import os
import pickle

import pytest

from linecnn.bench.config import BenchConfig
from linecnn.bench.factors import factor
from linecnn.bench.plan import Caps, StepMemoryError, plan_sweep
from linecnn.errors import Message, Size, UserError, recognise
from linecnn.parallel.config import RanksConfig, check_ranks
from linecnn.train.config import DataConfig
from linecnn.train.limits import format_size
from linecnn.ui.i18n import say


def test_faster_paths_a_cpu_cannot_take_are_noted_with_keys():
    """AMP and CUDA graphs dropped on the CPU: each note a Message, English as before, Spanish on a page."""
    _, notes = BenchConfig(amp="bf16", cuda_graphs=True).for_device("cpu")
    assert [note.key for note in notes] == ["note_amp_cuda_only", "note_cuda_graphs"]
    assert notes[0] == "AMP runs on CUDA only; timed in fp32."
    assert [say(note, "es") for note in notes] == [
        "AMP solo funciona en CUDA; medida en fp32.",
        "Los grafos CUDA necesitan CUDA.",
    ]


def test_cells_over_the_image_cap_are_noted_with_the_readers_separators():
    """The left-out sizes are a list of numbers: 3,600 in English, 3.600 in Spanish."""
    plan = plan_sweep(BenchConfig(), factor("data"), ["cpu"], caps=Caps(max_images=1_200))
    note = plan.notes[0]
    assert note.key == "over_images"
    assert note.startswith("Cells above this server's cap of 1,200 images were left out (3,600, 12,000,")
    spanish = say(note, "es")
    assert "el tope de este servidor, de 1.200 imágenes (3.600, 12.000," in spanish
    with pytest.raises(UserError) as caught:
        base = BenchConfig().with_run(per_class=1_000)
        plan_sweep(base, factor("none"), ["cpu"], caps=Caps(max_images=1_200))
    assert (
        say(caught.value, "es")
        == "Todas las celdas superan el tope de este servidor, de 1.200 imágenes por celda."
    )


def test_a_step_over_the_memory_cap_is_refused_with_sizes_in_the_readers_way():
    """The refusal names sizes as 3.4 GiB in English and 3,4 GiB in Spanish, and what to choose."""
    wide = BenchConfig().with_run(width=16, batch_size=16_384, per_class=40_000)
    with pytest.raises(StepMemoryError) as caught:
        plan_sweep(wide, factor("conv"), ["cpu"], caps=Caps(max_step_bytes=64 << 20))
    assert isinstance(caught.value, UserError) and caught.value.message.key == "step_too_big_usual"
    assert "≈ 3.4 GiB of activations, above this server's cap of 64 MiB per step" in str(caught.value)
    spanish = say(caught.value, "es")
    assert "≈ 3,4 GiB de activaciones, más que el tope de este servidor, de 64,0 MiB" in spanish
    assert "como mucho 303 (de los tamaños habituales, 256)" in spanish


def test_a_setting_out_of_range_names_the_field_in_the_readers_language():
    """check_int's refusal: field name and numbers in the reader's way; a wrong type shows as written."""
    with pytest.raises(UserError) as caught:
        DataConfig(per_class=5_000_000)
    assert str(caught.value) == "Images per class must be a whole number from 1 to 2,000,000; got 5,000,000."
    assert say(caught.value, "es") == (
        "Imágenes por clase: debe ser un número entero de 1 a 2.000.000; se recibió 5.000.000."
    )
    with pytest.raises(UserError, match=r"Timed repeats must be a whole number from 1 to 1,000; got 2\.5\."):
        BenchConfig(repeats=2.5)


def test_process_counts_this_machine_cannot_run_are_refused_with_keys():
    """Too many processes for the cores, and a step too small to share, read in Spanish on the page."""
    cores = min(64, os.cpu_count() or 1)
    with pytest.raises(UserError) as caught:
        check_ranks([cores + 1], RanksConfig())
    assert caught.value.message.key == "too_few_cores"
    assert f"más que los {cores} núcleos de CPU" in say(caught.value, "es")
    with pytest.raises(UserError) as caught:
        check_ranks([2], RanksConfig.from_flat(per_class=1, batch_size=1))
    assert say(caught.value, "es").startswith("Un paso de 1 imágenes no se puede repartir entre 2 procesos")


def test_a_size_is_its_english_text_and_keeps_its_bytes_through_copies():
    """format_size reads as before and survives pickling and copying as a Size, so a page can rewrite it."""
    size = format_size(3 << 30)
    assert size == "3.0 GiB" and format_size(64 << 20) == "64 MiB"
    for again in (pickle.loads(pickle.dumps(size)), copy.deepcopy(size)):
        assert isinstance(again, Size) and again.byte_count == 3 << 30 and again == "3.0 GiB"
    message = Message("cell_size", cell=Message("cell.width", width=2), size=format_size(10 << 20))
    assert pickle.loads(pickle.dumps(message)) == "width 2 (≈ 10 MiB)"
    assert say(message, "es") == "ancho 2 (≈ 10,0 MiB)"


def test_a_stored_english_note_is_recognised_and_any_other_text_is_kept():
    """Documents keep notes as strings: a known sentence becomes its Message again, other text stays."""
    note = recognise("CUDA graphs need CUDA.")
    assert isinstance(note, Message) and note.key == "note_cuda_graphs"
    assert recognise("A note from elsewhere.") == "A note from elsewhere."
    assert not isinstance(recognise("A note from elsewhere."), Message)
