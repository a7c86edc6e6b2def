"""``/favicon.ico``: browsers ask for it on every page that names no icon (a 404 otherwise);
it redirects to the static icon that ``templates/base.html`` links."""

from typing import Any

from django.templatetags.static import static
from django.views.generic import RedirectView

ICON = "favicon.ico"


class FaviconView(RedirectView):
    # Not permanent: the static URL may carry a content hash that changes with the file.
    permanent = False

    def get_redirect_url(self, *args: Any, **kwargs: Any) -> str:
        return static(ICON)
