/* The nugget post-editing task: edit, merge, split, add, delete and re-label a topic's nuggets,
   keys first, with buttons too (evaluation/nuggets/templates/evaluation/nuggets/tasks/
   nugget_post_editing.html). Loaded by that template, so by every item it shows; it sets
   itself up once and then each new .ne-editor as it arrives (htmx swaps, the prefetched item).

   The item carries its list as shown (.ne-data's JSON). Every change is an operation
   {op, positions, before, after, at_ms} appended to the history; the list on screen is the
   original list replayed through the history, so "take back" (z) drops the last operation
   and replays. The hidden field "edits" always holds {nuggets, history} as JSON (the answer,
   checked by evaluation/nuggets/post_edit_answers.py, which replays it the same way); the
   hidden checkbox "list_ready" is unchecked while a text is being typed or the list is empty,
   so workspace.js's Enter shows its hint instead of submitting. workspace.js keeps Enter, s,
   u, p and g; the keys here are listed on the page. */
(function () {
  "use strict";

  if (window.nuggetEditorLoaded) return;
  window.nuggetEditorLoaded = true;

  var VITAL = "vital", OKAY = "okay";
  var editors = []; // {root, original, history, cursor, typing, startedAt, offsetMs}

  function copy(n) { return { text: n.text, importance: n.importance }; }
  function clean(text) { return text.replace(/\s+/g, " ").trim(); }

  function replay(original, history) {
    var list = original.map(copy);
    history.forEach(function (op) {
      var i = op.positions[0];
      if (op.op === "add") list.splice(i, 0, copy(op.after[0]));
      else if (op.op === "merge") { list.splice(op.positions[1], 1); list[i] = copy(op.after[0]); }
      else list.splice.apply(list, [i, 1].concat(op.after.map(copy)));
    });
    return list;
  }

  /* ---- state ---------------------------------------------------------------------------- */

  function editorOf(root) {
    for (var i = 0; i < editors.length; i++) if (editors[i].root === root) return editors[i];
    return null;
  }

  function active() {
    var root = document.querySelector("#item-slot .ws-item .ne-editor");
    var editor = root && editorOf(root);
    if (!editor || editor.readonly) return null;
    var form = root.closest("form");
    return form && form.dataset.sent ? null : editor;
  }

  function list(editor) { return replay(editor.original, editor.history); }

  function restored(raw, original) {
    try {
      var answer = JSON.parse(raw);
      if (answer && Array.isArray(answer.history)) {
        replay(original, answer.history); // throws on a malformed one
        return answer.history;
      }
    } catch (e) { /* a draft cut short or from elsewhere: start from the list as shown */ }
    return [];
  }

  function setup(root) {
    if (root.dataset.ready) return;
    root.dataset.ready = "1";
    var data = root.querySelector(".ne-data script");
    var original = data ? JSON.parse(data.textContent).map(copy) : [];
    var field = root.querySelector('input[name="edits"]');
    var history = restored(field.value, original);
    var last = history.length ? history[history.length - 1].at_ms : 0;
    var editor = {
      root: root, original: original, history: history, cursor: 0, typing: null,
      startedAt: performance.now(), offsetMs: last,
      readonly: !!root.closest("fieldset[disabled]"),
    };
    editors = editors.filter(function (e) { return document.body.contains(e.root); });
    editors.push(editor);
    render(editor, false);
  }

  function setupAll() {
    Array.prototype.forEach.call(document.querySelectorAll(".ne-editor"), setup);
  }

  function nowMs(editor) { return editor.offsetMs + Math.round(performance.now() - editor.startedAt); }

  function record(editor, op, positions, before, after) {
    editor.history.push({
      op: op, positions: positions, before: before.map(copy), after: after.map(copy),
      at_ms: nowMs(editor),
    });
    hint(editor, "");
    render(editor, true);
  }

  /* ---- drawing -------------------------------------------------------------------------- */

  function hint(editor, text) {
    var item = editor.root.closest(".ws-item");
    var el = item && item.querySelector(".ws-hint");
    if (el) el.textContent = text || "";
  }

  function save(editor, changed) {
    var nuggets = list(editor);
    var field = editor.root.querySelector('input[name="edits"]');
    field.value = JSON.stringify({ nuggets: nuggets, history: editor.history });
    editor.root.querySelector(".ne-ready").checked = !editor.typing && nuggets.length > 0;
    // workspace.js keeps the draft on every change event of the form.
    if (changed) field.dispatchEvent(new Event("change", { bubbles: true }));
  }

  function element(tag, className, text) {
    var el = document.createElement(tag);
    if (className) el.className = className;
    if (text !== undefined) el.textContent = text;
    return el;
  }

  function render(editor, changed) {
    var nuggets = list(editor);
    editor.cursor = Math.max(0, Math.min(editor.cursor, nuggets.length - 1));
    var ol = editor.root.querySelector(".ne-list");
    ol.textContent = "";
    nuggets.forEach(function (n, i) {
      var li = element("li", "ne-row");
      li.dataset.index = String(i);
      li.dataset.importance = n.importance;
      var badge = element("span", "ne-importance ne-" + n.importance, n.importance);
      badge.title = "Vital or okay: v / o, or click";
      li.appendChild(badge);
      li.appendChild(document.createTextNode(" "));
      li.appendChild(element("span", "ne-text", n.text));
      if (!editor.readonly && i === editor.cursor) li.classList.add("focused");
      ol.appendChild(li);
    });
    if (editor.typing) drawInput(editor, ol);
    var vital = nuggets.filter(function (n) { return n.importance === VITAL; }).length;
    editor.root.querySelector(".ne-count").textContent =
      "(" + nuggets.length + ", " + vital + " vital)";
    drawHistory(editor);
    save(editor, changed);
    var focused = ol.querySelector(".ne-row.focused");
    if (focused && !editor.typing) focused.scrollIntoView({ block: "nearest" });
  }

  function drawHistory(editor) {
    editor.root.querySelector(".ne-history-count").textContent = String(editor.history.length);
    var ol = editor.root.querySelector(".ne-history-list");
    ol.textContent = "";
    editor.history.forEach(function (op) {
      var words = op.op + " at " + op.positions.map(function (p) { return p + 1; }).join(" + ");
      var after = op.after.map(function (n) { return n.importance + ": " + n.text; }).join(" | ");
      ol.appendChild(element("li", "", words + (after ? " → " + after : "")));
    });
  }

  /* The text box of an edit, a split or an add, in place of (or after) its row. */
  function drawInput(editor, ol) {
    var typing = editor.typing;
    var box = element("li", "ne-row ne-typing focused");
    var input = element("textarea", "ne-input");
    input.value = typing.text;
    input.setAttribute("aria-label", typing.label);
    box.appendChild(element("div", "small muted", typing.label));
    box.appendChild(input);
    var buttons = element("div", "ne-input-buttons");
    var done = element("button", "", typing.mode === "split" ? "Split here" : "Done");
    done.type = "button";
    done.dataset.action = "commit";
    var cancel = element("button", "secondary", "Cancel");
    cancel.type = "button";
    cancel.dataset.action = "cancel";
    buttons.appendChild(done);
    buttons.appendChild(cancel);
    box.appendChild(buttons);
    var rows = ol.querySelectorAll(".ne-row");
    if (typing.mode === "add") {
      var after = rows[typing.index - 1];
      ol.insertBefore(box, after ? after.nextSibling : ol.firstChild);
    } else {
      ol.replaceChild(box, rows[typing.index]);
    }
    input.focus();
    var caret = typing.caret === undefined ? input.value.length : typing.caret;
    input.setSelectionRange(caret, caret);
  }

  /* ---- operations ----------------------------------------------------------------------- */

  function startTyping(editor, mode) {
    var nuggets = list(editor);
    var n = nuggets[editor.cursor];
    if (mode !== "add" && !n) { hint(editor, "No nugget to change: press a to add one."); return; }
    if (mode === "edit") {
      editor.typing = { mode: mode, index: editor.cursor, text: n.text, label: "Edit the nugget's text" };
    } else if (mode === "split") {
      editor.typing = {
        mode: mode, index: editor.cursor, text: n.text, caret: middle(n.text),
        label: "Put the cursor where the nugget splits in two",
      };
    } else {
      var at = nuggets.length ? editor.cursor + 1 : 0;
      editor.typing = { mode: mode, index: at, text: "", label: "Write the new nugget (vital)" };
    }
    render(editor, false);
  }

  /* Where a split starts: the sentence or clause break nearest the middle, else a space. */
  function middle(text) {
    var half = text.length / 2, best = -1;
    var re = /[.;,:]\s+|\s+(?:and|but|while|which)\s+|\s/g, m;
    while ((m = re.exec(text))) {
      var at = m.index + (/^\s/.test(m[0]) ? 0 : 1);
      if (best < 0 || Math.abs(at - half) < Math.abs(best - half)) best = at;
    }
    return best < 0 ? text.length : best;
  }

  function commit(editor) {
    var typing = editor.typing;
    var input = editor.root.querySelector(".ne-input");
    if (!typing || !input) return;
    var nuggets = list(editor);
    var n = nuggets[typing.index];
    if (typing.mode === "split") {
      var at = input.selectionStart;
      var left = clean(input.value.slice(0, at)), right = clean(input.value.slice(at));
      if (!left || !right) { hint(editor, "Put the cursor between two words, then Enter."); return; }
      editor.typing = null;
      record(editor, "split", [typing.index], [n],
        [{ text: left, importance: n.importance }, { text: right, importance: n.importance }]);
      return;
    }
    var text = clean(input.value);
    if (!text) { hint(editor, "Write the nugget first (or Esc to cancel; d deletes one)."); return; }
    editor.typing = null;
    if (typing.mode === "add") {
      editor.cursor = typing.index;
      record(editor, "add", [typing.index], [], [{ text: text, importance: VITAL }]);
    } else if (text !== clean(n.text)) {
      record(editor, "edit", [typing.index], [n], [{ text: text, importance: n.importance }]);
    } else {
      render(editor, false);
    }
  }

  function cancel(editor) {
    editor.typing = null;
    hint(editor, "");
    render(editor, false);
    editor.root.focus();
  }

  function relabel(editor, importance) {
    var n = list(editor)[editor.cursor];
    if (!n || n.importance === importance) return;
    record(editor, "importance", [editor.cursor], [n], [{ text: n.text, importance: importance }]);
  }

  function merge(editor) {
    var nuggets = list(editor), i = editor.cursor;
    if (i + 1 >= nuggets.length) { hint(editor, "The last nugget has no next one to merge with."); return; }
    var a = nuggets[i], b = nuggets[i + 1];
    var importance = a.importance === VITAL || b.importance === VITAL ? VITAL : OKAY;
    record(editor, "merge", [i, i + 1], [a, b], [{ text: clean(a.text + " " + b.text), importance: importance }]);
  }

  function remove(editor) {
    var n = list(editor)[editor.cursor];
    if (!n) return;
    record(editor, "delete", [editor.cursor], [n], []);
  }

  function takeBack(editor) {
    if (!editor.history.length) { hint(editor, "No change to take back."); return; }
    var op = editor.history.pop();
    editor.cursor = op.positions[0];
    hint(editor, "");
    render(editor, true);
  }

  function move(editor, delta) {
    editor.cursor += delta;
    render(editor, false);
  }

  function act(editor, action) {
    if (action === "commit") return commit(editor);
    if (action === "cancel") return cancel(editor);
    if (editor.typing) { hint(editor, "Finish the text first: Enter, or Esc to cancel."); return; }
    if (action === "edit" || action === "split" || action === "add") return startTyping(editor, action);
    if (action === "vital") return relabel(editor, VITAL);
    if (action === "okay") return relabel(editor, OKAY);
    if (action === "merge") return merge(editor);
    if (action === "delete") return remove(editor);
    if (action === "undo") return takeBack(editor);
  }

  var KEYS = {
    e: "edit", v: "vital", o: "okay", m: "merge", x: "split", a: "add", d: "delete",
    Delete: "delete", z: "undo",
  };

  /* ---- events --------------------------------------------------------------------------- */

  document.addEventListener("keydown", function (event) {
    // workspace.js runs first: Enter, s, u, p and g are its own.
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    var editor = active();
    if (!editor) return;
    var t = event.target;
    if (t && t.classList && t.classList.contains("ne-input")) {
      if (event.key === "Enter" && !event.shiftKey) { event.preventDefault(); commit(editor); }
      else if (event.key === "Escape") { event.preventDefault(); cancel(editor); }
      return;
    }
    if (t && (t.tagName === "TEXTAREA" || (t.tagName === "INPUT" && !/radio|checkbox|hidden/.test(t.type)))) return;
    if (editor.typing) {
      // The text box lost the focus (a click elsewhere): Esc still cancels it.
      if (event.key === "Escape") { event.preventDefault(); cancel(editor); }
      return;
    }
    var key = event.key;
    if (key === "ArrowDown" || key === "j") { event.preventDefault(); move(editor, 1); return; }
    if (key === "ArrowUp" || key === "k") { event.preventDefault(); move(editor, -1); return; }
    var action = KEYS[key.length === 1 ? key.toLowerCase() : key];
    if (action) { event.preventDefault(); act(editor, action); }
  });

  document.addEventListener("click", function (event) {
    var target = event.target;
    var root = target.closest && target.closest(".ne-editor");
    var editor = root && editorOf(root);
    if (!editor || editor.readonly) return;
    var button = target.closest("button[data-action]");
    if (button) {
      act(editor, button.dataset.action);
      // Enter on a focused button repeats its action: the list takes the focus back, so
      // Enter submits again.
      if (!editor.typing) root.focus();
      return;
    }
    var row = target.closest(".ne-row");
    if (row && row.dataset.index !== undefined && !editor.typing) {
      editor.cursor = parseInt(row.dataset.index, 10);
      if (target.closest(".ne-importance")) {
        var n = list(editor)[editor.cursor];
        relabel(editor, n.importance === VITAL ? OKAY : VITAL);
      } else {
        render(editor, false);
      }
      root.focus();
    }
  });

  document.addEventListener("htmx:load", setupAll);
  document.addEventListener("DOMContentLoaded", setupAll);
  setupAll();
})();
