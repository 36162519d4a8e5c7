/*
 * about: keeps keyboard focus on a run's buttons when the one that had it is disabled or removed
 * pages: Train Benchmark
 * relies-on: selector .st-key-train-buttons button ; pages: Train
 * relies-on: selector [class*="st-key-FormSubmitter-bench-settings-"] button ; pages: Benchmark
 * relies-on: selector [data-stale="true"] ; needs: a script run that outlives a moment
 */
export default function ({ data }) {
  const groups = (window.linecnnFocusGroups = window.linecnnFocusGroups || {});
  groups[data.name] = data.groups;
  if (window.linecnnFocusKeeper) return;
  window.linecnnFocusKeeper = true;
  const groupOf = (element) => {
    for (const list of Object.values(groups)) {
      for (const group of list) if (group.some((selector) => element.matches(selector))) return group;
    }
    return null;
  };
  // A rerun that outlives a moment leaves the last run's elements faded, marked stale, until the script
  // ends; the Train page's script runs the whole run, so a pressed Resume stays there stale beside the
  // new Pause, and keeping the focus on it would leave the reader on a button that no longer acts.
  const stale = (element) => element.closest('[data-stale="true"]') !== null;
  const gone = (element) => element.disabled || !element.isConnected || stale(element);
  const unfocused = () => !document.activeElement || document.activeElement === document.body;
  let held = null;  // { element, group }: the run button that has the focus, or had it when it went
  document.addEventListener("focusin", (event) => {
    const element = event.composedPath()[0];
    const group = element instanceof Element ? groupOf(element) : null;
    held = group ? { element, group } : null;
  }, true);
  // A click on the page's background also drops the focus to the page: the button is still there.
  document.addEventListener("focusout", (event) => {
    const was = held;
    if (event.relatedTarget || !was) return;
    requestAnimationFrame(() => { if (held === was && !gone(was.element) && unfocused()) held = null; });
  }, true);
  const restore = () => {
    // A stale button keeps the focus itself; a disabled or removed one has dropped it to the page.
    if (!held || !gone(held.element) || !(unfocused() || document.activeElement === held.element)) return;
    for (const selector of held.group) {
      const next = [...document.querySelectorAll(selector)].find((element) => !gone(element));
      if (next) { next.focus({ preventScroll: true }); return; }
    }
  };
  let frame = 0;
  new MutationObserver(() => {
    frame = frame || requestAnimationFrame(() => { frame = 0; restore(); });
  }).observe(document.body, {
    subtree: true, childList: true, attributes: true, attributeFilter: ["disabled", "data-stale"],
  });
}
