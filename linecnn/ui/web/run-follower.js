/*
 * about: pressing a run's button brings the run into view and keeps it there while it draws (Train's buttons on a phone, the Benchmark's progress and results)
 * pages: Train Benchmark
 * relies-on: selector .st-key-train-buttons button ; pages: Train
 * relies-on: selector .st-key-bench-run ; needs: a benchmark run started on Benchmark
 * relies-on: selector [data-testid="stMainBlockContainer"]
 */
export default function ({ data }) {
  const follows = (window.linecnnFollows = window.linecnnFollows || {});
  follows[data.name] = data;
  if (window.linecnnRunFollower) return;
  window.linecnnRunFollower = true;
  let until = 0;  // while now is before this, the target is kept at the top
  let target = null;  // the selector of what is kept there
  // A busy server draws the run's progress seconds after the press, and the page above the target
  // may change height meanwhile: the target is put back at the top whenever the page's size changes.
  const pin = () => {
    const element = target && document.querySelector(target);
    if (element && performance.now() < until) element.scrollIntoView({ block: "start" });
  };
  const sizes = new ResizeObserver(pin);
  // The reader takes over as soon as they scroll, touch or click the page (a scroll bar too) or press a
  // key; the press that starts a run sets the time again after this.
  for (const type of ["wheel", "touchstart", "pointerdown", "keydown"]) {
    document.addEventListener(type, () => { until = 0; }, { capture: true, passive: true });
  }
  document.addEventListener("click", (event) => {
    const button = event.target.closest && event.target.closest("button");
    const follow = button && Object.values(follows).find((one) => button.closest(one.trigger));
    if (!follow || (follow.phone && !window.matchMedia("(max-width: 767px)").matches)) return;
    until = performance.now() + 1000 * follow.seconds;
    target = follow.target;
    const page = document.querySelector('[data-testid="stMainBlockContainer"]');
    if (page) sizes.observe(page);
    // Streamlit's header covers the top 3.75rem: the target stops under it (scroll-margin-top, layout.py).
    requestAnimationFrame(() => {
      const element = document.querySelector(target);
      if (element) element.scrollIntoView({ block: "start", behavior: "smooth" });
    });
  }, true);
}
