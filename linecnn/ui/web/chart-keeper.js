/*
 * about: keeps a live chart's last picture on screen while Streamlit mounts the chart that replaces it
 * pages: Train
 * relies-on: selector [data-testid="stElementContainer"]:has([data-testid="stPlotlyChart"]) ; pages: Train
 * relies-on: selector [data-testid="stPlotlyChart"] .js-plotly-plot .scatterlayer .trace ; needs: a Train chart with its lines drawn (after a run)
 */
export default function ({ data }) {
  const labels = (window.linecnnKeptCharts = window.linecnnKeptCharts || new Set());
  data.labels.forEach((label) => labels.add(label));
  if (window.linecnnChartKeeper) return;
  window.linecnnChartKeeper = true;
  // A redrawn chart is a new element: Streamlit removes the old one at once, and the new one stays
  // empty until Plotly has drawn it (a second or more on a busy phone). Until then the old picture,
  // taken out of the page's flow, stands in its place; the new one waits beneath it, as wide.
  const LONGEST_MS = 5000;
  const CHART = '[data-testid="stPlotlyChart"]';
  const watched = (chart) => chart && [...labels].some((label) => (chart.getAttribute("aria-label") || "").startsWith(label));
  const drawn = (chart) => {
    const plot = chart.querySelector(".js-plotly-plot");
    return plot && plot.querySelector(".scatterlayer .trace") && getComputedStyle(plot).visibility !== "hidden";
  };
  const chartIn = (node) => (node instanceof Element ? (node.matches(CHART) ? node : node.querySelector(CHART)) : null);
  const ghosts = new Set();
  const NEWCOMER_STYLE = ["position", "top", "left", "right", "z-index"];
  // The chart just put into ``parent`` (one of ``added``) to show ``label``'s chart again, if any.
  const newcomerOf = (added, parent, label) => added.find((node) => {
    const chart = node.parentNode === parent && chartIn(node);
    return chart && chart.getAttribute("aria-label") === label;
  });
  const hide = (ghost, newcomer) => {
    ghost.newcomer = newcomer;
    Object.assign(newcomer.style, { position: "absolute", top: `${ghost.node.offsetTop}px`, left: "0", right: "0", "z-index": "-1" });
  };
  const settle = (ghost, added) => {
    const { node, parent, label } = ghost;
    let newcomer = ghost.newcomer;
    if (!newcomer.isConnected) {  // replaced again before it was drawn
      newcomer = newcomerOf(added, parent, label);
      if (newcomer) hide(ghost, newcomer);
    }
    if (newcomer && newcomer.isConnected && !drawn(chartIn(newcomer)) && Date.now() < ghost.until) return;
    node.remove();
    if (newcomer) for (const name of NEWCOMER_STYLE) newcomer.style.removeProperty(name);
    if (![...ghosts].some((other) => other !== ghost && other.parent === parent)) parent.style.position = ghost.position;
    ghosts.delete(ghost);
  };
  const keep = (node, parent, next, added) => {
    const old = chartIn(node);
    if (!watched(old) || !drawn(old) || !parent.isConnected) return;
    const label = old.getAttribute("aria-label");
    const newcomer = newcomerOf(added, parent, label);
    if (!newcomer || drawn(chartIn(newcomer))) return;
    node.classList.add("linecnn-chart-ghost");
    node.dataset.ghostOf = label;
    node.setAttribute("aria-hidden", "true");
    node.querySelectorAll("[data-testid]").forEach((element) => element.removeAttribute("data-testid"));
    node.querySelectorAll(".js-plotly-plot").forEach((element) => element.classList.remove("js-plotly-plot"));
    node.removeAttribute("data-testid");
    parent.insertBefore(node, next && next.parentNode === parent ? next : newcomer);
    const same = [...ghosts].find((other) => other.parent === parent);
    const ghost = { node, parent, label, position: same ? same.position : parent.style.position, until: Date.now() + LONGEST_MS };
    parent.style.position = "relative";
    hide(ghost, newcomer);
    ghosts.add(ghost);
  };
  let frame = 0;
  const check = () => {
    frame = 0;
    ghosts.forEach((ghost) => settle(ghost, []));
    if (ghosts.size) frame = requestAnimationFrame(check);
  };
  new MutationObserver((records) => {
    const added = records.flatMap((record) => [...record.addedNodes]).filter((node) => node instanceof Element);
    ghosts.forEach((ghost) => { if (!ghost.newcomer.isConnected) settle(ghost, added); });
    for (const record of records) {
      for (const node of record.removedNodes) {
        if (!node.classList?.contains("linecnn-chart-ghost")) keep(node, record.target, record.nextSibling, added);
      }
    }
    if (ghosts.size && !frame) frame = requestAnimationFrame(check);
  }).observe(document.body, { subtree: true, childList: true });
}
