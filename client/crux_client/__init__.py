"""Client of the CRUX workbench REST API: ``Client(url, token)``."""

from crux_client.client import Client
from crux_client.errors import ApiError, JobFailed, ParamsRefused

__all__ = ["ApiError", "Client", "JobFailed", "ParamsRefused"]
