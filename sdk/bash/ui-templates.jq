# mcp-bash UI templates: the MCP Apps pages of mcp_ui_form and mcp_ui_table (the original
# framework's "form" and "data-table" templates), and of a ui.meta.json that names one of them.
# Input: {"template": NAME, "config": CONFIG}; output: the page, one string (run with jq -r).
# The sandbox's Go builtins, the host (ui.meta.json "template") and the native Bash SDK all run
# this one program, so every engine serves the same page.
#
# form config:       {title, description, submitTool, submitArgs, cancelable,
#                     fields: [{name, type, label, required, placeholder, default, options}]}
# data-table config: {title, columns: [{key, label, sortable}]}; the rows arrive in the tool
#                     result (structuredContent, or JSON text): an array, or {items: [...]}.

# Not @html: jq and gojq escape ' differently, and every engine must print the same page.
def esc: tostring | gsub("&"; "&amp;") | gsub("<"; "&lt;") | gsub(">"; "&gt;") | gsub("\""; "&quot;") | gsub("'"; "&#39;");

# A JSON value inside <script>: "</" would end the element early.
def scriptjson: tojson | gsub("</"; "<\\/");

# A config member as text, $d when missing, null or false (as `jq -r '.x // $d'`).
def member($k; $d): if .[$k] == null or .[$k] == false then $d else .[$k] | tostring end;
def text($k): member($k; "");

def css: "
    *, *::before, *::after { box-sizing: border-box; margin: 0; padding: 0; }
    body { font-family: var(--font-sans, system-ui, sans-serif); font-size: var(--font-text-md-size, 14px);
      line-height: 1.5; color: var(--color-text-primary, #1a1a1a); background: var(--color-background-primary, #fff); padding: 16px; }
    h2 { font-size: var(--font-heading-md-size, 18px); font-weight: 600; margin-bottom: 16px; }
    .description { color: var(--color-text-secondary, #666); margin-bottom: 16px; }
    .form-group { margin-bottom: 16px; }
    label { display: block; margin-bottom: 4px; font-size: var(--font-text-sm-size, 12px); font-weight: 500;
      color: var(--color-text-secondary, #666); }
    .required { color: var(--color-text-danger, #dc2626); }
    input, select, textarea { width: 100%; padding: 8px 12px; font: inherit; color: inherit;
      background: var(--color-background-primary, #fff); border: 1px solid var(--color-border-primary, #ccc);
      border-radius: var(--border-radius-md, 6px); }
    input[type=\"checkbox\"] { width: auto; }
    textarea { min-height: 100px; resize: vertical; }
    .actions { display: flex; gap: 8px; justify-content: flex-end; margin-top: 16px; }
    button { padding: 8px 16px; font: inherit; border-radius: var(--border-radius-md, 6px); cursor: pointer;
      border: 1px solid var(--color-border-primary, #ccc); background: var(--color-background-secondary, #f0f0f0); }
    button[type=\"submit\"] { border: none; background: var(--color-background-info, #0066cc); color: var(--color-text-inverse, #fff); }
    button:disabled { opacity: 0.6; cursor: not-allowed; }
    .message { padding: 12px 16px; margin-bottom: 16px; border-radius: var(--border-radius-md, 6px); }
    .message-success { background: var(--color-background-success, #dcfce7); color: var(--color-text-success, #166534); }
    .message-error { background: var(--color-background-danger, #fef2f2); color: var(--color-text-danger, #991b1b); }
    .hidden { display: none; }
    table { width: 100%; border-collapse: collapse; font-size: var(--font-text-sm-size, 13px); }
    th, td { padding: 10px 12px; text-align: left; border-bottom: 1px solid var(--color-border-secondary, #eee); }
    th { font-weight: 600; color: var(--color-text-secondary, #666); background: var(--color-background-secondary, #f8f8f8); }
    th[data-sortable] { cursor: pointer; }
    .placeholder { text-align: center; color: var(--color-text-tertiary, #999); }
";

# The MCP Apps client library the pages talk to the host with (the original's pages load it so).
def appsImport: "import { App } from 'https://cdn.jsdelivr.net/npm/@modelcontextprotocol/ext-apps@2.0.3/+esm';";

def progresscss: "
    .progress-container { margin: 16px 0; }
    .progress-bar { height: 8px; overflow: hidden; border-radius: 9999px; background: var(--color-background-secondary, #e0e0e0); }
    .progress-fill { height: 100%; background: var(--color-background-success, #22c55e); transition: width 0.3s ease; }
    .progress-text, .step { margin-top: 8px; font-size: var(--font-text-sm-size, 12px); color: var(--color-text-secondary, #666); }
    .steps { margin-top: 16px; }
    .done { padding: 4px 0; }
";

def diffcss: "
    .diff-container { font-family: var(--font-mono, monospace); }
    .diff-header { display: flex; justify-content: space-between; align-items: center; margin-bottom: 8px; }
    .diff-controls { display: flex; gap: 8px; }
    .diff-controls button { padding: 4px 12px; font-size: var(--font-text-sm-size, 12px); }
    .diff-controls button.active { background: var(--color-background-info, #0066cc); color: var(--color-text-inverse, #fff); }
    .diff-panels { display: flex; gap: 8px; overflow-x: auto; }
    .diff-panels.unified { flex-direction: column; }
    .diff-panel { flex: 1; min-width: 300px; overflow: hidden; border: 1px solid var(--color-border-primary, #ccc); border-radius: var(--border-radius-md, 6px); }
    .diff-panel-header { padding: 8px 12px; font-size: var(--font-text-sm-size, 12px); color: var(--color-text-secondary, #666);
      background: var(--color-background-secondary, #f8f8f8); border-bottom: 1px solid var(--color-border-secondary, #eee); }
    .diff-content { overflow: auto; max-height: 500px; }
    .diff-line { display: flex; font-size: var(--font-text-sm-size, 13px); line-height: 1.5; }
    .diff-line-number { min-width: 40px; padding: 0 8px; text-align: right; user-select: none; color: var(--color-text-tertiary, #999);
      background: var(--color-background-secondary, #f8f8f8); }
    .diff-line-content { flex: 1; padding: 0 8px; white-space: pre; }
    .diff-line.added { background: var(--color-background-success, rgba(34, 197, 94, 0.15)); }
    .diff-line.removed { background: var(--color-background-danger, rgba(239, 68, 68, 0.15)); }
    .diff-line.modified { background: var(--color-background-warning, rgba(234, 179, 8, 0.15)); }
    .diff-line.added .diff-line-content::before { content: '+'; margin-right: 4px; }
    .diff-line.removed .diff-line-content::before { content: '-'; margin-right: 4px; }
    .diff-empty { padding: 20px; text-align: center; color: var(--color-text-tertiary, #999); }
    .token-keyword { color: #d73a49; } .token-string { color: #22863a; } .token-number { color: #005cc5; }
    .token-comment { color: #6a737d; font-style: italic; }
";

def page($title; $extracss; $body):
  "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n  <meta charset=\"UTF-8\">\n"
  + "  <meta name=\"viewport\" content=\"width=device-width, initial-scale=1.0\">\n"
  + "  <title>\($title | esc)</title>\n  <style>\(css)\($extracss)  </style>\n</head>\n<body>\n"
  + $body + "</body>\n</html>";
def page($title; $body): page($title; ""; $body);

def field:
  (.name // "" | tostring) as $name
  | member("type"; "text") as $type
  | member("label"; $name) as $lbl
  | (.required == true or .required == "true") as $req
  | text("placeholder") as $ph
  | text("default") as $dflt
  | (if $req then " required" else "" end) as $reqattr
  | "    <div class=\"form-group\">\n"
  + "      <label for=\"\($name | esc)\">\($lbl | esc)\(if $req then " <span class=\"required\">*</span>" else "" end)</label>\n"
  + (if $type == "select" then
      "      <select id=\"\($name | esc)\" name=\"\($name | esc)\"\($reqattr)>\n"
      + ([(.options // [])[] | tostring
          | . as $o
          | "        <option value=\"\($o | esc)\"\(if $o == $dflt then " selected" else "" end)>\($o | esc)</option>\n"] | add // "")
      + "      </select>\n"
    elif $type == "textarea" then
      "      <textarea id=\"\($name | esc)\" name=\"\($name | esc)\" placeholder=\"\($ph | esc)\"\($reqattr)>\($dflt | esc)</textarea>\n"
    elif $type == "checkbox" then
      "      <input type=\"checkbox\" id=\"\($name | esc)\" name=\"\($name | esc)\"\(if $dflt == "true" then " checked" else "" end)>\n"
    else
      "      <input type=\"\($type | esc)\" id=\"\($name | esc)\" name=\"\($name | esc)\" placeholder=\"\($ph | esc)\" value=\"\($dflt | esc)\"\($reqattr)>\n"
    end)
  + "    </div>\n";

def form:
  member("title"; "Form") as $title
  | text("description") as $desc
  | "  <h2>\($title | esc)</h2>\n"
  + (if $desc != "" then "  <p class=\"description\">\($desc | esc)</p>\n" else "" end)
  + "  <div id=\"message\" class=\"message hidden\"></div>\n  <form id=\"form\">\n"
  + ([(.fields // [])[] | select(type == "object") | field] | add // "")
  + "    <div class=\"actions\">\n"
  + (if .cancelable == true or .cancelable == "true" then "      <button type=\"button\" id=\"cancelBtn\">Cancel</button>\n" else "" end)
  + "      <button type=\"submit\" id=\"submitBtn\">Submit</button>\n    </div>\n  </form>\n"
  + "  <script type=\"module\">
    \(appsImport)
    const submitTool = \(text("submitTool") | scriptjson);
    const submitArgs = \((.submitArgs // {}) | scriptjson);
    const app = new App({ name: 'Form', version: '1.0.0' });
    await app.connect();
    const form = document.getElementById('form');
    const message = document.getElementById('message');
    const submitBtn = document.getElementById('submitBtn');
    const cancelBtn = document.getElementById('cancelBtn');
    function show(text, failed) {
      message.textContent = text;
      message.className = 'message ' + (failed ? 'message-error' : 'message-success');
    }
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      submitBtn.disabled = true;
      submitBtn.textContent = 'Submitting...';
      message.className = 'message hidden';
      const values = Object.fromEntries(new FormData(form));
      try {
        const result = await app.callServerTool({ name: submitTool, arguments: { ...submitArgs, ...values } });
        if (result && result.isError) {
          const detail = (result.content || []).map((c) => c.text || '').join(' ').trim();
          throw new Error(detail || 'the tool returned an error');
        }
        show('Form submitted successfully', false);
        app.sendMessage('Form submitted: ' + JSON.stringify(values));
      } catch (err) {
        show('Error: ' + (err.message || 'unknown error'), true);
      } finally {
        submitBtn.disabled = false;
        submitBtn.textContent = 'Submit';
      }
    });
    if (cancelBtn) {
      cancelBtn.addEventListener('click', () => app.sendMessage('Form cancelled'));
    }
  </script>\n"
  | page($title; .);

def datatable:
  member("title"; "Data") as $title
  | [(.columns // [])[] | select(type == "object")] as $cols
  | "  <h2>\($title | esc)</h2>\n  <div id=\"tableContainer\">\n    <table id=\"dataTable\">\n      <thead><tr>\n"
  + ([$cols | to_entries[]
      | (.value | member("label"; .key // "" | tostring)) as $lbl
      | "        <th data-col=\"\(.key)\"\(if .value.sortable == true or .value.sortable == "true" then " data-sortable=\"true\"" else "" end)>\($lbl | esc)</th>\n"] | add // "")
  + "      </tr></thead>\n      <tbody id=\"tableBody\">\n"
  + "        <tr><td colspan=\"\([$cols | length, 1] | max)\" class=\"placeholder\">Waiting for data...</td></tr>\n"
  + "      </tbody>\n    </table>\n  </div>\n"
  + "  <script type=\"module\">
    \(appsImport)
    const columns = \($cols | map({key: (.key // "" | tostring)}) | scriptjson);
    const tbody = document.getElementById('tableBody');
    let rows = [];
    let sortKey = null, ascending = true;
    function cell(value) {
      const td = document.createElement('td');
      td.textContent = value === undefined || value === null ? '' : String(value);
      return td;
    }
    function note(text) {
      const tr = document.createElement('tr');
      const td = cell(text);
      td.colSpan = Math.max(columns.length, 1);
      td.className = 'placeholder';
      tr.appendChild(td);
      tbody.replaceChildren(tr);
    }
    function render() {
      if (rows.length === 0) { note('No data'); return; }
      const sorted = sortKey === null ? rows : [...rows].sort((a, b) => {
        const x = a[sortKey], y = b[sortKey];
        const order = typeof x === 'number' && typeof y === 'number' ? x - y : String(x ?? '').localeCompare(String(y ?? ''));
        return ascending ? order : -order;
      });
      tbody.replaceChildren(...sorted.map((row) => {
        const tr = document.createElement('tr');
        columns.forEach((col) => tr.appendChild(cell(row[col.key])));
        return tr;
      }));
    }
    document.querySelectorAll('th[data-sortable]').forEach((th) => {
      th.addEventListener('click', () => {
        const key = columns[Number(th.dataset.col)].key;
        ascending = sortKey === key ? !ascending : true;
        sortKey = key;
        render();
      });
    });
    const app = new App({ name: 'Data Table', version: '1.0.0' });
    app.ontoolresult = (result) => {
      let data = result && result.structuredContent;
      if (!data && result && result.content) {
        const text = result.content.find((c) => c.type === 'text');
        if (text) {
          try { data = JSON.parse(text.text); } catch (err) { note('Error parsing data'); return; }
        }
      }
      if (data) {
        rows = Array.isArray(data.items) ? data.items : Array.isArray(data) ? data : [data];
        render();
      }
    };
    await app.connect();
  </script>\n"
  | page($title; .);

# A boolean option, $d when missing or null (unlike jq's //, an explicit false is kept).
def flag($k; $d): if .[$k] == null then $d else .[$k] == true or .[$k] == "true" end;

# progress config: {title, showPercentage, showCurrentStep, cancelTool, cancelConfirm}. Each tool
# result adds a step (its structuredContent's message or step, or its text); a numeric
# structuredContent.progress (0-100) moves the bar.
def progress:
  member("title"; "Progress") as $title
  | text("cancelTool") as $cancel
  | "  <h2>\($title | esc)</h2>\n  <div class=\"progress-container\">\n"
  + "    <div class=\"progress-bar\"><div class=\"progress-fill\" id=\"progressFill\" style=\"width: 0%\"></div></div>\n"
  + (if flag("showPercentage"; true) then "    <div class=\"progress-text\"><span id=\"progressPercent\">0</span>% complete</div>\n" else "" end)
  + "  </div>\n"
  + (if flag("showCurrentStep"; true) then "  <div id=\"currentStep\" class=\"step\"></div>\n" else "" end)
  + "  <div id=\"stepList\" class=\"steps\"></div>\n"
  + (if $cancel != "" then "  <div class=\"actions\">\n    <button type=\"button\" id=\"cancelBtn\">Cancel</button>\n  </div>\n" else "" end)
  + "  <script type=\"module\">
    \(appsImport)
    const cancelTool = \($cancel | scriptjson);
    const cancelConfirm = \(member("cancelConfirm"; "Are you sure you want to cancel?") | scriptjson);
    const fill = document.getElementById('progressFill');
    const percent = document.getElementById('progressPercent');
    const current = document.getElementById('currentStep');
    const steps = document.getElementById('stepList');
    const cancelBtn = document.getElementById('cancelBtn');
    function step(text) {
      const div = document.createElement('div');
      div.className = 'done';
      div.textContent = '\u2713 ' + text;
      steps.appendChild(div);
      if (current) current.textContent = text;
    }
    const app = new App({ name: 'Progress', version: '1.0.0' });
    app.ontoolresult = (result) => {
      const data = result && result.structuredContent;
      if (data) {
        if (typeof data.progress === 'number') {
          const p = Math.max(0, Math.min(100, data.progress));
          fill.style.width = p + '%';
          if (percent) percent.textContent = Math.round(p);
        }
        step(data.message || data.step || JSON.stringify(data));
      } else if (result && result.content) {
        const text = result.content.find((c) => c.type === 'text');
        if (text) step(text.text);
      }
    };
    await app.connect();
    if (cancelBtn) {
      cancelBtn.addEventListener('click', async () => {
        if (!confirm(cancelConfirm)) return;
        try {
          const result = await app.callServerTool({ name: cancelTool, arguments: {} });
          if (result && result.isError) throw new Error('the cancel tool returned an error');
          app.sendMessage('Operation cancelled');
        } catch (err) {
          console.error('cancel failed:', err);
        }
      });
    }
  </script>\n"
  | page($title; progresscss[1:]; .);

# diff-viewer config: {title, viewMode: split|unified, showLineNumbers, syntaxHighlight,
# leftTitle, rightTitle}. The tool result holds {left|original, right|modified} texts, and
# optionally changes: [{value, added, removed, count, lineNumber}] (jsdiff's shape); without
# changes the texts are compared line by line.
def diffviewer:
  member("title"; "Diff Viewer") as $title
  | (if text("viewMode") == "unified" then "unified" else "split" end) as $mode
  | "  <h2>\($title | esc)</h2>\n  <div class=\"diff-container\">\n    <div class=\"diff-header\">\n      <span id=\"diffStats\"></span>\n"
  + "      <div class=\"diff-controls\">\n"
  + "        <button type=\"button\" id=\"splitBtn\"\(if $mode == "split" then " class=\"active\"" else "" end)>Split</button>\n"
  + "        <button type=\"button\" id=\"unifiedBtn\"\(if $mode == "unified" then " class=\"active\"" else "" end)>Unified</button>\n"
  + "      </div>\n    </div>\n    <div class=\"diff-panels\" id=\"diffPanels\">\n"
  + "      <div class=\"diff-panel\">\n        <div class=\"diff-panel-header\">\(member("leftTitle"; "Original") | esc)</div>\n"
  + "        <div class=\"diff-content\" id=\"leftContent\"><div class=\"diff-empty\">Waiting for data...</div></div>\n      </div>\n"
  + "      <div class=\"diff-panel\" id=\"rightPanel\">\n        <div class=\"diff-panel-header\">\(member("rightTitle"; "Modified") | esc)</div>\n"
  + "        <div class=\"diff-content\" id=\"rightContent\"><div class=\"diff-empty\">Waiting for data...</div></div>\n      </div>\n"
  + "    </div>\n  </div>\n"
  + "  <script type=\"module\">
    \(appsImport)
    const showLineNumbers = \(flag("showLineNumbers"; true));
    const syntaxHighlight = \(flag("syntaxHighlight"; true));
    const panels = document.getElementById('diffPanels');
    const left = document.getElementById('leftContent');
    const right = document.getElementById('rightContent');
    const rightPanel = document.getElementById('rightPanel');
    const stats = document.getElementById('diffStats');
    const splitBtn = document.getElementById('splitBtn');
    const unifiedBtn = document.getElementById('unifiedBtn');
    function setMode(mode) {
      splitBtn.classList.toggle('active', mode === 'split');
      unifiedBtn.classList.toggle('active', mode === 'unified');
      panels.classList.toggle('unified', mode === 'unified');
      rightPanel.style.display = mode === 'unified' ? 'none' : '';
    }
    splitBtn.addEventListener('click', () => setMode('split'));
    unifiedBtn.addEventListener('click', () => setMode('unified'));
    const tokens = /(\\/\\/.*$)|(\"(?:[^\"\\\\]|\\\\.)*\"|'(?:[^'\\\\]|\\\\.)*')|\\b(function|const|let|var|if|else|for|while|return|import|export|class)\\b|\\b(\\d+)\\b/g;
    const tokenClass = ['', 'token-comment', 'token-string', 'token-keyword', 'token-number'];
    function code(text) {
      const out = document.createElement('div');
      out.className = 'diff-line-content';
      if (!syntaxHighlight) { out.textContent = text; return out; }
      let at = 0;
      for (const m of text.matchAll(tokens)) {
        out.append(text.slice(at, m.index));
        const span = document.createElement('span');
        span.className = tokenClass[m.findIndex((g, i) => i > 0 && g !== undefined)];
        span.textContent = m[0];
        out.append(span);
        at = m.index + m[0].length;
      }
      out.append(text.slice(at));
      return out;
    }
    function line(num, text, kind) {
      const div = document.createElement('div');
      div.className = 'diff-line ' + kind;
      if (showLineNumbers) {
        const n = document.createElement('div');
        n.className = 'diff-line-number';
        n.textContent = num;
        div.append(n);
      }
      div.append(code(text));
      return div;
    }
    function empty(text) {
      const div = document.createElement('div');
      div.className = 'diff-empty';
      div.textContent = text;
      return div;
    }
    function render(leftLines, rightLines, changes) {
      const l = [], r = [];
      let added = 0, removed = 0;
      if (!Array.isArray(changes) || changes.length === 0) {
        for (let i = 0; i < Math.max(leftLines.length, rightLines.length); i++) {
          const a = leftLines[i] ?? '', b = rightLines[i] ?? '';
          const kind = a === b ? 'context' : 'modified';
          l.push(line(i + 1, a, kind));
          r.push(line(i + 1, b, kind));
        }
      } else {
        for (const c of changes) {
          if (c.added) added += c.count || 1;
          if (c.removed) removed += c.count || 1;
          String(c.value ?? '').split('\\n').filter((t) => t !== '').forEach((t, i) => {
            const num = c.lineNumber ? c.lineNumber + i : i + 1;
            if (c.added) r.push(line(num, t, 'added'));
            else if (c.removed) l.push(line(num, t, 'removed'));
            else { l.push(line(num, t, 'context')); r.push(line(num, t, 'context')); }
          });
        }
      }
      left.replaceChildren(...(l.length ? l : [empty('No content')]));
      right.replaceChildren(...(r.length ? r : [empty('No content')]));
      stats.textContent = '+' + added + ' / -' + removed + ' lines';
    }
    const app = new App({ name: 'Diff Viewer', version: '1.0.0' });
    app.ontoolresult = (result) => {
      let data = result && result.structuredContent;
      if (!data && result && result.content) {
        const text = result.content.find((c) => c.type === 'text');
        if (text) {
          try { data = JSON.parse(text.text); } catch (err) { left.replaceChildren(empty('Error parsing diff data')); return; }
        }
      }
      if (data) {
        render(String(data.left ?? data.original ?? '').split('\\n'), String(data.right ?? data.modified ?? '').split('\\n'), data.changes);
      }
    };
    await app.connect();
    setMode(\($mode | scriptjson));
  </script>\n"
  | page($title; diffcss[1:]; .);

def treecss: "    .tree-search input { max-width: 300px; margin-bottom: 12px; }
    .tree-row { display: flex; align-items: center; padding: 4px 8px; cursor: pointer; border-radius: var(--border-radius-sm, 4px); }
    .tree-row:hover { background: var(--color-background-ghost, rgba(0, 0, 0, 0.04)); }
    .tree-row.selected { background: var(--color-background-info, rgba(0, 102, 204, 0.1)); }
    .tree-toggle { width: 20px; font-size: 10px; color: var(--color-text-tertiary, #999); transition: transform 0.15s; }
    .tree-toggle.expanded { transform: rotate(90deg); }
    .tree-toggle.leaf { visibility: hidden; }
    .tree-icon { width: 22px; }
    .tree-label { flex: 1; font-size: var(--font-text-sm-size, 13px); overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
    .tree-meta { margin-left: 8px; font-size: var(--font-text-xs-size, 11px); color: var(--color-text-tertiary, #999); }
    .tree-children { margin-left: 20px; }
    .tree-children.collapsed { display: none; }
    .tree-empty { padding: 20px; text-align: center; color: var(--color-text-tertiary, #999); }
    .tree-stats { margin-top: 12px; font-size: var(--font-text-xs-size, 11px); color: var(--color-text-tertiary, #999); }
";

# tree-view config: {title, showIcons, expandLevel, selectable, onSelectTool}. The tool result
# holds the nodes: one {id, label, meta, icon, iconChar, children} or an array of them.
def treeview:
  member("title"; "Tree View") as $title
  | "  <h2>\($title | esc)</h2>\n  <div class=\"tree-container\">\n"
  + "    <div class=\"tree-search\"><input type=\"text\" id=\"searchInput\" placeholder=\"Filter...\"></div>\n"
  + "    <div id=\"treeRoot\" class=\"tree-empty\">Waiting for data...</div>\n    <div id=\"treeStats\" class=\"tree-stats\"></div>\n  </div>\n"
  + "  <script type=\"module\">
    \(appsImport)
    const showIcons = \(flag("showIcons"; true));
    const expandLevel = \(.expandLevel // 1 | tonumber? // 1);
    const selectable = \(flag("selectable"; false));
    const onSelectTool = \(text("onSelectTool") | scriptjson);
    const root = document.getElementById('treeRoot');
    const stats = document.getElementById('treeStats');
    const search = document.getElementById('searchInput');
    const icons = { folder: '\\u{1F4C1}', 'folder-open': '\\u{1F4C2}', file: '\\u{1F4C4}', default: '\\u{25CF}' };
    let tree = null, selected = null;
    const label = (n) => String(n.label ?? '');
    const matches = (n, f) => !f || label(n).toLowerCase().includes(f) || (n.children || []).some((c) => matches(c, f));
    function el(tag, cls, text) {
      const e = document.createElement(tag);
      if (cls) e.className = cls;
      if (text !== undefined) e.textContent = text;
      return e;
    }
    function node(n, level, f, path) {
      if (!matches(n, f)) return null;
      const kids = Array.isArray(n.children) && n.children.length > 0;
      const open = level < expandLevel || (f !== '' && kids);
      const id = String(n.id ?? path);
      const wrap = el('div', 'tree-node');
      const row = el('div', 'tree-row');
      row.dataset.nodeId = id;
      const toggle = el('span', 'tree-toggle ' + (kids ? (open ? 'expanded' : '') : 'leaf'), '\\u{25B6}');
      row.append(toggle);
      if (showIcons) {
        const kind = n.icon || (kids ? (open ? 'folder-open' : 'folder') : 'file');
        row.append(el('span', 'tree-icon', n.iconChar || icons[kind] || icons.default));
      }
      row.append(el('span', 'tree-label', label(n)));
      if (n.meta) row.append(el('span', 'tree-meta', String(n.meta)));
      wrap.append(row);
      let children = null;
      if (kids) {
        children = el('div', 'tree-children' + (open ? '' : ' collapsed'));
        n.children.forEach((c, i) => { const k = node(c, level + 1, f, path + '.' + i); if (k) children.append(k); });
        wrap.append(children);
      }
      row.addEventListener('click', (event) => {
        if (children && event.target === toggle) {
          toggle.classList.toggle('expanded');
          children.classList.toggle('collapsed');
        } else if (selectable) {
          if (selected) selected.classList.remove('selected');
          row.classList.add('selected');
          selected = row;
          if (onSelectTool) app.callServerTool({ name: onSelectTool, arguments: { nodeId: id } }).catch((err) => console.error('select failed:', err));
          app.sendMessage('Selected: ' + id);
        } else if (children) {
          toggle.classList.toggle('expanded');
          children.classList.toggle('collapsed');
        }
      });
      return wrap;
    }
    function render(f) {
      const nodes = tree === null ? [] : Array.isArray(tree) ? tree : [tree];
      if (nodes.length === 0) { root.className = 'tree-empty'; root.textContent = 'No data'; stats.textContent = ''; return; }
      root.className = '';
      root.replaceChildren(...nodes.map((n, i) => node(n, 0, f, String(i))).filter(Boolean));
      let count = 0;
      const walk = (n) => { count++; (n.children || []).forEach(walk); };
      nodes.forEach(walk);
      stats.textContent = count + ' items';
    }
    let timer;
    search.addEventListener('input', () => {
      clearTimeout(timer);
      timer = setTimeout(() => { if (tree !== null) render(search.value.toLowerCase()); }, 200);
    });
    const app = new App({ name: 'Tree View', version: '1.0.0' });
    app.ontoolresult = (result) => {
      let data = result && result.structuredContent;
      if (!data && result && result.content) {
        const text = result.content.find((c) => c.type === 'text');
        if (text) {
          try { data = JSON.parse(text.text); } catch (err) { root.className = 'tree-empty'; root.textContent = 'Error parsing tree data'; return; }
        }
      }
      if (data) { tree = data; render(search.value.toLowerCase()); }
    };
    await app.connect();
  </script>\n"
  | page($title; treecss; .);

def kanbancss: "    .kanban-container { display: flex; gap: 16px; overflow-x: auto; padding-bottom: 16px; min-height: 400px; }
    .kanban-column { flex: 0 0 280px; display: flex; flex-direction: column; border-radius: var(--border-radius-lg, 8px);
      background: var(--color-background-secondary, #f8f8f8); }
    .kanban-column-header { display: flex; justify-content: space-between; align-items: center; padding: 12px 16px; font-weight: 600;
      border-bottom: 1px solid var(--color-border-secondary, #eee); }
    .kanban-column-count { padding: 2px 8px; border-radius: 9999px; font-size: var(--font-text-xs-size, 11px);
      color: var(--color-text-tertiary, #999); background: var(--color-background-primary, #fff); }
    .kanban-column-body { flex: 1; padding: 12px; min-height: 100px; overflow-y: auto; }
    .kanban-column-body.drag-over { background: var(--color-background-info, rgba(0, 102, 204, 0.05)); }
    .kanban-card { padding: 12px; margin-bottom: 8px; cursor: pointer; border-radius: var(--border-radius-md, 6px);
      background: var(--color-background-primary, #fff); border: 1px solid var(--color-border-secondary, #eee); }
    .kanban-card.dragging { opacity: 0.5; }
    .kanban-card-title { font-weight: 500; font-size: var(--font-text-sm-size, 13px); margin-bottom: 8px; }
    .kanban-card-description { font-size: var(--font-text-xs-size, 12px); color: var(--color-text-secondary, #666); margin-bottom: 8px; }
    .kanban-card-meta { display: flex; justify-content: space-between; align-items: center; font-size: var(--font-text-xs-size, 11px);
      color: var(--color-text-tertiary, #999); }
    .kanban-card-tags { display: flex; gap: 4px; flex-wrap: wrap; }
    .kanban-tag { padding: 2px 6px; font-size: 10px; border-radius: var(--border-radius-sm, 4px); background: var(--color-background-secondary, #f0f0f0); }
    .kanban-tag.priority-high { background: var(--color-background-danger, #fef2f2); color: var(--color-text-danger, #dc2626); }
    .kanban-tag.priority-medium { background: var(--color-background-warning, #fefce8); color: var(--color-text-warning, #ca8a04); }
    .kanban-tag.priority-low { background: var(--color-background-success, #dcfce7); color: var(--color-text-success, #16a34a); }
    .kanban-empty { padding: 20px; text-align: center; font-size: var(--font-text-sm-size, 12px); color: var(--color-text-tertiary, #999); }
";

# kanban config: {title, columns: [{id, title}] (To Do, In Progress, Done by default), draggable,
# onMoveTool, onCardClickTool}. The tool result holds the cards, an array or {cards: [...]}:
# {id, title, description, column|status, priority, tags, assignee}.
def kanban:
  member("title"; "Kanban Board") as $title
  | (if (.columns | type) == "array" then .columns
     else [{id: "todo", title: "To Do"}, {id: "in-progress", title: "In Progress"}, {id: "done", title: "Done"}] end) as $cols
  | "  <h2>\($title | esc)</h2>\n  <div id=\"kanbanBoard\" class=\"kanban-container\"></div>\n"
  + "  <script type=\"module\">
    \(appsImport)
    const columns = \($cols | map(select(type == "object") | {id: (.id // "" | tostring), title: (.title // .id // "" | tostring)}) | scriptjson);
    const draggable = \(flag("draggable"; true));
    const onMoveTool = \(text("onMoveTool") | scriptjson);
    const onCardClickTool = \(text("onCardClickTool") | scriptjson);
    const board = document.getElementById('kanbanBoard');
    let cards = [], dragged = null, app = null;
    const columnOf = (c) => c.column ?? c.status;
    function el(tag, cls, text) {
      const e = document.createElement(tag);
      if (cls) e.className = cls;
      if (text !== undefined) e.textContent = text;
      return e;
    }
    function card(c) {
      const div = el('div', 'kanban-card');
      const id = String(c.id ?? '');
      div.dataset.cardId = id;
      div.draggable = draggable;
      div.append(el('div', 'kanban-card-title', String(c.title ?? '')));
      if (c.description) div.append(el('div', 'kanban-card-description', String(c.description)));
      const meta = el('div', 'kanban-card-meta');
      const tags = el('div', 'kanban-card-tags');
      if (c.priority) tags.append(el('span', 'kanban-tag priority-' + String(c.priority).toLowerCase(), String(c.priority)));
      (Array.isArray(c.tags) ? c.tags : []).forEach((t) => tags.append(el('span', 'kanban-tag', String(t))));
      meta.append(tags);
      if (c.assignee) meta.append(el('span', '', String(c.assignee)));
      div.append(meta);
      div.addEventListener('click', () => {
        if (onCardClickTool) app.callServerTool({ name: onCardClickTool, arguments: { cardId: id } }).catch((err) => console.error('card click failed:', err));
        app.sendMessage('Card clicked: ' + id);
      });
      if (draggable) {
        div.addEventListener('dragstart', (event) => { dragged = c; div.classList.add('dragging'); event.dataTransfer.setData('text/plain', id); });
        div.addEventListener('dragend', () => { dragged = null; div.classList.remove('dragging'); });
      }
      return div;
    }
    function render() {
      board.replaceChildren(...columns.map((col) => {
        const mine = cards.filter((c) => columnOf(c) === col.id);
        const column = el('div', 'kanban-column');
        column.dataset.columnId = col.id;
        const header = el('div', 'kanban-column-header');
        header.append(el('span', '', col.title), el('span', 'kanban-column-count', String(mine.length)));
        const body = el('div', 'kanban-column-body');
        if (mine.length === 0) body.append(el('div', 'kanban-empty', 'No cards'));
        else mine.forEach((c) => body.append(card(c)));
        if (draggable) {
          body.addEventListener('dragover', (event) => { event.preventDefault(); body.classList.add('drag-over'); });
          body.addEventListener('dragleave', () => body.classList.remove('drag-over'));
          body.addEventListener('drop', (event) => {
            event.preventDefault();
            body.classList.remove('drag-over');
            if (!dragged || columnOf(dragged) === col.id) return;
            const cardId = String(dragged.id ?? ''), fromColumn = columnOf(dragged);
            dragged.column = col.id;
            dragged.status = col.id;
            if (onMoveTool) app.callServerTool({ name: onMoveTool, arguments: { cardId, fromColumn, toColumn: col.id } }).catch((err) => console.error('move failed:', err));
            app.sendMessage('Moved card ' + cardId + ' to ' + col.id);
            render();
          });
        }
        column.append(header, body);
        return column;
      }));
    }
    render();
    app = new App({ name: 'Kanban', version: '1.0.0' });
    app.ontoolresult = (result) => {
      let data = result && result.structuredContent;
      if (!data && result && result.content) {
        const text = result.content.find((c) => c.type === 'text');
        if (text) {
          try { data = JSON.parse(text.text); } catch (err) { board.replaceChildren(el('div', 'kanban-empty', 'Error parsing kanban data')); return; }
        }
      }
      if (data) { cards = Array.isArray(data) ? data : Array.isArray(data.cards) ? data.cards : []; render(); }
    };
    await app.connect();
  </script>\n"
  | page($title; kanbancss; .);

# mcp_ui_form's flags as the SDK passes them: {title, submitTool, fields: ["name[:type[:a,b]]"]};
# a field's label is its name with - and _ as spaces and each word capitalised.
def formargs:
  {title: (.title // ""), submitTool: (.submitTool // ""),
   fields: [(.fields // [])[] | tostring
     | (index(":") // length) as $i | .[:$i] as $name | .[$i + 1:]
     | (index(":") // length) as $j | .[:$j] as $type | .[$j + 1:] as $options
     | {name: $name, type: (if $type == "" then "text" else $type end),
        label: ($name | gsub("[-_]"; " ") | split(" ") | map((.[:1] | ascii_upcase) + .[1:]) | join(" ")),
        options: (if $options == "" then null else $options | split(",") end)}]};

# mcp_ui_table's flags: {title, columns: "a,b"}; every column sortable, labelled by its key.
def tableargs:
  {title: (.title // "Data"),
   columns: [(.columns // "") | tostring | select(. != "") | rtrimstr(",") | split(",")[] | {key: ., label: ., sortable: true}]};

if .template == "form" and .args != null then .args | formargs | form
elif .template == "data-table" and .args != null then .args | tableargs | datatable
elif .template == "form" then .config // {} | form
elif .template == "data-table" then .config // {} | datatable
elif .template == "progress" then .config // {} | progress
elif .template == "diff-viewer" then .config // {} | diffviewer
elif .template == "tree-view" then .config // {} | treeview
elif .template == "kanban" then .config // {} | kanban
else error("unknown UI template \(.template | tojson): mcp-bash builds \"form\", \"data-table\", \"progress\", \"diff-viewer\", \"tree-view\" and \"kanban\"")
end
