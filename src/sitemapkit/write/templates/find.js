(function () {
  var form = document.getElementById("find"), box = document.getElementById("find-q");
  var count = document.getElementById("find-n"), items = document.querySelectorAll("main li");
  var sections = document.querySelectorAll("main section, main nav"), keys = [], timer = 0;
  for (var i = 0; i < items.length; i++) {
    var a = items[i].firstChild;
    keys.push((a.textContent + " " + a.getAttribute("href")).toLowerCase());
  }
  form.hidden = false;
  form.addEventListener("submit", function (e) { e.preventDefault(); });
  box.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(filter, 120); });
  function filter() {
    var words = box.value.toLowerCase().split(/\s+/).filter(Boolean), shown = 0;
    for (var i = 0; i < items.length; i++) {
      var hit = true;
      for (var w = 0; w < words.length && hit; w++) hit = keys[i].indexOf(words[w]) >= 0;
      if (items[i].hidden === hit) items[i].hidden = !hit;
      if (hit) shown++;
    }
    for (var s = 0; s < sections.length; s++) sections[s].hidden = !sections[s].querySelector("li:not([hidden])");
    count.textContent = words.length ? shown + " of " + items.length + " shown" : "";
  }
})();
