"""axe-core in a real page: wait until the page shows what its script drew, then list what axe finds
serious or critical against WCAG 2.0/2.1 A and AA. Used by the accessibility and the every-page tests."""

from __future__ import annotations

import pytest

from tests.helpers import ROOT, in_ci, wait_for_app

# axe-core comes locked from npm (tests/a11y/package.json), installed by `npm ci --prefix tests/a11y`;
# the page gets it from disk, never from a CDN.
AXE = ROOT / "tests" / "a11y" / "node_modules" / "axe-core" / "axe.min.js"
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
BLOCKING = ("serious", "critical")

# Settled: the script has finished its run (Streamlit's own mark on the app's root; the status widget's
# "Running" shows only after a delay), no element is faded as stale or still a skeleton waiting for its
# code to load, the web fonts are in, Plotly has drawn every chart and every code block is highlighted.
# axe measures colours on what the page finally shows, not on a placeholder.
SETTLED = """() => document.querySelector('[data-testid="stApp"]')?.dataset.testScriptState === 'notRunning'
    && !document.querySelector('[data-stale="true"], [data-testid="stSkeleton"]')
    && document.fonts.status === 'loaded'
    && [...document.querySelectorAll('[data-testid="stPlotlyChart"]')]
        .every(chart => chart.querySelector('.js-plotly-plot .main-svg'))
    && [...document.querySelectorAll('[data-testid="stCode"] code[class*="language-"]')]
        .every(code => code.matches('.language-text') || code.querySelector('.token'))"""


# axe's run, or null when the script started another run meanwhile (one can follow a page's first run):
# axe may then have measured elements faded as stale, so the caller audits again.
AXE_RUN = """async (tags) => {
    const app = document.querySelector('[data-testid="stApp"]');
    let rerun = false;
    const watch = new MutationObserver(() => { rerun = true; });
    watch.observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
    const only = {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']};
    const result = await axe.run(document, only);
    watch.disconnect();
    return rerun ? null : result;
}"""
RUNS_ALLOWED = 3


def load_axe() -> str:
    """axe.min.js's text; skips locally without it, fails under CI (where .ci/run installs it)."""
    if not AXE.is_file():
        message = "axe-core is not installed (npm ci --prefix tests/a11y)"
        if in_ci():
            pytest.fail(f"{message}; the accessibility test is mandatory in CI")
        pytest.skip(message)
    return AXE.read_text(encoding="utf-8")


def settled(tab) -> None:
    """Wait until the page shows what its script drew, charts and highlighting included."""
    wait_for_app(tab)
    tab.wait_for_function(SETTLED)


def blocking_violations(tab, axe_source: str, view: str) -> list[str]:
    """One line per serious or critical axe violation on the page as it stands: rule, view, the
    first few targets (and, for contrast, the colours measured on the first)."""
    tab.add_script_tag(content=axe_source)
    for _ in range(RUNS_ALLOWED):
        result = tab.evaluate(AXE_RUN, WCAG_TAGS)
        if result is not None:
            break
        settled(tab)
    else:
        pytest.fail(f"{view} never stayed still for the length of one axe run")
    lines = []
    for violation in result["violations"]:
        if violation["impact"] not in BLOCKING:
            continue
        nodes = violation["nodes"]
        targets = ", ".join(" ".join(node["target"]) for node in nodes[:3])
        line = f"{violation['id']} ({violation['impact']}) on {view}: {len(nodes)} nodes, e.g. {targets}"
        data = (nodes[0].get("any") or [{}])[0].get("data")
        if isinstance(data, dict) and "contrastRatio" in data:
            line += f" [{data.get('fgColor')} on {data.get('bgColor')}: {data['contrastRatio']}:1]"
        lines.append(line)
    return lines
