"""A hostile corpus for the browser: payloads that act if rendered, the files that carry them, and a
reader of the page that says what a payload managed to build.

Every payload holds MARK, so the page's text can be searched for what came from a file. Links and
images point at a ``Listener`` on another port: a page that rendered one would call it.
"""

from __future__ import annotations

import copy
import json
import struct
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.bench_fixture import fake_gpu_document

MARK = "zq"  # in every payload, and in nothing the app writes itself
ICON = "pets"  # the Material icon a payload asks for; the app never shows it
EMOJI = "\N{ZEBRA FACE}"  # the emoji a payload's :zebra_face: code would become
LONG = MARK + "long" + "L" * 10_000  # a value far longer than any sentence should quote
MAX_TEXT_NODE = 1_500  # characters of one piece of text holding a payload: a quote is cut well before
TIMINGS = ("median_ms", "p25_ms", "p75_ms", "samples_per_s", "first_epoch_ms")  # none in a failed cell


class Listener:
    """An HTTP server on a free loopback port that records every request made to it."""

    def __init__(self) -> None:
        hits: list[str] = []

        class Record(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - the name http.server calls
                hits.append(self.path)
                self.send_response(404)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                """Quiet: the test reports the hits itself."""

        self.hits = hits
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Record)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        """Stop serving and free the port."""
        self.server.shutdown()
        self.server.server_close()


def payloads(url: str) -> dict[str, str]:
    """What an attacker writes into a field, by what it would do if rendered; ``url`` is the listener's."""
    return {
        "image": f"![{MARK}image]({url}/image.png)",
        "html": f'<img src="{url}/html.png" alt="{MARK}html">',
        "anchor": f'<a href="{url}/anchor">{MARK}anchor</a> <b>{MARK}htmlbold</b>',
        "link": f"[{MARK}link]({url}/link)",
        "javascript": f"[{MARK}js](javascript:alert(1))",
        "autolink": f"{url}/{MARK}auto www.{MARK}.example {MARK}@example.org",
        "bold": f"**{MARK}bold** _{MARK}em_",
        "heading": f"\n# {MARK}heading\n",
        "table": f"\n| {MARK}a | {MARK}b |\n|---|---|\n| 1 | 2 |\n",
        "icon": f":red[{MARK}red] :material/{ICON}: :zebra_face:",
        "math": f"${MARK}^2$",
        "control": f"{MARK}ctl\x00\x07\x1b[31m",
        "rtl": f"{MARK}rtl\u202eevil\u200f\u2067",
        "surrogate": f"{MARK}sur\ud800",
    }


def mixed(url: str, *kinds: str) -> str:
    """Several payloads in one value."""
    found = payloads(url)
    return " ".join(found[kind] for kind in kinds)


# A field of a model file -> the payloads it holds. Device names and times must be short printable
# text to be quoted at all; the rest are cut at 40 or 64 characters, so each holds a few.
MODEL_FIELDS = {
    "device": ("image",),
    "created": ("html",),
    "format_version": ("bold", "heading", "autolink"),
    "config_key": ("table", "rtl"),
    "data_mode": ("link", "javascript", "anchor", "control"),
    "seed": ("long",),
    "train_loss": ("math", "surrogate"),
    "tensor": ("icon",),
}
HISTORY_FIELDS = {
    "created": ("image",),
    "format_version": ("bold", "heading", "table"),
    "key": ("html",),
    "device": ("link",),
    "data_mode": ("javascript", "anchor", "icon", "autolink"),
    "seed": ("long",),
    "train_loss": ("math", "control"),
    "number": ("rtl", "surrogate"),
}


def value(url: str, kinds: tuple[str, ...]) -> str:
    """The payloads ``kinds`` as one field's value (the long one alone)."""
    return LONG if kinds == ("long",) else mixed(url, *kinds)


def hostile_model(model: bytes, field: str, text: str) -> bytes:
    """A model file with ``text`` in ``field``; written by hand, so a lone surrogate stays in it."""
    (length,) = struct.unpack("<Q", model[:8])
    header, data = json.loads(model[8 : 8 + length]), model[8 + length :]
    metadata = header["__metadata__"]
    config, final = json.loads(metadata["config"]), json.loads(metadata["final_metrics"])
    if field in ("device", "created", "format_version"):
        metadata[field] = text
    elif field == "config_key":
        metadata["config"] = json.dumps({**config, text: 1})
    elif field in ("data_mode", "seed"):
        metadata["config"] = json.dumps({**config, field: text})
    elif field == "train_loss":
        metadata["final_metrics"] = json.dumps({**final, "train_loss": text})
    else:  # an extra weight named ``text``
        header[text] = {"dtype": "F32", "shape": [1], "data_offsets": [len(data), len(data) + 4]}
        data += bytes(4)
    encoded = json.dumps(header).encode()  # ASCII: a lone surrogate is written as its \ud800 escape
    encoded += b" " * (-len(encoded) % 8)
    return struct.pack("<Q", len(encoded)) + encoded + data


def hostile_history(history: dict, field: str, text: str) -> bytes:
    """A history JSON with ``text`` in ``field``."""
    document = copy.deepcopy(history)
    run = document["runs"][0]
    if field in ("created", "format_version"):
        document[field] = text
    elif field == "key":
        document[text] = 1
    elif field in ("device", "number"):
        run[field] = text
    elif field in ("data_mode", "seed"):
        run["config"][field] = text
    else:
        run["epochs"][0]["train_loss"] = text
    return json.dumps(document).encode()


def bench_refusals(url: str) -> list[tuple[str, bytes, str]]:
    """(field, benchmark JSON, a fragment of the sentence that refuses it) with payloads where it quotes."""
    cases = {
        "format": ("format", "linecnn.bench/" + mixed(url, "image"), "this linecnn reads"),
        "sweep": ("sweep", mixed(url, "html", "bold"), "unknown sweep"),
        "status": ("status", mixed(url, "link", "javascript", "icon"), "status is"),
        "median": ("median_ms", mixed(url, "math", "control", "rtl"), "median_ms is"),
        "surrogate": ("device_name", mixed(url, "surrogate"), "not valid Unicode"),
    }
    found = []
    for name, (key, text, fragment) in cases.items():
        document = fake_gpu_document(gpu_only=False, largest=400)
        target = document if key in ("format", "sweep") else document["results"][0]
        target[key] = text
        found.append((name, json.dumps(document).encode(), fragment))
    return found


def bench_accepted(url: str) -> bytes:
    """A benchmark JSON the page takes, with payloads in every free-text field it shows."""
    # The first result (a timed GPU cell, a line on the charts) holds the HTML Plotly would render.
    kinds = ["anchor", *(kind for kind in payloads(url) if kind not in ("anchor", "surrogate"))]
    everything = mixed(url, *kinds)
    document = fake_gpu_document(gpu_only=False, largest=400)
    document["notes"] = [everything]
    for env in [document["env"], *(result["env"] for result in document["results"])]:
        env.update(cpu_model=everything, torch_version=mixed(url, "bold"), cuda_version=mixed(url, "link"))
        env.update(python_version=mixed(url, "icon"), platform=mixed(url, "table"), date=mixed(url, "html"))
        for number, device in enumerate(env["devices"]):
            device["name"] = mixed(url, kinds[number % len(kinds)], "rtl")
    for number, result in enumerate(document["results"]):
        result["device_name"] = f"{mixed(url, kinds[number % len(kinds)])} {result['device']}"
        result["notes"] = [mixed(url, kinds[(number + 3) % len(kinds)])]
    failed = document["results"][-2]  # the GPU's largest cell: its card says why it has no time
    failed.update(status="failed: " + everything, times_ms=[], **dict.fromkeys(TIMINGS))
    return json.dumps(document).encode()


# The text an element would hold had a payload been rendered: a link's, a bold's, a table cell's...
BUILT = ("zqimage", "zqhtml", "zqanchor", "zqhtmlbold", "zqlink", "zqjs", "zqbold", "zqem", "zqheading")
BUILT += ("zqa", "zqb", "zqred", "zqname", "zqs", "zqi", "zq")  # the last four: file names' Markdown

# What the page's DOM may not hold. An element is built from a payload when its whole text is one of
# BUILT: the page's own bold or headings around a quoted value hold the value's literal characters too.
INSPECT_JS = """([mark, built, listener, icon, emoji, longest]) => {
  const problems = [];
  const formatting = "a, img, strong, b, em, i, h1, h2, h3, h4, h5, h6, table, td, th, del, s, code, " +
    "pre, blockquote, li, mark, sup, sub, span, tspan";
  for (const el of document.body.querySelectorAll(formatting)) {
    const text = el.textContent.replace(/\\s+/g, "");
    if (built.includes(text)) problems.push(`<${el.tagName.toLowerCase()}> built around ${text}`);
  }
  for (const el of document.body.querySelectorAll(".katex, math")) {
    if (el.textContent.includes(mark)) problems.push(`a formula: ${el.textContent.slice(0, 40)}`);
  }
  for (const el of document.body.querySelectorAll("*")) {
    for (const name of ["src", "href", "xlink:href", "srcset", "poster", "action", "style"]) {
      const found = (el.getAttribute(name) || "").toLowerCase();
      const named = found.includes(mark) && !found.startsWith("data:");  // base64 may spell it by chance
      if (named || found.includes(listener) || found.startsWith("javascript:")) {
        problems.push(`<${el.tagName.toLowerCase()} ${name}=${JSON.stringify(found.slice(0, 80))}>`);
      }
    }
    if (el.matches('[data-testid="stIconMaterial"]') && el.textContent.trim() === icon) {
      problems.push(`the icon ${icon}`);
    }
  }
  const hidden = new RegExp("[\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f" +
    "\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069]");
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const text = walker.currentNode.nodeValue;
    if (!text.toLowerCase().includes(mark)) continue;
    if (walker.currentNode.parentElement.closest('[data-testid="stDataFrame"]')) continue;
    const quote = JSON.stringify(text.slice(0, 80));
    if (text.length > longest) problems.push(`a text of ${text.length} characters: ${quote}`);
    if (hidden.test(text)) problems.push(`a control or direction character in ${quote}`);
  }
  if (document.body.textContent.includes(emoji)) problems.push("an emoji from a payload's code");
  if (document.querySelector('[data-testid="stException"]')) problems.push("a traceback");
  return problems;
}"""


def page_problems(tab, listener: str) -> list[str]:
    """What a payload built on the page (elements, formatting, long or invisible text, a traceback)."""
    host = listener.removeprefix("http://")
    return tab.evaluate(INSPECT_JS, [MARK, list(BUILT), host, ICON, EMOJI, MAX_TEXT_NODE])
