/*
 * about: on a phone, pressing Start or Step scrolls the run's buttons to the top of the screen
 * pages: Train
 * relies-on: selector .st-key-train-buttons button
 * relies-on: selector [data-testid="stMainBlockContainer"]
 */
export default function () {
  if (window.linecnnRunFollower) return;
  window.linecnnRunFollower = true;
  const rowSelector = ".st-key-train-buttons";
  const FOLLOW_MS = 20000;  // long enough for a loaded class server to draw a run's first epoch
  let until = 0;  // while now is before this, the row is kept at the top
  // A busy server draws the run's progress and charts seconds after the tap, and the page above the
  // row may change height meanwhile: the row is put back at the top whenever the page's size changes.
  const pin = () => {
    const row = document.querySelector(rowSelector);
    if (row && performance.now() < until) row.scrollIntoView({ block: "start" });
  };
  const sizes = new ResizeObserver(pin);
  // The reader takes over as soon as they scroll, touch or click the page (a scroll bar too) or press a
  // key; the tap that starts a run sets the time again after this.
  for (const type of ["wheel", "touchstart", "pointerdown", "keydown"]) {
    document.addEventListener(type, () => { until = 0; }, { capture: true, passive: true });
  }
  document.addEventListener("click", (event) => {
    const row = event.target.closest && event.target.closest(rowSelector);
    if (!row || !event.target.closest("button") || !window.matchMedia("(max-width: 767px)").matches) return;
    until = performance.now() + FOLLOW_MS;
    const page = document.querySelector('[data-testid="stMainBlockContainer"]');
    if (page) sizes.observe(page);
    // Streamlit's header covers the top 3.75rem: the row stops under it (scroll-margin-top, layout.py).
    requestAnimationFrame(() => row.scrollIntoView({ block: "start", behavior: "smooth" }));
  }, true);
}
