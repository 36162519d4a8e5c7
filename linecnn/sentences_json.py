"""The refusals of a benchmark JSON file, in English, each known by a key (the Spanish: the errors catalog).

A refusal names the place in the file (a ``place.*`` sentence) and quotes the value found there; the
file's own keys and values (``median_ms``, ``'ok'``, ``true``) are written as the file writes them.
"""

from __future__ import annotations

# The start of every sentence refusing a file that is not a benchmark JSON of linecnn
_NOT_OURS = "This is not a linecnn benchmark JSON (make one with: python -m linecnn bench --json --out FILE)"

# key -> English sentence with {fields}, merged into linecnn.sentences.ENGLISH.
BENCH_JSON: dict[str, str] = {
    # bench/jsonfields.py and bench/document.py: a file imported as a benchmark that is not one
    "bench_not_json": "This file is not valid JSON ({detail}).",
    "bench_not_ours": f"{_NOT_OURS}.",
    "bench_no_results": f"{_NOT_OURS}: it has no results.",
    "bench_unknown_sweep": f"{_NOT_OURS}: unknown sweep {{sweep}}.",
    "bench_too_big": "This file is {size} MB, larger than the {limit} MB a benchmark JSON may be.",
    "history_imports_full": (
        "This server's history holds {count} imported runs, as many as it keeps: another can be imported "
        "once one is deleted under History (on a class's server, by a teacher)."
    ),
    "bench_format": "This benchmark JSON has format {format}; this linecnn reads {expected}.",
    "bench_unusable": "This benchmark JSON cannot be used: {problem}.",
    # What makes a benchmark JSON unusable ({problem} above): its size, its nesting, its numbers
    # Where a file stops being JSON ({detail} above): the parser's own words are English only
    "json.at": "line {line}, column {column}",
    "json.encoding": "it is not UTF-8 text",
    "json.empty": "the file is empty",  # a file saved while its download failed, or cut short
    "json.values": "it holds more than {limit} values",
    "json.nested": "it is nested too deeply",
    "json.deeper": "it is nested more than {limit} levels deep (at {where})",
    "json.digits": "it has a {digits}-digit number, too large (at most {limit} digits)",
    "json.float": "it has the number {number}, too large to be a float",
    "json.results": "it has {count} results, more than {limit} results a benchmark may hold",
    # A place in the file ({where}): result 3, one of its fields, a field of the document, the file
    "place.result": "result {number}",
    "place.result_field": "result {number}'s {field}",
    "place.field": "'{field}'",
    "place.file": "the file",
    # bench/jsonfields.py: a field of the wrong type or out of its range
    "json.not_object": "{where} is not an object",
    "json.lacks": "{where} lacks {name}",
    "json.not_whole": "{where} is {value}, not a whole number from {low} to {high}",
    "json.not_flag": "{where} is {value}, not true or false",
    "json.not_texts": "{where} is not a list of sentences",
    "json.not_numbers": "{where} is not a list of numbers of at least 0",
    "json.not_objects": "{where} is not a list of objects",
    "json.not_text": "{where} is {value}, not text",
    "json.long_text": "{where} is a text of {count} characters, longer than the {limit} allowed",
    "json.surrogate": "{where} is not valid Unicode text (it holds a lone surrogate)",
    "json.not_finite": "{where} is {value}, not a finite number",
    "json.not_number": "{where} is {value}, not a number from {low} to {high}",
    # bench/results.py and bench/document.py: a result that no measurement could have written
    "json.not_one_of": "{where} is {value}, not one of {allowed}",
    "json.status": "{where} is {value}, not ok, out of memory, failed, stopped or skipped",
    "json.bad_config": "{where} is not valid: {problem}",
    "json.no_timings": "{where} is 'ok' but lacks its timings",
    "json.tiny_median": "{where} is 'ok' but its median is not above {limit} ms",
    "json.quartiles": (
        "{where} has p25, median and p75 of {p25}, {median} and {p75} ms; they must rise in that order "
        "and stay under a day"
    ),
    "json.repeated": (
        "result {number} repeats the cell of result {first} (device {device}, {variant}, x = {x})"
    ),
    # bench/store.py: a run an older linecnn stored without these checks, read back
    "history_unreadable": "Run #{run} in the history cannot be read: {problem}",
}
