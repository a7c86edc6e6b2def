/* Annotation workspace: keep what the annotator works on in view. The Submit footer
   (.ws-actions) is sticky at the bottom of the side column (on a phone, of the window), so a
   sub-question or sentence scrolled to the bottom edge would sit under it: nothing may be
   answered or marked unseen. window.workspaceReveal(anchor, box) scrolls the column that holds
   ``anchor`` until ``box`` (its client rectangle, or that of text in it) is clear of the
   column's edges and of the footer (workspaceReveal.scroller(el): the column that scrolls
   ``el``, else the window). Loaded before workspace.js and workspace_spans.js. */
(function () {
  "use strict";

  var MARGIN = 8; // px left free around the revealed box

  /* The nearest ancestor of ``el`` that scrolls (a column of the workspace), else the window
     (the one-column layout on a phone). */
  function scroller(el) {
    for (var node = el.parentElement; node && node !== document.body; node = node.parentElement) {
      var overflow = getComputedStyle(node).overflowY;
      if ((overflow === "auto" || overflow === "scroll") && node.scrollHeight > node.clientHeight) {
        return node;
      }
    }
    return window;
  }

  /* The part of the screen ``area`` shows, less the footer where it overlaps ``box``. */
  function visible(area, anchor, box) {
    var view = area === window ? { top: 0, bottom: window.innerHeight } : area.getBoundingClientRect();
    var top = view.top, bottom = view.bottom;
    var item = anchor.closest(".ws-item");
    var footer = item && item.querySelector(".ws-actions");
    if (footer && !footer.contains(anchor)) {
      var bar = footer.getBoundingClientRect();
      if (bar.left < box.right && bar.right > box.left && bar.top < bottom && bar.bottom > top) {
        bottom = Math.min(bottom, bar.top);
      }
    }
    return { top: top, bottom: bottom };
  }

  window.workspaceReveal = function (anchor, box) {
    if (!anchor || !box) return;
    var area = scroller(anchor);
    var view = visible(area, anchor, box);
    var delta = 0;
    if (box.top - MARGIN < view.top || box.height + 2 * MARGIN > view.bottom - view.top) {
      delta = box.top - MARGIN - view.top; // above, or too tall to fit: its top first
    } else if (box.bottom + MARGIN > view.bottom) {
      delta = box.bottom + MARGIN - view.bottom;
    }
    if (delta) area.scrollBy(0, delta);
  };
  window.workspaceReveal.scroller = scroller;
})();
