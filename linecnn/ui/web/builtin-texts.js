/*
 * about: writes the English texts Streamlit's widgets and the canvas write in the reader's language
 * pages: Home Train Benchmark Draw Lesson
 * relies-on: selector [data-testid="stFileUploader"] ; pages: Train Benchmark
 * relies-on: selector [data-testid="stSkipToContent"]
 * relies-on: selector [data-testid="InputInstructions"] ; pages: Train ; after: typing
 * relies-on: selector [data-testid="data-grid-canvas"] ; pages: Home
 * relies-on: selector .stTooltipHoverTarget button
 * relies-on: selector [role="dialog"] ; needs: the server gone (Streamlit's connection dialog)
 * relies-on: selector [role="option"] ; pages: Benchmark ; after: dropdown
 * about: the English texts below are builtin_texts.RULES, in the same order (a test compares them)
 * relies-on: text ^Upload$ ; pages: Train Benchmark
 * relies-on: text ^Drag and drop a file here$ ; needs: an uploader for one file wide enough to show its instructions
 * relies-on: text ^Drag and drop files here$ ; needs: an uploader for several files wide enough to show its instructions
 * relies-on: text ^(?<whole>\d+)(?<unit>[KMGT]?B) per file$ ; pages: Train Benchmark
 * relies-on: text ^(?<size>\S+) per file$ ; pages: Train Benchmark
 * relies-on: text ^File must be (?<whole>\d+)\.(?<fraction>\d+)(?<unit>[KMGT]?B) or smaller\.$ ; needs: a refused upload
 * relies-on: text ^File must be (?<size>.+) or smaller\.$ ; needs: a refused upload
 * relies-on: text ^(?<type>.+) files are not allowed\.$ ; needs: a refused upload
 * relies-on: text ^files are not allowed\.$ ; needs: a refused upload
 * relies-on: text ^Only one file is allowed\.$ ; needs: a refused upload
 * relies-on: text ^File size is too small\.$ ; needs: a refused upload
 * relies-on: text ^Unexpected error\. Please try again\.$ ; needs: a refused upload
 * relies-on: text ^Upload failed$ ; needs: a refused upload
 * relies-on: text ^Skip to main content$
 * relies-on: text ^Press Enter to apply$ ; pages: Train ; after: typing
 * relies-on: text ^Connection error$ ; needs: the server gone (Streamlit's connection dialog)
 * relies-on: text ^Streamlit server is not responding\. Are you connected to the internet\?$ ; needs: the server gone (Streamlit's connection dialog)
 * relies-on: text ^Is Streamlit still running\? If you accidentally stopped Streamlit, just restart it in your terminal:$ ; needs: the server gone (Streamlit's connection dialog)
 * relies-on: text ^Select all$ ; needs: a run picker with runs not yet picked, its dropdown open
 * relies-on: text ^Select (?<count>\d+) matches$ ; needs: a run picker with runs not yet picked, searched
 * relies-on: text ^No results$ ; pages: Benchmark ; after: dropdown
 * relies-on: text ^(?<whole>\d+)\.(?<fraction>\d+) ?(?<unit>[KMGT]?B)$ ; needs: a file uploaded
 * relies-on: text ^(?<name>.+), (?<whole>\d+)\.(?<fraction>\d+) ?(?<unit>[KMGT]?B)$ ; needs: a file uploaded
 * relies-on: text ^Remove (?<name>.+)$ ; pages: Benchmark
 * relies-on: text ^Cancel upload of (?<name>.+)$ ; needs: a file uploaded
 * relies-on: text ^Click to retry upload$ ; needs: a file uploaded
 * relies-on: text ^Add files$ ; needs: a file uploaded to an uploader that takes several
 * relies-on: text ^Help$ ; needs: a help icon with no label
 * relies-on: text ^Help for (?<label>.+)$
 * relies-on: text ^Update the app with this drawing$ ; pages: Draw
 * relies-on: text ^Undo$ ; pages: Draw
 * relies-on: text ^Redo$ ; pages: Draw
 * relies-on: text ^Edit$ ; pages: Draw
 * relies-on: text ^Bring forward$ ; pages: Draw
 * relies-on: text ^Send backward$ ; pages: Draw
 * relies-on: text ^Delete selected$ ; pages: Draw
 * relies-on: text ^Reset canvas & history$ ; pages: Draw
 * relies-on: text ^Collapse sidebar$
 * relies-on: text ^Expand sidebar$ ; pages: Lesson ; after: collapsed-sidebar
 * relies-on: text ^Sidebar$
 * relies-on: text ^Increment$ ; needs: a number box (the pages use text boxes, linecnn.ui.number_boxes)
 * relies-on: text ^Decrement$ ; needs: a number box (the pages use text boxes, linecnn.ui.number_boxes)
 * relies-on: text ^Fullscreen$ ; pages: Home
 * relies-on: text ^Close fullscreen$ ; needs: a table shown full screen
 * relies-on: text ^Link to heading$
 * relies-on: text ^Open$ ; pages: Train Benchmark
 * relies-on: text ^Close$ ; needs: a popover or dialog open
 * relies-on: text ^file upload$ ; pages: Train Benchmark
 * relies-on: text ^progress$ ; pages: Train
 * relies-on: text ^Copy to clipboard$ ; pages: Home Benchmark Lesson
 * relies-on: text ^Download as CSV$ ; pages: Home
 * relies-on: text ^Search$ ; pages: Home
 * relies-on: text ^Show/hide columns$ ; pages: Home
 * relies-on: text ^Clear all$ ; pages: Benchmark
 * relies-on: text ^Selected values$ ; pages: Benchmark
 * relies-on: text ^Download plot as a PNG$ ; needs: a Plotly toolbar (the pages hide it: layout.CHART_CONFIG)
 * relies-on: text ^Zoom$ ; needs: a Plotly toolbar (the pages hide it: layout.CHART_CONFIG)
 * relies-on: text ^Pan$ ; needs: a Plotly toolbar (the pages hide it: layout.CHART_CONFIG)
 * relies-on: text ^Zoom in$ ; needs: a Plotly toolbar (the pages hide it: layout.CHART_CONFIG)
 * relies-on: text ^Zoom out$ ; needs: a Plotly toolbar (the pages hide it: layout.CHART_CONFIG)
 * relies-on: text ^Autoscale$ ; needs: a Plotly toolbar (the pages hide it: layout.CHART_CONFIG)
 * relies-on: text ^Reset axes$ ; needs: a Plotly toolbar (the pages hide it: layout.CHART_CONFIG)
 */
export default function ({ data }) {
  const rules = (data && data.rules) || [];
  const compiled = rules.map(([where, pattern, text]) => [where, new RegExp(pattern), text]);
  // The decimal mark only: here a column the page writes grouped ('66.831') and one the grid shows bare
  // (a seed, '12345') look alike, and grouping every number would give the seed marks it never shows.
  const numbers = data && data.language
    ? new Intl.NumberFormat(data.language, { useGrouping: false, maximumFractionDigits: 20 }) : null;
  const plainNumber = /^-?\d+(\.\d+)?$/;
  // What this script wrote and what stood there before, kept across reruns and languages.
  const memory = (window.linecnnBuiltinTexts = window.linecnnBuiltinTexts || new WeakMap());
  const say = (where, value) => {
    if (where === "number") return numbers && plainNumber.test(value) ? numbers.format(Number(value)) : value;
    for (const [kind, pattern, text] of compiled) {
      if (kind === where && pattern.test(value)) return value.replace(pattern, text);
    }
    return value;
  };
  // The English under a value: the original if the value is still what this script wrote.
  const rewrite = (owner, slot, where, current, write) => {
    const kept = memory.get(owner) || {};
    const source = kept[slot] && kept[slot].written === current ? kept[slot].original : current;
    const said = say(where, source);
    if (said !== current) write(said);
    if (said !== source) kept[slot] = { original: source, written: said };
    else delete kept[slot];
    memory.set(owner, kept);
  };
  const names = ["title", "aria-label", "data-title"];
  const labelled = "[title], [aria-label], [data-title]";
  const grid = '[data-testid="data-grid-canvas"]';  // a table's cells, as a screen reader reads them
  const scopes = ["stFileUploader", "stSkipToContent", "InputInstructions"]
    .map((id) => `[data-testid="${id}"]`).concat('[role="dialog"]', '[role="option"]', grid).join(", ");
  const patchAttribute = (element, name) => {
    const value = element.getAttribute(name);
    if (value !== null) rewrite(element, name, "attr", value, (v) => element.setAttribute(name, v));
  };
  const patchText = (node) => {
    const value = node.nodeValue.trim();
    const scope = value && node.parentElement && node.parentElement.closest(scopes);
    if (scope) {
      const where = scope.matches(grid) ? "number" : "text";
      rewrite(node, "text", where, value, (v) => { node.nodeValue = v; });
    }
  };
  // Everything under ``root`` (an element, the document or a shadow root), shadow roots within included.
  const patchTree = (root) => {
    if (root.nodeType === Node.ELEMENT_NODE) {
      for (const name of names) patchAttribute(root, name);
      if (root.shadowRoot) adopt(root.shadowRoot);
    }
    for (const element of root.querySelectorAll(labelled)) {
      for (const name of names) patchAttribute(element, name);
    }
    for (const host of root.querySelectorAll("div")) if (host.shadowRoot) adopt(host.shadowRoot);
    const inScope = root.nodeType === Node.ELEMENT_NODE && root.closest(scopes);
    for (const scope of inScope ? [root] : root.querySelectorAll(scopes)) {
      const walker = document.createTreeWalker(scope, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) patchText(node);
    }
  };
  // Only what changed is looked at: a page redraws often (live charts), and walking the whole
  // page again on every frame would cost the browser time on each redraw.
  const patchChange = (record) => {
    if (record.type === "attributes") patchAttribute(record.target, record.attributeName);
    else if (record.type === "characterData") patchText(record.target);
    else {
      for (const node of record.addedNodes) {
        if (node.nodeType === Node.ELEMENT_NODE) patchTree(node);
        else if (node.nodeType === Node.TEXT_NODE) patchText(node);
      }
    }
  };
  let frame = 0;
  let pending = [];
  // A help icon's tooltip describes the wrapper Streamlit puts around the "?" button, which a screen
  // reader never reaches; the button gets the same description, before the page is next drawn.
  const described = "aria-describedby";
  const describe = (record) => {
    const button = record.target.matches(".stTooltipHoverTarget") && record.target.querySelector("button");
    const tip = button && record.target.getAttribute(described);
    if (tip) button.setAttribute(described, tip);
    else if (button) button.removeAttribute(described);
  };
  const observer = new MutationObserver((records) => {
    records.filter((record) => record.attributeName === described).forEach(describe);
    pending.push(...records.filter((record) => record.attributeName !== described));
    if (!pending.length) return;
    frame = frame || requestAnimationFrame(() => {
      const changes = pending;
      frame = 0;
      pending = [];
      for (const record of changes) if (record.target.isConnected) patchChange(record);
    });
  });
  const watched = new WeakSet();
  // An English page watches only the help icons: it has nothing to write.
  const options = rules.length || numbers ? { childList: true, subtree: true, characterData: true,
    attributes: true, attributeFilter: [...names, described] }
    : { subtree: true, attributes: true, attributeFilter: [described] };
  const adopt = (root) => {
    if (watched.has(root)) return;
    watched.add(root);
    observer.observe(root, options);
    if (root !== document) patchTree(root);
  };
  // Streamlit calls this again when the language changes, and cleans up only when the sidebar
  // goes: the earlier call's observer would keep writing the earlier language, so it stops here.
  const stop = () => { observer.disconnect(); cancelAnimationFrame(frame); };
  if (window.linecnnBuiltinTextsStop) window.linecnnBuiltinTextsStop();
  window.linecnnBuiltinTextsStop = stop;
  // An English page only puts back what an earlier language wrote; the widgets write English.
  adopt(document);
  patchTree(document);
  return stop;
}
