"""Settings read from environment variables, one module per concern. The defaults are safe for
a server (no DEBUG, no built-in secret key, local hosts only); development runs with
DJANGO_DEBUG=1.

``DJANGO_SETTINGS_MODULE`` stays ``crux_app.settings``: this package gathers the modules'
settings. A later module may read an earlier one's (the cache's default follows the broker).
"""

from .annotation import *  # noqa: F403
from .api import *  # noqa: F403
from .caches import *  # noqa: F403
from .environment import *  # noqa: F403
from .jobs import *  # noqa: F403
from .model_backends import *  # noqa: F403
from .operations import *  # noqa: F403
from .project import *  # noqa: F403
from .security import *  # noqa: F403
from .uploads import *  # noqa: F403
from .webhooks import *  # noqa: F403
