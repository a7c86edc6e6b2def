// Job page: a failed import's replacement folder sends its files' relative paths (Django keeps
// only base names), as the upload page does. Delegated: the form may arrive with the status
// card's last poll (hx-swap-oob), after this script ran.
document.addEventListener("submit", (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || form.id !== "replace-upload-form") return;
  const folder = form.querySelector("#id_replace_folder");
  if (!folder) return;
  form.querySelector("#id_replace_relative_paths").value =
    JSON.stringify(Array.from(folder.files, (f) => f.webkitRelativePath || f.name));
});
