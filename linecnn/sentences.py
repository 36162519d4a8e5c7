"""The core's sentences in English, each known by a key; the app's ``errors`` catalog holds the Spanish.

A sentence is said through ``linecnn.errors.Message``; a test checks that both languages have the same
keys and the same ``{fields}``.
"""

from __future__ import annotations

from linecnn.sentences_json import BENCH_JSON

# key -> English sentence with {fields}. Integers in fields are written 1,234; other numbers 1,234.5;
# a tuple is its items joined with ", "; a Size (linecnn.train.limits.format_size) is its own text.
ENGLISH: dict[str, str] = {
    # device.py: why the sidebar offers no CUDA
    "cuda_cpu_build": "this PyTorch ({version}) is a CPU-only build.",
    "cuda_no_gpu": "no NVIDIA GPU or driver is visible to PyTorch.",
    # draw/preprocess.py: a drawing that is not one straight line
    "drawing_full": "The ink covers most of the canvas. Clear it and draw a single line.",
    "drawing_dot": "That looks like a dot. Draw a line at least a quarter of the canvas long.",
    "drawing_blob": "That does not look like one straight line. The model only knows single lines.",
    # train/limits.py: a Train-page run over the server's per-run budget, with a setting that fits
    "over_work": (
        "{epochs} epochs of {images} images is {work} image-epochs, more than this server allows per run "
        "({limit}). Choose {options}."
    ),
    "at_most_epochs": "at most {count} epochs",
    "at_most_per_class": "at most {count} images per class",
    "either": "{first} or {second}",
    "over_memory": (
        "This run needs about {needed} of memory (images, model and one training step), more than this "
        "server allows per run ({limit}). {advice}"
    ),
    "choose_batch": "Choose batch size {size} or smaller.",
    "choose_per_class": "Choose at most {count} images per class.",
    "choose_width": "Choose a smaller width.",
    # checkpoint/: a model or history file that cannot be restored
    "file_too_big": "The {what} is {size} MB; at most {limit} MB is accepted.",
    "file_not_bytes": "The {what} must be raw file bytes.",
    "not_json": "The {what} is not valid JSON ({detail}).",
    "json_constant": "holds {name}, which is not a number JSON allows",
    "not_object": "The {what} must be a JSON object.",
    "wrong_fields": "The {what} has the wrong fields: {detail}.",
    "not_whole_number": "The {what} must be a whole number from {low} to {high}; the file has {value}.",
    "not_number": "The {what} must be a number from {low} to {high}; the file has {value}.",
    # bench/in_worker.py: the worker process could not be started at all
    "worker_not_started": (
        "The benchmark could not start its worker process on this server, so nothing was timed. The "
        "server's log says why; tell whoever runs this server."
    ),
    "not_text": "The {what} must be a short line of text (at most {limit} characters); the file has {value}.",
    "text_too_long": "The {what} has {count} characters; at most {limit} are accepted.",
    "text_unprintable": "The {what} holds a character that cannot be shown ({char}); it must be plain text.",
    "file_unusable": "The {what} cannot be used: {problem}.",
    "bad_device": "The device name {name} is not one like 'cpu' or 'cuda:0'.",
    "bad_time": "The creation time {text} is not an ISO 8601 date and time.",
    "bad_settings": "The file's run settings are not valid: {detail}",
    "bad_confusion": "The confusion matrix must be {classes} rows of {classes} counts.",
    "no_epochs_to_save": "A run without a finished epoch has no trained model to save.",
    "not_safetensors": "The file is not a model saved by linecnn: it is not in the safetensors format.",
    "no_metadata": "The safetensors file has no linecnn metadata: it was not saved by linecnn's Train page.",
    "wrong_model_tag": (
        "The safetensors file was not saved by linecnn: its format tag is missing or different."
    ),
    "model_version": "The model file has format version {version}; this app reads version {expected}.",
    "metadata_lacks": "The model file's metadata lacks {names}.",
    "epochs_mismatch": (
        "The model file says {epochs} epochs were done, but its final metrics are of another epoch."
    ),
    "weights_mismatch": (
        "The file's weights do not match the model its settings describe (width {width}): {detail}."
    ),
    "weight_damaged": "The file's entry for weight {name} is damaged.",
    "weight_dtype": "Weight {name} is stored as {dtype}; linecnn models are 32-bit floats (F32).",
    "weight_shape": "Weight {name} has shape {shape}; a model of width {width} needs {expected}.",
    "model_damaged": "The model file is damaged or cut short ({detail}).",
    "weight_not_finite": (
        "Weight {name} holds NaN or infinite values: the run diverged or the file is damaged."
    ),
    "run_without_epochs": "A run in the history has no list of epochs.",
    "epochs_out_of_order": "A run's epochs in the history are not numbered 1, 2, 3 … in order.",
    "not_history": "The JSON file is not a linecnn run history: its format tag is missing or different.",
    "history_version": "The history file has format version {version}; this app reads version {expected}.",
    "history_runs": "A history file holds 1 to {limit} runs.",
    "history_too_long": "The history file holds {epochs} epochs; at most {limit} are accepted.",
    "history_not_ascii": "The history file holds characters other than ASCII, which linecnn never writes.",
    # a benchmark JSON refused (bench/jsonfields.py, bench/results.py, bench/document.py)
    **BENCH_JSON,
    # bench/config.py: a faster path a device cannot take, noted on the cell timed without it
    "note_amp_cuda_only": "AMP runs on CUDA only; timed in fp32.",
    "note_no_bf16": "This GPU has no bf16; timed in fp32.",
    "note_channels_last": "channels_last: CPU and CUDA only.",
    "note_cuda_graphs": "CUDA graphs need CUDA.",
    # bench/plan.py: cells a sweep leaves out under the caps ({cap} is a cap.* name), or a sweep refused
    "no_devices": "Choose at least one device to benchmark.",
    "over_images": "Cells above {cap} of {limit} images were left out ({images} images).",
    "all_over_images": "Every cell is above {cap} of {limit} images per cell.",
    "below_sweep": "No cell of this sweep is as small as {up_to}: only its smallest cell, {cell}, is timed.",
    "over_step_memory": (
        "Cells whose training step would keep more than {cap} of {limit} of activations were left out: "
        "{cells}."
    ),
    "step_too_big": (
        "One training step would keep ≈ {needed} of activations, above {cap} of {limit} per step. "
        "Choose a batch size of at most {largest}, a smaller width or fewer extra conv layers."
    ),
    "step_too_big_usual": (
        "One training step would keep ≈ {needed} of activations, above {cap} of {limit} per step. "
        "Choose a batch size of at most {largest} (of the usual sizes, {usual}), a smaller width or fewer "
        "extra conv layers."
    ),
    "cell_size": "{cell} (≈ {size})",
    "cap.server": "this server's cap",
    "cap.cli": "the CLI's cap",
    "cell.images": "{count} images",
    "cell.batch": "a batch of {count}",
    "cell.width": "width {width}",
    "cell.convs": "{count} conv layers",
    # train/config.py (check_int): a setting out of its range; {what} is a field.* name
    "out_of_range": "{what} must be a whole number from {low} to {high}; got {value}.",
    "lr_out_of_range": "Learning rate must be a number above 0 and at most 10; got {value}.",
    "field.per_class": "Images per class",
    "field.val_per_class": "Validation images per class",
    "field.width": "Model width",
    "field.extra_convs": "Extra conv layers",
    "field.epochs": "Epochs",
    "field.batch_size": "Batch size",
    "field.work_budget": "The work budget",
    "field.memory_budget": "The memory budget",
    "field.seed": "Seed",
    "field.warmup": "Warm-up epochs",
    "field.repeats": "Timed repeats",
    "field.timed_epochs": "Timed epochs",
    "field.threads": "CPU threads per process",
    # parallel/config.py: a number of processes this machine cannot run
    "no_rank_counts": "Give at least one number of processes, such as 1,2.",
    "bad_rank_count": "A number of processes must be a whole number of at least 1; got {value}.",
    "step_not_shared": (
        "A step of {images} images cannot be shared by {count} processes: choose a larger batch or fewer "
        "processes."
    ),
    "too_few_gpus": "{count} ranks need {count} GPUs (one rank per GPU), and this machine has {limit}.",
    "too_few_cores": (
        "{count} processes are more than this machine's {limit} CPU cores: the extra ones would only take "
        "turns on the same cores. Choose at most {limit}."
    ),
    # classroom/line.py: a run that held a training slot without progress past the host's bound
    "slot_lost": (
        "This run made no progress for {seconds} s while it held a training slot, so the slot went to the "
        "next run in line and this run was stopped; its finished epochs are kept."
    ),
    # classroom/bench_turns.py: a benchmark that held its turn without progress past the host's bound
    "bench_stalled": (
        "This benchmark made no progress for {seconds} s, so the next benchmark in line took its turn and "
        "this one was stopped."
    ),
    # parallel/memory.py: a series whose largest run would not fit in this machine's free memory
    "ranks_over_memory": (
        "Each process builds the whole data set: the largest run ({count} at once) needs about {needed} of "
        "memory, more than this machine has free ({available}). {advice}"
    ),
    "choose_fewer_ranks": "Choose fewer processes.",
    # parallel/watchdog.py: a rank silent past the host's bound ($LINECNN_RANK_TIMEOUT) ends its run
    "rank_silent": (
        "Rank {rank} of {ranks} made no progress for {seconds} s (the process froze or hung), so the run was "
        "stopped and no process of it is left; nothing was measured for this number of processes."
    ),
    "torchrun_silent": (
        "Rank {rank} of {ranks} ended, but torchrun, which reaps the ranks and ends the run, did not for "
        "{seconds} s (it froze or hung), so the run was stopped and no process of it is left; nothing was "
        "measured for this number of processes."
    ),
    "rank_no_start": (
        "Rank {rank} of {ranks} did not start within {seconds} s, so the run was stopped and no process of "
        "it is left; nothing was measured for this number of processes."
    ),
    # bench/heartbeat.py: a benchmark worker process silent past the host's bound ($LINECNN_WORKER_TIMEOUT)
    "worker_silent": (
        "The benchmark's worker process made no progress for {seconds} s (it froze or hung), so it was "
        "ended and no process of it is left; what it had not finished was not measured."
    ),
    "worker_no_start": (
        "The benchmark's worker process did not start within {seconds} s, so it was ended and no process "
        "of it is left; nothing was measured."
    ),
    # The things a checkpoint message can name as {what}
    "what.model_file": "model file",
    "what.history_file": "history file",
    "what.run_settings": "run settings",
    "what.final_metrics": "final metrics",
    "what.epochs_done": "epochs done",
    "what.thread_count": "thread count",
    "what.cpu_threads": "CPU thread count",
    "what.confusion": "confusion matrix",
    "what.confusion_count": "confusion matrix count",
    "what.epoch_record": "epoch record",
    "what.epoch_number": "epoch number",
    "what.planned_epochs": "planned epochs of a record",
    "what.train_loss": "training loss",
    "what.train_acc": "training accuracy",
    "what.val_loss": "validation loss",
    "what.val_acc": "validation accuracy",
    "what.epoch_time": "epoch time",
    "what.elapsed_time": "elapsed time",
    "what.device_name": "device name",
    "what.creation_time": "creation time",
    "what.run_in_history": "run in the history",
    "what.run_number": "run number",
    "missing": "missing {names}",
    "unknown": "unknown {names}",
    "unexpected": "unexpected {names}",
    "and_more": "{names} and {count} more",
    "two_parts": "{first}; {second}",
    # draw/preprocess.py: ink that one straight stroke does not explain (draw/geometry.py)
    "drawing_not_line": (
        "That is not one straight line: it bends, turns, branches or is several strokes. "
        "The model only knows single straight lines."
    ),
    # checkpoint/checks.py: a JSON file refused before parsing, for the memory its values would cost
    "json_too_many": "The {what} holds about {count} values; at most {limit} are accepted.",
}
