"""The project's own template and static folders: the root ones the settings name and those of
each installed app of this repository (a method keeps its templates and static files beside its
code), so that a check over "every template" or "every static file" misses none of them."""

from pathlib import Path

from django.apps import apps
from django.conf import settings

ROOT = Path(settings.BASE_DIR).resolve()


def project_apps() -> list:
    """The installed apps whose package is a top-level folder of this repository (not a
    library's, which lives under ``.venv``)."""
    found = []
    for config in apps.get_app_configs():
        path = Path(config.path).resolve()
        if (
            path.is_relative_to(ROOT)
            and path.relative_to(ROOT).parts[0] == config.name.split(".")[0]
        ):
            found.append(config)
    return found


def _app_folders(kind: str) -> list[Path]:
    folders = (Path(config.path).resolve() / kind for config in project_apps())
    return [folder for folder in folders if folder.is_dir()]


def template_folders() -> list[Path]:
    """The root template folders (``TEMPLATES[...]["DIRS"]``), then every project app's."""
    roots = [Path(d).resolve() for engine in settings.TEMPLATES for d in engine.get("DIRS", [])]
    return roots + _app_folders("templates")


def static_folders() -> list[Path]:
    """The root static folders (``STATICFILES_DIRS``), then every project app's."""
    return [Path(d).resolve() for d in settings.STATICFILES_DIRS] + _app_folders("static")


def files_in(folders: list[Path], pattern: str = "*") -> list[tuple[str, Path]]:
    """(name as the loader or the finders know it, path) of every file under ``folders``."""
    return [
        (path.relative_to(folder).as_posix(), path)
        for folder in folders
        for path in sorted(folder.rglob(pattern))
        if path.is_file()
    ]
