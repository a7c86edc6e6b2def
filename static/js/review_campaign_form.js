/* New review campaign form: the live item count (#review-preview, htmx) answers 400 with the
   fields to fix; htmx leaves 4xx answers unswapped by default, so this lets that one through. */
(function () {
  "use strict";

  document.body.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail.target;
    if (target && target.id === "review-preview" && event.detail.xhr.status === 400) {
      event.detail.shouldSwap = true;
      event.detail.isError = false;
    }
  });
})();
