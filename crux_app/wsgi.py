"""The WSGI application, warmed at import: the URL conf and every view module are imported here,
not on the first request (they pull in numpy, scipy, pandas and plotly: seconds of imports).
gunicorn's ``--preload`` (scripts/demo.sh) imports this once in the master process, so every
forked web worker starts warm."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "crux_app.settings")
application = get_wsgi_application()


def _warm() -> None:
    """Import the URL conf (and with it every app's views) and build the URL resolver."""
    from django.urls import get_resolver

    get_resolver().url_patterns  # noqa: B018 (imports ROOT_URLCONF and every included urls.py)


_warm()
