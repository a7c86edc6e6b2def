// Job page: a failed import's replacement folder sends its files' relative paths (Django keeps
// only base names), as the upload page does.
(() => {
  const form = document.getElementById("replace-upload-form");
  const folder = document.getElementById("id_replace_folder");
  if (!form || !folder) return;
  form.addEventListener("submit", () => {
    document.getElementById("id_replace_relative_paths").value =
      JSON.stringify(Array.from(folder.files, f => f.webkitRelativePath || f.name));
  });
})();
