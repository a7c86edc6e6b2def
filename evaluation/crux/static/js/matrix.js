/* Coverage-matrix page: draws the heatmap from #matrix-data, describes a cell in full on hover
   (sub-question, passage, rank, every judge's rating), opens a cell's panel on click or Enter,
   moves a keyboard cursor with the arrow keys (n / N: next / previous unjudged or disagreeing
   cell), keeps the open cell outlined across refreshes, captures the rationale selection and
   the time spent on the panel, and gives the rating form keyboard shortcuts. */
(function () {
  "use strict";

  var selected = null; // {sq, passage} of the open panel's cell
  var cursor = null; // {sq, passage} of the keyboard cursor's cell
  var byKeyboard = false; // the cursor was last moved with the keyboard
  var openedAt = null; // performance.now() when the panel was shown
  var refocus = false; // give the keys back to the matrix once it reloads
  var bound = new WeakSet(); // plot elements whose click and hover handlers are attached
  var CODES = { "-2": "not judged", "-1": "unparsable" };
  var MOVES = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };

  /* {row, col} indices of a {sq, passage} cell in this matrix, or null. */
  function indexOf(data, cell) {
    if (!cell) return null;
    var row = data.rows.findIndex(function (r) { return r.id === cell.sq; });
    var col = data.columns.findIndex(function (c) { return c.id === cell.passage; });
    return row < 0 || col < 0 ? null : { row: row, col: col };
  }

  function outline(at, colour, dash) {
    if (!at) return [];
    return [{
      type: "rect", xref: "x", yref: "y", x0: at.col - 0.5, x1: at.col + 0.5, y0: at.row - 0.5,
      y1: at.row + 0.5, line: { color: colour, width: 3, dash: dash }, fillcolor: "rgba(0,0,0,0)",
    }];
  }

  function shapes(data) {
    return (data.figure.layout.shapes || [])
      .concat(outline(indexOf(data, selected), "#d62728", "solid"))
      .concat(outline(indexOf(data, cursor), "#ff7f0e", "dot"));
  }

  function escapeHtml(text) {
    return String(text).replace(/[&<>"']/g, function (ch) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[ch];
    });
  }

  function ratingText(code) {
    return CODES[code] || String(code);
  }

  /* Everything known about one cell, as lines of plain text: the sub-question, the passage with
     its rank and qrel grade, what the colour shows, every judge's rating and why the cell is
     worth a look. */
  function describe(data, r, c) {
    var row = data.rows[r], col = data.columns[c];
    var place = col.rank !== null ? "rank #" + col.rank + " in " + data.run
      : (data.run !== null ? "not in " + data.run : "no run");
    var passage = "passage " + col.passage + " · " + place + (col.grade ? " · " + col.grade : "");
    var ratings = data.judges.map(function (judge, j) {
      var mark = judge.id === data.judge ? " (shown)" : "";
      return judge.name + mark + ": " + ratingText(data.ratings[j][r][c]);
    });
    var why = (data.flags[r + "," + c] || "");
    return {
      question: row.label,
      passage: passage,
      ratings: ratings.length ? ratings : ["no judge rated this topic"],
      why: why,
    };
  }

  function hoverHtml(data, r, c, shown) {
    var d = describe(data, r, c);
    var question = d.question.length > 90 ? d.question.slice(0, 89) + "…" : d.question;
    var lines = ["<b>" + escapeHtml(question) + "</b>", escapeHtml(d.passage)];
    // Colour by expected rating: say what the colour shows besides the ratings.
    if (shown.indexOf("expected") === 0) lines.push("colour: " + escapeHtml(shown));
    lines = lines.concat(d.ratings.map(escapeHtml));
    if (d.why) lines.push("<i>" + escapeHtml(d.why) + "</i>");
    return lines.join("<br>");
  }

  /* The figure with each cell's full description as its hover text (built here, not shipped:
     a 15 x 300 matrix would ship megabytes of repeated names). */
  function withHoverText(data) {
    var heatmap = Object.assign({}, data.figure.data[0]);
    heatmap.text = heatmap.text.map(function (line, r) {
      return line.map(function (shown, c) { return hoverHtml(data, r, c, shown); });
    });
    return [heatmap].concat(data.figure.data.slice(1));
  }

  /* The payload with its attention cells by "row,col", parsed once per matrix (the hover
     asks on every mouse move; a swapped-in matrix brings a new element). */
  var parsed = { el: null, data: null };
  function readPayload() {
    var el = document.getElementById("matrix-data");
    if (!el) return null;
    if (parsed.el !== el) {
      var data = JSON.parse(el.textContent);
      data.flags = {};
      data.attention.forEach(function (a) { data.flags[a[0] + "," + a[1]] = a[2]; });
      parsed = { el: el, data: data };
    }
    return parsed.data;
  }

  function render() {
    var gd = document.getElementById("matrix-plot");
    var data = readPayload();
    if (!gd || !data) return;
    var layout = Object.assign({}, data.figure.layout);
    layout.shapes = shapes(data);
    var config = { displaylogo: false, responsive: true, modeBarButtonsToRemove: ["select2d", "lasso2d"] };
    Plotly.react(gd, withHoverText(data), layout, config).then(function () {
      if (!bound.has(gd)) {
        bound.add(gd);
        gd.on("plotly_click", onClick);
        gd.on("plotly_hover", onHover);
        gd.addEventListener("keydown", onPlotKey);
      }
      var at = indexOf(data, cursor);
      if (at) gd.dataset.cursor = at.row + "," + at.col;
      gd.dataset.ready = "1";
      // A rating saved from the keyboard reloads the matrix: its keys keep working.
      if (refocus) {
        refocus = false;
        gd.focus({ preventScroll: true });
      }
    });
  }

  function showLine(data, r, c) {
    var line = document.getElementById("matrix-hover");
    if (!line) return;
    var d = describe(data, r, c);
    line.replaceChildren();
    [d.question + "  ×  " + d.passage, d.ratings.join(" · ") + (d.why ? " — " + d.why : "")]
      .forEach(function (text, i) {
        var span = document.createElement("span");
        span.className = i ? "hover-ratings" : "hover-cell";
        span.textContent = text;
        line.appendChild(span);
      });
  }

  /* Moves the keyboard cursor to (row, col): outlines it, shows its hover and its line. */
  function moveCursor(gd, data, r, c) {
    cursor = { sq: data.rows[r].id, passage: data.columns[c].id };
    gd.dataset.cursor = r + "," + c;
    Plotly.relayout(gd, { shapes: shapes(data) });
    showLine(data, r, c);
    try {
      Plotly.Fx.hover(gd, { xval: c, yval: r }, "xy"); // the tooltip a mouse would show
    } catch (err) {
      // The line below the plot says the same.
    }
    var box = gd.getBoundingClientRect();
    if (box.top < 0 || box.bottom > window.innerHeight) gd.scrollIntoView({ block: "nearest" });
  }

  /* The next (step 1) or previous (step -1) attention cell after the cursor, wrapping. */
  function nextAttention(data, at, step) {
    var cells = data.attention;
    if (!cells.length) return null;
    var width = data.columns.length;
    var here = at ? at.row * width + at.col : -1;
    var ordered = step > 0 ? cells : cells.slice().reverse();
    var found = ordered.find(function (a) {
      var i = a[0] * width + a[1];
      return step > 0 ? i > here : (here < 0 || i < here);
    });
    return found || ordered[0];
  }

  function onPlotKey(event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var gd = event.currentTarget;
    var data = readPayload();
    if (!data || !data.rows.length || !data.columns.length) return;
    var at = indexOf(data, cursor) || indexOf(data, selected);
    var key = event.key;
    if (MOVES[key] || key === "Home" || key === "End") {
      var r = at ? at.row : 0, c = at ? at.col : 0;
      if (MOVES[key] && at) {
        r = Math.min(Math.max(r + MOVES[key][0], 0), data.rows.length - 1);
        c = Math.min(Math.max(c + MOVES[key][1], 0), data.columns.length - 1);
      } else if (key === "Home") {
        c = 0;
      } else if (key === "End") {
        c = data.columns.length - 1;
      }
      moveCursor(gd, data, r, c);
    } else if (key === "n" || key === "N") {
      var next = nextAttention(data, at, key === "n" ? 1 : -1);
      if (next) {
        moveCursor(gd, data, next[0], next[1]);
      } else {
        document.getElementById("matrix-hover").textContent = "No unjudged or disagreeing cell in this matrix.";
      }
    } else if (key === "Enter" || key === " ") {
      if (!at) at = { row: 0, col: 0 };
      openCell(data, data.rows[at.row], data.columns[at.col]);
    } else {
      return;
    }
    byKeyboard = true;
    // The rating form's own Enter and digits listen on the document: this key was the matrix's.
    event.preventDefault();
    event.stopPropagation();
  }

  function cellAt(data, point) {
    // The qrel/run strip lives on the second y axis: it names columns, not cells.
    if (!point || point.data.yaxis === "y2") return null;
    var row = data.rows[Math.round(point.y)];
    var col = data.columns[Math.round(point.x)];
    return row && col ? { row: row, col: col } : null;
  }

  function onHover(event) {
    var data = readPayload();
    var point = event.points && event.points[0];
    var line = document.getElementById("matrix-hover");
    if (!data || !line || !point) return;
    var col = data.columns[Math.round(point.x)];
    if (point.data.yaxis === "y2") {
      line.textContent = col ? col.label : "";
      return;
    }
    if (cellAt(data, point)) showLine(data, Math.round(point.y), Math.round(point.x));
  }

  function openCell(data, row, col) {
    selected = { sq: row.id, passage: col.id };
    cursor = selected;
    var query = new URLSearchParams({ sq: row.id, passage: col.id, tau: data.tau });
    if (data.judge !== null) query.set("judge", data.judge);
    htmx.ajax("GET", data.cell_url + "?" + query.toString(), { target: "#cell-panel", swap: "innerHTML" });
    Plotly.relayout(document.getElementById("matrix-plot"), { shapes: shapes(data) });
  }

  function onClick(event) {
    var data = readPayload();
    var cell = data && cellAt(data, event.points && event.points[0]);
    if (!cell) return;
    byKeyboard = false;
    openCell(data, cell.row, cell.col);
    // Plotly keeps the mouse from focusing the plot: the keys now go on from this cell.
    document.getElementById("matrix-plot").focus({ preventScroll: true });
  }

  /* The selection's character offsets in the passage text, counted in code points as the
     server counts them (the passage element holds the text as one text node). */
  function captureSelection() {
    var text = document.getElementById("cell-passage-text");
    var form = document.getElementById("expert-form");
    var sel = window.getSelection();
    if (!text || !form || !sel || sel.isCollapsed || sel.rangeCount === 0) return;
    var range = sel.getRangeAt(0);
    if (!text.contains(range.startContainer) || !text.contains(range.endContainer)) return;
    var before = document.createRange();
    before.selectNodeContents(text);
    before.setEnd(range.startContainer, range.startOffset);
    var start = Array.from(before.toString()).length;
    var chosen = range.toString();
    form.elements.rationale.value = chosen;
    form.elements.rationale_start.value = start;
    form.elements.rationale_end.value = start + Array.from(chosen).length;
  }

  function panelShown(verb) {
    openedAt = performance.now();
    var text = document.getElementById("cell-passage-text");
    var form = document.getElementById("expert-form");
    if (text) {
      text.addEventListener("mouseup", captureSelection);
      text.addEventListener("keyup", captureSelection);
    }
    if (form) {
      // A typed rationale is no longer the selected span.
      form.elements.rationale.addEventListener("input", function () {
        form.elements.rationale_start.value = "";
        form.elements.rationale_end.value = "";
      });
    }
    if (verb === "get") {
      document.getElementById("cell-panel").scrollIntoView({ block: "start" });
    }
  }

  /* Elements whose own keys must win over the shortcuts (typing, choosing, pressing). */
  function ownsKeys(el) {
    return el && (["TEXTAREA", "SELECT", "BUTTON", "A"].indexOf(el.tagName) >= 0 ||
      (el.tagName === "INPUT" && el.type !== "radio"));
  }

  document.addEventListener("keydown", function (event) {
    var form = document.getElementById("expert-form");
    if (!form || ownsKeys(document.activeElement) || event.ctrlKey || event.metaKey || event.altKey) return;
    if (/^[0-5]$/.test(event.key)) {
      var radio = form.querySelector('input[name="rating"][value="' + event.key + '"]');
      if (radio) { radio.checked = true; radio.focus(); event.preventDefault(); }
    } else if (event.key === "Enter" && form.querySelector('input[name="rating"]:checked')) {
      event.preventDefault();
      form.requestSubmit();
    }
  });

  document.body.addEventListener("htmx:configRequest", function (event) {
    if (event.detail.elt.id !== "expert-form") return;
    if (openedAt !== null) {
      event.detail.parameters.time_spent_ms = String(Math.round(performance.now() - openedAt));
    }
    refocus = byKeyboard;
  });

  // After settling, not after swapping: while settling htmx puts the old element's class back
  // on the new plot element, and would then strip the classes plotly adds when drawing.
  document.body.addEventListener("htmx:afterSettle", function (event) {
    var target = event.detail.target;
    if (target.id === "matrix-area") render();
    if (target.id === "cell-panel") {
      panelShown(event.detail.requestConfig.verb);
      // A refused rating reloads nothing: the matrix keeps no claim on the focus.
      if (!/matrix-changed/.test(event.detail.xhr.getResponseHeader("HX-Trigger") || "")) refocus = false;
    }
  });

  render();
})();
