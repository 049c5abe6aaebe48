// Live updates for the inbox and question pages (the pages work without
// this script: the inbox refreshes itself, a question page has a link).
// When the server says the files changed, the page reloads, unless the
// person has started filling in its form: then a note says so instead,
// and nothing they typed is lost.
(function () {
  "use strict";
  var url = document.body.getAttribute("data-events");
  if (!url || !window.EventSource) {
    return;
  }
  var form = document.querySelector("form.answer");
  var touched = false;
  if (form) {
    form.addEventListener("input", function () { touched = true; });
    form.addEventListener("change", function () { touched = true; });
    form.addEventListener("submit", function () { touched = true; });
  }
  var events = new EventSource(url);
  events.addEventListener("change", function () {
    if (!touched) {
      window.location.reload();
      return;
    }
    var note = document.getElementById("changed");
    if (note) {
      note.hidden = false;
    }
    events.close();
  });
  window.addEventListener("pagehide", function () { events.close(); });
})();
