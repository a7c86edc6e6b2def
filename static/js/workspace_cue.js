/* Annotation workspace, passage rating: the change cue. When the item that replaces the one
   on screen has the same topic and sub-question (data-context) but another passage
   (data-passage), the passage flashes and its "New passage" badge shows; a new sub-question
   shows its own badge. Runs on whatever puts the item into #item-slot (prefetch swap, htmx,
   undo). */
(function () {
  "use strict";

  var slot = document.getElementById("item-slot");
  if (!slot) return;
  var before = null; // {context, passage} of the item shown before

  function flash(el) {
    el.classList.remove("ws-flash");
    void el.offsetWidth; // restart the animation
    el.classList.add("ws-flash");
  }

  function mark(item, cue, selector) {
    var badge = item.querySelector('.ws-cue[data-cue="' + cue + '"]');
    if (badge) badge.hidden = false;
    var target = item.querySelector(selector);
    if (target) flash(target);
  }

  function shown() {
    var item = slot.querySelector(".ws-item");
    if (!item || item.dataset.cued) return;
    item.dataset.cued = "1";
    var context = item.dataset.context;
    var last = before;
    before = context ? { context: context, passage: item.dataset.passage } : null;
    if (!context || !last) return;
    if (last.context === context && last.passage !== item.dataset.passage) {
      mark(item, "passage", ".ws-text");
    } else if (last.context !== context) {
      mark(item, "question", ".ws-question");
    }
  }

  new MutationObserver(shown).observe(slot, { childList: true });
  shown();
})();
