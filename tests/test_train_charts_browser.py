"""In Chromium: the Train page's charts (log toggle, steady axes and layout, smoothing, legends, the
validation-set warning, the CSV), the page in Spanish, and, on a phone, run charts that never go blank
when a run ends."""

import csv
import re

import pytest
from playwright.sync_api import expect

from tests.helpers import StreamlitServer, wait_for_app

pytestmark = pytest.mark.browser

WAIT_MS = 240_000  # a first page load or a run on a busy 2-core machine can take minutes
PHONE = {"width": 390, "height": 844}

# What a user sees of a chart, found by its title (Streamlit wraps it in <b>): the y axis and where
# it sits under the page title.
CHART_JS = """(title) => {
    const plot = [...document.querySelectorAll('.js-plotly-plot')]
        .find((p) => p.layout?.title?.text?.replace(/<[^>]+>/g, '') === title);
    if (!plot) return null;
    const heading = document.querySelector('h1').getBoundingClientRect().top;
    return {
        type: plot._fullLayout.yaxis.type,
        range: plot._fullLayout.yaxis.range,
        top: Math.round(plot.getBoundingClientRect().top - heading),
        traces: plot.data.map((t) => ({name: t.name, y: Array.from(t.y), opacity: t.opacity ?? 1,
                                       legend: t.showlegend !== false})),
    };
}"""
# Samples the loss chart every 20 ms, so that every live redraw is seen: its y range, its
# position and how many epochs it plots.
WATCH_JS = """() => {
    window.lossSamples = [];
    const find = (title) => [...document.querySelectorAll('.js-plotly-plot')]
        .find((p) => p.layout?.title?.text?.replace(/<[^>]+>/g, '') === title);
    window.lossWatch = setInterval(() => {
        const plot = find('Loss');
        const heading = document.querySelector('h1');
        // A chart Streamlit is about to replace (data-stale) is not what the page settles on.
        if (!plot || !heading || !plot.data.length || plot.closest('[data-stale="true"]')) return;
        const top = Math.round(plot.getBoundingClientRect().top - heading.getBoundingClientRect().top);
        window.lossSamples.push({
            range: JSON.stringify(plot._fullLayout.yaxis.range),
            top,
            epochs: plot.data[0].x.length,
            // What stands above the chart, when it is not where it first was: the cause of a move.
            above: window.lossSamples.length && top !== window.lossSamples[0].top
                ? [...document.querySelectorAll('[data-testid="stMain"] [data-testid="stElementContainer"]')]
                    .map((e) => [e.innerText.slice(0, 40), e.getBoundingClientRect()])
                    .filter(([, box]) => box.bottom <= plot.getBoundingClientRect().top)
                    .map(([text, box]) => `${text} (${Math.round(box.height)} px)`)
                : null,
        });
    }, 20);
}"""


@pytest.fixture(scope="module")
def own_server(server_env: dict[str, str]):
    """A server of this module's own: another session's run on a shared server (a queue message, the
    slot it holds) must not be what moves this page's charts."""
    instance = StreamlitServer(server_env).start()
    yield instance
    instance.stop()


def chart(tab, title: str) -> dict:
    """The chart called ``title`` once it is drawn."""
    tab.wait_for_function(f"() => ({CHART_JS})({title!r}) !== null", timeout=WAIT_MS)
    return tab.evaluate(CHART_JS, title)


def settled_chart(tab, title: str) -> dict:
    """The chart called ``title`` once it has stopped moving: the same place and axis on three polls."""
    tab.wait_for_function(
        f"""() => {{
            const c = ({CHART_JS})({title!r});
            const reading = c && JSON.stringify([c.top, c.range, c.type]);
            window.chartSame = reading && reading === window.chartReading ? (window.chartSame || 0) + 1 : 0;
            window.chartReading = reading;
            return window.chartSame >= 2;
        }}""",
        polling=250,
        timeout=WAIT_MS,
    )
    return tab.evaluate(CHART_JS, title)


def wait_for_chart(tab, title: str, condition: str) -> None:
    """Wait until the chart called ``title`` (``c`` in ``condition``, a JS expression) meets it."""
    tab.wait_for_function(
        f"() => {{ const c = ({CHART_JS})({title!r}); return c !== null && ({condition}); }}", timeout=WAIT_MS
    )


def set_number(tab, label: str, value: str) -> None:
    field = tab.get_by_label(label, exact=True)
    field.fill(value)
    field.press("Enter")
    wait_for_app(tab, WAIT_MS)


def one_epoch_run(tab, number: int) -> None:
    """Step once, then Stop: a one-epoch run filed as run ``number``."""
    tab.get_by_role("button", name="Step", exact=True).click()
    expect(tab.get_by_role("button", name="Resume", exact=True)).to_be_visible(timeout=WAIT_MS)
    tab.get_by_role("button", name="Stop", exact=True).click()
    tab.get_by_text(re.compile(rf"Summary · Run {number} ·")).wait_for(timeout=WAIT_MS)
    wait_for_app(tab, WAIT_MS)
    # The summary can show before the overlay below it has redrawn with the new run.
    wait_for_chart(tab, "Validation loss by run", f"c.traces.filter((t) => t.legend).length >= {number}")


def overlay_legend(tab) -> list[str]:
    figure = chart(tab, "Validation loss by run")
    return [trace["name"] for trace in figure["traces"] if trace["legend"]]


def test_charts_hold_still_smooth_compare_and_download(own_server, page, tmp_path):
    """A long run on a linear axis stopped after a few live redraws, then two one-epoch runs."""
    page.goto(f"{own_server.url}/Train")
    wait_for_app(page, WAIT_MS)
    assert chart(page, "Loss")["type"] == "log"
    page.locator('[data-testid="stCheckbox"] label', has_text="Log scale (loss)").click()
    wait_for_chart(page, "Loss", "c.type === 'linear'")
    set_number(page, "Epochs", "5000")
    set_number(page, "Images per class", "30")
    before = settled_chart(page, "Loss")

    page.evaluate(WATCH_JS)
    page.get_by_role("button", name="Start").click()
    page.wait_for_function(
        "() => new Set(window.lossSamples.map((s) => s.epochs)).size >= 4", timeout=WAIT_MS
    )  # three live redraws after the first
    page.get_by_role("button", name="Stop", exact=True).click()
    page.get_by_text(re.compile(r"Summary · Run 1 · CPU · stopped at \d+")).wait_for(timeout=WAIT_MS)
    wait_for_app(page, WAIT_MS)
    samples = page.evaluate("() => { clearInterval(window.lossWatch); return window.lossSamples; }")
    assert {sample["range"] for sample in samples} == {"[0,2]"}  # linear: 0 to 2 from start to end
    moved = [sample for sample in samples if sample["top"] != before["top"]]
    assert not moved, moved[:2]  # the run and its summary moved no chart (what stood above it, if they did)

    page.get_by_role("slider", name="Smoothing").press("End")  # the strongest smoothing, 0.99
    wait_for_chart(page, "Loss", "c.traces.length === 4")
    raw, smoothed = (t for t in chart(page, "Loss")["traces"] if t["name"] == "validation")
    assert raw["opacity"] < 1 and not raw["legend"] and smoothed["legend"]
    assert smoothed["y"][0] == raw["y"][0] and smoothed["y"][-1] > raw["y"][-1]  # it lags the fall

    set_number(page, "Learning rate (Adam)", "0.05")
    one_epoch_run(page, 2)
    assert overlay_legend(page) == ["Run 1 · lr 0.01", "Run 2 · lr 0.05"]
    assert page.get_by_text("validated on different images").count() == 0  # the same seed and data

    set_number(page, "Seed", "7")
    one_epoch_run(page, 3)
    assert overlay_legend(page) == [
        "Run 1 · lr 0.01 · seed 24",
        "Run 2 · lr 0.05 · seed 24",
        "Run 3 · lr 0.05 · seed 7",
    ]
    warning = page.get_by_text("validated on different images")
    expect(warning).to_contain_text("(they differ in seed)")

    wait_for_app(page, WAIT_MS)
    with page.expect_download(timeout=WAIT_MS) as received:
        page.get_by_role("button", name="Download these runs (CSV)").click()
    path = tmp_path / received.value.suggested_filename
    received.value.save_as(path)
    with open(path, encoding="utf-8") as file:
        rows = list(csv.DictReader(file))
    first = rows[:-2]
    assert [int(row["epoch"]) for row in first] == list(range(1, len(first) + 1))  # every epoch of run 1
    assert {(row["run"], row["lr"], row["seed"]) for row in first} == {("1", "0.01", "24")}
    assert [(row["run"], row["lr"], row["seed"], row["epoch"]) for row in rows[-2:]] == [
        ("2", "0.05", "24", "1"),
        ("3", "0.05", "7", "1"),
    ]
    assert page.locator('[data-testid="stException"]').count() == 0


def test_the_train_page_reads_spanish(server, page):
    """?lang=es: headings, buttons, charts, the summary and its numbers are Spanish."""
    page.goto(f"{server.url}/Train?lang=es")
    wait_for_app(page, WAIT_MS)
    page.get_by_role("heading", name="Entrenar", exact=True).wait_for()
    for button in ("Iniciar", "Pausar", "Paso", "Detener"):
        expect(page.get_by_role("button", name=button, exact=True)).to_be_visible(timeout=WAIT_MS)
    names = {trace["name"] for trace in chart(page, "Exactitud")["traces"]}
    assert names == {"entrenamiento", "validación"}
    page.get_by_role("button", name="Paso", exact=True).click()
    expect(page.get_by_role("button", name="Reanudar", exact=True)).to_be_visible(timeout=WAIT_MS)
    page.get_by_role("button", name="Detener", exact=True).click()
    page.get_by_text(re.compile(r"Resumen · Ejecución 1 · CPU · detenida en 1")).wait_for(timeout=WAIT_MS)
    wait_for_app(page, WAIT_MS)
    assert chart(page, "Pérdida")["traces"][0]["y"]  # the run's epoch is plotted
    accuracy = page.locator('[data-testid="stMetric"]', has_text="Exactitud de validación")
    assert re.fullmatch(r"\d+,\d\s?%", accuracy.locator('[data-testid="stMetricValue"]').inner_text())
    expect(page.get_by_text("Comparar ejecuciones")).to_be_visible()
    main = page.locator('[data-testid="stMain"]').inner_text()
    for english in ("Start", "Epochs", "Summary", "Compare runs", "Validation", "Smoothing"):
        assert english not in main


# Watches the loss and accuracy charts' places at every change of the page. A place is blank when none of
# its charts shows a drawn curve; a blank is the run end's doing when it began in the same change that
# put an ended run's chart (key "final-...") there, still undrawn: the live chart was taken away first.
# (A live redraw's own blank, a chart replaced by its next, is not what this watches.)
BLANK_WATCH_JS = """() => {
    window.endBlanks = [];
    const places = ['loss', 'acc'];
    const charts = (place) => [...document.querySelectorAll(
        `[data-testid="stElementContainer"][class*="st-key-train-${place}-"]`)];
    const drawn = (chart) => {
        const plot = chart.querySelector('.js-plotly-plot');
        return Boolean(plot && plot.querySelector('.scatterlayer .trace')
            && plot.getBoundingClientRect().height > 0 && getComputedStyle(plot).visibility !== 'hidden');
    };
    const ended = (chart) => /st-key-train-(loss|acc)-final/.test(chart.className);
    const seen = new WeakSet(places.flatMap(charts));
    const shown = Object.fromEntries(places.map((place) => [place, charts(place).some(drawn)]));
    new MutationObserver(() => {
        for (const place of places) {
            const now = charts(place);
            const added = now.filter((chart) => !seen.has(chart));
            added.forEach((chart) => seen.add(chart));
            const showing = now.some(drawn);
            if (shown[place] && !showing && added.some(ended)) {
                window.endBlanks.push({place, at: Math.round(performance.now())});
            }
            shown[place] = showing;
        }
    }).observe(document.body, {subtree: true, childList: true, attributes: true});
}"""
# True once both run charts show a drawn curve (each place: some chart with a trace, on screen).
CHARTS_DRAWN_JS = """() => ['loss', 'acc'].every((place) => [...document.querySelectorAll(
    `[data-testid="stElementContainer"][class*="st-key-train-${place}-"] .js-plotly-plot`)]
    .some((plot) => plot.querySelector('.scatterlayer .trace') && plot.getBoundingClientRect().height > 0))"""
# Each run chart on screen: its width as a share of its column's.
CHART_WIDTHS_JS = """() => [...document.querySelectorAll(
        '[class*="st-key-train-loss-"], [class*="st-key-train-acc-"]')]
    .map((chart) => chart.querySelector('.js-plotly-plot'))
    .filter((plot) => plot && plot.getBoundingClientRect().height > 0)
    .map((plot) => plot.getBoundingClientRect().width
        / plot.closest('[data-testid="stColumn"]').getBoundingClientRect().width)"""


def test_the_run_charts_stay_drawn_when_a_run_ends_on_a_phone(server, tabs):
    """390x844: Step draws a one-epoch live chart of each kind; Resume runs on to 'Finished'. From the
    live charts to the ended run's, through the rerun that follows, each place always shows a chart:
    the live one is not taken away before the ended one covers it. Then one chart of each kind shows,
    across its column."""
    tab = tabs.lend(PHONE)
    tab.goto(f"{server.url}/Train")
    wait_for_app(tab, WAIT_MS)
    set_number(tab, "Epochs", "40")  # after Step, a second or less: few live redraws, if any
    tab.get_by_role("button", name="Step", exact=True).click()
    resume = tab.get_by_role("button", name="Resume", exact=True)
    expect(resume).to_be_visible(timeout=WAIT_MS)
    tab.wait_for_function(CHARTS_DRAWN_JS, timeout=WAIT_MS)
    tab.evaluate(BLANK_WATCH_JS)
    resume.click()
    tab.get_by_text(re.compile(r"Summary · Run 1 · ")).wait_for(timeout=WAIT_MS)
    expect(tab.get_by_role("button", name="Start", exact=True)).to_be_enabled(timeout=WAIT_MS)
    wait_for_app(tab, WAIT_MS)
    expect(tab.get_by_text(re.compile(r"^Finished 40 epochs"))).to_be_visible()
    tab.wait_for_function(CHARTS_DRAWN_JS, timeout=WAIT_MS)
    blanks, widths = tab.evaluate("() => window.endBlanks"), tab.evaluate(CHART_WIDTHS_JS)
    assert blanks == [], "a run chart went blank when the run ended"
    assert len(widths) == 2 and min(widths) > 0.95, f"not one chart across each column: {widths}"
