// Upload page: show the chosen format's fields, and send a folder's relative paths.
(() => {
  const form = document.getElementById("upload-form");
  const select = document.getElementById("id_format");
  const show = () => {
    const option = select.selectedOptions[0];
    const params = option.dataset.params.trim().split(/\s+/);
    form.querySelectorAll(".param").forEach(el => { el.hidden = !params.includes(el.dataset.name); });
    form.querySelectorAll(".source").forEach(el => { el.hidden = el.dataset.source !== option.dataset.source; });
    form.querySelectorAll(".format-help").forEach(el => { el.hidden = el.dataset.format !== option.value; });
  };
  select.addEventListener("change", show);
  show();
  // Django keeps only base names of uploaded files; the folder layout travels in this field.
  form.addEventListener("submit", () => {
    const files = document.getElementById("id_folder").files;
    document.getElementById("id_relative_paths").value =
      JSON.stringify(Array.from(files, f => f.webkitRelativePath || f.name));
  });
})();
