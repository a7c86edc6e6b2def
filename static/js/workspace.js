/* Annotation workspace: keyboard answers, drafts, time on item, and the prefetched next item
   (spans, by mouse or by keys: static/js/workspace_spans.js; the change cue between items:
   static/js/workspace_cue.js).

   The item on screen is #item-slot .ws-item. As soon as it shows, the next item is fetched in
   the background (the server reserves it). Submit posts the answer with htmx; only when the
   server has stored it (2xx) does the prefetched item replace the current one, so the swap is
   instant and nothing is shown before its predecessor is saved. Keys: 0-5 / y n / a category's
   letter answer, Enter submits (on a focused link or button it does that control's own
   action), s skips, u undoes the last submission (the server reopens it only if it is still
   the annotator's latest; the button is #ws-back .ws-undo), p opens the previous item, arrows
   move between sub-questions, g opens the guidelines, j / k move a sentence cursor through
   the passage or report and m marks the sentence as the span (static/js/workspace_spans.js).
   Which keys answer which field comes with each item (keySpec); the failure categories
   come with the page (each choice's data-key): the server is their only definition. */
(function () {
  "use strict";

  /* How keys answer an item: its data attributes, from its task type's WorkspaceKeys
     (annotation/task_types/registry.py): data-key-field the answer field (data-rows: each
     row's field prefix), data-key-values key -> value (empty: the choices' data-key),
     data-missing the hint for Enter before an answer. */
  function keySpec(item) {
    var values;
    try { values = JSON.parse(item.dataset.keyValues || "{}"); } catch (e) { values = {}; }
    return {
      field: item.dataset.keyField || "",
      map: Object.keys(values).length ? values : null,
      missing: item.dataset.missing || "",
      rows: !!item.dataset.rows,
    };
  }

  var state = {
    prefetch: null, // Promise of the next item's HTML (null: none)
    shownAt: 0, // performance.now() when the item became visible
    hiddenMs: 0, // time the tab was hidden while the item was shown
    hiddenSince: null,
    focus: 0, // items with rows (report coverage): index of the row keys apply to
    draftTimer: null,
    draftDue: null, // the form whose draft waits on draftTimer
    submitting: false, // an answer or a skip is on its way: undo waits for it
    undoQueued: false, // u was pressed while submitting: undo once the answer is stored
    undoing: false, // an undo is on its way: keys wait
    generation: 0, // moves on with each showNext and each undo: a stale next item is dropped
  };

  function slot() { return document.getElementById("item-slot"); }
  function current() { var s = slot(); return s ? s.querySelector(".ws-item") : null; }
  function currentForm() { var item = current(); return item ? item.querySelector("form.ws-form") : null; }

  function hint(text) {
    var item = current();
    var el = item && item.querySelector(".ws-hint");
    if (!el) return;
    el.textContent = text || "";
    // The footer grows with the hint: keep the sub-question in hand, or the choices the hint
    // asks for, clear of it (the last rating used to end half under it).
    if (item.dataset.rows) showFocus(item);
    else if (text) {
      var choices = item.querySelector(".ws-choices");
      if (choices) window.workspaceReveal(choices, choices.getBoundingClientRect());
    }
    // Only the error shows: the previous action's "Answer saved" no longer applies.
    if (text) status("");
  }

  function status(text) { // the status line (#ws-status): what the last action did
    var el = document.getElementById("ws-status");
    if (el) { el.textContent = text || ""; flash(el); }
  }

  function flash(el) {
    el.classList.remove("ws-flash");
    void el.offsetWidth; // restart the animation
    el.classList.add("ws-flash");
  }

  function elapsedMs() {
    var hidden = state.hiddenMs + (state.hiddenSince ? performance.now() - state.hiddenSince : 0);
    return Math.max(0, Math.round(performance.now() - state.shownAt - hidden));
  }

  /* ---- item lifecycle ------------------------------------------------------------------ */

  function startItem() {
    var item = current();
    if (!item) { finish(); return; }
    if (item.dataset.started) return;
    item.dataset.started = "1";
    state.shownAt = performance.now();
    state.hiddenMs = 0;
    state.hiddenSince = document.hidden ? performance.now() : null;
    state.focus = firstUnanswered(item);
    showFocus(item);
    startPrefetch(item);
  }

  /* #workspace[data-prefetch] says where the prefetch is: pending, ready or none. */
  function prefetchState(value) {
    var ws = document.getElementById("workspace");
    if (ws) ws.dataset.prefetch = value;
  }

  function startPrefetch(item) {
    prefetchState("pending");
    state.prefetch = fetch(item.dataset.prefetchUrl, {
      credentials: "same-origin",
      headers: { "HX-Request": "true" },
    }).then(function (response) {
      return response.status === 200 ? response.text() : null;
    }).catch(function () { return null; }).then(function (html) {
      prefetchState(html ? "ready" : "none");
      return html;
    });
  }

  function assignmentOf(html) {
    var holder = document.createElement("template");
    holder.innerHTML = html;
    var item = holder.content.querySelector(".ws-item");
    return item ? item.dataset.assignment : null;
  }

  function fetchFragment(url) {
    return fetch(url, { credentials: "same-origin", headers: { "HX-Request": "true" } })
      .then(function (response) { return response.ok ? response.text() : null; })
      .catch(function () { return null; });
  }

  /* After a stored submit or skip: the prefetched item, else ask the server for the next.
     An undo started meanwhile wins: its reopened item must not be replaced by this one when
     it arrives later (the generation moved on). */
  function showNext(doneId) {
    var generation = ++state.generation;
    var pending = state.prefetch || Promise.resolve(null);
    state.prefetch = null;
    pending.then(function (html) {
      if (html && assignmentOf(html) && assignmentOf(html) !== doneId) return html;
      return fetchFragment(document.getElementById("workspace").dataset.nextUrl);
    }).then(function (html) {
      if (generation !== state.generation) return;
      if (html === null) { hint("Could not load the next item; reload the page."); return; }
      htmx.swap(slot(), html, { swapStyle: "innerHTML" });
      startItem();
    });
  }

  function finish() {
    var done = document.querySelector("#item-slot .ws-done");
    if (done && done.dataset.redirectUrl && !done.dataset.redirecting) {
      done.dataset.redirecting = "1";
      window.setTimeout(function () {
        window.location.assign(done.dataset.redirectUrl);
      }, parseInt(done.dataset.redirectDelay || "3000", 10));
    }
  }

  /* ---- answering ----------------------------------------------------------------------- */

  function choose(form, name, value) {
    var input = form.querySelector('input[name="' + name + '"][value="' + value + '"]');
    if (!input) return false;
    input.checked = true;
    input.dispatchEvent(new Event("change", { bubbles: true }));
    var choice = input.closest("label") || input; // the answer given is in view, not under the footer
    window.workspaceReveal(choice, choice.getBoundingClientRect());
    return true;
  }

  /* The data-key of each choice of ``field`` on the page, in page order. */
  function pageKeys(form, field) {
    return Array.prototype.map.call(
      form.querySelectorAll('input[name="' + field + '"][data-key]'),
      function (input) { return input.dataset.key; });
  }

  /* The value a key answers with: the task's own map, else the choice whose data-key it is. */
  function keyValue(form, spec, key) {
    if (spec.map) return spec.map[key];
    var inputs = form.querySelectorAll('input[name="' + spec.field + '"][data-key]');
    for (var i = 0; i < inputs.length; i++) if (inputs[i].dataset.key === key) return inputs[i].value;
    return undefined;
  }

  function rows(item) { return Array.prototype.slice.call(item.querySelectorAll(".ws-q")); }

  function rowAnswered(row) { return !!row.querySelector("input[type=radio]:checked"); }

  function firstUnanswered(item) {
    var list = rows(item);
    for (var i = 0; i < list.length; i++) if (!rowAnswered(list[i])) return i;
    return 0;
  }

  function showFocus(item) {
    rows(item).forEach(function (row, i) {
      row.classList.toggle("focused", i === state.focus);
      if (i === state.focus) {
        row.scrollIntoView({ block: "nearest" });
        window.workspaceReveal(row, row.getBoundingClientRect());
      }
    });
    document.dispatchEvent(new CustomEvent("ws:focus"));
  }

  function moveFocus(item, delta) {
    var n = rows(item).length;
    if (!n) return;
    state.focus = Math.min(n - 1, Math.max(0, state.focus + delta));
    showFocus(item);
  }

  function answerRow(item, spec, value) {
    var row = rows(item)[state.focus];
    if (!row) return;
    choose(item.querySelector("form"), spec.field + row.dataset.position, value);
    var list = rows(item);
    var next = list.findIndex(function (r, i) { return i > state.focus && !rowAnswered(r); });
    if (next < 0) next = list.findIndex(function (r) { return !rowAnswered(r); });
    if (next >= 0) { state.focus = next; showFocus(item); }
  }

  function missingAnswer(item) {
    var form = item.querySelector("form");
    var spec = keySpec(item);
    if (spec.rows) {
      var open = rows(item).findIndex(function (r) { return !rowAnswered(r); });
      if (open < 0) return null;
      state.focus = open;
      showFocus(item);
      return spec.missing;
    }
    if (form.querySelector('input[name="' + spec.field + '"]:checked')) return null;
    var keys = pageKeys(form, spec.field);
    return spec.missing.replace("{keys}", keys.length ? keys[0] + "-" + keys[keys.length - 1] : "");
  }

  function submitCurrent() {
    var form = currentForm();
    if (form && !form.dataset.sent && !state.submitting) form.requestSubmit();
  }

  /* The annotator's previous item (their latest submission), read-only, on its own page. */
  function openPrevious() {
    var link = document.querySelector("#ws-back .ws-back-link");
    if (!link) { status("No previous item yet: submit one first."); return; }
    flushDraft();
    window.location.assign(link.href);
  }

  /* u reopens the last answer. Pressed while an answer is on its way (a slow server), it
     waits for that answer to be stored and reopens it: it used to be dropped silently while
     the status line still offered the undo of the answer before. */
  function undoLast() {
    if (state.undoing) return;
    if (state.submitting) {
      state.undoQueued = true;
      status("Saving your answer; it reopens as soon as it is saved.");
      return;
    }
    var button = document.querySelector("#ws-back .ws-undo");
    if (!button) { status("Nothing to undo: only the last answer, until the next one."); return; }
    // Not button.click(): a button swapped in by the answer that just came back is wired up
    // by htmx only when that swap settles (20 ms later), and a click before does nothing.
    htmx.ajax("POST", button.getAttribute("hx-post"), {
      source: button, target: "#item-slot", swap: "innerHTML",
    });
  }

  function skipCurrent() {
    var item = current();
    var button = item && item.querySelector(".ws-skip");
    if (button && !item.querySelector("form").dataset.sent && !state.submitting) button.click();
  }

  /* ---- drafts: kept on the server so leaving and coming back resumes ---------------------- */

  function scheduleDraft(form) {
    window.clearTimeout(state.draftTimer);
    state.draftDue = form;
    state.draftTimer = window.setTimeout(function () { saveDraft(form); }, 400);
  }

  function saveDraft(form) {
    state.draftDue = null;
    var item = form.closest(".ws-item");
    if (!item || form.dataset.sent || !document.body.contains(form)) return;
    fetch(item.dataset.draftUrl, {
      method: "POST", credentials: "same-origin", body: new FormData(form), keepalive: true,
    }).catch(function () { /* a lost draft only costs re-answering; the submit is what counts */ });
  }

  /* Leaving the page (previous item, a link): the choice made in the last 400 ms goes too. */
  function flushDraft() {
    var form = state.draftDue;
    if (!form) return;
    window.clearTimeout(state.draftTimer);
    saveDraft(form);
  }

  /* ---- events -------------------------------------------------------------------------- */

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var t = event.target;
    if (t && (t.tagName === "TEXTAREA" || (t.tagName === "INPUT" && !/radio|checkbox|hidden/.test(t.type)))) return;
    var item = current();
    var key = event.key;
    // Enter on a focused link or button (previous item, My campaigns, Log out, Skip) is that
    // control's own action, never the answer's submit.
    if (key === "Enter" && t && t.closest && t.closest("a[href], button, summary, select")) return;
    if (state.undoing) { event.preventDefault(); return; }
    if (key === "g") {
      var panel = document.getElementById("ws-guidelines");
      if (panel) { panel.open = !panel.open; event.preventDefault(); }
      return;
    }
    if (key === "u" || key === "U") { event.preventDefault(); undoLast(); return; }
    if (key === "p" || key === "P") { event.preventDefault(); openPrevious(); return; }
    if (!item) return;
    var form = item.querySelector("form");
    var spec = keySpec(item);
    if (key === "Enter") { event.preventDefault(); submitCurrent(); return; }
    if (key === "s" || key === "S") { event.preventDefault(); skipCurrent(); return; }
    if (spec.rows) {
      var answer = spec.map ? spec.map[key.toLowerCase()] : undefined;
      if (key === "ArrowDown" || key === "ArrowRight") { event.preventDefault(); moveFocus(item, 1); }
      else if (key === "ArrowUp" || key === "ArrowLeft") { event.preventDefault(); moveFocus(item, -1); }
      else if (answer !== undefined) { event.preventDefault(); answerRow(item, spec, answer); }
      return;
    }
    var value = spec.field ? keyValue(form, spec, key.toLowerCase()) : undefined;
    if (value !== undefined && choose(form, spec.field, value)) { event.preventDefault(); hint(""); }
  });

  document.addEventListener("click", function (event) {
    var row = event.target.closest && event.target.closest(".ws-q");
    var item = current();
    if (row && item && item.contains(row)) {
      state.focus = parseInt(row.dataset.index, 10);
      showFocus(item);
    }
  });

  document.addEventListener("change", function (event) {
    var form = event.target.closest && event.target.closest("form.ws-form");
    if (form) scheduleDraft(form);
  });

  window.addEventListener("pagehide", flushDraft);

  document.addEventListener("visibilitychange", function () {
    if (document.hidden) state.hiddenSince = performance.now();
    else if (state.hiddenSince) { state.hiddenMs += performance.now() - state.hiddenSince; state.hiddenSince = null; }
  });

  document.body.addEventListener("htmx:beforeRequest", function (event) {
    var elt = event.detail.elt;
    if (elt.matches && elt.matches(".ws-undo")) {
      // Keep the item on screen's unsaved choice: it is swapped out by the reopened one.
      var form = currentForm();
      if (form && !form.dataset.sent) { window.clearTimeout(state.draftTimer); saveDraft(form); }
      state.undoing = true;
      state.generation++; // a next item still on its way must not replace the reopened one
      return;
    }
    if (elt.matches && elt.matches(".ws-skip")) { state.submitting = true; return; }
    if (!elt.matches || !elt.matches("form.ws-form")) return;
    var item = elt.closest(".ws-item");
    var problem = elt.dataset.sent ? "Already sent." : missingAnswer(item);
    if (problem) { event.preventDefault(); if (!elt.dataset.sent) hint(problem); return; }
    window.clearTimeout(state.draftTimer); // the answer itself is on its way
    state.submitting = true;
  });

  document.body.addEventListener("htmx:configRequest", function (event) {
    var elt = event.detail.elt;
    if (elt.matches && elt.matches("form.ws-form")) {
      event.detail.parameters.time_spent_ms = String(elapsedMs());
    }
  });

  document.body.addEventListener("htmx:afterRequest", function (event) {
    var elt = event.detail.elt;
    if (elt.matches && elt.matches(".ws-undo")) {
      state.undoing = false;
      if (!event.detail.successful) {
        var answer = event.detail.xhr;
        status(answer && answer.status === 409 && answer.responseText
          ? answer.responseText : "Could not reach the server; press u to try again.");
        // The undo had stopped the next item from showing: the item on screen is done.
        var done = current();
        var sent = done && done.querySelector("form.ws-form[data-sent]");
        if (sent) showNext(done.dataset.assignment);
      }
      return;
    }
    if (!elt.matches || !elt.matches("form.ws-form, .ws-skip")) return;
    state.submitting = false;
    var queued = state.undoQueued;
    state.undoQueued = false;
    var form = elt.closest("form.ws-form");
    var item = elt.closest(".ws-item");
    if (event.detail.successful) {
      form.dataset.sent = "1";
      window.clearTimeout(state.draftTimer);
      item.classList.add("ws-loading");
      showNext(item.dataset.assignment);
      if (queued) undoLast(); // after showNext: the undo's start drops that next item
    } else {
      var xhr = event.detail.xhr;
      hint(xhr && xhr.status >= 400 && xhr.status < 500 && xhr.responseText
        ? xhr.responseText : "Could not reach the server; press Enter to try again.");
    }
  });

  document.body.addEventListener("htmx:afterSwap", function (event) {
    if (event.detail.target && event.detail.target.id === "item-slot") {
      // A successful undo ends here: its button was replaced with #ws-back (out of band), so
      // its own htmx:afterRequest no longer reaches this listener.
      state.undoing = false;
      startItem();
    }
  });

  /* The status line comes with each submit, skip and undo answer (an out-of-band swap). */
  document.body.addEventListener("htmx:oobAfterSwap", function (event) {
    var target = event.detail.target;
    if (target && target.id === "ws-status" && target.textContent) flash(target);
  });

  document.addEventListener("DOMContentLoaded", startItem);
  if (document.readyState !== "loading") startItem();
})();
