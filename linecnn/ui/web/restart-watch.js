/*
 * about: tells the page which server the tab last reached, so a restart is said
 * pages: Home Train Benchmark Draw Lesson
 */
const KEY = "linecnn.server";
export default function ({ data, setTriggerValue }) {
  let last;
  try {
    last = sessionStorage.getItem(KEY);
    if (last !== data.boot) sessionStorage.setItem(KEY, data.boot);
  } catch (error) {
    return;  // storage refused by the browser's settings: no notice rather than a wrong one
  }
  if (last && last !== data.boot) setTriggerValue("previous", last);
}
