"""The OpenAPI schema's extensions (loaded from ``ApiConfig.ready``): the Bearer token, and
the job start's body typed per kind from the declared parameters."""

from drf_spectacular.extensions import OpenApiAuthenticationExtension

COMMITTED_SCHEMA = "openapi.json"  # beside this file; tests/api/test_schema.py compares


class BearerTokenScheme(OpenApiAuthenticationExtension):
    target_class = "api.authentication.BearerTokenAuthentication"
    name = "bearerToken"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "A personal API token (account page or `manage.py create_api_token`).",
        }


def typed_job_start(result: dict, generator, request, public) -> dict:
    """A postprocessing hook (after drf-spectacular's enum hook, so the per-kind choices stay
    inline): the job start's body typed per kind from the kinds' declared parameters
    (``oneOf`` keyed by ``kind``), instead of an untyped ``params`` object."""
    from api.job_start import job_start_schema

    schemas = result.get("components", {}).get("schemas", {})
    if "JobStart" in schemas:
        schemas["JobStart"] = job_start_schema()
    return result
