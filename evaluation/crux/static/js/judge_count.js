// The judging page's item count: options the server refuses (status 400) come back with their
// errors, which replace the count instead of leaving a count of other options on the page.
(function () {
  "use strict";
  document.body.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail.target;
    if (event.detail.xhr.status === 400 && target && target.id === "judge-count") {
      event.detail.shouldSwap = true;
      event.detail.isError = false;
    }
  });
})();
