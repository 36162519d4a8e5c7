/*
 * about: sets the page's html lang to the language the page is written in
 * pages: Home Train Benchmark Draw Lesson
 */
export default function ({ data }) {
  if (document.documentElement.lang !== data.lang) document.documentElement.lang = data.lang;
}
