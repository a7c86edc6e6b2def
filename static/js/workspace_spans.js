/* Annotation workspace: the supporting span (passage rating's rationale, or the focused
   sub-question's span in report coverage), chosen with the mouse or with keys only.

   Mouse: select text in the passage or report (.ws-selectable). Keys: j / k move a sentence
   cursor to the next / previous sentence, m marks or unmarks the sentence under it, Escape
   clears the span. A span is one stretch of text: marking a sentence outside it stretches it
   to that sentence; unmarking its first or last sentence shrinks it; unmarking one in the
   middle ends it before that sentence. Offsets count code points of the shown text, as the
   server's answer parser does. The cursor and the span are painted with the CSS Custom
   Highlight API where the browser has it (the text itself is never rewrapped, so a mouse
   selection's offsets stay those of the plain text). */
(function () {
  "use strict";

  var HIGHLIGHTS = typeof Highlight === "function" && window.CSS && CSS.highlights;
  var state = {
    item: null, // the .ws-item the cursor belongs to
    cursor: -1, // index of the sentence under the cursor (-1: none yet)
    selectionTimer: null,
  };

  function current() { return document.querySelector("#item-slot .ws-item"); }
  function textOf(item) { return item ? item.querySelector(".ws-selectable") : null; }

  /* Sentences of ``text`` as [start, end) in UTF-16 units, without surrounding white space:
     a sentence ends at . ! or ? (closing quotes and brackets included) before white space,
     and at every line break. */
  function sentences(text) {
    var found = [];
    var from = 0;
    var end = /[.!?]+["'\u201d\u2019)\]]*(?=\s|$)|\n/g;
    function add(start, stop) {
      while (start < stop && /\s/.test(text[start])) start++;
      while (stop > start && /\s/.test(text[stop - 1])) stop--;
      if (stop > start) found.push({ start: start, end: stop });
    }
    var match;
    while ((match = end.exec(text))) {
      add(from, match.index + match[0].length);
      from = match.index + match[0].length;
    }
    add(from, text.length);
    return found;
  }

  function codePoints(text, units) { return Array.from(text.slice(0, units)).length; }
  function units(text, points) { return Array.from(text).slice(0, points).join("").length; }

  /* A DOM range over [start, end) UTF-16 units of ``container``'s text. */
  function textRange(container, start, end) {
    var walker = document.createTreeWalker(container, NodeFilter.SHOW_TEXT);
    var range = document.createRange();
    var seen = 0, started = false, node;
    while ((node = walker.nextNode())) {
      var length = node.data.length;
      if (!started && start <= seen + length) { range.setStart(node, start - seen); started = true; }
      if (started && end <= seen + length) { range.setEnd(node, end - seen); return range; }
      seen += length;
    }
    return null;
  }

  /* The form fields the span goes to, as the text's data-span says: "row", the focused
     row's span (report coverage's sub-question); else the field it names (the rationale). */
  function spanFields(item) {
    var text = textOf(item);
    var name = text ? text.dataset.span : "";
    if (!name) return null;
    if (name !== "row") return { text: name, start: name + "_start", end: name + "_end" };
    var row = item.querySelector(".ws-q.focused");
    if (!row) return null;
    var pos = row.dataset.position;
    return { text: "span_" + pos, start: "span_start_" + pos, end: "span_end_" + pos };
  }

  /* The span now in the fields, as [start, end) UTF-16 units of ``text``; null when empty. */
  function spanNow(form, fields, text) {
    var chosen = form.elements[fields.text] ? form.elements[fields.text].value : "";
    if (!chosen) return null;
    var start = parseInt(form.elements[fields.start].value, 10);
    var end = parseInt(form.elements[fields.end].value, 10);
    if (!isNaN(start) && !isNaN(end)) {
      var from = units(text, start);
      var to = units(text, end);
      if (text.slice(from, to) === chosen) return { start: from, end: to };
    }
    var at = text.indexOf(chosen);
    return at < 0 ? null : { start: at, end: at + chosen.length };
  }

  function setSpan(item, fields, chosen, start) {
    var form = item.querySelector("form");
    var field = form.elements[fields.text];
    if (!field) return;
    field.value = chosen;
    form.elements[fields.start].value = chosen ? start : "";
    form.elements[fields.end].value = chosen ? start + Array.from(chosen).length : "";
    var shown = item.querySelector('.ws-span[data-for="' + fields.text + '"]');
    if (shown) {
      shown.textContent = chosen || shown.dataset.empty || "";
      shown.classList.toggle("placeholder-text", !chosen && !!shown.dataset.empty);
    }
    field.dispatchEvent(new Event("change", { bubbles: true })); // workspace.js keeps the draft
    paint();
  }

  /* ---- the mouse: a selection inside the text ------------------------------------------ */

  function captureSelection() {
    var item = current();
    var sel = window.getSelection();
    if (!item || !sel || sel.isCollapsed || sel.rangeCount === 0) return;
    var range = sel.getRangeAt(0);
    var text = textOf(item);
    if (!text || !text.contains(range.startContainer) || !text.contains(range.endContainer)) return;
    var fields = spanFields(item);
    if (!fields) return;
    var before = document.createRange();
    before.selectNodeContents(text);
    before.setEnd(range.startContainer, range.startOffset);
    setSpan(item, fields, range.toString(), Array.from(before.toString()).length);
  }

  function clearSpan(item) {
    var fields = spanFields(item);
    if (fields) setSpan(item, fields, "", 0);
  }

  /* ---- the keys: a sentence cursor ----------------------------------------------------- */

  function sync(item) {
    if (state.item !== item) { state.item = item; state.cursor = -1; }
  }

  function moveCursor(item, delta) {
    var all = sentences(textOf(item).textContent);
    if (!all.length) return;
    state.cursor = state.cursor < 0
      ? (delta > 0 ? 0 : all.length - 1)
      : Math.min(all.length - 1, Math.max(0, state.cursor + delta));
    paint();
    var range = textRange(textOf(item), all[state.cursor].start, all[state.cursor].end);
    if (range) window.workspaceReveal(textOf(item), range.getBoundingClientRect());
  }

  /* The span after marking or unmarking ``s`` (see the top of this file); null: empty. */
  function toggled(span, s, all) {
    if (!span) return { start: s.start, end: s.end };
    if (s.end <= span.start || s.start >= span.end) {
      return { start: Math.min(span.start, s.start), end: Math.max(span.end, s.end) };
    }
    if (s.start <= span.start && s.end >= span.end) return null;
    if (s.start <= span.start) {
      var next = all.filter(function (x) { return x.start >= s.end; })[0];
      return next && next.start < span.end ? { start: next.start, end: span.end } : null;
    }
    var before = all.filter(function (x) { return x.end <= s.start; }).pop();
    return before && before.end > span.start ? { start: span.start, end: before.end } : null;
  }

  function markSentence(item) {
    var text = textOf(item).textContent;
    var all = sentences(text);
    var fields = spanFields(item);
    if (!fields || !all.length) return;
    if (state.cursor < 0) state.cursor = 0;
    var form = item.querySelector("form");
    var span = toggled(spanNow(form, fields, text), all[state.cursor], all);
    if (span) setSpan(item, fields, text.slice(span.start, span.end), codePoints(text, span.start));
    else setSpan(item, fields, "", 0);
    // Show what was marked (the rationale box, or the sub-question holding the span) where it
    // scrolls apart from the text; in one column that would pull the text away instead.
    var shown = item.querySelector('.ws-span[data-for="' + fields.text + '"]');
    var box = shown && (shown.closest(".ws-q") || shown.closest(".ws-span-box"));
    var reveal = window.workspaceReveal;
    if (span && box && reveal.scroller(box) !== reveal.scroller(textOf(item))) {
      reveal(box, box.getBoundingClientRect());
    }
  }

  /* ---- painting: the cursor's sentence and the marked span ------------------------------ */

  function paint() {
    if (!HIGHLIGHTS) return;
    CSS.highlights.delete("ws-cursor");
    CSS.highlights.delete("ws-marked");
    var item = current();
    var container = textOf(item);
    if (!container) return;
    var text = container.textContent;
    var fields = spanFields(item);
    var span = fields && spanNow(item.querySelector("form"), fields, text);
    var marked = span && textRange(container, span.start, span.end);
    if (marked) CSS.highlights.set("ws-marked", new Highlight(marked));
    var all = sentences(text);
    if (state.item === item && state.cursor >= 0 && all[state.cursor]) {
      var cursor = textRange(container, all[state.cursor].start, all[state.cursor].end);
      if (cursor) CSS.highlights.set("ws-cursor", new Highlight(cursor));
    }
  }

  /* ---- events ---------------------------------------------------------------------------- */

  document.addEventListener("keydown", function (event) {
    // workspace.js runs first: keys it took (or held back during an undo) are not ours.
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    var t = event.target;
    if (t && (t.tagName === "TEXTAREA" || (t.tagName === "INPUT" && !/radio|checkbox|hidden/.test(t.type)))) return;
    var item = current();
    if (!item || !textOf(item) || item.querySelector("form").dataset.sent) return;
    sync(item);
    var key = event.key;
    if (key === "j" || key === "J") { event.preventDefault(); moveCursor(item, 1); }
    else if (key === "k" || key === "K") { event.preventDefault(); moveCursor(item, -1); }
    else if (key === "m" || key === "M") { event.preventDefault(); markSentence(item); }
    else if (key === "Escape") { clearSpan(item); }
  });

  document.addEventListener("mouseup", function () { window.setTimeout(captureSelection, 0); });
  document.addEventListener("selectionchange", function () {
    window.clearTimeout(state.selectionTimer);
    state.selectionTimer = window.setTimeout(captureSelection, 120);
  });

  // A new item, or another sub-question in hand: paint its span (workspace.js sends ws:focus).
  document.addEventListener("ws:focus", function () { sync(current()); paint(); });
})();
