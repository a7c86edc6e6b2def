/* Review workspace: keyboard choices on one disagreement at a time (templates/annotation/
   review/workspace.html). Keys, outside a text field: a-i choose option A-I, o goes to
   "another label", n to the note, Enter decides. In a text field: Ctrl+Enter decides, Esc
   leaves the field. Time on the item (tab hidden time left out) goes with the decision. The
   form is a plain POST: a refused decision comes back with the choice and note kept. */
(function () {
  "use strict";

  var form = document.getElementById("rv-form");
  if (!form) return;
  var shownAt = performance.now();
  var hiddenMs = 0;
  var hiddenSince = null;

  document.addEventListener("visibilitychange", function () {
    if (document.hidden) {
      hiddenSince = performance.now();
    } else if (hiddenSince !== null) {
      hiddenMs += performance.now() - hiddenSince;
      hiddenSince = null;
    }
  });

  function typing(target) {
    return target && (target.tagName === "TEXTAREA" || (target.tagName === "INPUT" && target.type === "text"));
  }

  function decide() {
    var spent = Math.max(0, Math.round(performance.now() - shownAt - hiddenMs));
    form.elements.time_spent_ms.value = String(spent);
    if (form.requestSubmit) form.requestSubmit(); else form.submit();
  }

  function choose(letter) {
    var input = form.querySelector('input[name="option"][value="' + letter + '"]');
    if (!input) return false;
    input.checked = true;
    form.elements.other.value = "";
    input.focus();
    return true;
  }

  form.addEventListener("submit", function () {
    if (!form.elements.time_spent_ms.value) {
      form.elements.time_spent_ms.value = String(Math.max(0, Math.round(performance.now() - shownAt - hiddenMs)));
    }
  });

  // Typing another label clears the chosen option: one label is decided, not two.
  form.elements.other.addEventListener("input", function () {
    if (!form.elements.other.value) return;
    form.querySelectorAll('input[name="option"]').forEach(function (r) { r.checked = false; });
  });

  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.metaKey) return;
    var target = event.target;
    if (typing(target)) {
      if (event.key === "Enter" && (event.ctrlKey || target.tagName === "INPUT")) {
        event.preventDefault();
        decide();
      } else if (event.key === "Escape") {
        target.blur();
      }
      return;
    }
    if (event.ctrlKey) return;
    if (target && (target.tagName === "A" || target.tagName === "BUTTON" || target.tagName === "SUMMARY")) {
      if (event.key === "Enter") return; // the control's own action
    }
    var key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
    if (key === "Enter") {
      event.preventDefault();
      decide();
    } else if (key === "n") {
      event.preventDefault();
      form.elements.note.focus();
    } else if (key === "o") {
      event.preventDefault();
      form.elements.other.focus();
    } else if (/^[a-i]$/.test(key) && choose(key.toUpperCase())) {
      event.preventDefault();
    }
  });
})();
