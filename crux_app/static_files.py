"""Static files: the storage pages name them through.

``manage.py collectstatic`` (run by scripts/setup.sh and scripts/demo.sh) writes every file to
STATIC_ROOT under a name carrying a hash of its content, with a gzip copy beside it (a brotli one
too where the ``brotli`` package is installed). WhiteNoise then serves those names compressed and
cached for ten years ("immutable"): a changed file gets a new name. Without a collected manifest
(a fresh checkout before setup) pages name the source files, which WhiteNoise serves through the
finders, uncompressed and cached for a minute, instead of failing.
"""

from __future__ import annotations

import logging

from django.contrib.staticfiles.storage import StaticFilesStorage
from whitenoise.storage import CompressedManifestStaticFilesStorage

logger = logging.getLogger(__name__)


class CollectedStaticFilesStorage(CompressedManifestStaticFilesStorage):
    """WhiteNoise's compressed manifest storage that falls back to a file's plain name when
    the file was not collected (no manifest yet, or a file added since the last collectstatic)."""

    manifest_strict = False
    _warned = False

    def url(self, name: str | None, force: bool = False) -> str:
        try:
            return super().url(name, force)
        except ValueError:
            # Not collected: the finders still serve the source file. (WhiteNoise also asks for
            # names that are not files, so only a missing manifest is worth a warning.)
            if not self.hashed_files and not CollectedStaticFilesStorage._warned:
                CollectedStaticFilesStorage._warned = True
                logger.warning(
                    "static files are not collected: run `manage.py collectstatic --noinput` "
                    "so that they are served compressed and cached"
                )
            return StaticFilesStorage.url(self, name)
