// The mathhammer page: a form built from each ruleset's description of its fields,
// runs through the local server's API, and links that carry the whole scenario.
//
// Every piece of user text reaches the page through textContent or an input's value,
// never through innerHTML, and is escaped before plotly draws it.
"use strict";

const LINK_VERSION = 1; // bump when the data in a link changes meaning; old links are then refused by name
const POLL_MS = 150;

const state = {
  rulesets: new Map(),
  metrics: [],
  root: null,
  raw: {},
  job: null,
  compareJob: null,
  comparison: null,
  compareFiles: [],
};
let uid = 0;

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

function nextId(prefix) {
  uid += 1;
  return `${prefix}-${uid}`;
}

function words(key) {
  if (/[A-Z]/.test(key)) return key.replace(/_/g, " ");
  if (key.length <= 2) return key.toUpperCase();
  const text = key.replace(/_/g, " ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function singular(label) {
  return /[^s]s$/.test(label) ? label.slice(0, -1) : label;
}

function esc(text) {
  // Plotly reads a few HTML-like tags in its strings: show user text as typed instead.
  return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function keywordNames() {
  const ruleset = state.rulesets.get(document.getElementById("ruleset").value);
  return ruleset ? ruleset.keywords.map((k) => k.name) : [];
}

function ruleChoices() {
  const ruleset = state.rulesets.get(document.getElementById("ruleset").value);
  const rules = new Map();
  for (const k of ruleset ? ruleset.keywords : []) if (k.rule) rules.set(k.rule.name, k.rule);
  return rules;
}

function datalist(id, values) {
  let list = document.getElementById(id);
  if (!list) {
    list = el("datalist", { id });
    document.body.append(list);
  }
  list.replaceChildren(...values.map((v) => el("option", { value: v })));
  return id;
}

// ---------------------------------------------------------------------------
// The form, from the schema: one controller per field, with get() and an element
// ---------------------------------------------------------------------------

const HINTS = {
  roll: "a roll, such as 3+",
  dice: "a number or dice, such as D6+1",
};

function errorSlot(id) {
  return el("small", { class: "error", id: `err-${id}`, role: "alert" });
}

function scalar(spec, path, value) {
  const id = nextId("f");
  const label = words(spec.key);
  let control;
  let get;
  const wrap = el("div", { class: "field", "data-field": spec.key });
  if (spec.kind === "flag") {
    control = el("input", { type: "checkbox", id, "data-path": path, "aria-describedby": `err-${id}` });
    control.checked = value === undefined ? Boolean(spec.default) : Boolean(value);
    get = () => (spec.required || control.checked !== Boolean(spec.default) ? control.checked : undefined);
    wrap.classList.add("check");
    wrap.append(control, el("label", { for: id, text: label }), errorSlot(id));
    return { spec, el: wrap, get, control };
  }
  if (spec.kind === "text" && spec.choices) {
    control = el("select", { id, "data-path": path, "aria-describedby": `err-${id}` });
    if (!spec.required) {
      control.append(el("option", { value: "", text: spec.default !== undefined ? `${spec.default} (default)` : "—" }));
    }
    for (const choice of spec.choices) control.append(el("option", { value: choice, text: choice }));
    if (value !== undefined) control.value = String(value);
    get = () => control.value || undefined;
  } else {
    control = el("input", { type: "text", id, "data-path": path, "aria-describedby": `err-${id}`, autocomplete: "off" });
    if (spec.kind === "integer") control.setAttribute("inputmode", "numeric");
    // A default shows as the placeholder; an optional field without one shows that it may stay empty.
    let placeholder = spec.default !== undefined ? String(spec.default) : spec.required ? "" : "none";
    if (spec.required) placeholder = { roll: "3+", dice: "D6" }[spec.kind] || "";
    if (placeholder) control.setAttribute("placeholder", placeholder);
    if (value !== undefined && value !== null) control.value = String(value);
    get = () => {
      const raw = control.value.trim();
      if (raw === "") return undefined;
      if ((spec.kind === "integer" || spec.kind === "any") && /^[-+]?\d+$/.test(raw)) return Number(raw);
      return raw;
    };
  }
  if (spec.required) {
    wrap.classList.add("required");
    control.setAttribute("aria-required", "true");
  }
  wrap.append(el("label", { for: id, text: label }), control);
  if (HINTS[spec.kind]) wrap.append(el("span", { class: "hint", text: HINTS[spec.kind] }));
  wrap.append(errorSlot(id));
  return { spec, el: wrap, get, control };
}

function textList(spec, path, value) {
  const label = words(spec.key);
  const one = singular(label);
  const box = el("fieldset", { class: "field wide list", "data-path": path });
  const rows = el("div");
  const err = el("p", { class: "error", role: "alert" });
  box.append(el("legend", { text: label }), rows);
  const listId = datalist(`keywords-${document.getElementById("ruleset").value}`, keywordNames());
  const ruleset = state.rulesets.get(document.getElementById("ruleset").value);
  const keywords = ruleset ? ruleset.keywords : [];
  const inputs = [];
  const renumber = () => {
    inputs.forEach((input, i) => {
      input.dataset.path = `${path}[${i}]`;
      input.previousSibling.textContent = `${one} ${i + 1}`;
      input.nextSibling.textContent = `Remove ${one.toLowerCase()} ${i + 1}`;
    });
  };
  const add = (text) => {
    const id = nextId("f");
    const input = el("input", { type: "text", id, list: listId, autocomplete: "off" });
    input.value = text || "";
    const row = el("div", { class: "list-row" });
    const remove = el("button", { type: "button", class: "small" });
    remove.addEventListener("click", () => {
      inputs.splice(inputs.indexOf(input), 1);
      row.remove();
      renumber();
    });
    const about = el("small", { class: "hint" });
    const describe = () => {
      // The description of the keyword typed, as `mathhammer plugins` gives it.
      const typed = input.value.trim().toLowerCase();
      const found = keywords.filter((k) => typed.startsWith(k.name.toLowerCase())).sort((a, b) => b.name.length - a.name.length)[0];
      about.textContent = found ? found.description : "";
    };
    input.addEventListener("input", describe);
    describe();
    row.append(el("label", { for: id }), input, remove, about);
    rows.append(row);
    inputs.push(input);
    renumber();
    return input;
  };
  for (const text of Array.isArray(value) ? value : []) add(text);
  const adder = el("button", { type: "button", class: "small", text: `Add ${one.toLowerCase()}` });
  adder.addEventListener("click", () => add("").focus());
  box.append(adder, err);
  const get = () => {
    const values = inputs.map((i) => i.value.trim()).filter((v) => v !== "");
    return values.length || spec.required ? values : undefined;
  };
  return { spec, el: box, get };
}

function openRows(path, value) {
  // A table of free names (rule name to version): pick a rule, then one of its versions.
  const rules = ruleChoices();
  const box = el("div", { class: "open-rows" });
  const rows = [];
  const add = (name, version) => {
    const n = nextId("f");
    const v = nextId("f");
    const nameInput = el("input", { type: "text", id: n, list: datalist("rule-names", [...rules.keys()]), autocomplete: "off" });
    const versionInput = el("input", { type: "text", id: v, autocomplete: "off" });
    nameInput.value = name || "";
    versionInput.value = version || "";
    const versions = () => {
      const rule = rules.get(nameInput.value.trim());
      versionInput.setAttribute("list", datalist(`versions-${v}`, rule ? Object.keys(rule.versions) : []));
      versionInput.dataset.path = `${path}.${nameInput.value.trim()}`;
    };
    nameInput.addEventListener("input", versions);
    versions();
    const row = el("div", { class: "grid" });
    const entry = { nameInput, versionInput, row };
    const remove = el("button", { type: "button", class: "small", text: "Remove rule version" });
    remove.addEventListener("click", () => {
      rows.splice(rows.indexOf(entry), 1);
      row.remove();
    });
    row.append(
      el("div", { class: "field" }, el("label", { for: n, text: "Rule" }), nameInput),
      el("div", { class: "field" }, el("label", { for: v, text: "Version" }), versionInput, errorSlot(v)),
      el("div", { class: "field" }, remove),
    );
    box.insertBefore(row, adder);
    rows.push(entry);
    return nameInput;
  };
  const adder = el("button", { type: "button", class: "small", text: "Add rule version" });
  adder.addEventListener("click", () => add("", "").focus());
  box.append(adder);
  for (const [name, version] of Object.entries(value || {})) add(name, version);
  return {
    el: box,
    fill(obj) {
      for (const entry of rows) {
        const name = entry.nameInput.value.trim();
        if (name) obj[name] = entry.versionInput.value.trim();
      }
    },
  };
}

const unknownFields = [];
const formState = { offered: false };

function table(spec, path, value, { root = false } = {}) {
  value = value && typeof value === "object" && !Array.isArray(value) ? value : undefined;
  const label = words(spec.key);
  const children = [];
  const grid = el("div", { class: "grid" });
  const nested = el("div");
  const err = el("p", { class: "error", role: "alert" });
  const known = new Set(spec.fields.map((f) => f.key));
  // A new form offers one item of the first list the ruleset does not require (the attacker's
  // weapons): a scenario needs something to attack with, and an empty list hides what to fill in.
  let firstArray = null;
  if (!formState.offered && !value) {
    firstArray = spec.fields.find((f) => f.kind === "tables" && !f.required) || null;
    if (firstArray) formState.offered = true;
  }
  for (const field of spec.fields) {
    if (root && field.key === "ruleset") continue;
    const at = path ? `${path}.${field.key}` : field.key;
    const given = value ? value[field.key] : undefined;
    let child;
    if (field.kind === "table") child = table(field, at, given);
    else if (field.kind === "tables") child = array(field, at, given, { start: field === firstArray ? 1 : 0 });
    else if (field.kind === "texts") child = textList(field, at, given);
    else child = scalar(field, at, given);
    children.push(child);
    (field.kind === "table" || field.kind === "tables" || field.kind === "texts" ? nested : grid).append(child.el);
  }
  if (value) {
    for (const key of Object.keys(value)) {
      if (!known.has(key) && !spec.open && !(root && key === "ruleset")) unknownFields.push(path ? `${path}.${key}` : key);
    }
  }
  let open = null;
  if (spec.open) {
    const free = {};
    for (const [key, v] of Object.entries(value || {})) if (!known.has(key)) free[key] = v;
    open = openRows(path, free);
  }
  // Fields read only for some value of a sibling choice show only then.
  const refresh = () => {
    for (const child of children) {
      if (!child.spec.when) continue;
      const sibling = children.find((c) => c.spec.key === child.spec.when.key);
      const current = sibling ? (sibling.get() ?? sibling.spec.default ?? (sibling.spec.choices || [])[0]) : undefined;
      child.active = child.spec.when.values.includes(current);
      child.el.hidden = !child.active;
    }
  };
  for (const child of children) if (child.control) child.control.addEventListener("change", refresh);
  refresh();
  let box;
  if (root) {
    box = el("div", {}, grid, nested, err);
  } else if (spec.required) {
    box = el("fieldset", { "data-path": path }, el("legend", { text: label }), grid, nested);
  } else {
    box = el("details", { "data-path": path }, el("summary", { text: `${label} (optional)` }), grid, nested);
    if (value) box.open = true;
  }
  if (open) box.append(open.el);
  if (!root) box.append(err);
  const get = () => {
    const obj = {};
    for (const child of children) {
      if (child.active === false) continue;
      const v = child.get();
      if (v !== undefined) obj[child.spec.key] = v;
    }
    if (open) open.fill(obj);
    return Object.keys(obj).length || spec.required || root ? obj : undefined;
  };
  return { spec, el: box, get };
}

function array(spec, path, value, { start = 0 } = {}) {
  const label = words(spec.key);
  const one = singular(label);
  const box = el("fieldset", { class: "array", "data-path": path }, el("legend", { text: label }));
  const items = el("div");
  const err = el("p", { class: "error", role: "alert" });
  let entries = [];
  const render = (values) => {
    entries = values.map((v, i) => {
      const item = table({ ...spec, key: `${one} ${i + 1}`, required: true }, `${path}[${i}]`, v);
      item.el.querySelector("legend").textContent = `${one} ${i + 1}`;
      const remove = el("button", { type: "button", class: "small", text: `Remove ${one.toLowerCase()} ${i + 1}` });
      remove.addEventListener("click", () => {
        const current = entries.map((e) => e.get());
        current.splice(i, 1);
        render(current);
      });
      item.el.append(remove);
      return item;
    });
    items.replaceChildren(...entries.map((e) => e.el));
  };
  let initial = Array.isArray(value) ? value : [];
  if (!Array.isArray(value) && (spec.required || start)) initial = [{}];
  render(initial);
  const adder = el("button", { type: "button", class: "small", text: `Add ${one.toLowerCase()}` });
  adder.addEventListener("click", () => {
    render([...entries.map((e) => e.get()), {}]);
    const last = entries[entries.length - 1].el.querySelector("input, select");
    if (last) last.focus();
  });
  box.append(items, adder, err);
  const get = () => {
    // An item left blank is no item: the list holds what the player filled in.
    const values = entries.map((e) => e.get()).filter((v) => Object.keys(v).length);
    return values.length || spec.required ? values : undefined;
  };
  return { spec, el: box, get };
}

function buildForm(data) {
  const ruleset = state.rulesets.get(document.getElementById("ruleset").value);
  unknownFields.length = 0;
  formState.offered = data !== undefined;
  const fields = document.getElementById("fields");
  if (!ruleset || !ruleset.schema.fields.length) {
    // No description of the fields: the scenario imported (or linked) is kept as it is and run as such.
    state.root = null;
    state.raw = data || {};
    const text = data ? "The imported scenario is used as it is." : "Import a TOML file to run one.";
    fields.replaceChildren(el("p", { text: `This ruleset does not describe its fields, so it has no form. ${text}` }));
    return;
  }
  state.root = table(ruleset.schema, "", data, { root: true });
  fields.replaceChildren(state.root.el);
  if (unknownFields.length) {
    showFormError(`These fields are not ones the ${ruleset.name} ruleset reads, so they were left out: ${unknownFields.join(", ")}`);
  }
}

function collect() {
  const data = state.root ? state.root.get() : state.raw;
  return { ruleset: document.getElementById("ruleset").value, ...data };
}

// ---------------------------------------------------------------------------
// Errors: the CLI's message, next to the field it names
// ---------------------------------------------------------------------------

function clearErrors() {
  for (const node of document.querySelectorAll(".error")) {
    node.textContent = "";
  }
  for (const node of document.querySelectorAll("[aria-invalid]")) node.removeAttribute("aria-invalid");
  const formError = document.getElementById("form-error");
  formError.hidden = true;
}

function showFormError(message) {
  const formError = document.getElementById("form-error");
  formError.textContent = message;
  formError.hidden = false;
}

function showError(error) {
  let path = error.field;
  let control = null;
  if (path === "trials" || path === "seed") control = document.getElementById(path);
  while (path && !control) {
    control = document.querySelector(`[data-path="${CSS.escape(path)}"]`);
    if (!control) path = path.replace(/(\[\d+\]|\.[^.[\]]+)$/, "") === path ? "" : path.replace(/(\[\d+\]|\.[^.[\]]+)$/, "");
  }
  if (!control) {
    showFormError(error.message);
    return;
  }
  // A field's own message slot, else that of the part it is in (a keyword of a list, a table).
  const part = control.matches("input, select") ? control.closest("fieldset, details") : control;
  const slot = document.getElementById(`err-${control.id}`) || (part && part.querySelector(":scope > .error"));
  const message = path === error.field ? error.detail : error.message;
  if (slot) slot.textContent = message;
  else showFormError(error.message);
  if (control.matches("input, select")) {
    control.setAttribute("aria-invalid", "true");
    control.focus();
  } else {
    if (control.tagName === "DETAILS") control.open = true;
    control.scrollIntoView({ block: "center" });
  }
}

// ---------------------------------------------------------------------------
// The server's API
// ---------------------------------------------------------------------------

async function post(url, body) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const data = await response.json();
  if (!response.ok) throw Object.assign(new Error(data.error.message), { api: data.error });
  return data;
}

async function follow(job, onProgress) {
  for (;;) {
    if (job.state === "done" || job.state === "failed" || job.state === "cancelled") return job;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    const response = await fetch(`/api/jobs/${encodeURIComponent(job.id)}`);
    job = await response.json();
    if (!response.ok) throw Object.assign(new Error(job.error.message), { api: job.error });
    onProgress(job);
  }
}

function runOptions() {
  return {
    evaluator: document.getElementById("evaluator").value,
    trials: document.getElementById("trials").value.trim().replace(/[_,\s]/g, "") || null,
    seed: document.getElementById("seed").value.trim() || null,
  };
}

function setStatus(text) {
  document.getElementById("status").textContent = text;
}

function showProgress(job) {
  const box = document.getElementById("progress-box");
  const bar = document.getElementById("progress");
  const text = document.getElementById("progress-text");
  box.hidden = false;
  if (job.total) {
    bar.max = job.total;
    bar.value = job.done;
    text.textContent = `${job.done.toLocaleString("en")} of ${job.total.toLocaleString("en")} trials`;
  } else {
    bar.removeAttribute("value");
    text.textContent =
      job.state === "queued" ? "waiting for a free core" : job.phase === "exact" ? "evaluating exactly" : "evaluating";
  }
}

async function run(event) {
  if (event) event.preventDefault();
  clearErrors();
  const scenario = collect();
  const options = runOptions();
  document.getElementById("run").disabled = true;
  document.getElementById("cancel").hidden = false;
  setStatus("Running…");
  try {
    let job = await post("/api/run", { scenario, ...options });
    state.job = job;
    showProgress(job);
    job = await follow(job, (j) => {
      state.job = j;
      showProgress(j);
    });
    if (job.state === "done") {
      if (job.answer.seed !== null && job.answer.seed !== undefined) document.getElementById("seed").value = String(job.answer.seed);
      renderResult(job.answer);
      await updateLink();
      setStatus("Done.");
    } else if (job.state === "cancelled") {
      setStatus(
        job.total
          ? `Cancelled after ${job.done.toLocaleString("en")} of ${job.total.toLocaleString("en")} trials.`
          : "Cancelled during the exact evaluation.",
      );
    } else {
      showError(job.error);
      setStatus("The run failed: see the message above.");
    }
  } catch (err) {
    if (err.api) showError(err.api);
    else showFormError(String(err.message || err));
    setStatus("The run failed: see the message above.");
  } finally {
    state.job = null;
    document.getElementById("run").disabled = false;
    document.getElementById("cancel").hidden = true;
    document.getElementById("progress-box").hidden = true;
  }
}

async function cancel() {
  if (state.job) await post(`/api/jobs/${encodeURIComponent(state.job.id)}/cancel`, {});
}

async function explainOne() {
  clearErrors();
  try {
    const seed = document.getElementById("seed").value.trim() || null;
    const told = await post("/api/explain", { scenario: collect(), seed });
    document.getElementById("explain-text").textContent = `${told.text}\n\nseed ${told.seed} (${told.dice.length} dice)`;
    const box = document.getElementById("explanation");
    box.hidden = false;
    box.scrollIntoView({ block: "start" });
  } catch (err) {
    if (err.api) showError(err.api);
    else showFormError(String(err.message || err));
  }
}

// ---------------------------------------------------------------------------
// The result: what `mathhammer simulate` reports, with charts
// ---------------------------------------------------------------------------

function fmt(x, digits = 3) {
  return x === null || x === undefined ? "—" : Number(x).toFixed(digits);
}

// A probability to four places, as the report prints it: a possible outcome is never shown as 0.0000, nor a
// possible failure as 1.0000.
function prob(p) {
  if (p === null || p === undefined) return "—";
  if (p > 0 && p < 5e-5) return "<0.0001";
  if (p < 1 && p > 1 - 5e-5) return ">0.9999";
  return Number(p).toFixed(4);
}

function tableOf(head, rows, caption, numeric = true) {
  const t = el("table");
  if (caption) t.append(el("caption", { text: caption }));
  t.append(el("thead", {}, el("tr", {}, ...head.map((h) => el("th", { scope: "col", text: h })))));
  t.append(el("tbody", {}, ...rows.map((r) => el("tr", {}, ...r.map((c, i) => el("td", { class: i && numeric ? "num" : null, text: c }))))));
  return el("div", { class: "table-wrap" }, t);
}

function renderResult(r) {
  const box = document.getElementById("result");
  const mc = r.evaluator === "monte_carlo";
  const se = (stage) => (mc ? ` ± ${fmt(stage.se)}` : "");
  const headline = el("div", { class: "headline" });
  const fact = (label, value, testid) => headline.append(el("div", { "data-testid": testid }, el("span", { text: label }), el("strong", { text: value })));
  // Headed in the ruleset's words, as the report's table labels them ("HP lost", "Models removed").
  fact(`${r.labels.models_destroyed || "Models destroyed"} (mean)`, fmt(r.models_destroyed.mean) + se(r.models_destroyed), "models-destroyed");
  fact(`${r.labels.damage || "Damage"} (mean)`, fmt(r.damage.mean) + se(r.damage), "damage");
  fact("P(unit destroyed)", prob(r.p_unit_destroyed), "p-unit-destroyed");
  for (const [label, chance] of Object.entries(r.chances || {})) fact(label, prob(chance.p) + (mc ? ` ± ${fmt(chance.se, 4)}` : ""), null);
  const parts = [el("h2", { text: "Result" }), el("p", { class: "how", "data-testid": "how", text: r.description }), headline];
  const middle = (m) => (m ? `${m[0]}-${m[1]}` : "—");
  const stageRow = (s) => [s.label, fmt(s.mean), ...(mc ? [fmt(s.se)] : []), fmt(s.sd), middle(s.middle_90)];
  parts.push(tableOf(["Stage", "Mean", ...(mc ? ["Std. error"] : []), "Std. dev.", "Middle 90%"], r.per_stage.map(stageRow), "Per stage"));
  if (r.mean_only_note) parts.push(el("p", { class: "hint", text: r.mean_only_note.replace(/^- :/, "— :") }));
  const groups = Object.entries(r.groups || {});
  if (groups.length > 1) {
    const destroyed = (g) => prob(g.p_destroyed) + (mc ? ` ± ${fmt(g.p_destroyed_se, 4)}` : "");
    parts.push(tableOf(["Group", "Models", "Destroyed (mean)", "P(group destroyed)"], groups.map(([name, g]) => [name, String(g.models), fmt(g.mean), destroyed(g)]), "Per group"));
  }
  // Each rule version that ran, with what it does in words (as the report says it).
  const said = r.rule_descriptions || {};
  const versions = Object.entries(r.rule_versions || {}).map(([rule, version]) => [rule, version, said[rule] || ""]);
  if (versions.length) parts.push(tableOf(["Rule", "Version", "What it does"], versions, "Rule versions that ran", false));
  if (r.no_effect && r.no_effect.length) {
    parts.push(el("h3", { text: "Keywords with no effect here" }), el("ul", {}, ...r.no_effect.map((n) => el("li", { text: `${n.keyword} (${n.where}): ${n.reason}` }))));
  }
  const charts = el("div");
  parts.push(el("h3", { text: "Distributions" }), charts);
  box.replaceChildren(...parts);
  box.hidden = false;
  for (const name of r.distributions) {
    const stage = r[name] || (name.startsWith("destroyed:") && r.groups[name.slice(10)]);
    if (!stage || !stage.pmf) continue;
    const div = el("div", { class: "chart", role: "img", "aria-label": `Distribution of ${r.labels[name] || name}` });
    charts.append(div);
    chart(div, r.labels[name] || name, stage);
  }
}

// Plotly's options for every chart: no Plotly logo, and no "Share chart" button, which would upload the chart
// to Plotly's cloud; nothing on this page leaves the computer.
const CHART_CONFIG = { responsive: true, displaylogo: false, showSendToCloud: false, showLink: false };

// A chart's title sits just above its plot, below the toolbar Plotly draws along the top, so that on a
// phone's narrow chart the buttons never cover it (TITLE_ROOM is the top margin that leaves room for both).
const TITLE_ROOM = 70;
const chartTitle = (text) => ({ text: esc(text), yref: "paper", y: 1, yanchor: "bottom", pad: { b: 10 } });

function chart(div, title, stage) {
  if (!window.Plotly) return;
  const k = stage.pmf.map((_, i) => i);
  window.Plotly.newPlot(
    div,
    [
      { type: "bar", x: k, y: stage.pmf, name: "P(= k)", hovertemplate: "P(= %{x}) = %{y:.4f}<extra></extra>" },
      { type: "scatter", mode: "lines+markers", x: k, y: stage.p_at_least, name: "P(≥ k)", hovertemplate: "P(≥ %{x}) = %{y:.4f}<extra></extra>" },
    ],
    {
      title: chartTitle(title),
      margin: { l: 50, r: 10, t: TITLE_ROOM, b: 90 },
      xaxis: { title: { text: "k" }, dtick: k.length > 20 ? undefined : 1 },
      yaxis: { title: { text: "probability" }, range: [0, 1.02] },
      // Under the axis title "k", not over it.
      legend: { orientation: "h", yref: "container", y: 0, yanchor: "bottom" },
    },
    CHART_CONFIG,
  );
}

// ---------------------------------------------------------------------------
// Links: the whole scenario, compressed into the fragment
// ---------------------------------------------------------------------------

function toBase64Url(bytes) {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(text) {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

async function squeeze(bytes, stream) {
  return new Uint8Array(await new Response(new Blob([bytes]).stream().pipeThrough(stream)).arrayBuffer());
}

async function encodeLink(payload) {
  const bytes = new TextEncoder().encode(JSON.stringify(payload));
  return `#v=${LINK_VERSION}&s=${toBase64Url(await squeeze(bytes, new CompressionStream("deflate-raw")))}`;
}

async function decodeLink(hash) {
  const params = new URLSearchParams(hash.replace(/^#/, ""));
  const version = params.get("v");
  if (version !== String(LINK_VERSION)) {
    throw new Error(`this link is of format ${version}; this page reads links of format ${LINK_VERSION}`);
  }
  const bytes = await squeeze(fromBase64Url(params.get("s") || ""), new DecompressionStream("deflate-raw"));
  return JSON.parse(new TextDecoder().decode(bytes));
}

async function updateLink() {
  const hash = await encodeLink({ scenario: collect(), run: runOptions() });
  history.replaceState(null, "", hash);
  document.getElementById("link").value = location.href;
}

async function openLink() {
  let payload;
  try {
    payload = await decodeLink(location.hash);
  } catch (err) {
    showFormError(`This link cannot be read: ${err.message}`);
    return false;
  }
  loadScenario(payload.scenario);
  const options = payload.run || {};
  document.getElementById("evaluator").value = options.evaluator || "auto";
  document.getElementById("trials").value = options.trials || "1000000";
  document.getElementById("seed").value = options.seed || "";
  return true;
}

function loadScenario(data) {
  const name = data && data.ruleset;
  if (!state.rulesets.has(name)) {
    showFormError(`The scenario names the ruleset ${JSON.stringify(name)}, which is not installed here.`);
    return;
  }
  document.getElementById("ruleset").value = name;
  buildForm(data);
}

// ---------------------------------------------------------------------------
// TOML files
// ---------------------------------------------------------------------------

async function importFile(event) {
  const file = event.target.files[0];
  event.target.value = "";
  if (!file) return;
  clearErrors();
  try {
    const read = await post("/api/toml/read", { text: await file.text(), name: file.name });
    loadScenario(read.data);
    setStatus(`Imported ${file.name}.`);
  } catch (err) {
    showFormError(err.api ? err.api.message : String(err.message || err));
  }
}

async function exportFile() {
  clearErrors();
  try {
    const written = await post("/api/toml/write", { scenario: collect() });
    const url = URL.createObjectURL(new Blob([written.text], { type: "application/toml" }));
    const a = el("a", { href: url, download: "scenario.toml" });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  } catch (err) {
    if (err.api) showError(err.api);
    else showFormError(String(err.message || err));
  }
}

// ---------------------------------------------------------------------------
// Compare: a profile library as a heat map
// ---------------------------------------------------------------------------

async function runCompare(event) {
  event.preventDefault();
  const error = document.getElementById("compare-error");
  error.hidden = true;
  const status = document.getElementById("compare-status");
  const cancelButton = document.getElementById("compare-cancel");
  cancelButton.hidden = false;
  status.textContent = "Comparing…";
  try {
    let job = await post("/api/compare", {
      library: document.getElementById("library").value,
      files: state.compareFiles.map(({ name, text, data }) => ({ name, text, data })),
      metrics: state.metrics,
      evaluator: "auto",
      trials: document.getElementById("compare-trials").value.trim().replace(/[_,\s]/g, "") || null,
      seed: document.getElementById("compare-seed").value.trim() || null,
    });
    state.compareJob = job;
    job = await follow(job, (j) => {
      state.compareJob = j;
      if (j.total) status.textContent = `Comparing… ${j.done.toLocaleString("en")} of ${j.total.toLocaleString("en")} trials`;
      else status.textContent = j.phase === "exact" ? "Comparing… evaluating exactly" : "Comparing…";
    });
    if (job.state === "done") {
      state.comparison = job.answer;
      drawComparison();
      status.textContent = "Done.";
    } else if (job.state === "cancelled") {
      status.textContent = "Cancelled.";
    } else {
      throw Object.assign(new Error(job.error.message), { api: job.error });
    }
  } catch (err) {
    error.textContent = err.api ? err.api.message : String(err.message || err);
    error.hidden = false;
    status.textContent = "";
  } finally {
    state.compareJob = null;
    cancelButton.hidden = true;
  }
}

function showCompareFiles() {
  const list = document.getElementById("compare-files");
  list.replaceChildren(
    ...state.compareFiles.map((file, i) => {
      const remove = el("button", { type: "button", class: "small", text: `Remove ${file.name}` });
      remove.addEventListener("click", () => {
        state.compareFiles.splice(i, 1);
        showCompareFiles();
      });
      return el("li", {}, el("span", { text: `${file.name} ` }), remove);
    }),
  );
}

function drawComparison() {
  const c = state.comparison;
  if (!c) return;
  const metric = document.getElementById("metric").value;
  const z = c.matrices[metric];
  const label = c.labels[metric];
  const div = document.getElementById("heatmap");
  if (window.Plotly) {
    window.Plotly.newPlot(
      div,
      [
        {
          type: "heatmap",
          x: c.targets.map(esc),
          y: c.attackers.map(esc),
          z,
          text: z.map((row) => row.map((v) => fmt(v))),
          texttemplate: "%{text}",
          colorscale: "Viridis",
          hovertemplate: "%{y} vs %{x}: %{z:.3f}<extra></extra>",
        },
      ],
      { title: chartTitle(label), margin: { l: 120, r: 10, t: TITLE_ROOM, b: 80 }, yaxis: { autorange: "reversed" } },
      CHART_CONFIG,
    );
  }
  const rows = c.attackers.map((a, i) => [a, ...z[i].map((v) => fmt(v))]);
  document.getElementById("compare-table").replaceChildren(tableOf(["Attacker", ...c.targets], rows, label));
}

// ---------------------------------------------------------------------------
// Start
// ---------------------------------------------------------------------------

function tabs() {
  const all = [...document.querySelectorAll('[role="tab"]')];
  const select = (tab) => {
    for (const t of all) {
      const on = t === tab;
      t.setAttribute("aria-selected", String(on));
      t.tabIndex = on ? 0 : -1;
      document.getElementById(t.getAttribute("aria-controls")).hidden = !on;
    }
    tab.focus();
    if (tab.id === "tab-compare") drawComparison();
  };
  for (const tab of all) {
    tab.addEventListener("click", () => select(tab));
    tab.addEventListener("keydown", (e) => {
      const i = all.indexOf(tab);
      if (e.key === "ArrowRight") select(all[(i + 1) % all.length]);
      if (e.key === "ArrowLeft") select(all[(i + all.length - 1) % all.length]);
    });
  }
}

async function start() {
  tabs();
  const response = await fetch("/api/rulesets");
  const info = await response.json();
  state.metrics = info.metrics;
  const select = document.getElementById("ruleset");
  for (const ruleset of info.rulesets) {
    state.rulesets.set(ruleset.name, ruleset);
    select.append(el("option", { value: ruleset.name, text: `${ruleset.title} (${ruleset.name})` }));
  }
  const metric = document.getElementById("metric");
  for (const m of info.metrics) metric.append(el("option", { value: m, text: m.replace(/_/g, " ") }));
  metric.addEventListener("change", drawComparison);
  select.addEventListener("change", () => {
    clearErrors();
    buildForm(undefined);
  });
  document.getElementById("scenario-form").addEventListener("submit", run);
  document.getElementById("cancel").addEventListener("click", cancel);
  document.getElementById("explain").addEventListener("click", explainOne);
  document.getElementById("import").addEventListener("change", importFile);
  document.getElementById("export").addEventListener("click", exportFile);
  document.getElementById("copy-link").addEventListener("click", async () => {
    await updateLink();
    const link = document.getElementById("link");
    link.select();
    try {
      await navigator.clipboard.writeText(link.value);
      setStatus("Link copied.");
    } catch {
      setStatus("Link ready: copy it from the box.");
    }
  });
  document.getElementById("compare-form").addEventListener("submit", runCompare);
  document.getElementById("compare-cancel").addEventListener("click", async () => {
    if (state.compareJob) await post(`/api/jobs/${encodeURIComponent(state.compareJob.id)}/cancel`, {});
  });
  document.getElementById("scenario-files").addEventListener("change", async (event) => {
    for (const file of event.target.files) state.compareFiles.push({ name: file.name, text: await file.text() });
    event.target.value = "";
    showCompareFiles();
  });
  document.getElementById("add-current").addEventListener("click", () => {
    const data = collect();
    const name = (data.target && data.target.name) || "scenario";
    state.compareFiles.push({ name: `this scenario ${state.compareFiles.length + 1}.toml`, data });
    showCompareFiles();
    document.getElementById("compare-status").textContent = `Added the scenario against ${name}.`;
  });
  document.getElementById("library-file").addEventListener("change", async (event) => {
    const file = event.target.files[0];
    if (file) document.getElementById("library").value = await file.text();
    event.target.value = "";
  });
  if (location.hash.startsWith("#v=")) {
    if (await openLink()) await run();
  } else {
    buildForm(undefined);
  }
  document.body.dataset.ready = "true";
}

document.addEventListener("DOMContentLoaded", () => {
  start().catch((err) => showFormError(`The page could not start: ${err.message}`));
});
