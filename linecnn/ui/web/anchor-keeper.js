/*
 * about: a link to a section (/Lesson#move) lands on it even when the sidebar adds ?lang=
 * pages: Home Train Benchmark Draw Lesson
 * relies-on: selector h2#move ; pages: Lesson
 */
export default function () {
  if (window.linecnnAnchorKept) return;
  window.linecnnAnchorKept = true;
  const entry = performance.getEntriesByType("navigation")[0];
  if (!entry) return;
  const opened = new URL(entry.name);
  const anchor = decodeURIComponent(opened.hash.slice(1));
  if (!anchor) return;
  const giveUp = Date.now() + 60000;  // a page that never draws the anchor: stop looking
  let settleUntil = 0;  // the styles and text drawn after the heading move it for a moment
  let reader = false;  // once the reader scrolls, the page is theirs
  for (const name of ["wheel", "touchstart", "keydown", "mousedown"]) {
    addEventListener(name, () => { reader = true; }, { once: true, capture: true });
  }
  let top = null;
  const seek = () => {
    // Scrolled, or on another page (/lesson#move lands on /Lesson: linecnn.deploy.page_case).
    if (reader || location.pathname.toLowerCase() !== opened.pathname.toLowerCase()) return;
    const heading = document.getElementById(anchor);
    if (!heading) {
      if (Date.now() < giveUp) setTimeout(seek, 100);
      return;
    }
    if (location.hash !== opened.hash) {
      history.replaceState(history.state, "", location.pathname + location.search + opened.hash);
    }
    if (top === null) settleUntil = Date.now() + 3000;
    if (heading.getBoundingClientRect().top !== top) {
      heading.scrollIntoView();
      top = heading.getBoundingClientRect().top;
    }
    if (Date.now() < settleUntil) setTimeout(seek, 100);
  };
  seek();
}
