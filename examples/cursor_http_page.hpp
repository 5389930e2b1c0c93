#pragma once
// The HTML page cursor_http serves at /: it fetches /items and shows the rows, Previous and Next (the
// page's cursors), links to the pages around the current one (the window's tokens), and a jump to page N.
// Element ids (#rows, #status, #prev, #next, #links a.page-link, #jump, #go, #approximate, #error) are
// what the browser test clicks and reads.

inline const char* const cursor_http_page = R"HTML(<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>rowpump cursor pages</title>
<style>
  body { font-family: sans-serif; margin: 2em; }
  table { border-collapse: collapse; margin: 1em 0; }
  td, th { border: 1px solid #ccc; padding: 0.2em 0.6em; }
  nav a, nav button { margin-right: 0.5em; }
  a.current { font-weight: bold; text-decoration: none; color: black; }
  #error { color: #a00; }
</style>
</head>
<body>
<h1>Items</h1>
<p id="status">loading</p>
<p id="error"></p>
<nav>
  <button id="prev" disabled>Previous</button>
  <span id="links"></span>
  <button id="next" disabled>Next</button>
</nav>
<table><thead id="head"></thead><tbody id="rows"></tbody></table>
<p>
  Page <input id="jump" size="8" inputmode="numeric">
  <label><input id="approximate" type="checkbox"> approximate</label>
  <button id="go">Go</button>
</p>
<script>
const size = 20;
let info = null;

function cell(tag, text) {
  const element = document.createElement(tag);
  element.textContent = text === null ? "NULL" : text;
  return element;
}

function show(page) {
  info = page;
  const head = document.getElementById("head");
  const rows = document.getElementById("rows");
  head.replaceChildren();
  rows.replaceChildren();
  if (page.items.length > 0) {
    const tr = document.createElement("tr");
    for (const name of Object.keys(page.items[0])) tr.appendChild(cell("th", name));
    head.appendChild(tr);
  }
  for (const item of page.items) {
    const tr = document.createElement("tr");
    for (const value of Object.values(item)) tr.appendChild(cell("td", value));
    rows.appendChild(tr);
  }
  const number = page.pageNumber === null ? "?" : page.pageNumber;
  let status = "page " + number + " (" + page.method + ")";
  if (page.totalRowsEstimate !== null)
    status += " of about " + Math.ceil(page.totalRowsEstimate / size) + " pages";
  document.getElementById("status").textContent = status;
  document.getElementById("prev").disabled = !page.pageInfo.hasPreviousPage;
  document.getElementById("next").disabled = !page.pageInfo.hasNextPage;
  const links = document.getElementById("links");
  links.replaceChildren();
  const add = (label, query, current) => {
    const a = document.createElement("a");
    a.textContent = label;
    a.href = "#";
    a.className = current ? "page-link current" : "page-link";
    a.addEventListener("click", (event) => { event.preventDefault(); load(query); });
    links.appendChild(a);
  };
  const before = page.links.filter((link) => link.offset < 0);
  const after = page.links.filter((link) => link.offset > 0);
  const query = (link) => link.after === null ? "first=" + size : "first=" + size + "&after=" + encodeURIComponent(link.after);
  for (const link of before) add(String(link.page === null ? link.offset : link.page), query(link), false);
  add(String(number), null, true);
  for (const link of after) add(String(link.page === null ? "+" + link.offset : link.page), query(link), false);
}

async function load(query) {
  if (query === null) return;
  const response = await fetch("/items?" + query);
  const body = await response.json();
  if (!response.ok) {
    document.getElementById("error").textContent = body.error;
    return;
  }
  document.getElementById("error").textContent = "";
  show(body);
}

document.getElementById("next").addEventListener("click", () =>
  load("first=" + size + "&after=" + encodeURIComponent(info.pageInfo.endCursor)));
document.getElementById("prev").addEventListener("click", () =>
  load("last=" + size + "&before=" + encodeURIComponent(info.pageInfo.startCursor)));
document.getElementById("go").addEventListener("click", () => {
  const page = document.getElementById("jump").value.trim();
  const approximate = document.getElementById("approximate").checked ? "&approximate=1" : "";
  load("first=" + size + "&page=" + encodeURIComponent(page) + approximate);
});
load("first=" + size);
</script>
</body>
</html>
)HTML";
