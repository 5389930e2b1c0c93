// The status page of --http: polls /status on its own origin once a second and draws what it says, a
// backfill or a consumer (status.kind). Buttons POST to the same endpoint that curl uses, with the
// endpoint's token once the page was given it; the answer's text is shown as it came. No library, no network beyond this origin (the server's Content-Security-Policy).
'use strict';

const poll_ms = 1000;
const chart_seconds = 300;  // the charts keep the last 5 minutes
const $ = (id) => document.getElementById(id);

function number(value) {
  return value === null || value === undefined ? '-' : Math.round(value).toLocaleString('en-US');
}

function duration(seconds) {
  if (seconds === null || seconds === undefined || !isFinite(seconds)) return '-';
  seconds = Math.round(seconds);
  const h = Math.floor(seconds / 3600), m = Math.floor(seconds % 3600 / 60), s = seconds % 60;
  return h > 0 ? `${h} h ${m} min` : m > 0 ? `${m} min ${s} s` : `${s} s`;
}

// Text into an element, with the raw figure in data-value (for people reading the DOM, and for tests).
function show(id, text, raw) {
  const element = $(id);
  element.textContent = text;
  if (raw !== undefined) element.dataset.value = raw === null ? '' : String(raw);
}

function message(text, failed) {
  $('message').textContent = text;
  $('message').className = failed ? 'small error' : 'small';
}

// Samples of a counter, and its per-second rate between them, over the last chart_seconds.
class Series {
  constructor() { this.samples = []; }
  add(seconds, count) {
    const last = this.samples[this.samples.length - 1];
    if (last && (seconds < last.seconds || count < last.count)) this.samples = [];  // a new pass or process
    if (last && seconds === last.seconds) return;
    this.samples.push({seconds, count});
    while (this.samples.length > 2 && seconds - this.samples[0].seconds > chart_seconds) this.samples.shift();
  }
  rates() {
    const out = [];
    for (let i = 1; i < this.samples.length; ++i) {
      const a = this.samples[i - 1], b = this.samples[i];
      out.push({seconds: b.seconds, rate: (b.count - a.count) / (b.seconds - a.seconds)});
    }
    return out;
  }
}

// A line chart of rates into an <svg viewBox="0 0 600 160">, scaled to its highest point.
function draw_chart(svg_id, scale_id, rates, unit) {
  const svg = $(svg_id);
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  const ns = 'http://www.w3.org/2000/svg';
  for (const y of [40, 80, 120]) {
    const line = document.createElementNS(ns, 'line');
    line.setAttribute('x1', '0'); line.setAttribute('x2', '600');
    line.setAttribute('y1', String(y)); line.setAttribute('y2', String(y));
    svg.appendChild(line);
  }
  if (rates.length === 0) { show(scale_id, 'collecting samples'); return; }
  const top = Math.max(1, ...rates.map((r) => r.rate)) * 1.1;
  const end = rates[rates.length - 1].seconds;
  // The width spans the samples there are (30 s at least), up to chart_seconds: a young run fills it too.
  const span = Math.min(chart_seconds, Math.max(30, end - rates[0].seconds));
  const points = rates.map((r) => {
    const x = 600 - (end - r.seconds) * 600 / span;
    const y = 160 - r.rate * 160 / top;
    return `${x.toFixed(1)},${y.toFixed(1)}`;
  });
  const polyline = document.createElementNS(ns, 'polyline');
  polyline.setAttribute('points', points.join(' '));
  svg.appendChild(polyline);
  show(scale_id, `the last ${duration(span)}; top of the chart: ${number(top)} ${unit}; ` +
                 `now ${number(rates[rates.length - 1].rate)} ${unit}`);
}

// ---- backfill ----

const rows_series = new Series();

function draw_ranges(ranges) {
  const box = $('ranges');
  while (box.children.length > ranges.length) box.removeChild(box.lastChild);
  ranges.forEach((range, i) => {
    let row = box.children[i];
    if (!row) {
      row = document.createElement('div');
      for (const part of ['label', 'bar', 'figures']) {
        const cell = document.createElement('div');
        cell.className = part;
        row.appendChild(cell);
      }
      row.children[1].appendChild(document.createElement('div')).className = 'fill';
      box.appendChild(row);
    }
    const phase = range.phase || range.state;
    row.className = `range phase-${phase}` + (range.split_off ? ' split-off' : '');
    row.dataset.phase = phase;
    row.dataset.rows = String(range.rows_written);
    const share = range.state === 'done' ? 1
                : range.estimated_rows > 0 ? Math.min(1, range.rows_written / range.estimated_rows) : 0;
    row.children[0].textContent = `#${range.range}`;
    row.children[1].firstChild.style.width = `${(share * 100).toFixed(1)}%`;
    row.children[2].textContent = `${number(range.rows_written)} / ~${number(range.estimated_rows)} rows, ${phase}`;
    row.title = `[${range.lo ?? '-inf'}, ${range.hi ?? '+inf'}) last key ${range.last_key ?? 'none'}`;
  });
  show('range-count', `${ranges.length} ranges, ${ranges.filter((r) => r.state === 'done').length} done`);
}

function throttle_rows(status) {
  const rows = [['state', `${status.state}${status.reason ? ': ' + status.reason : ''}`],
                ['max lag', `${status.max_lag_seconds} s`],
                ['max load', status.max_load || 'none'],
                ['page size', status.page_size > 0 ? `${number(status.page_size)} rows (set over HTTP)` : "the run's own"],
                ['held', `${status.workers_held} workers before reading, ${status.pages_held} pages before writing, ` +
                         `${status.pages_waiting_for_rate} pages waiting for the rate cap`]];
  const held = Object.entries(status.held_seconds || {}).map(([why, s]) => `${why} ${duration(s)}`).join(', ');
  rows.push(['held so far', held || 'never']);
  if (status.throttle_query) rows.push(['throttle query', status.throttle_query]);
  if (status.throttle_http) rows.push(['throttle http', status.throttle_http]);
  if (status.stop_file) rows.push(['stop file', status.stop_file]);
  if (status.stop_reason) rows.push(['stopping', status.stop_reason]);
  const body = $('throttle').tBodies[0];
  body.replaceChildren(...rows.map(([name, value]) => table_row([name, value], 'th')));
  $('replicas').hidden = status.replicas.length === 0;
  $('replicas').tBodies[0].replaceChildren(...status.replicas.map((r) =>
    table_row([r.replica, r.lag_seconds === null ? 'unknown' : r.lag_seconds.toFixed(1), r.lagging ? 'yes' : 'no', r.problem])));
}

function table_row(cells, first_tag) {
  const row = document.createElement('tr');
  cells.forEach((text, i) => {
    const cell = document.createElement(i === 0 && first_tag ? first_tag : 'td');
    cell.textContent = text;
    row.appendChild(cell);
  });
  return row;
}

function draw_backfill(status) {
  show('state', status.state, status.state);
  $('state').className = `big state-${status.state}`;
  show('reason', status.reason || (status.state === 'running' ? 'reading' : ''));
  show('rows', number(status.rows_written), status.rows_written);
  show('rows-of', status.rows_estimated ? `of about ${number(status.rows_estimated)} estimated` : '');
  show('rate', number(status.rate), status.rate);
  show('rate-limit', status.rate_limit > 0 ? `capped at ${number(status.rate_limit)} rows/s` : 'no rate cap');
  show('eta', duration(status.eta_seconds), status.eta_seconds);
  show('elapsed', `running for ${duration(status.seconds)}`);
  draw_ranges(status.ranges || []);
  if (status.seconds !== undefined) rows_series.add(status.seconds, status.rows_written);
  draw_chart('chart', 'chart-scale', rows_series.rates(), 'rows/s');
  throttle_rows(status);
}

// ---- consumer ----

const tasks_series = new Series();

function draw_consumer(status) {
  show('queue', status.queue);
  show('source', status.source);
  const finished = status.processed + status.failed + status.stale;
  tasks_series.add(status.seconds, finished);
  const rates = tasks_series.rates();
  show('throughput', rates.length ? number(rates[rates.length - 1].rate) : '-');
  show('outcomes', `${number(status.processed)} done, ${number(status.retried)} retried, ${number(status.dead)} dead, ` +
                   `${number(status.stale)} stale since start`);
  const mean = status.latency.count > 0 ? status.latency.mean_seconds : null;
  show('latency', mean === null ? '-' : mean < 1 ? `${(mean * 1000).toFixed(1)} ms` : `${mean.toFixed(2)} s`, mean);
  show('in-flight', `mean over ${number(status.latency.count)} tasks; ${status.in_flight} running now`);
  const depths = status.depths || {};
  for (const state of ['ready', 'in_flight', 'delayed', 'done', 'dead']) {
    const value = depths[state];
    show(`depth-${state}`, value === undefined ? 'n/a' : number(value) + (depths.capped ? '+' : ''),
         value === undefined ? null : value);
  }
  show('depths-note', status.depths_error ? `cannot count: ${status.depths_error}` : 'counted at most once a second');
  draw_chart('consumer-chart', 'consumer-chart-scale', rates, 'tasks/s');
  $('dead-tasks').tBodies[0].replaceChildren(...(status.dead_tasks || []).map((task) =>
    table_row([`${duration(task.seconds_ago)} ago`, task.id ? String(task.id) : '-', String(task.attempt), task.error,
               task.payload])));
}

// ---- polling and controls ----

async function poll() {
  try {
    const response = await fetch('/status', {cache: 'no-store'});
    if (!response.ok) throw new Error(`/status answered ${response.status}`);
    const status = await response.json();
    const kind = status.kind === 'consumer' ? 'consumer' : 'backfill';
    show('kind', kind);
    $('backfill').hidden = kind !== 'backfill';
    $('consumer').hidden = kind !== 'consumer';
    if (kind === 'consumer') draw_consumer(status);
    else draw_backfill(status);
    show('connection', 'live');
    $('connection').className = 'badge live';
  } catch (error) {
    show('connection', 'not answering (the run may have ended)');
    $('connection').className = 'badge gone';
  }
}

async function loop() {
  await poll();
  setTimeout(loop, poll_ms);
}

// The endpoint's token, when it wants one (a POST answered 401): asked for once on the page, kept in this
// tab's sessionStorage (gone with the tab, never in a URL or a cookie) and sent as a Bearer header.
const token_key = 'rowpump-http-token';
let waiting_for_token = null;  // the path to POST again once the token is given

function ask_for_token(path) {
  waiting_for_token = path;
  $('token-form').hidden = false;
  $('token-value').focus();
}

function token_given(event) {
  event.preventDefault();
  const token = $('token-value').value.trim();
  if (token === '') { message('enter the token first', true); return; }
  sessionStorage.setItem(token_key, token);
  $('token-value').value = '';
  $('token-form').hidden = true;
  const path = waiting_for_token;
  waiting_for_token = null;
  if (path) post(path);
}

// A POST to this origin, with the token when there is one; its answer's text (or the failure) goes under the
// controls, and the page looks again. A 401 (no token, or a wrong one) drops the token kept and asks again.
async function post(path) {
  try {
    const token = sessionStorage.getItem(token_key);
    const headers = token ? {'Authorization': `Bearer ${token}`} : {};
    const response = await fetch(path, {method: 'POST', cache: 'no-store', headers});
    const text = (await response.text()).trim();
    message(`${path}: ${text}`, !response.ok);
    if (response.status === 401) {
      sessionStorage.removeItem(token_key);
      ask_for_token(path);
    }
  } catch (error) {
    message(`${path}: ${error.message}`, true);
  }
  await poll();
}

function with_value(input_id, path) {
  const value = $(input_id).value.trim();
  if (value === '') { message(`${path}: enter a value first`, true); return; }
  post(`${path}?value=${encodeURIComponent(value)}`);
}

document.addEventListener('DOMContentLoaded', () => {
  $('pause').addEventListener('click', () => post('/pause'));
  $('resume').addEventListener('click', () => post('/resume'));
  $('stop').addEventListener('click', () => {
    if (confirm('Stop the run? The pages read are written, then it exits 3; with a job id the same command resumes.'))
      post('/stop');
  });
  $('rate-set').addEventListener('click', () => with_value('rate-value', '/rate'));
  $('page-size-set').addEventListener('click', () => with_value('page-size-value', '/page-size'));
  $('requeue-dead').addEventListener('click', () => post('/requeue-dead'));
  $('token-form').addEventListener('submit', token_given);
  loop();
});
