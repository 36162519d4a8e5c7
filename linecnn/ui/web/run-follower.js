/*
 * about: a press that starts something brings what it makes into view and keeps it there while it draws (Train's buttons on a phone and its summary when the run ends, the Benchmark's progress and results, Draw's verdict after a stroke)
 * pages: Train Benchmark Draw
 * relies-on: selector .st-key-train-buttons button ; pages: Train
 * relies-on: selector .st-key-train-buttons [data-testid="stColumn"]:first-child button ; pages: Train
 * relies-on: selector .st-key-train-summary ; needs: a run trained on Train
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
  // Follows whose ``when`` is "filled", waiting since their press for their target to empty and then
  // show something again (a run's summary when the run ends): not given up when the reader scrolls.
  const waiting = new Map();
  const reveal = () => {
    for (const [name, wait] of waiting) {
      const element = document.querySelector(wait.follow.target);
      if (!element || element.getBoundingClientRect().height === 0) wait.emptied = true;
      else if (wait.emptied) {
        waiting.delete(name);
        follow = wait.follow;
        until = performance.now() + 1000 * follow.seconds;
        element.scrollIntoView({ block: follow.block, behavior: "auto" });
      }
    }
  };
  const sizes = new ResizeObserver(() => { reveal(); pin("auto"); });
  // The reader takes over as soon as they scroll, touch or click the page (a scroll bar too) or press a
  // key; the press that starts a run sets the time again after this.
  for (const type of ["wheel", "touchstart", "pointerdown", "keydown"]) {
    document.addEventListener(type, () => { until = 0; }, { capture: true, passive: true });
  }
  // So does a focus moved elsewhere (a screen reader's or a script's, which sends no key): a help
  // button's tooltip would close under the next pin. The page's own focus keeper moves the focus within
  // the trigger or the target (Pause, Cancel), which keeps the follow.
  document.addEventListener("focusin", (event) => {
    const element = event.target;
    const ours = follow && element.closest && (element.closest(follow.trigger) || element.closest(follow.target));
    if (!ours) until = 0;
  }, true);
  // A follow starts on a click on one of its trigger's buttons, or, for a follow whose ``press`` is
  // "stroke", when the pen lifts anywhere in its trigger (a finger's stroke sends no click). The path
  // reaches into a component's shadow root, where a canvas lives.
  const started = (event, press) => {
    const path = event.composedPath().filter((node) => node instanceof Element);
    const phone = window.matchMedia("(max-width: 767px)").matches;
    const all = Object.values(follows).filter((one) => (one.press || "button") === press
      && path.some((node) => node.matches(one.trigger))
      && (press === "stroke" || path.some((node) => node.matches("button")))
      && (!one.phone || phone) && (!one.laptop || !phone));
    const page = document.querySelector('[data-testid="stMainBlockContainer"]');
    if (all.length && page) sizes.observe(page);
    for (const one of all.filter((one) => one.when === "filled")) waiting.set(one.name, { follow: one, emptied: false });
    const found = all.find((one) => one.when !== "filled");
    if (!found) return;
    until = performance.now() + 1000 * found.seconds;
    follow = found;
    // Streamlit's header covers the top 3.75rem: a target brought to the top stops under it
    // (scroll-margin-top, layout.css).
    requestAnimationFrame(() => pin("smooth"));
  };
  document.addEventListener("click", (event) => started(event, "button"), true);
  document.addEventListener("pointerup", (event) => started(event, "stroke"), true);
}
