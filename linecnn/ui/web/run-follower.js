/*
 * about: a press that starts something brings what it makes into view and keeps it there while it draws (Train's buttons on a phone, the Benchmark's progress and results, Draw's verdict after a stroke)
 * pages: Train Benchmark Draw
 * relies-on: selector .st-key-train-buttons button ; pages: Train
 * relies-on: selector .st-key-bench-run ; needs: a benchmark run started on Benchmark
 * relies-on: selector canvas.upper-canvas ; pages: Draw
 * relies-on: selector .st-key-draw-verdict ; needs: a line drawn on Draw
 * relies-on: selector [data-testid="stMainBlockContainer"]
 */
export default function ({ data }) {
  const follows = (window.linecnnFollows = window.linecnnFollows || {});
  follows[data.name] = data;
  if (window.linecnnRunFollower) return;
  window.linecnnRunFollower = true;
  let until = 0;  // while now is before this, the target is kept in view
  let follow = null;  // the follow whose target is kept there
  // A busy server draws the run's progress seconds after the press, and the page above the target
  // may change height meanwhile: the target is put back in view whenever the page's size changes.
  const pin = (behavior) => {
    const element = follow && document.querySelector(follow.target);
    if (element && performance.now() < until) element.scrollIntoView({ block: follow.block, behavior });
  };
  const sizes = new ResizeObserver(() => pin("auto"));
  // The reader takes over as soon as they scroll, touch or click the page (a scroll bar too) or press a
  // key; the press that starts a run sets the time again after this.
  for (const type of ["wheel", "touchstart", "pointerdown", "keydown"]) {
    document.addEventListener(type, () => { until = 0; }, { capture: true, passive: true });
  }
  // A follow starts on a click on one of its trigger's buttons, or, for a follow whose ``press`` is
  // "stroke", when the pen lifts anywhere in its trigger (a finger's stroke sends no click). The path
  // reaches into a component's shadow root, where a canvas lives.
  const started = (event, press) => {
    const path = event.composedPath().filter((node) => node instanceof Element);
    const found = Object.values(follows).find((one) => (one.press || "button") === press
      && path.some((node) => node.matches(one.trigger))
      && (press === "stroke" || path.some((node) => node.matches("button"))));
    if (!found || (found.phone && !window.matchMedia("(max-width: 767px)").matches)) return;
    until = performance.now() + 1000 * found.seconds;
    follow = found;
    const page = document.querySelector('[data-testid="stMainBlockContainer"]');
    if (page) sizes.observe(page);
    // Streamlit's header covers the top 3.75rem: a target brought to the top stops under it
    // (scroll-margin-top, layout.css).
    requestAnimationFrame(() => pin("smooth"));
  };
  document.addEventListener("click", (event) => started(event, "button"), true);
  document.addEventListener("pointerup", (event) => started(event, "stroke"), true);
}
