/*
 * about: parks the canvas's undo/redo/reset toolbar above the canvas, always visible
 * pages: Draw
 * relies-on: selector .dc-toolbar
 * relies-on: selector .dc-toolbar-card
 */
export default function () {
  const css = ".dc-toolbar { top: -2.9rem !important; opacity: 1 !important; pointer-events: none; }"
    + " .dc-toolbar-card { pointer-events: auto; }";
  const watched = new WeakSet();
  let frame = 0;
  const observer = new MutationObserver(() => {
    frame = frame || requestAnimationFrame(() => { frame = 0; patch(); });
  });
  // The canvas builds its toolbar inside its own shadow root, after the host appears:
  // watch each shadow root too, and add the style once the toolbar is there.
  const patch = () => {
    for (const host of document.querySelectorAll("div")) {
      const root = host.shadowRoot;
      if (!root) continue;
      if (!watched.has(root)) {
        watched.add(root);
        observer.observe(root, { childList: true, subtree: true });
      }
      if (root.querySelector(".dc-toolbar") && !root.getElementById("linecnn-toolbar")) {
        const style = document.createElement("style");
        style.id = "linecnn-toolbar";
        style.textContent = css;
        root.appendChild(style);
      }
    }
  };
  observer.observe(document.body, { childList: true, subtree: true });
  patch();
  return () => { observer.disconnect(); cancelAnimationFrame(frame); };
}
