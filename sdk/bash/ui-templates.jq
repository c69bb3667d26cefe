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

def page($title; $body):
  "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n  <meta charset=\"UTF-8\">\n"
  + "  <meta name=\"viewport\" content=\"width=device-width, initial-scale=1.0\">\n"
  + "  <title>\($title | esc)</title>\n  <style>\(css)  </style>\n</head>\n<body>\n"
  + $body + "</body>\n</html>";

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
else error("unknown UI template \(.template | tojson): mcp-bash builds \"form\" and \"data-table\"")
end
