/*
 * about: on a phone, closes the sidebar once a page link in it is followed
 * pages: Home Train Benchmark Draw Lesson
 * relies-on: selector [data-testid="stSidebar"] a
 * relies-on: selector [data-testid="stSidebarCollapseButton"] button
 */
export default function () {
  if (window.linecnnSidebarCloser) return;
  window.linecnnSidebarCloser = true;
  document.addEventListener("click", (event) => {
    const link = event.target.closest && event.target.closest('[data-testid="stSidebar"] a');
    if (!link || !window.matchMedia("(max-width: 767px)").matches) return;
    const close = document.querySelector('[data-testid="stSidebarCollapseButton"] button');
    if (close) close.click();
  });
}
