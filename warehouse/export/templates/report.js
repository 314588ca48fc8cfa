// The report's own script, inlined in the page (no library, no network): the results table (filter,
// sort, page) and the comparison of two systems, both from the JSON in #report-data
// (warehouse/export/report_data.py writes it). body[data-tables] = "ready" once both are drawn.
(function () {
  "use strict";
  const raw = JSON.parse(document.getElementById("report-data").textContent);
  const entries = raw.entries.map(values => zip(raw.entry_fields, values));
  const results = raw.results.map(values => {
    const row = zip(raw.result_fields, values);
    row.e = entries[row.entry];
    return row;
  });
  const defaults = raw.defaults || {};
  const PAGE_SIZE = 20;

  function zip(fields, values) {
    const out = {};
    fields.forEach((field, i) => { out[field] = values[i]; });
    return out;
  }

  // A figure for people, by the rule of warehouse/figures.py (human_number): thousands separated,
  // whole from 1,000, a tenth from 100, three significant digits below.
  function fmt(value) {
    if (value === null || value === undefined || value === "") return "";
    const v = Number(value), size = Math.abs(v);
    if (size >= 1000) return Math.round(v).toLocaleString("en-US");
    if (size >= 100) return v.toLocaleString("en-US", {minimumFractionDigits: 1, maximumFractionDigits: 1});
    if (size === 0) return "0";
    if (size < 0.001) return v.toExponential(3);
    return String(Number(v.toPrecision(3)));
  }

  function rate(unit) {
    return unit ? unit.charAt(0).toLowerCase() + unit.slice(1) : "";
  }

  function el(tag, attributes, text) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, value);
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }

  // Only a web link the warehouse wrote becomes a link; anything else stays text.
  // A result ID never breaks across lines (class rid: white-space nowrap).
  function link(url, text) {
    if (typeof url === "string" && /^https?:\/\//i.test(url)) {
      return el("a", {href: url, title: "the entry's published page", class: "rid"}, text);
    }
    return el("span", {class: "rid"}, text);
  }

  // 'measured on 72 accelerators' -> 'measured on 72'; 'extrapolated from 8 accelerators' -> 'estimated from 8'
  function rackBasis(row) {
    if (!row.rack_basis) return "";
    return row.rack_basis.replace("extrapolated from", "estimated from").replace(/ accelerators?/, "");
  }

  function flags(row) {
    const found = [];
    if (row.e.verification !== "verified") found.push(row.e.verification);
    if (row.findings) found.push(row.findings);
    if (!found.length && !row.procurement_grade) found.push("not comparable as its hardware");
    return found.join("; ");
  }

  // --- the results table -------------------------------------------------------------------------

  const COLUMNS = [
    {key: "id", label: "result ID", value: r => r.e.id, cell: r => link(r.e.url, r.e.id)},
    {key: "benchmark", label: "benchmark", value: r => r.benchmark, hiddenWhenFiltered: true},
    {key: "scenario", label: "scenario", value: r => r.scenario, hiddenWhenFiltered: true},
    {key: "system", label: "system", value: r => r.e.system, css: "wrap"},
    {key: "submitter", label: "submitter", value: r => r.e.submitter},
    {key: "accelerator", label: "accelerator × count", value: r => r.e.accelerator,
     text: r => r.e.accelerator + " ×" + r.e.accelerator_count},
    {key: "division", label: "division", value: r => r.e.division},
    {key: "availability", label: "availability", value: r => r.e.availability},
    {key: "result", label: "result", value: r => r.result, num: true, text: r => fmt(r.result) + " " + rate(r.unit)},
    {key: "per_accelerator", label: "per accelerator", value: r => r.per_accelerator, num: true,
     text: r => fmt(r.per_accelerator)},
    {key: "per_rack", label: "per rack", value: r => r.per_rack, num: true, text: r => fmt(r.per_rack)},
    {key: "rack_basis", label: "rack", value: r => r.rack_basis, text: r => rackBasis(r)},
    // power bases in columns of their own, never sorted together (docs/definitions.md section 4)
    {key: "per_kw_measured", label: "per kW, measured power", value: r => r.per_kw_measured, num: true,
     text: r => fmt(r.per_kw_measured), hiddenWhenEmpty: true},
    {key: "per_kw_system_estimate", label: "per kW, system estimate", value: r => r.per_kw_system_estimate,
     num: true, text: r => fmt(r.per_kw_system_estimate), hiddenWhenEmpty: true},
    {key: "flags", label: "flags", value: r => flags(r), css: "flag"},
  ];
  const FILTERS = [
    {key: "round", label: "round", value: r => r.e.round},
    {key: "benchmark", label: "benchmark", value: r => r.benchmark},
    {key: "scenario", label: "scenario", value: r => r.scenario},
    {key: "accelerator", label: "accelerator", value: r => r.e.accelerator},
    {key: "verification", label: "verification", value: r => r.e.verification},
  ];
  const state = {filters: {}, sort: "per_accelerator", descending: true, page: 0};

  function compareValues(a, b) {
    const empty = v => v === null || v === undefined || v === "";
    if (empty(a) && empty(b)) return 0;
    if (empty(a)) return 1;
    if (empty(b)) return -1;
    if (typeof a === "number" && typeof b === "number") return a - b;
    return String(a).localeCompare(String(b), "en", {numeric: true});
  }

  function shownRows() {
    const kept = results.filter(r => FILTERS.every(f => !state.filters[f.key] || f.value(r) === state.filters[f.key]));
    const column = COLUMNS.find(c => c.key === state.sort);
    kept.sort((a, b) => {
      const va = column.value(a), vb = column.value(b);
      const empty = v => v === null || v === undefined || v === "";
      if (empty(va) || empty(vb)) return compareValues(va, vb);  // empty last either way
      return state.descending ? compareValues(vb, va) : compareValues(va, vb);
    });
    return kept;
  }

  function buildFilters() {
    const box = document.getElementById("results-filters");
    for (const filter of FILTERS) {
      const values = [...new Set(results.map(filter.value).filter(v => v !== null && v !== undefined))];
      values.sort((a, b) => compareValues(a, b));
      if (filter.key === "round") values.reverse();
      const select = el("select", {name: "results_" + filter.key});
      select.appendChild(el("option", {value: ""}, "all"));
      for (const v of values) select.appendChild(el("option", {value: v}, v));
      const wanted = defaults[filter.key];
      if (wanted && values.includes(wanted)) { select.value = wanted; state.filters[filter.key] = wanted; }
      select.addEventListener("change", () => {
        state.filters[filter.key] = select.value;
        state.page = 0;
        drawResults();
      });
      const label = el("label", {}, filter.label + " ");
      label.appendChild(select);
      box.appendChild(label);
    }
  }

  // A column whose value a filter fixes says nothing row by row: the filter above names it; a power
  // basis none of the rows has is left out.
  function shownColumns(rows) {
    const empty = v => v === null || v === undefined || v === "";
    return COLUMNS.filter(c => !(c.hiddenWhenFiltered && state.filters[c.key]) &&
                               !(c.hiddenWhenEmpty && rows.every(r => empty(c.value(r)))));
  }

  function drawResults() {
    const table = document.getElementById("results-table");
    const head = table.tHead, body = table.tBodies[0];
    const rows = shownRows();
    const columns = shownColumns(rows);
    head.replaceChildren();
    const header = el("tr");
    for (const column of columns) {
      const th = el("th", {class: "sortable", "data-key": column.key, tabindex: "0", title: "sort by " + column.label},
                    column.label);
      if (column.key === state.sort) th.setAttribute("aria-sort", state.descending ? "descending" : "ascending");
      const sortBy = () => {
        if (state.sort === column.key) state.descending = !state.descending;
        else { state.sort = column.key; state.descending = !!column.num; }
        state.page = 0;
        drawResults();
        document.querySelector(`#results-table th[data-key=${column.key}]`).focus();
      };
      th.addEventListener("click", sortBy);
      th.addEventListener("keydown", event => { if (event.key === "Enter" || event.key === " ") { event.preventDefault(); sortBy(); } });
      header.appendChild(th);
    }
    head.appendChild(header);
    const pages = Math.max(1, Math.ceil(rows.length / PAGE_SIZE));
    state.page = Math.min(state.page, pages - 1);
    const first = state.page * PAGE_SIZE;
    body.replaceChildren();
    for (const row of rows.slice(first, first + PAGE_SIZE)) {
      const tr = el("tr", {"data-result-id": row.e.id});
      for (const column of columns) {
        const td = el("td", {class: (column.num ? "num " : "") + (column.css || "")});
        if (column.cell) td.appendChild(column.cell(row));
        else td.textContent = column.text ? column.text(row) : (column.value(row) ?? "");
        tr.appendChild(td);
      }
      body.appendChild(tr);
    }
    drawPager(rows.length, first, pages);
  }

  function drawPager(count, first, pages) {
    const pager = document.getElementById("results-pager");
    pager.replaceChildren();
    const previous = el("button", {type: "button", name: "previous"}, "‹ previous");
    const next = el("button", {type: "button", name: "next"}, "next ›");
    previous.disabled = state.page === 0;
    next.disabled = state.page >= pages - 1;
    previous.addEventListener("click", () => { state.page -= 1; drawResults(); });
    next.addEventListener("click", () => { state.page += 1; drawResults(); });
    const shown = count ? `rows ${first + 1}–${Math.min(first + PAGE_SIZE, count)} of ${count}` : "no row matches";
    pager.append(previous, next, el("span", {class: "count"}, shown + ` · page ${state.page + 1} of ${pages}`));
  }

  // --- compare two systems -----------------------------------------------------------------------

  const byEntry = new Map();
  for (const row of results) {
    if (!byEntry.has(row.entry)) byEntry.set(row.entry, []);
    byEntry.get(row.entry).push(row);
  }

  function entryLabel(entry) {
    return `${entry.id} · ${entry.submitter} · ${entry.system} (${entry.accelerator} ×${entry.accelerator_count})`;
  }

  function picker(name, title, chosen) {
    const box = el("div", {class: "picker"});
    box.appendChild(el("b", {}, title));
    const search = el("input", {type: "search", name: name + "_search", placeholder: "type to narrow: B200, 6.0-00, Dell"});
    const select = el("select", {name: name});
    const groups = new Map();
    entries.forEach((entry, index) => {
      if (!byEntry.has(index)) return;
      if (!groups.has(entry.round)) groups.set(entry.round, el("optgroup", {label: entry.round}));
      groups.get(entry.round).appendChild(el("option", {value: String(index)}, entryLabel(entry)));
    });
    for (const group of groups.values()) select.appendChild(group);
    const wanted = entries.findIndex(e => e.id === chosen);
    if (wanted >= 0) select.value = String(wanted);
    search.addEventListener("input", () => {
      const words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
      for (const option of select.options)
        option.hidden = !words.every(w => option.textContent.toLowerCase().includes(w));
    });
    select.addEventListener("change", drawCompare);
    box.append(search, el("br"), select);
    return box;
  }

  function buildCompare() {
    const box = document.getElementById("compare-pickers");
    const [a, b] = defaults.compare || [];
    box.append(picker("compare_a", "A", a), picker("compare_b", "B", b));
  }

  function chosenEntry(name) {
    const value = document.querySelector(`select[name=${name}]`).value;
    return value === "" ? null : Number(value);
  }

  // Per benchmark and scenario both entries have (a replay, scenario "*", meets every scenario).
  function sharedPairs(a, b) {
    const pairs = [];
    for (const left of byEntry.get(a) || [])
      for (const right of byEntry.get(b) || [])
        if (left.benchmark === right.benchmark &&
            (left.scenario === right.scenario || left.scenario === "*" || right.scenario === "*"))
          pairs.push([left, right]);
    const order = {Offline: 0, Server: 1, Interactive: 2};
    pairs.sort((x, y) => compareValues(x[0].benchmark, y[0].benchmark) ||
                         compareValues(order[scenarioOf(x)], order[scenarioOf(y)]));
    return pairs;
  }

  function scenarioOf([left, right]) {
    return left.scenario === "*" ? right.scenario : left.scenario;
  }

  function sameBasis(left, right, measured, estimate) {
    if (left[measured] != null && right[measured] != null) return [left[measured], right[measured], "measured"];
    if (left[estimate] != null && right[estimate] != null) return [left[estimate], right[estimate], "system estimate"];
    return [null, null, "no common power basis"];
  }

  // a cost with the price it comes from, "$0.0855 ($4.00 per accelerator-hour)*": the price's source
  // and date once, in the footnote under the table (priceFootnote), as the answer tables do
  function costText(r) {
    if (r.dollars_per_million_tokens == null) return "";
    const v = Number(r.dollars_per_million_tokens);
    const money = "$" + (Math.abs(v) >= 1 ? v.toFixed(2) : String(Number(v.toPrecision(3))));  // figures.py dollars
    return r.e.price ? money + " (" + r.e.price + ")*" : money;
  }

  // "* Prices are yours (...), per accelerator-hour: source, date (B200, GB200)." for the priced entries shown
  function priceFootnote(shown) {
    const note = document.getElementById("compare-prices");
    const sources = new Map();
    for (const entry of shown) {
      if (!entry.price) continue;
      const priced = sources.get(entry.price_source) || [];
      if (!priced.includes(entry.accelerator)) priced.push(entry.accelerator);
      sources.set(entry.price_source, priced);
    }
    note.replaceChildren();
    note.hidden = sources.size === 0;
    if (note.hidden) return;
    note.append(el("sup", {}, "*"), " Prices are yours (", el("code", {}, "mlperf-wh prices load"),
                "), per accelerator-hour: " +
                [...sources].map(([source, priced]) => `${source} (${priced.join(", ")})`).join("; ") + ".");
  }

  function measures(left, right) {
    const sameUnit = left.unit === right.unit;
    const unit = rate(left.unit);
    const rackText = r => r.per_rack == null ? "" :
      fmt(r.per_rack) + (r.rack_basis ? (r.measured_rack ? " (measured)" : " (estimated)") : "");
    const [wattsA, wattsB, powerBasis] = sameBasis(left, right, "measured_watts", "system_estimate_watts");
    const [kwA, kwB, kwBasis] = sameBasis(left, right, "per_kw_measured", "per_kw_system_estimate");
    return [
      ["performance, whole system (" + unit + ")", left.result, right.result, sameUnit, true],
      ["performance per accelerator", left.per_accelerator, right.per_accelerator, sameUnit, true],
      ["per rack", left.per_rack, right.per_rack, sameUnit, true, rackText(left), rackText(right)],
      ["power, watts (" + powerBasis + ")", wattsA, wattsB, true, false],
      ["efficiency, " + unit + " per kW (" + kwBasis + ")", kwA, kwB, sameUnit, true],
      ["tokens/s per user", left.per_user, right.per_user, true, true],
      ["dollars per million tokens (your prices)", left.dollars_per_million_tokens, right.dollars_per_million_tokens,
       true, false, costText(left), costText(right)],
    ].filter(m => m[1] != null || m[2] != null);
  }

  function deltaCell(a, b, comparable, higherIsBetter) {
    const td = el("td", {class: "num delta"});
    if (!comparable || a == null || b == null || !a) return td;
    const share = b / a - 1;
    td.textContent = (share >= 0 ? "+" : "−") + Math.abs(share * 100).toFixed(1) + "% (×" + (b / a).toFixed(2) + ")";
    if (higherIsBetter && Math.abs(share) >= 0.005) td.classList.add(share > 0 ? "up" : "down");
    return td;
  }

  function drawCompare() {
    const a = chosenEntry("compare_a"), b = chosenEntry("compare_b");
    const table = document.getElementById("compare-table");
    table.tHead.replaceChildren();
    table.tBodies[0].replaceChildren();
    priceFootnote([]);
    if (a === null || b === null) return;
    const header = el("tr");
    header.append(el("th", {}, "benchmark · scenario"), el("th", {}, "measure"));
    for (const index of [a, b]) {
      const th = el("th", {});
      const entry = entries[index];
      th.append(index === a ? "A: " : "B: ", link(entry.url, entry.id),
                el("div", {class: "who"}, `${entry.accelerator} ×${entry.accelerator_count} · ${entry.submitter} · ${entry.round}`));
      header.appendChild(th);
    }
    header.appendChild(el("th", {}, "B against A"));
    table.tHead.appendChild(header);
    const pairs = sharedPairs(a, b);
    if (!pairs.length) {
      const tr = el("tr", {class: "none"});
      tr.appendChild(el("td", {colspan: "5"}, "no benchmark and scenario in common"));
      table.tBodies[0].appendChild(tr);
      return;
    }
    for (const [left, right] of pairs) {
      const rows = measures(left, right);
      rows.forEach(([label, va, vb, comparable, higher, textA, textB], i) => {
        const tr = el("tr", {"data-key": left.benchmark + " · " + scenarioOf([left, right])});
        if (i === 0) tr.appendChild(el("th", {rowspan: String(rows.length), scope: "rowgroup"},
                                        left.benchmark + " · " + scenarioOf([left, right])));
        tr.append(el("td", {}, label), el("td", {class: "num"}, textA ?? fmt(va)),
                  el("td", {class: "num"}, textB ?? fmt(vb)), deltaCell(va, vb, comparable, higher));
        table.tBodies[0].appendChild(tr);
      });
    }
    const costed = pairs.some(([left, right]) => left.dollars_per_million_tokens != null || right.dollars_per_million_tokens != null);
    priceFootnote(costed ? [entries[a], entries[b]] : []);
  }

  buildFilters();
  drawResults();
  buildCompare();
  drawCompare();
  document.body.dataset.tables = "ready";
})();
